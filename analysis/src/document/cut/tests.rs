//! A file cut into parts by [`cuts`] parses part by part as whole: each part alone
//! (`parse_part` in its context) gives the file's kernels and syntax errors there; and a run
//! of the parts cut again in its context keeps its ends, what lets the analysis re-cut only
//! the parts an edit touched.

use super::{PartStart, StatementReader, cuts, cuts_read, look_ahead};
use syntax::{Context, Kernel, Parse, Shift, TextSize, parse, parse_part};

fn shift_kernel(kernel: &mut Kernel, by: TextSize) {
    kernel.range.shift(by);
    kernel.name.shift(by);
    for p in kernel.params.iter_mut().chain(&mut kernel.outputs) {
        p.shift(by);
    }
    kernel.body.shift(by);
    kernel.body_range.shift(by);
}

/// The part `parts[i]` of `text` parsed alone, with the look-ahead a document gives it
/// (the next part's start, [`look_ahead`]) and its context.
fn parse_part_of(text: &str, parts: &[PartStart], i: usize) -> Parse {
    let part = parts[i];
    let next = parts.get(i + 1);
    let end = next.map_or(text.len(), |p| p.at);
    let mut read = text[part.at..end].to_string();
    read.push_str(&look_ahead(&text[end..]));
    let context = Context {
        inside: part.inside,
        goes_on: next.is_some_and(|p| p.inside),
        line_indent: part.line_indent,
    };
    parse_part(&read, end - part.at, context, &|| ())
}

/// The parts of `text` starting at `parts`, parsed alone, joined: kernels and errors.
fn joined(text: &str, parts: &[PartStart]) -> (Vec<Kernel>, Vec<syntax::SyntaxError>) {
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut errors = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Parse {
            file, errors: e, ..
        } = parse_part_of(text, parts, i);
        let by = TextSize::from(part.at as u32);
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
            let in_pieces = cuts_read(
                text,
                text.len(),
                Context::default(),
                target,
                split,
                &mut StatementReader::OnEveryCore(piece),
            );
            assert_eq!(cut, in_pieces, "{name}: read in pieces of {piece} bytes");
        }
        // And in the pieces an editor's analysis memoizes, handed to it.
        let mut read = |piece: &str, end: usize| -> &'static syntax::Statements {
            Box::leak(Box::new(syntax::read_statements(piece, end, &|| ())))
        };
        let handed = cuts_read(
            text,
            text.len(),
            Context::default(),
            target,
            split,
            &mut StatementReader::Pieces(&mut read),
        );
        assert_eq!(cut, handed, "{name}: read in handed pieces");
        // A middle part holds one kernel's body, neither starting nor ending it.
        for (i, part) in cut.parts.iter().enumerate() {
            let start = part.at;
            let parse = parse_part_of(text, &cut.parts, i);
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
        // Every run of parts, cut again in its context, fits its ends, or (its ends
        // leaving a `}` one too many undecided, `syntax::Closes`) the run of the whole
        // kernels it touches does, as `Document::edit` then re-cuts.
        let parts = &cut.parts;
        let again = |i: usize, j: usize| {
            let start = parts[i].at;
            let next = parts.get(j + 1);
            let end = next.map_or(text.len(), |p| p.at);
            let goes_on = next.is_some_and(|p| p.inside);
            let context = Context {
                inside: parts[i].inside,
                goes_on,
                line_indent: parts[i].line_indent,
            };
            let mut run = text[start..end].to_string();
            run.push_str(&look_ahead(&text[end..]));
            let again = cuts(&run, end - start, context, target, split);
            let mid_line = next.is_some_and(|p| p.line_indent.is_some());
            let fits = again.entry_kept
                && (!goes_on || again.ends_inside)
                && (!mid_line || again.ends_between);
            (fits, format!("{start}..{end}, {context:?}: {again:?}"))
        };
        for i in 0..parts.len() {
            for j in i..parts.len().min(i + 3) {
                if again(i, j).0 {
                    continue;
                }
                let head = (0..=i).rev().find(|&h| !parts[h].inside).unwrap_or(0);
                let tail = (j..parts.len())
                    .find(|&t| parts.get(t + 1).is_none_or(|p| !p.inside))
                    .unwrap_or(j);
                let (fits, why) = again(head, tail);
                assert!(
                    fits,
                    "{name}: parts {i}..={j} as whole kernels {head}..={tail}, cut again: {why}"
                );
            }
        }
    }
}

#[test]
fn corpus_files_parse_the_same_part_by_part() {
    let mut inside = 0;
    for (name, text) in test_utils::corpus_files() {
        inside += cuts(&text, text.len(), Context::default(), 1, 1)
            .parts
            .iter()
            .filter(|p| p.inside)
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
            cut.parts.iter().all(|p| !p.inside || p.at > j),
            "{text:?}: {cut:?}"
        );
        check_parts(text, text);
    }
    // Inside a loop, never.
    let text = "kernel @k() {\n  A {}\n  for %i in 0..4 {\n    B {}\n    C {}\n  }\n  D {}\n}\n";
    let starts: Vec<usize> = cuts(text, text.len(), Context::default(), 1, 1)
        .parts
        .iter()
        .map(|p| p.at)
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
            "stray close",
            "kernel @k() {\n  Op1 {}\n  }\n  Op2 {}\n  Op3 {}\n}\nkernel @j() { Op {} }",
        ),
        (
            "junk after",
            "kernel @k() {\n  Op { a = 1 }\n  Op {}\n}\n} junk\n  more junk\nkernel @j() { Op {} }",
        ),
    ] {
        check_parts(name, text);
    }
}

/// A long line is cut inside, at statements after a `}`, each part knowing its line's
/// indentation, and parses part by part as whole; so does the text mangled anywhere.
#[test]
fn long_lines_are_cut_inside_after_a_close() {
    for (name, text) in test_utils::long_line_files() {
        let cut = cuts(&text, text.len(), Context::default(), 40, 200);
        let inside_lines = cut.parts.iter().filter(|p| p.line_indent.is_some()).count();
        assert!(inside_lines > 5, "{name}: {cut:?}");
        for part in &cut.parts {
            if part.line_indent.is_some() {
                let before = text[..part.at].trim_end_matches(' ');
                assert!(before.ends_with('}'), "{name}: a part at {}", part.at);
            }
        }
        check_parts(&name, &text);
        // Forty snippets, each at a place of its own (a fixed stride through the text).
        let snippets = test_utils::SNIPPETS;
        for k in 0..40 {
            let mut at = (k * 7919) % text.len();
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let snippet = snippets[k % snippets.len()];
            let mangled = format!("{}{snippet}{}", &text[..at], &text[at..]);
            check_parts(&format!("{name} + {snippet:?} at {at}"), &mangled);
        }
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
        let read = cuts_read(
            &text,
            text.len(),
            Context::default(),
            40,
            200,
            &mut StatementReader::OnEveryCore(piece),
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
        snippet in proptest::sample::select(test_utils::SNIPPETS),
    ) {
        let (name, mangled) = test_utils::mangled_corpus_file(file, at, cut, snippet);
        check_parts(&name, &mangled);
    }
}
