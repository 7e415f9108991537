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
