//! A chunk read piece by piece parses as whole: cut at statement lines (`piece_starts`,
//! or any statement lines at all), each piece read alone (`read_statements`, with its
//! look-ahead), shifted and joined (`read_in_pieces`), then nested (`assemble_part`), gives
//! the tree and errors of `parse_part` on the whole. This is what lets the analysis re-read
//! only the pieces of an edited chunk that the edit touched.

mod common;

use syntax::{Context, assemble_part, parse_part, piece_starts, read_in_pieces, read_statements};

/// `text[..end]` parsed whole and piece by piece at `starts`, as `Debug` texts.
fn both(text: &str, end: usize, starts: &[usize]) -> (String, String) {
    let whole = parse_part(text, end, Context::default(), &|| ());
    let read = read_in_pieces(text, end, starts, &mut |piece, piece_end| {
        read_statements(piece, piece_end, &|| ())
    });
    let pieces = assemble_part(text, end, Context::default(), read);
    (format!("{whole:#?}"), format!("{pieces:#?}"))
}

#[track_caller]
fn check(name: &str, text: &str, every: usize) {
    // The whole text, and its first half as a piece with look-ahead (a chunk ending at a
    // kernel line, or anywhere at all: the reader must agree with `parse_part` either way).
    let kernel_end = (1..text.len())
        .filter(|&i| text.as_bytes()[i - 1] == b'\n' && syntax::starts_kernel_line(text, i))
        .nth(1)
        .unwrap_or(text.len());
    for end in [text.len(), kernel_end] {
        let content = piece_starts(text, end);
        let (whole, pieces) = both(text, end, &content);
        assert!(
            whole == pieces,
            "{name} (end {end}, content-defined cuts {content:?}):\n{}",
            diff(&whole, &pieces)
        );
        let all: Vec<usize> = syntax::statement_lines(&text[..end])
            .into_iter()
            .step_by(every)
            .collect();
        let (whole, pieces) = both(text, end, &all);
        assert!(
            whole == pieces,
            "{name} (end {end}, every {every} statement lines):\n{}",
            diff(&whole, &pieces)
        );
    }
}

/// The first differing line of two texts, with its neighbours.
fn diff(a: &str, b: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(5);
    format!(
        "whole:\n{}\npieces:\n{}",
        a[from..(at + 5).min(a.len())].join("\n"),
        b[from..(at + 5).min(b.len())].join("\n")
    )
}

#[test]
fn corpus_files_read_the_same_in_pieces() {
    for (name, text) in common::corpus_files() {
        for every in [1, 3] {
            check(&name, &text, every);
        }
    }
}

#[test]
fn content_defined_cuts_stay_where_an_edit_is_not() {
    let text: String = common::corpus_files().into_iter().map(|(_, t)| t).collect();
    let cuts = piece_starts(&text, text.len());
    assert!(cuts.len() > 10, "{} cuts", cuts.len());
    // An op line inserted at the start moves every cut by its length, and adds none after
    // its own line.
    let inserted = "  NoOp {}\n";
    let at = syntax::line_end(&text, 0);
    let edited = format!("{}{inserted}{}", &text[..at], &text[at..]);
    let moved: Vec<usize> = piece_starts(&edited, edited.len())
        .into_iter()
        .filter(|&c| c > at + inserted.len())
        .map(|c| c - inserted.len())
        .collect();
    let after: Vec<usize> = cuts.into_iter().filter(|&c| c > at).collect();
    assert_eq!(moved, after);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The same on corpus files with a random piece of syntax inserted or removed.
    #[test]
    fn mangled_files_read_the_same_in_pieces(
        file in 0usize..64,
        at in 0usize..100_000,
        cut in 0usize..40,
        every in 1usize..4,
        snippet in proptest::sample::select(common::SNIPPETS),
    ) {
        let (name, mangled) = common::mangled_corpus_file(file, at, cut, snippet);
        check(&name, &mangled, every);
    }
}

/// Statements written on one line, some of them broken, as a long line is made of.
const ON_ONE_LINE: &[&str] = &[
    "TensorCopyOp { dst = %b, src = %a }",
    "TensorCopyOp { dst = %b, src = %a }",
    "ActivationOp { dst = %b[0:64, :], src = %a[0:64, :], func = exp }",
    "MatMultOp #7 { dst = %p, stationary = %a, moving = %b }",
    "tensor %c : sbuf f32[128, 512]",
    "reg %r",
    "for %i in 0..4 {",
    "}",
    "TensorCopyOp { dst = %b, src = ",
    "Op { a = { x = 1 } ",
    "Op { s = \"} Op { t = 1 }\" }",
    "( Op { } )",
    "Op { a = (x) { b } }",
    "Op { a = [1, 2 }",
    "{",
    "]",
    "= %x",
    "kernel @k2() {",
    "/* } Op { } */",
    "\n",
    "\n  NoOp {}\n",
];

/// Every token of `text` that starts a statement (as the layout tells one), on any line.
fn statement_tokens(text: &str) -> Vec<usize> {
    use syntax::Token;
    let (tokens, _) = syntax::lex(text);
    let significant: Vec<_> = tokens
        .into_iter()
        .filter(|(kind, _)| !matches!(kind, Token::Comment | Token::Newline))
        .collect();
    significant
        .windows(2)
        .filter(|w| match (w[0].0, w[1].0) {
            (Token::Tensor | Token::For, Token::Local) | (Token::Kernel, Token::Global) => true,
            (Token::Ident, Token::LBrace | Token::OpId) => true,
            (Token::Ident, Token::Local) => &text[w[0].1] == "reg",
            _ => false,
        })
        .map(|w| usize::from(w[0].1.start()))
        .collect()
}

#[test]
fn a_long_line_is_cut_inside_at_op_starts() {
    let ops: String = (0..2_000)
        .map(|i| format!("TensorCopyOp {{ dst = %b, src = %a{i} }} "))
        .collect();
    let text = format!("kernel @k() {{ {ops}}}\n");
    let starts = piece_starts(&text, text.len());
    // About one op in 32, each right after a `}`.
    assert!((30..130).contains(&starts.len()), "{} cuts", starts.len());
    assert!(starts.iter().all(|&s| text[..s].ends_with("} ")));
    let (whole, pieces) = both(&text, text.len(), &starts);
    assert!(whole == pieces, "{}", diff(&whole, &pieces));
    // And a piece's look-ahead is a few tokens, not the rest of the line.
    assert!(syntax::look_ahead_end(&text, starts[0]) - starts[0] < 200);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A long line of statements, some broken, reads the same cut at its content-defined
    /// starts, at every statement start of it, and at every other one: a cut inside a line
    /// is kept only where the file reads a statement.
    #[test]
    fn long_lines_read_the_same_in_pieces(
        picks in proptest::collection::vec(0usize..ON_ONE_LINE.len() * 4, 150..400),
    ) {
        let mut text = String::from("kernel @k(%a: hbm f32[128, 512]) { ");
        for pick in picks {
            // Mostly whole ops, as real long lines are.
            text.push_str(ON_ONE_LINE.get(pick).copied().unwrap_or(ON_ONE_LINE[0]));
            text.push(' ');
        }
        text.push_str("}\n");
        let all = statement_tokens(&text);
        let every_other: Vec<usize> = all.iter().copied().step_by(2).collect();
        for (how, starts) in [
            ("content-defined", piece_starts(&text, text.len())),
            ("every statement", all.clone()),
            ("every other statement", every_other),
        ] {
            let (whole, pieces) = both(&text, text.len(), &starts);
            proptest::prop_assert!(whole == pieces, "{how}:\n{}\n{text}", diff(&whole, &pieces));
        }
    }
}
