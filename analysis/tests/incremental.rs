//! Incrementality, read off salsa's execution log: an edit re-lowers exactly the ops it
//! touched (SPEC, DEVELOPERS "Speed is a feature").

use analysis::{RootDatabase, SourceFile};
use salsa::Setter;

/// A kernel of `n` ops (a DMA in, then element-wise TensorTensor ops), each on its own line.
fn kernel_with_ops(n: usize) -> String {
    let mut text = String::from(
        "kernel @k(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) {\n  tensor %a : sbuf f32[128, 512]\n  tensor %b : sbuf f32[128, 512]\n  DmaCopyOp { dst = %a, src = %x }\n",
    );
    for i in 1..n - 1 {
        let op = if i % 2 == 0 { "add" } else { "multiply" };
        text.push_str(&format!(
            "  TensorTensorOp {{ dst = %b, src0 = %a, src1 = %a, op = {op} }}\n"
        ));
    }
    text.push_str("  DmaCopyOp { dst = %y, src = %b }\n}\n");
    text
}

fn lowerings(db: &RootDatabase) -> usize {
    db.take_executions()
        .iter()
        .filter(|e| e.starts_with("lower_op"))
        .count()
}

fn warm(n: usize) -> (RootDatabase, SourceFile, String) {
    let db = RootDatabase::new(true);
    let text = kernel_with_ops(n);
    let file = SourceFile::new(&db, text.clone());
    let _ = analysis::diagnostics(&db, file);
    let _ = analysis::file_bir(&db, file);
    (db, file, text)
}

#[test]
fn first_run_lowers_each_op_once() {
    let (db, file, _) = warm(100);
    assert_eq!(lowerings(&db), 100);
    // Asking again, even for both outputs, lowers nothing.
    let _ = analysis::diagnostics(&db, file);
    let _ = analysis::file_bir(&db, file);
    assert_eq!(lowerings(&db), 0);
}

#[test]
fn editing_one_field_value_relowers_exactly_that_op() {
    let (mut db, file, text) = warm(100);
    db.take_executions();
    // Op 51 (line 54) becomes the only `subtract`.
    let line = text.lines().nth(53).expect("line 54");
    assert!(line.contains("TensorTensorOp"), "{line}");
    let edited = text.replacen(
        line,
        &line
            .replace("op = add", "op = subtract")
            .replace("op = multiply", "op = subtract"),
        1,
    );
    file.set_text(&mut db).to(edited);
    let diagnostics = analysis::diagnostics(&db, file);
    let _ = analysis::file_bir(&db, file);
    assert_eq!(lowerings(&db), 1);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.severity == lower::Severity::Warning || d.code != lower::Code::P305)
    );
}

#[test]
fn inserting_a_comment_line_relowers_nothing() {
    let (mut db, file, text) = warm(100);
    db.take_executions();
    let edited = text.replacen(
        "  tensor %b",
        "  // a comment that moves every op down one line\n  tensor %b",
        1,
    );
    file.set_text(&mut db).to(edited);
    let bir = analysis::file_bir(&db, file);
    let _ = analysis::diagnostics(&db, file);
    assert_eq!(lowerings(&db), 0);
    // ... yet the positions in the output did move.
    let first = &bir["functions"][0]["blocks"][0]["instructions"][0]["debuginfo"]["line"];
    assert_eq!(first, 5);
}

#[test]
fn editing_a_declaration_relowers_its_users_only() {
    let (mut db, file, text) = warm(100);
    db.take_executions();
    // %y is used by the last DMA only.
    let edited = text.replacen("%y: hbm f32[128, 512]", "%y: hbm f32[128, 1024]", 1);
    file.set_text(&mut db).to(edited);
    let diagnostics = analysis::diagnostics(&db, file).clone();
    assert_eq!(lowerings(&db), 1);
    assert!(
        diagnostics.iter().any(|d| d.code == lower::Code::P305),
        "{diagnostics:?}"
    );
}
