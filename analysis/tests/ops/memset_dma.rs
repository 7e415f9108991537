//! Memset, OffloadedFMA, registers, sequence bounds (SPEC §6.6), and the schema check the
//! other families of this helper share.

use std::path::PathBuf;
use std::process::Command;

use analysis::{RootDatabase, SourceFile};
use expect_test::expect;

use crate::common::check;

/// Where `bir_schema.py` is: `$PIR_SHARED/tools`, or a `shared/tools` beside the workspace
/// or one level further up (worktrees).
fn schema_tool() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut candidates: Vec<PathBuf> = std::env::var_os("PIR_SHARED")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    candidates.push(root.join("../shared"));
    candidates.push(root.join("../../shared"));
    candidates
        .into_iter()
        .map(|d| d.join("tools/bir_schema.py"))
        .find(|p| p.exists())
}

/// Lowers `fixture` and validates its BIR document with `bir_schema.py` (exit 0: no
/// error). Skipped, with a note, when python3 or the tool is missing.
#[track_caller]
pub fn check_schema(fixture: &str) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, fixture.to_string());
    let bir = analysis::file_bir(&db, file);
    let Some(tool) = schema_tool() else {
        eprintln!("note: bir_schema.py not found; schema check skipped");
        return;
    };
    let path = std::env::temp_dir().join(format!(
        "pir-schema-{}-{:x}.json",
        std::process::id(),
        fixture.len() * 31 + fixture.bytes().map(usize::from).sum::<usize>()
    ));
    let text = serde_json::to_string_pretty(bir).expect("BIR serialises");
    std::fs::write(&path, text).expect("temp file is writable");
    let output = match Command::new("python3").arg(&tool).arg(&path).output() {
        Ok(output) => output,
        Err(e) => {
            eprintln!("note: python3 not runnable ({e}); schema check skipped");
            return;
        }
    };
    let _ = std::fs::remove_file(&path);
    let report = String::from_utf8_lossy(&output.stdout);
    eprintln!("{report}");
    assert!(
        output.status.success(),
        "bir_schema.py found errors:\n{report}"
    );
}

#[test]
fn memset_bf16_one_is_0x3f80() {
    check(
        r#"
kernel @k() -> (%o: sbuf bf16[128, 512]) {
  MemsetOp { dst = %o, value = 1.0 }
  MemsetOp { dst = %o[0:32, :], value = -2, engine = dve }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn memset_int_bit_patterns() {
    check(
        r#"
kernel @k() -> (%a: sbuf i16[128, 4], %b: sbuf u32[128, 4], %c: sbuf f8e4m3[128, 4]) {
  MemsetOp { dst = %a, value = -1 }
  MemsetOp { dst = %b, value = 4294967295 }
  MemsetOp { dst = %c, value = -inf }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn memset_value_out_of_range() {
    check(
        r#"
kernel @k() -> (%a: sbuf i8[128, 4], %b: sbuf u8[128, 4], %c: sbuf f8e4m3fn[128, 4], %d: sbuf f8e5m2x4[128, 4], %e: sbuf bf16[128, 4]) {
  MemsetOp { dst = %a, value = 200 }
  MemsetOp { dst = %b, value = 0.5 }
  MemsetOp { dst = %c, value = 1000.0 }
  MemsetOp { dst = %d, value = 1.0 }
  MemsetOp { dst = %e, value = 1e39 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn memset_random_ignores_value() {
    check(
        r#"
kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o, mode = random, value = 3.0 }
  MemsetOp { dst = %o, mode = random }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn memset_const_needs_value() {
    check(
        r#"
kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o }
  MemsetOp { dst = %o, mode = randon }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn memset_engines() {
    check(
        r#"
kernel @k() -> (%p: psum f32[128, 4]) {
  MemsetOp { dst = %p, value = 0 }
  MemsetOp { dst = %p, value = 0, engine = dve }
  MemsetOp { dst = %p, value = 0, engine = act }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn offloaded_fma_is_a_cce_dma_copy() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b[64:128, :]], scales = [0.5, 2], cce_op = max }
  OffloadedFMA { dst = %o[0:64, :], srcs = [%b[0:64, :]], scales = [1.0] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn offloaded_fma_counts() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 256]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [0.5, 2] }
  OffloadedFMA { dst = %o, srcs = [%a], scales = [0.5, 2] }
  OffloadedFMA { dst = %o, srcs = [], scales = [] }
  OffloadedFMA { srcs = [%b], scales = [1.0], dst = %o }
  OffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], cce_op = mul }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tiled_offloaded_fma_one_copy_per_tile() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, 1.0], tiles = 2 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tiled_offloaded_fma_tiles() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 4, 128]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 3 }
  TiledOffloadedFMA { dst = %o, srcs = [%b], scales = [1.0], tiles = 256 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 0 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn load_tensor_to_register() {
    check(
        r#"
kernel @k(%a: sbuf i32[1, 2]) {
  reg %r0 : i32
  reg %r1 : u32
  LoadTensorToRegister { src = %a, dst_registers = [%r0, %r1] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn load_tensor_to_register_rules() {
    check(
        r#"
kernel @k(%a: hbm i32[4], %p: psum i32[1, 1]) {
  reg %r0 : i32
  reg %f : f32
  LoadTensorToRegister { src = %a, dst_registers = [%r0] }
  LoadTensorToRegister { src = %a[0:2], dst_registers = [%r0, %f] }
  LoadTensorToRegister { src = %p, dst_registers = [%r0] }
  LoadTensorToRegister { src = %a[0:1], dst_registers = [%a] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn get_sequence_bounds() {
    check(
        r#"
kernel @k(%ids: sbuf f32[1, 512]) -> (%b: sbuf f32[1, 2, 512], %c: sbuf i32[1, 1024]) {
  GetSequenceBounds { dst = %b, src = %ids }
  GetSequenceBounds { dst = %c, src = %ids, engine = dve }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn get_sequence_bounds_rules() {
    check(
        r#"
kernel @k(%ids: sbuf f32[2, 512], %one: sbuf bf16[1, 512]) -> (%b: sbuf f32[1, 1024], %c: sbuf f32[1, 512], %d: sbuf f32[2, 512]) {
  GetSequenceBounds { dst = %b, src = %ids }
  GetSequenceBounds { dst = %c, src = %one }
  GetSequenceBounds { dst = %d, src = %one[:, 0:256], engine = pe }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn memset_dma_bir_passes_the_schema() {
    check_schema(
        r#"
kernel @k(%a: hbm f32[128, 512], %ids: sbuf i32[1, 512]) -> (%o: hbm f32[128, 512], %s: sbuf bf16[128, 512], %b: sbuf i32[1, 1024]) {
  reg %r0 : i32
  MemsetOp { dst = %s, value = 1.0 }
  MemsetOp { dst = %s, mode = random, engine = dve }
  OffloadedFMA { dst = %o, srcs = [%a, %a], scales = [0.5, 2], cce_op = min }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 4 }
  LoadTensorToRegister { src = %ids[:, 0:1], dst_registers = [%r0] }
  GetSequenceBounds { dst = %b, src = %ids }
  DmaCopyOp { dst = %o, src = %a }
}
"#,
    );
}
