//! The generated files stay what the scale benchmark assumes: exact op counts, no
//! diagnostic at all in the `.pir` file (checked by the analysis, as `pir check` does), and
//! each edit diagnosed as its [`Expect`] says, from scratch, in both directions.

use analysis::{LineIndex, RootDatabase, SourceFile, TextSize};
use pir_gen::pir::count_ops;
use pir_gen::{EditKind, Expect, Generated};

/// Checks `text` from scratch; `(code, 0-based line, is error)` of each diagnostic but the
/// cost warnings P420 and P421 (SPEC §10.2.10), which the corpus kernels' small tiles in
/// loops carry wherever they are copied: they are the file's, not the edits'.
fn check(text: &str) -> Vec<(String, u32, bool)> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let index = LineIndex::new(text);
    analysis::diagnostics(&db, file)
        .iter()
        .filter(|d| !matches!(d.code.as_str(), "P420" | "P421"))
        .map(|d| {
            let line = index.line_col(d.range.start()).line;
            (
                d.code.as_str().to_string(),
                line,
                d.severity.as_str() == "error",
            )
        })
        .collect()
}

fn meets(expect: &Expect, found: &[(String, u32, bool)]) -> bool {
    match expect {
        Expect::Clean => found.is_empty(),
        Expect::One {
            line,
            code_or_message,
        } => found == [(code_or_message.to_string(), *line, true)],
        Expect::Near { first, last } => {
            found.iter().any(|d| d.2) && found.iter().all(|d| (*first..=*last).contains(&d.1))
        }
    }
}

fn assert_edits_are_kinds(generated: &Generated) {
    let kinds: Vec<EditKind> = generated.edits.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, EditKind::ALL);
    for edit in &generated.edits {
        let line = pir_gen::line_of(&generated.text, edit.offset) as usize;
        let text = generated.text.lines().nth(line).expect("the edited line");
        assert!(text.is_ascii() && edit.insert.is_ascii(), "{text}");
    }
}

#[test]
fn pir_file_is_clean_and_each_edit_is_diagnosed_as_expected() {
    let generated = pir_gen::pir::generate(1_000, pir_gen::pir::DEFAULT_KERNEL_OPS);
    assert_edits_are_kinds(&generated);
    let parse = syntax::parse(&generated.text);
    assert_eq!(parse.file.kernels.len(), 4, "several kernels");
    let ops: usize = parse.file.kernels.iter().map(|k| count_ops(&k.body)).sum();
    assert_eq!(ops, 1_000);
    assert_eq!(check(&generated.text), vec![]);
    // The edits are near the middle of the file.
    let lines = generated.text.lines().count() as u32;
    for edit in &generated.edits {
        let line = pir_gen::line_of(&generated.text, edit.offset);
        assert!(
            line.abs_diff(lines / 2) < lines / 10,
            "{edit:?} is on line {line} of {lines}"
        );
        let edited = edit.apply(&generated.text);
        let found = check(&edited);
        assert!(meets(&edit.expect, &found), "{edit:?}: {found:?}");
        let undo = edit.undo(&generated.text);
        assert_eq!(undo.apply(&edited), generated.text);
        assert!(meets(&undo.expect, &check(&generated.text)));
    }
}

#[test]
fn pir_sizes_are_exact_and_deterministic() {
    for (ops, kernel_ops) in [(100, 250), (1_234, 250), (777, 100_000), (2_000, 1)] {
        let generated = pir_gen::pir::generate(ops, kernel_ops);
        let parse = syntax::parse(&generated.text);
        assert!(parse.errors.is_empty());
        let counted: usize = parse.file.kernels.iter().map(|k| count_ops(&k.body)).sum();
        assert_eq!(counted, ops, "{ops} ops in kernels of {kernel_ops}");
        assert_eq!(generated.text, pir_gen::pir::generate(ops, kernel_ops).text);
        if kernel_ops >= ops {
            assert_eq!(parse.file.kernels.len(), 1);
        }
    }
    assert_eq!(check(&pir_gen::pir::generate(777, 100_000).text), vec![]);
}

/// The MLIR file's ops, counted as the generator defines them: every line that is not a
/// comment, a blank, a function header or a closing brace.
fn mlir_ops(text: &str) -> usize {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("//") && *l != "}" && !l.starts_with("func.func")
        })
        .count()
}

#[test]
fn mlir_file_has_exact_ops_unique_names_and_edits_in_the_middle() {
    for ops in [100, 1_000, 1_234] {
        let generated = pir_gen::mlir::generate(ops, pir_gen::pir::DEFAULT_KERNEL_OPS);
        assert_edits_are_kinds(&generated);
        assert_eq!(mlir_ops(&generated.text), ops);
        assert_eq!(generated.text, pir_gen::mlir::generate(ops, 250).text);
        // SSA names are defined once per function.
        for function in generated.text.split("func.func").skip(1) {
            let mut defined: Vec<&str> = function
                .lines()
                .filter_map(|l| l.trim().split_once(" = ").map(|(name, _)| name))
                .filter(|name| name.starts_with('%'))
                .collect();
            let all = defined.len();
            defined.sort_unstable();
            defined.dedup();
            assert_eq!(defined.len(), all, "an SSA name defined twice");
        }
        for edit in &generated.edits {
            let edited = edit.apply(&generated.text);
            let undo = edit.undo(&generated.text);
            assert_eq!(undo.apply(&edited), generated.text);
            let line = pir_gen::line_of(&generated.text, edit.offset);
            let ops_on_line = |text: &str| text.lines().nth(line as usize).map(str::to_string);
            match edit.kind {
                EditKind::InsertOp => assert_eq!(mlir_ops(&edited), ops + 1),
                EditKind::DeleteOp => assert_eq!(mlir_ops(&edited), ops - 1),
                _ => assert_eq!(mlir_ops(&edited), ops, "{:?}", ops_on_line(&edited)),
            }
        }
    }
}

#[test]
fn line_of_counts_newlines() {
    let text = "a\nbc\n\nd";
    let at = |o: u32| pir_gen::line_of(text, o as usize);
    assert_eq!([at(0), at(2), at(4), at(5), at(6)], [0, 1, 1, 2, 3]);
    let index = LineIndex::new(text);
    assert_eq!(index.line_col(TextSize::from(6)).line, at(6));
}
