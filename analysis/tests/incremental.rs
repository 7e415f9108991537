//! Incrementality, read off salsa's execution log: an edit re-lowers exactly the ops it
//! touched (SPEC, DEVELOPERS "Speed is a feature").

use analysis::{RootDatabase, SourceFile};
use salsa::Setter;

/// A kernel of `n` ops (a DMA in, then element-wise TensorTensor ops on one column each, so
/// that no two ops are equal), each on its own line.
fn kernel_with_ops(n: usize) -> String {
    let mut text = String::from(
        "kernel @k(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) {\n  tensor %a : sbuf f32[128, 512]\n  tensor %b : sbuf f32[128, 512]\n  DmaCopyOp { dst = %a, src = %x }\n",
    );
    for i in 1..n - 1 {
        let op = if i % 2 == 0 { "add" } else { "multiply" };
        text.push_str(&format!(
            "  TensorTensorOp {{ dst = %b[:, {i}], src0 = %a[:, {i}], src1 = %a[:, {i}], op = {op} }}\n"
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

/// The `name` and `debuginfo.op_id` of the `index`-th instruction of the file.
fn stamped(bir: &serde_json::Value, index: usize) -> (String, u64) {
    let inst = &bir["functions"][0]["blocks"][0]["instructions"][index];
    (
        inst["name"].as_str().unwrap_or_default().to_string(),
        inst["debuginfo"]["op_id"].as_u64().unwrap_or_default(),
    )
}

#[test]
fn inserting_an_op_at_the_top_lowers_only_that_op() {
    // Every op below the new one changes its ordinal id, which is stamped on the output
    // after lowering, not part of the lowering's key.
    let (mut db, file, text) = warm(100);
    db.take_executions();
    let edited = text.replacen(
        "  DmaCopyOp { dst = %a",
        "  MemsetOp { dst = %b, value = 0 }\n  DmaCopyOp { dst = %a",
        1,
    );
    file.set_text(&mut db).to(edited);
    let bir = analysis::file_bir(&db, file).clone();
    let _ = analysis::diagnostics(&db, file);
    assert_eq!(lowerings(&db), 1);
    // The DMA that was op 1 is now op 2, and the last op is op 101.
    assert_eq!(stamped(&bir, 1), ("I-2-0".to_string(), 2));
    assert_eq!(stamped(&bir, 100), ("I-101-0".to_string(), 101));
}

#[test]
fn deleting_an_op_lowers_nothing() {
    let (mut db, file, text) = warm(100);
    db.take_executions();
    let line = text.lines().nth(10).expect("line 11");
    assert!(line.contains("TensorTensorOp"), "{line}");
    let edited = text.replacen(&format!("{line}\n"), "", 1);
    file.set_text(&mut db).to(edited);
    let bir = analysis::file_bir(&db, file).clone();
    let _ = analysis::diagnostics(&db, file);
    assert_eq!(lowerings(&db), 0);
    assert_eq!(stamped(&bir, 98), ("I-99-0".to_string(), 99));
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
