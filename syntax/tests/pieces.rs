//! A file cut into pieces at kernel lines (`kernel @name` first on its line) parses piece
//! by piece as whole: each piece alone (`parse_part`, with the next kernel's line as
//! look-ahead) gives the file's kernels and syntax errors there, shifted by the piece's
//! start. This is what lets the analysis keep a document as chunks of whole kernels and
//! re-parse only the chunk an edit touched.

mod common;

use syntax::{Context, Parse, parse, parse_part, starts_kernel_line};

/// The kernel lines of `text` after its start.
fn kernel_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line = 0;
    while line < text.len() {
        if line > 0 && starts_kernel_line(text, line) {
            out.push(line);
        }
        line = syntax::line_end(text, line);
    }
    out
}

/// The pieces of `text` cut at `cuts` (kernel lines), parsed alone, as one parse whose
/// ranges are the file's: the `Debug` text of its kernels, then of its errors.
fn joined(text: &str, cuts: &[usize]) -> (String, String) {
    let mut starts = vec![0];
    starts.extend_from_slice(cuts);
    let mut kernels = Vec::new();
    let mut errors = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let with_look_ahead = if end < text.len() {
            syntax::line_end(text, end)
        } else {
            end
        };
        let Parse {
            file, errors: e, ..
        } = parse_part(
            &text[start..with_look_ahead],
            end - start,
            Context::default(),
            &|| (),
        );
        kernels.push(common::shifted(&file.kernels, start));
        errors.push(common::shifted(&e, start));
    }
    (join(&kernels), join(&errors))
}

/// Debug texts of lists joined as one list's.
fn join(parts: &[String]) -> String {
    let inner: Vec<&str> = parts
        .iter()
        .map(|p| &p[1..p.len() - 1])
        .filter(|p| !p.is_empty())
        .collect();
    format!("[{}]", inner.join(", "))
}

#[track_caller]
fn check_pieces(name: &str, text: &str, every: usize) {
    let whole = parse(text);
    if whole.left_out > 0 {
        return; // The cap of 100 errors applies per piece.
    }
    let lines = kernel_lines(text);
    // Every kernel line a cut, and every `every`-th (pieces of several kernels).
    for cuts in [
        lines.clone(),
        lines.iter().copied().step_by(every.max(1)).collect(),
    ] {
        let (kernels, errors) = joined(text, &cuts);
        assert_eq!(
            format!("{:?}", whole.file.kernels),
            kernels,
            "{name}: kernels, cut at {cuts:?}"
        );
        assert_eq!(
            format!("{:?}", whole.errors),
            errors,
            "{name}: errors, cut at {cuts:?}"
        );
    }
}

#[test]
fn corpus_files_parse_the_same_kernel_by_kernel() {
    let mut cut = 0;
    for (name, text) in common::corpus_files() {
        cut += kernel_lines(&text).len();
        check_pieces(&name, &text, 2);
    }
    assert!(cut > 10, "the corpus has files of several kernels");
}

#[test]
fn files_with_errors_parse_the_same_kernel_by_kernel() {
    for (name, text) in [
        (
            "unclosed kernel",
            "kernel @k() {\n  Op1 { a = 1 }\nkernel @j() {\n  Op2 { b = 2 }\n}\n",
        ),
        (
            "unclosed op before a kernel",
            "kernel @k() {\n  Op1 { a = [1, 2\nkernel @j() { Op2 { b = 2 } }\n",
        ),
        (
            "junk between kernels",
            "kernel @k() {\n  Op { a = 1 }\n}\n} junk\n  more junk\nkernel @j() { for %i in 0..N { Op {} } }",
        ),
        (
            "an unnamed kernel's body unclosed",
            "kernel @k() {\n  for %i in 0..4 {\n    Op { a = 1 }\n}\n  Op {}\nkernel @() {\n}\nkernel @l() {}\n",
        ),
        (
            "indented kernel line",
            "kernel @k() {\n  Op { a = (1\n   kernel @j() {}\n",
        ),
        ("only junk", "junk\n\nkernel @k() {}\n} } }\n"),
    ] {
        check_pieces(name, text, 2);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The same on corpus files with a random piece of syntax inserted or removed.
    #[test]
    fn mangled_files_parse_the_same_kernel_by_kernel(
        file in 0usize..64,
        at in 0usize..100_000,
        cut in 0usize..40,
        every in 1usize..4,
        snippet in proptest::sample::select(common::SNIPPETS),
    ) {
        let (name, mangled) = common::mangled_corpus_file(file, at, cut, snippet);
        check_pieces(&name, &mangled, every);
    }
}
