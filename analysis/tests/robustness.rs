//! Bad input never panics: every query and IDE feature over mangled real kernels, and
//! hand-picked hostile files (SPEC §7: "every error is a diagnostic").

use analysis::{AnalysisHost, RootDatabase, SourceFile, TextSize};
use proptest::prelude::*;

fn corpus() -> Vec<String> {
    test_utils::corpus_files()
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

/// Runs everything the CLI and the server can ask of a file, through the façade, with the
/// file whole and cut into chunks of single kernels.
fn exercise(text: &str) {
    exercise_in(AnalysisHost::new(), text);
    exercise_in(AnalysisHost::new().with_chunk_target(1), text);
}

fn exercise_in(mut host: AnalysisHost, text: &str) {
    let file = host.add_file(text);
    let analysis = host.snapshot();
    let diagnostics = analysis.diagnostics(file).unwrap();
    for d in diagnostics {
        assert!(usize::from(d.range.end()) <= text.len(), "{d:?}");
        assert!(
            text.is_char_boundary(usize::from(d.range.start()))
                && text.is_char_boundary(usize::from(d.range.end())),
            "{d:?}"
        );
    }
    let bir = analysis.file_bir(file).unwrap();
    assert!(serde_json::to_string(&bir).is_ok());
    let _ = analysis.inlay_hints(file, None).unwrap();
    let _ = analysis.semantic_tokens(file, None).unwrap();
    let _ = analysis.document_symbols(file).unwrap();
    let _ = analysis.folding_ranges(file).unwrap();
    let _ = analysis::ide::format(text);
    let len = text.len();
    let step = (len / 40).max(1);
    for offset in (0..=len)
        .step_by(step)
        .filter(|o| text.is_char_boundary(*o))
    {
        let at = TextSize::from(offset as u32);
        let _ = analysis.hover(file, at).unwrap();
        let _ = analysis.completions(file, at).unwrap();
        let _ = analysis.show_bir(file, Some(at)).unwrap();
        let _ = analysis.selection_ranges(file, at).unwrap();
        let _ = analysis.references(file, at, true).unwrap();
        let _ = analysis.rename(file, at, "renamed").unwrap();
        let _ = analysis
            .fixes(file, analysis::TextRange::empty(at))
            .unwrap();
    }
}

const SNIPPETS: &[&str] = &[
    "%t",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ",",
    "\n",
    "=",
    ":",
    "0:",
    "..",
    "-",
    "*",
    "#1",
    "$0 >= 1",
    "1e309",
    "-inf",
    "nan",
    "99999999999999999999",
    "0x",
    "\"",
    "x\"zz\"",
    "MatMulOp",
    "TensorScalarPtrOp",
    "perf_mode = double_row",
    "reg",
    "tensor %z : sbuf f32[0]",
    "for %q in 0..0 {",
    "%i*%i",
    "[[[[",
    "step 0",
    "kernel @k() {",
    "// c",
    "🦀",
    "\r\n",
    "\0",
    "sbuf",
    "psum f32[129, 100000]",
    "= [1, 2, 3]",
    "{ a = 1 }",
    "full(%x)",
    "-9223372036854775808",
    "9223372036854775807",
];

/// A corpus file with up to eight edits: deletions and insertions of hostile snippets.
fn mangled() -> impl Strategy<Value = String> {
    let files = corpus();
    (
        0..files.len(),
        proptest::collection::vec(
            (0usize..10_000, 0usize..40, 0..SNIPPETS.len(), any::<bool>()),
            1..8,
        ),
    )
        .prop_map(move |(i, edits)| {
            let mut text = files[i].clone();
            for (at, len, snippet, delete) in edits {
                let mut at = at % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                if delete {
                    let mut end = (at + len).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(at..end, "");
                } else {
                    text.insert_str(at, SNIPPETS[snippet]);
                }
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mangled_kernels_never_panic(text in mangled()) {
        exercise(&text);
    }
}

#[test]
fn every_corpus_file_truncated_anywhere() {
    for text in corpus() {
        let step = (text.len() / 30).max(1);
        for cut in (0..text.len())
            .step_by(step)
            .filter(|c| text.is_char_boundary(*c))
        {
            let db = RootDatabase::default();
            let file = SourceFile::new(&db, text[..cut].to_string());
            let _ = analysis::diagnostics(&db, file);
            let _ = analysis::file_bir(&db, file);
        }
    }
}

#[test]
fn an_op_with_every_field_wrong() {
    let text = "kernel @k(%x: hbm f32[128, 512]) {\n  tensor %p : psum f32[128, 512]\n  MatMulOp #1 {\n    dst = 3\n    stationary = \"w\"\n    moving = true\n    isTranspose = 1\n    perf_mode = triple_row\n    pe_tile_size = [7]\n    pe_tile_position = %x\n    num_active_partitions = 1.5\n    is_accumulate = maybe\n    bogus = %nope\n    dst = %p\n  }\n}\n";
    exercise(text);
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let codes: Vec<&str> = analysis::diagnostics(&db, file)
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    // Each wrong field gives its one diagnostic; the op still lowers.
    for code in ["P206", "P207", "P203", "P205", "P200"] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
    let bir = analysis::file_bir(&db, file);
    assert_eq!(
        bir["functions"][0]["blocks"][0]["instructions"][0]["opcode"],
        "Matmult"
    );
}

#[test]
fn hostile_whole_files() {
    let mut garbage = String::new();
    for i in 0..200_000u32 {
        garbage.push(char::from_u32(0x20 + (i * 7919) % 0x5f).unwrap_or('?'));
        if i % 997 == 0 {
            garbage.push('\u{FFFD}');
        }
    }
    let long_line = format!(
        "kernel @k(%x: hbm f32[4]) {{ NoOp {{ {} }} }}",
        "a = 1, ".repeat(150_000)
    );
    for text in [
        garbage.as_str(),
        long_line.as_str(),
        "\u{FFFD}\u{FFFD}\u{FFFD}",
        "",
        "}}}}}",
        "kernel",
    ] {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, text.to_string());
        let diagnostics = analysis::diagnostics(&db, file);
        assert!(
            diagnostics.len() <= 5_000,
            "{} diagnostics",
            diagnostics.len()
        );
        let _ = analysis::file_bir(&db, file);
    }
}

/// Slice bounds and steps at the ends of i64 are diagnosed, never overflow (a slice
/// `[:i64::MAX]` once overflowed counting its elements).
#[test]
fn slice_bounds_at_the_ends_of_i64() {
    for index in [
        ":9223372036854775807",
        "0:9223372036854775807:2",
        "1:9223372036854775807:9223372036854775807",
        "-9223372036854775808:9223372036854775807",
        "9223372036854775807:",
        "-9223372036854775808",
    ] {
        let text = format!(
            "kernel @k(%x: hbm f32[128, 4]) {{\n  tensor %t : sbuf f32[128, 4]\n  DmaCopyOp {{ dst = %t[:, {index}], src = %x }}\n}}\n"
        );
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, text.clone());
        let diagnostics = analysis::diagnostics(&db, file);
        assert!(!diagnostics.is_empty(), "{index}: {diagnostics:?}");
        let _ = analysis::file_bir(&db, file);
    }
}
