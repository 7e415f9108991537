//! A file cut into parts by `syntax::cuts` (at kernel lines, and inside big kernels at
//! statement lines directly in their bodies) parses part by part as whole: each part alone
//! (`parse_part` in its context: starting inside a kernel, going on into the next part)
//! gives the file's kernels and syntax errors there, a kernel cut into parts joined from
//! its first part (with the header) and the parts that continue it. And a run of the parts
//! cut again in its context keeps its ends: what lets the analysis re-cut only the parts
//! an edit touched.

mod common;

use syntax::{Context, Kernel, Parse, Shift, TextSize, cuts, parse, parse_part};

fn shift_kernel(kernel: &mut Kernel, by: TextSize) {
    kernel.range.shift(by);
    kernel.name.shift(by);
    for p in kernel.params.iter_mut().chain(&mut kernel.outputs) {
        p.shift(by);
    }
    kernel.body.shift(by);
    kernel.body_range.shift(by);
}

/// Where a part of `text` ending at `end` ends with its look-ahead: the next part's first
/// line, if there is one.
fn with_look_ahead(text: &str, end: usize) -> usize {
    if end < text.len() {
        syntax::line_end(text, end)
    } else {
        end
    }
}

/// The parts of `text` starting at `parts`, parsed alone, joined: kernels and errors.
fn joined(text: &str, parts: &[(usize, bool)]) -> (Vec<Kernel>, Vec<syntax::SyntaxError>) {
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut errors = Vec::new();
    for (i, &(start, inside)) in parts.iter().enumerate() {
        let (end, goes_on) = parts
            .get(i + 1)
            .map_or((text.len(), false), |&(next, inside)| (next, inside));
        let with_look_ahead = with_look_ahead(text, end);
        let Parse {
            file, errors: e, ..
        } = parse_part(
            &text[start..with_look_ahead],
            end - start,
            Context { inside, goes_on },
            &|| (),
        );
        let by = TextSize::from(start as u32);
        for mut kernel in file.kernels {
            shift_kernel(&mut kernel, by);
            if kernel.continues {
                let first = kernels.last_mut().expect("a kernel to continue");
                assert!(first.goes_on, "a part continues a kernel that goes on");
                first.body.append(&mut kernel.body);
                first.range = first.range.cover(kernel.range);
                first.body_range = Some(first.body_range.unwrap().cover(kernel.range));
                first.goes_on = kernel.goes_on;
            } else {
                kernels.push(kernel);
            }
        }
        for mut error in e {
            error.shift(by);
            errors.push(error);
        }
    }
    // A part's errors at its look-ahead's first token (the next part's start) come before
    // the next part's own there: in source order, as the whole file's (and the document's
    // diagnostics, sorted) are.
    errors.sort_by_key(|e| e.range.start());
    (kernels, errors)
}

#[track_caller]
fn check_parts(name: &str, text: &str) {
    let whole = parse(text);
    if whole.left_out > 0 {
        return; // The cap of 100 errors applies per part.
    }
    for (target, split) in [(1, 1), (1, 64), (40, 200), (200, 400)] {
        let cut = cuts(text, text.len(), Context::default(), target, split);
        assert!(cut.entry_kept, "{name}: a whole text has no kernel to keep");
        // A big text's statements are read in pieces: the cuts are the same.
        for piece in [1, 5, 60, 700] {
            let in_pieces = syntax::cuts_read(
                text,
                text.len(),
                Context::default(),
                target,
                split,
                &mut syntax::StatementReader::OnEveryCore(piece),
            );
            assert_eq!(cut, in_pieces, "{name}: read in pieces of {piece} bytes");
        }
        // And in the pieces an editor's analysis memoizes, handed to it.
        let mut read = |piece: &str, end: usize| -> &'static syntax::Statements {
            Box::leak(Box::new(syntax::read_statements(piece, end, &|| ())))
        };
        let handed = syntax::cuts_read(
            text,
            text.len(),
            Context::default(),
            target,
            split,
            &mut syntax::StatementReader::Pieces(&mut read),
        );
        assert_eq!(cut, handed, "{name}: read in handed pieces");
        // A middle part holds one kernel's body, neither starting nor ending it.
        for (i, &(start, inside)) in cut.parts.iter().enumerate() {
            let (end, goes_on) = cut
                .parts
                .get(i + 1)
                .map_or((text.len(), false), |&(e, i)| (e, i));
            let look = with_look_ahead(text, end);
            let parse = parse_part(
                &text[start..look],
                end - start,
                Context { inside, goes_on },
                &|| (),
            );
            let middle = matches!(parse.file.kernels.as_slice(), [k] if k.continues && k.goes_on);
            assert_eq!(
                cut.through[i], middle,
                "{name}: part {i} at {start}, cut {target}/{split}"
            );
        }
        let (kernels, errors) = joined(text, &cut.parts);
        assert_eq!(
            format!("{:#?}", whole.file.kernels),
            format!("{kernels:#?}"),
            "{name}: kernels, cut {target}/{split} at {:?}",
            cut.parts
        );
        assert_eq!(
            format!("{:#?}", whole.errors),
            format!("{errors:#?}"),
            "{name}: errors, cut {target}/{split} at {:?}",
            cut.parts
        );
        // Every run of parts, cut again in its context, fits its ends.
        let parts = &cut.parts;
        for i in 0..parts.len() {
            for j in i..parts.len().min(i + 3) {
                let start = parts[i].0;
                let end = parts.get(j + 1).map_or(text.len(), |p| p.0);
                let goes_on = parts.get(j + 1).is_some_and(|p| p.1);
                let context = Context {
                    inside: parts[i].1,
                    goes_on,
                };
                let look_ahead = with_look_ahead(text, end);
                let again = cuts(
                    &text[start..look_ahead],
                    end - start,
                    context,
                    target,
                    split,
                );
                assert!(
                    again.entry_kept && (!goes_on || again.ends_inside),
                    "{name}: parts {i}..={j} ({start}..{end}, {context:?}) cut again: {again:?}"
                );
            }
        }
    }
}

#[test]
fn corpus_files_parse_the_same_part_by_part() {
    let mut inside = 0;
    for (name, text) in common::corpus_files() {
        inside += cuts(&text, text.len(), Context::default(), 1, 1)
            .parts
            .iter()
            .filter(|p| p.1)
            .count();
        check_parts(&name, &text);
    }
    assert!(inside > 100, "kernels are cut inside: {inside}");
}

#[test]
fn a_kernel_cut_short_or_left_open_is_not_cut_inside() {
    for text in [
        "kernel @k() {\n  Op1 { a = 1 }\n  Op2 {}\nkernel @j() {\n  Op2 { b = 2 }\n}\n",
        "kernel @k() {\n  Op1 { a = 1 }\n  Op2 {}\n",
        "kernel @k() {\n  for %i in 0..4 {\n    Op { a = 1 }\n}\n  Op {}\n  Op {}\n",
    ] {
        let cut = cuts(text, text.len(), Context::default(), 1, 1);
        // `@k` is not cut inside (`@j`, closed, is).
        let j = text.find("kernel @j").unwrap_or(text.len());
        assert!(
            cut.parts.iter().all(|p| !p.1 || p.0 > j),
            "{text:?}: {cut:?}"
        );
        check_parts(text, text);
    }
    // Inside a loop, never.
    let text = "kernel @k() {\n  A {}\n  for %i in 0..4 {\n    B {}\n    C {}\n  }\n  D {}\n}\n";
    let starts: Vec<usize> = cuts(text, text.len(), Context::default(), 1, 1)
        .parts
        .iter()
        .map(|p| p.0)
        .collect();
    let lines: Vec<&str> = starts
        .iter()
        .map(|&s| text[s..].lines().next().unwrap().trim())
        .collect();
    assert_eq!(lines, ["kernel @k() {", "A {}", "for %i in 0..4 {", "D {}"]);
}

#[test]
fn files_with_errors_parse_the_same_part_by_part() {
    for (name, text) in [
        (
            "unclosed op",
            "kernel @k() {\n  Op1 { a = [1, 2\n  Op2 { b = 2 }\n  Op3 {}\n}\n",
        ),
        (
            "under-indented close",
            "kernel @k() {\n  for %i in 0..4 {\n    Op { a = 1 }\n  Op {}\n}\n  Op {}\n}\n",
        ),
        (
            "junk after",
            "kernel @k() {\n  Op { a = 1 }\n  Op {}\n}\n} junk\n  more junk\nkernel @j() { Op {} }",
        ),
    ] {
        check_parts(name, text);
    }
}

/// A text read in pieces cut at any byte, also inside a character, cuts the same (the
/// piece boundaries move to the next statement line).
#[test]
fn pieces_cut_inside_characters() {
    let mut text = String::from("kernel @k(%a: sbuf f32[128, 128]) {\n");
    for i in 0..60 {
        text.push_str(&format!(
            "  // § é — {i}\n  TensorCopyOp {{ // §§§§§§§§§§ ünï\n    dst = %a, src = %a }}\n"
        ));
    }
    text.push_str("}\n");
    let whole = cuts(&text, text.len(), Context::default(), 40, 200);
    for piece in 1..40 {
        let read = syntax::cuts_read(
            &text,
            text.len(),
            Context::default(),
            40,
            200,
            &mut syntax::StatementReader::OnEveryCore(piece),
        );
        assert_eq!(whole, read, "pieces of {piece} bytes");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The same on corpus files with a random piece of syntax inserted or removed.
    #[test]
    fn mangled_files_parse_the_same_part_by_part(
        file in 0usize..64,
        at in 0usize..100_000,
        cut in 0usize..40,
        snippet in proptest::sample::select(common::SNIPPETS),
    ) {
        let (name, mangled) = common::mangled_corpus_file(file, at, cut, snippet);
        check_parts(&name, &mangled);
    }
}
