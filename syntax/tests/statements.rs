//! The flat statement list (`parse_statements`) reads the same piece by piece as whole:
//! split a file at any statement start, read each piece alone with the number of bodies
//! open there, shift its ranges by the piece's start, and the statements and errors are
//! those of the whole file. This is what lets an edit re-read only the statements it
//! touched.

mod common;

use common::shifted;
use syntax::{FlatStmt, SyntaxError, parse_statements};

fn start_of(statement: &FlatStmt) -> usize {
    let range = match statement {
        FlatStmt::Kernel(k) => k.range,
        FlatStmt::Loop(l) => l.range,
        FlatStmt::Close(r) => *r,
        FlatStmt::Stmt(s) => s.range(),
    };
    usize::from(range.start())
}

/// The end of the look-ahead after byte `at`: the line that holds the next token and, if
/// that line has only one token, the next one too.
fn look_ahead(text: &str, at: usize) -> usize {
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i + 1);
    let first = line_end(at);
    let tokens = syntax::lex(&text[at..first])
        .0
        .iter()
        .filter(|(kind, _)| !matches!(kind, syntax::Token::Newline | syntax::Token::Comment))
        .count();
    if tokens >= 2 { first } else { line_end(first) }
}

/// Splits `text` at every statement start of its flat list and at every line that
/// `statement_lines` says starts a statement, and checks both halves read as in the whole.
#[track_caller]
fn check_pieces(name: &str, text: &str) {
    let (whole, whole_errors) = parse_statements(text, text.len());
    let starts: Vec<usize> = whole.iter().map(start_of).collect();
    let lines = syntax::statement_lines(text);
    for &line in &lines {
        // A statement line is where a statement of the whole file starts.
        let k = starts.partition_point(|&s| s < line);
        assert!(
            starts
                .get(k)
                .is_some_and(|&s| text[line..s].trim().is_empty()),
            "{name}: the line at byte {line} starts no statement of the file"
        );
    }
    let splits = starts
        .iter()
        .skip(1)
        .copied()
        .chain(lines.iter().copied().filter(|&l| l > 0));
    for split in splits {
        let k = starts.partition_point(|&s| s < split);
        let (before, before_errors) = parse_statements(&text[..look_ahead(text, split)], split);
        let rest = &text[split..];
        let (after, after_errors) = parse_statements(rest, rest.len());
        assert_eq!(
            format!("{:?}", &whole[..k]),
            format!("{before:?}"),
            "{name}: statements before byte {split}"
        );
        assert_eq!(
            format!("{:?}", &whole[k..]),
            shifted(&after, split),
            "{name}: statements from byte {split}"
        );
        let errors: Vec<&SyntaxError> = whole_errors.iter().collect();
        let first_token = split + rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let (errors_before, errors_after) = errors
            .split_at(errors.partition_point(|e| usize::from(e.range.start()) <= first_token));
        assert_eq!(
            format!("{errors_before:?}"),
            format!("{:?}", before_errors.iter().collect::<Vec<_>>()),
            "{name}: errors before byte {split}"
        );
        assert_eq!(
            format!("{errors_after:?}"),
            shifted(&after_errors.iter().collect::<Vec<_>>(), split),
            "{name}: errors from byte {split}"
        );
    }
}

#[test]
fn corpus_files_read_the_same_piece_by_piece() {
    for (name, text) in common::corpus_files() {
        check_pieces(&name, &text);
    }
}

#[test]
fn files_with_errors_read_the_same_piece_by_piece() {
    for (name, text) in [
        (
            "unclosed op",
            "kernel @k() {\n  Op1 { a = 1\n  Op2 #2 { b = 2 }\n  tensor %t : sbuf f32[1]\n}",
        ),
        (
            "junk",
            "kernel @k() {\n  tensor %t : sbuf f32[1]\n  foo bar 12 = ]\n  Op { a = 1 }\n}\n} junk\nkernel @j() { for %i in 0..N { Op {} } }",
        ),
        (
            "bad loops",
            "kernel @k() {\n  for %i in 0..N {\n    Op { a = 1 }\n  }\n  for %j 0..4 { }\n  for in 0..4 step { }\n  for %k in 0..4 Op { a = 1 }\n}",
        ),
        (
            "unclosed bracket",
            "kernel @k() {\n  Op { dst = %t[0:4\n    src = %u }\n  Next {}\n}",
        ),
    ] {
        check_pieces(name, text);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The same on corpus files with a random piece of syntax inserted or removed.
    #[test]
    fn mangled_files_read_the_same_piece_by_piece(
        file in 0usize..64,
        at in 0usize..100_000,
        cut in 0usize..40,
        snippet in proptest::sample::select(common::SNIPPETS),
    ) {
        let (name, mangled) = common::mangled_corpus_file(file, at, cut, snippet);
        check_pieces(&name, &mangled);
    }
}
