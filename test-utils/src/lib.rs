//! Test helpers shared by every crate of `pir` (a dev-dependency only): fixtures with
//! cursor markers, and the one way to find the corpus of real kernels.
//!
//! The cursor marker is [`CURSOR`], `<|>`, not rust-analyzer's `$0`: `$0` is the IR's own
//! dim variable (SPEC §2), while `|` is no token of the IR, so `<|>` never stands in a
//! fixture for anything else.

use std::path::PathBuf;

use text_size::{TextRange, TextSize};

/// The cursor marker of fixtures.
pub const CURSOR: &str = "<|>";

/// `fixture` without its cursor markers, and the markers' offsets (UTF-8 bytes into the
/// returned text), in order: one for a position, two for a range.
pub fn cursors(fixture: &str) -> (String, Vec<TextSize>) {
    let mut text = String::with_capacity(fixture.len());
    let mut offsets = Vec::new();
    for (i, part) in fixture.split(CURSOR).enumerate() {
        if i > 0 {
            offsets.push(TextSize::of(text.as_str()));
        }
        text.push_str(part);
    }
    (text, offsets)
}

/// `fixture` without its one cursor marker, and the marker's offset (UTF-8 bytes).
///
/// Panics (a broken test) when the fixture has no marker or more than one.
#[track_caller]
pub fn cursor(fixture: &str) -> (String, TextSize) {
    let (text, offsets) = cursors(fixture);
    match offsets[..] {
        [offset] => (text, offset),
        _ => panic!(
            "the fixture needs exactly one {CURSOR} cursor, found {}",
            offsets.len()
        ),
    }
}

/// Every window of `lines` whole lines of `text` (one starting at each line), as byte
/// ranges: what range requests (the visible lines of an editor) are tested with.
pub fn line_windows(text: &str, lines: usize) -> Vec<TextRange> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let size = |o: usize| TextSize::from(u32::try_from(o).unwrap_or(u32::MAX));
    starts
        .iter()
        .enumerate()
        .map(|(k, &from)| {
            let to = starts.get(k + lines).copied().unwrap_or(text.len());
            TextRange::new(size(from), size(to))
        })
        .collect()
}

/// The corpus folder: the shared original (`../shared/corpus` beside the repository)
/// when it exists, else the repository's copy (`tests/corpus`).
pub fn corpus_dir() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = root.join("../shared/corpus");
    if shared.is_dir() {
        shared
    } else {
        root.join("tests/corpus")
    }
}

/// Every corpus file as `(file name, text)`, sorted by name.
pub fn corpus_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "pir"))
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::read_to_string(&path).ok()?))
        })
        .collect();
    files.sort();
    files
}

/// Pieces of syntax the mangling property tests insert into corpus files
/// ([`mangled_corpus_file`]): brackets and bodies left open or closed twice, kernel lines
/// in the middle of a body, statement starts, strings and comments cut short.
pub const SNIPPETS: &[&str] = &[
    "",
    "{",
    "}",
    "Op {",
    "Op #3 {",
    "[",
    "]",
    "(",
    ")",
    " = ",
    "\n",
    ",",
    "kernel @x(",
    "\nkernel @y() {",
    "\nkernel @z() {}\n",
    "for %q in 0..",
    "tensor %",
    "reg %r",
    "\"",
    "x\"",
    "// c\n",
    "}\n}\n",
    "\n  NoOp {\n",
    "$0",
    "\r",
    "\n\r  ",
];

/// Kernels written on long lines, many statements to a line (as a generator or a
/// minifier writes them), for the tests of a document cut inside its lines: a one-line
/// kernel; an indented long line whose loops close on later lines, indented as the line,
/// deeper and less; errors, a block comment and a string on a long line; a kernel that
/// starts on the long line of the one before, whose `}`s are told by that line's
/// indentation. Each with its name.
pub fn long_line_files() -> Vec<(String, String)> {
    let copy = |i: usize| {
        if i % 7 == 3 {
            format!("TensorCopyOp {{ dst = %a, src = %zz{i} }} ")
        } else if i % 11 == 5 {
            "TensorCopyOp { dst = %a, sorc = %a } ".to_string()
        } else {
            "TensorCopyOp { dst = %a, src = %a } ".to_string()
        }
    };
    let ops = |n: usize| -> String { (0..n).map(copy).collect() };
    let head = "kernel @k(%a: sbuf f32[128, 128]) {";
    vec![
        (
            "one-line kernel".into(),
            format!(
                "{head} tensor %t : sbuf f32[128, 4] {}for %i in 0..4 {{ {}}} {}}}\n",
                ops(30),
                ops(10),
                ops(30)
            ),
        ),
        (
            "indented long lines".into(),
            format!(
                "{head}\n  {}for %i in 0..4 {{ {}\n    {}\n  }}\n  {}for %j in 0..2 {{\n      {}\n      }}\n  \
                 {}for %k in 0..2 {{ {}\n}}\n  {}\n}}\n",
                ops(25),
                ops(5),
                ops(20),
                ops(25),
                ops(20),
                ops(25),
                ops(3),
                ops(25)
            ),
        ),
        (
            "a kernel on the line of the one before".into(),
            format!(
                "    {head} {}}} kernel @j(%a: sbuf f32[128, 128]) {{ for %i in 0..2 {{\n  \
                 TensorCopyOp {{ dst = %a, src = %a }}\n  }}\n}}\nTensorCopyOp {{}}\n",
                ops(30)
            ),
        ),
        (
            "comments and strings".into(),
            format!(
                "{head} {}/* }} TensorCopyOp {{}} */ {}TensorCopyOp {{ dst = %a, src = \"}} x\" }} {}\
                 TensorCopyOp {{ dst = [%a }} {}}}\nkernel @j() {{ {}}}\n",
                ops(20),
                ops(20),
                ops(20),
                ops(20),
                ops(20)
            ),
        ),
    ]
}

/// Corpus file number `file` (modulo their count) with the bytes from `at` (modulo its
/// length) to `at + cut` replaced by `snippet`, both ends moved to char boundaries: its
/// name and the mangled text.
pub fn mangled_corpus_file(file: usize, at: usize, cut: usize, snippet: &str) -> (String, String) {
    let files = corpus_files();
    let (name, text) = &files[file % files.len()];
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + cut).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (
        name.clone(),
        format!("{}{snippet}{}", &text[..at], &text[end..]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_markers_never_clash_with_dim_variables() {
        let (text, at) = cursor("P { p = $0 >= <|>1 }");
        assert_eq!(text, "P { p = $0 >= 1 }");
        assert_eq!(at, TextSize::from(14));
        let (text, range) = cursors("a <|>bc<|> d");
        assert_eq!(text, "a bc d");
        assert_eq!(range, [TextSize::from(2), TextSize::from(4)]);
    }

    #[test]
    fn the_corpus_is_found() {
        let files = corpus_files();
        assert!(
            files.iter().any(|(name, _)| name == "rmsnorm.pir"),
            "{files:?}"
        );
    }
}
