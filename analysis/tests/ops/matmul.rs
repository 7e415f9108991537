//! The matmul family and TransposeOp (SPEC §6.1, §6.7): MatMulOp, MatMulMXOp,
//! MatMulSparseOp → `Matmult` / `MatmultMx` / `MatmultSparse`, and TransposeOp →
//! `Matmult` with `is_transpose` and `identity`.
//!
//! Inputs are kernel parameters (in sbuf where the op needs it) so that the snapshots show
//! only the op's own diagnostics, not P500/P501.

use expect_test::expect;

use crate::common::check;

/// Validates the §8 JSON of `text` with the shared schema tool (skipped with a note when
/// python3 or the tool is missing).
#[track_caller]
pub fn check_schema(text: &str) {
    use analysis::{RootDatabase, SourceFile};
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let bir = analysis::file_bir(&db, file);
    let instructions = bir["functions"][0]["blocks"][0]["instructions"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(instructions > 0, "the fixture lowers to no instruction");
    let candidates = [
        std::env::var("PIR_BIR_SCHEMA").unwrap_or_default(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/tools/bir_schema.py").to_string(),
        "/work/shared/tools/bir_schema.py".to_string(),
    ];
    let Some(tool) = candidates
        .iter()
        .find(|p| !p.is_empty() && std::path::Path::new(p).exists())
    else {
        eprintln!("note: bir_schema.py not found; schema check skipped");
        return;
    };
    let path = std::env::temp_dir().join(format!(
        "pir-schema-{}-{:x}.json",
        std::process::id(),
        text.len() ^ (text.as_ptr() as usize)
    ));
    std::fs::write(&path, serde_json::to_string_pretty(&bir).expect("json")).expect("write");
    let output = std::process::Command::new("python3")
        .arg(tool)
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match output {
        Err(e) => eprintln!("note: python3 unavailable ({e}); schema check skipped"),
        Ok(out) => assert!(
            out.status.success(),
            "bir_schema.py rejected the output:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

// ----- MatMulOp: lowering ----------------------------------------------------------------

#[test]
fn matmul_defaults() {
    // The SPEC §8 example: every default field written out, psum_buf_shape the dst's
    // [P, F], num_active_channels the stationary partitions.
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn matmul_every_field() {
    check(
        r#"
kernel @k(%lhs: sbuf f8e4m3[128, 32], %rhs: sbuf f8e5m2[128, 256]) -> (%acc: psum f32[128, 256]) {
  MatMulOp {
    dst = %acc[32:64, :]
    stationary = %lhs
    moving = %rhs
    isStationaryOneZero = true
    isMovingZero = true
    ifmap_quant_offset = 3
    pe_tile_position = [0, 32]
    pe_tile_size = [128, 32]
    num_active_partitions = 64
    is_accumulate = true
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn matmul_in_loops_is_symbolic() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 256], %rhs: sbuf bf16[128, 1024]) -> (%acc: psum f32[128, 1024]) {
  for %m in 0..2 {
    for %n in 0..2 {
      MatMulOp {
        dst = %acc[%m*64 : %m*64 + 64, %n*512 : %n*512 + 512]
        stationary = %lhs[:, %m*128 : %m*128 + 64]
        moving = %rhs[:, %n*512 : %n*512 + 512]
        is_accumulate = true
      }
    }
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn matmul_weight_allocation() {
    // A declared sbuf stationary becomes a NeuronWeightTensor (SPEC §8).
    let text = r#"
kernel @k(%w: hbm bf16[128, 128], %x: sbuf bf16[128, 512]) -> (%acc: psum f32[128, 512]) {
  tensor %w_sb : sbuf bf16[128, 128]
  DmaCopyOp { dst = %w_sb, src = %w }
  MatMulOp { dst = %acc, stationary = %w_sb, moving = %x }
}
"#;
    let db = analysis::RootDatabase::default();
    let file = analysis::SourceFile::new(&db, text.to_string());
    let bir = analysis::file_bir(&db, file);
    let classes: Vec<String> = bir["functions"][0]["allocations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| format!("{} {}", a["name"], a["tensor_class"]))
        .collect();
    expect![[r#""#]].assert_eq(&classes.join("\n"));
}

#[test]
fn matmul_double_row() {
    check(
        r#"
kernel @k(%w: sbuf f8e4m3[128, 2, 128], %x: sbuf f8e4m3[128, 2, 512]) -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x, perf_mode = double_row }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn matmul_schema() {
    check_schema(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512], %w: sbuf f8e4m3[128, 2, 128],
          %x: sbuf f8e4m3[128, 2, 512])
    -> (%acc: psum f32[64, 512], %acc2: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, is_accumulate = true }
  MatMulOp { dst = %acc2, stationary = %w, moving = %x, perf_mode = double_row }
}
"#,
    );
}

// ----- MatMulOp: rules -------------------------------------------------------------------

#[test]
fn p400_weight_rank() {
    check(
        r#"
kernel @k(%w: sbuf bf16[128, 8, 128], %x: sbuf bf16[128, 512]) -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w[:, 3:4, :], moving = %x }
  MatMulOp { dst = %acc, stationary = %w[:, 3, :], moving = %x }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p401_double_row_step() {
    // The moving rows are 1024 apart but F is 512; a rank-2 stationary is not [P, 2, F].
    check(
        r#"
kernel @k(%w: sbuf f8e4m3[128, 2, 128], %x: sbuf f8e4m3[128, 2, 1024], %w2: sbuf f8e4m3[128, 256])
    -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x[:, :, 0:512], perf_mode = double_row }
  MatMulOp { dst = %acc, stationary = %w2, moving = %x[:, :, 0:512], perf_mode = double_row }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p405_contraction_mismatch() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs[0:64, :] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p406_sizes() {
    // N over 512 (on the moving), M over 128 (on the dst), dst not [M, N] (on the dst).
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 256], %rhs: sbuf bf16[128, 1024])
    -> (%acc: psum f32[128, 512], %big: psum f32[128, 4, 256]) {
  MatMulOp { dst = %acc, stationary = %lhs[:, 0:128], moving = %rhs }
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs[:, 0:512] }
  MatMulOp { dst = %acc[0:64, :], stationary = %lhs[:, 0:128], moving = %rhs[:, 0:512] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p407_dtypes() {
    check(
        r#"
kernel @k(%a: sbuf i8[128, 64], %b: sbuf bf16[128, 64], %f: sbuf f32[128, 512],
          %h: sbuf bf16[128, 512])
    -> (%acc: psum f32[64, 512], %acc16: psum bf16[64, 512]) {
  MatMulOp { dst = %acc, stationary = %a, moving = %h }
  MatMulOp { dst = %acc, stationary = %b, moving = %f }
  MatMulOp { dst = %acc16, stationary = %b, moving = %h }
  MatMulOp { dst = %acc16, stationary = %b, moving = %h, isTranspose = true }
  MatMulOp { dst = %acc, stationary = %b, moving = %h, isTranspose = true }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p407_double_row_needs_fp8() {
    check(
        r#"
kernel @k(%w: sbuf bf16[128, 2, 128], %x: sbuf bf16[128, 2, 512]) -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x, perf_mode = double_row }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p409_tiles() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 32], %rhs: sbuf bf16[128, 512], %k64: sbuf bf16[64, 32],
          %r64: sbuf bf16[64, 512])
    -> (%acc: psum f32[128, 512]) {
  // a size not in {32, 64, 128}: on pe_tile_size
  MatMulOp { dst = %acc[0:32, :], stationary = %lhs, moving = %rhs, pe_tile_size = [48, 128] }
  // a position that is not a multiple of the size: on pe_tile_position
  MatMulOp { dst = %acc[0:32, :], stationary = %k64, moving = %r64, pe_tile_size = [64, 128], pe_tile_position = [32, 0] }
  // K = 128 larger than 64 tile rows: on pe_tile_size
  MatMulOp { dst = %acc[0:32, :], stationary = %lhs, moving = %rhs, pe_tile_size = [64, 128] }
  // column tiling: the dst must start at the column position 64
  MatMulOp { dst = %acc[0:32, :], stationary = %lhs, moving = %rhs, pe_tile_size = [128, 32], pe_tile_position = [0, 64] }
  // the same, right
  MatMulOp { dst = %acc[64:96, :], stationary = %lhs, moving = %rhs, pe_tile_size = [128, 32], pe_tile_position = [0, 64] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p409_double_row_column_tiling() {
    // pe_tile_position is absent, so the class name carries it.
    check(
        r#"
kernel @k(%w: sbuf f8e4m3[128, 2, 32], %x: sbuf f8e4m3[128, 2, 512]) -> (%acc: psum f32[32, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x, perf_mode = double_row, pe_tile_size = [128, 32] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p206_tile_arity() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, pe_tile_size = [128] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p304_one_bank() {
    // 1024 f32 = 4 KiB per partition: two banks.
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 1024]) {
  MatMulOp { dst = %acc[:, 0:512], stationary = %lhs, moving = %rhs }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p414_field_ranges() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, ifmap_quant_offset = -1, num_active_partitions = 0 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p203_p207_p301_generic() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: hbm bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, isTranpose = true, perf_mode = double_rows }
}
"#,
        expect![[r#""#]],
    );
}

// ----- MatMulMXOp ------------------------------------------------------------------------

const MX_PARAMS: &str = "%st: sbuf f8e4m3fnx4[128, 128], %mv: sbuf f8e4m3fnx4[128, 512], \
     %ls: sbuf e8m0[16, 128], %rs: sbuf e8m0[16, 512], %sp: sbuf f32[128, 1]";

fn mx(body: &str) -> String {
    format!(
        "kernel @k({MX_PARAMS}) -> (%acc: psum bf16[128, 512], %acc32: psum f32[128, 4096]) {{\n{body}\n}}\n"
    )
}

#[test]
fn mx_lowering() {
    check(
        &mx(r#"  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs }
  MatMulMXOp {
    dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs
    scale_ptr = %sp, offset_scale = 512, is_accumulate = true, pe_tile_size = [128, 128]
  }"#),
        expect![[r#""#]],
    );
}

#[test]
fn mx_multi_bank_dst() {
    // An f32 dst of 4096 columns spans eight banks: no P304 for MX.
    check(
        r#"
kernel @k(%st: sbuf f8e5m2x4[128, 128], %mv: sbuf f8e5m2x4[128, 4096], %ls: sbuf u8[16, 128],
          %rs: sbuf u8[16, 4096])
    -> (%acc: psum f32[128, 4096]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale = 0.5 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn mx_schema() {
    check_schema(&mx(
        r#"  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale_ptr = %sp }"#,
    ));
}

#[test]
fn p402_scale_with_scale_ptr() {
    check(
        &mx(r#"  MatMulMXOp {
    dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs
    scale_ptr = %sp
    scale = 0.5
  }
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale = 0.5 }"#),
        expect![[r#""#]],
    );
}

#[test]
fn p403_offset_scale() {
    check(
        &mx(r#"  MatMulMXOp #7 {
    dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs
    offset_scale = 256
  }"#),
        expect![[r#""#]],
    );
}

#[test]
fn mx_p407_dtypes() {
    check(
        r#"
kernel @k(%st: sbuf bf16[128, 128], %mv: sbuf f4e2m1fnx4[128, 512], %ls: sbuf f32[16, 128],
          %rs: sbuf e8m0[16, 512], %sp: sbuf bf16[128, 1])
    -> (%acc: psum f16[128, 512]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale_ptr = %sp }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn mx_p406_sizes() {
    check(
        r#"
kernel @k(%st: sbuf f8e4m3fnx4[128, 128], %mv: sbuf f8e4m3fnx4[128, 8192], %ls: sbuf e8m0[16, 128],
          %rs: sbuf e8m0[16, 8192], %s48: sbuf f8e4m3fnx4[48, 128], %m48: sbuf f8e4m3fnx4[48, 512])
    -> (%acc: psum f32[128, 4096], %acc16: psum bf16[128, 512]) {
  // N = 8192 is over 4096 for an f32 dst: on the moving
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs[:, 0:8192] }
  // M = 127 is odd: on the dst
  MatMulMXOp { dst = %acc16[0:127, :], stationary = %st[:, 0:127], moving = %mv[:, 0:512], lhs_scale = %ls[:, 0:127], rhs_scale = %rs[:, 0:512] }
  // K = 48 is not a multiple of 32: on the moving
  MatMulMXOp { dst = %acc16, stationary = %s48, moving = %m48, lhs_scale = %ls[0:6, :], rhs_scale = %rs[0:6, 0:512] }
  // dst not [M, N]
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv[:, 0:512], lhs_scale = %ls, rhs_scale = %rs[:, 0:512] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn mx_p409_row_tiling_only() {
    check(
        &mx(r#"  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, pe_tile_size = [128, 64] }
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, pe_tile_size = [64, 128] }"#),
        expect![[r#""#]],
    );
}

#[test]
fn mx_scale_shapes() {
    // lhs_scale on 32 partitions (K / 8 = 16): P300; rhs_scale of the wrong free size:
    // P305; scale_ptr [128, 2]: P305.
    check(
        r#"
kernel @k(%st: sbuf f8e4m3fnx4[128, 128], %mv: sbuf f8e4m3fnx4[128, 512], %ls: sbuf e8m0[32, 128],
          %rs: sbuf e8m0[16, 256], %sp: sbuf f32[128, 2])
    -> (%acc: psum bf16[128, 512]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale_ptr = %sp }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn mx_p400_and_unknown_fields() {
    check(
        r#"
kernel @k(%st: sbuf f8e4m3fnx4[128, 2, 64], %mv: sbuf f8e4m3fnx4[128, 512], %ls: sbuf e8m0[16, 128],
          %rs: sbuf e8m0[16, 512])
    -> (%acc: psum bf16[128, 512]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, perf_mode = none }
}
"#,
        expect![[r#""#]],
    );
}

// ----- MatMulSparseOp --------------------------------------------------------------------

#[test]
fn sparse_lowering() {
    // N = 1024 compressed 4× → a dst of 256 columns.
    check(
        r#"
kernel @k(%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 1024], %tags: sbuf u8[128, 256])
    -> (%acc: psum f32[128, 256]) {
  MatMulSparseOp {
    dst = %acc, stationary = %w, moving = %x, tags = %tags, compress_ratio = 4
    replication_num_rows = 2, isMovingZero = true
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn sparse_schema() {
    check_schema(
        r#"
kernel @k(%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 1024], %tags: sbuf u16[128, 512])
    -> (%acc: psum f32[128, 512]) {
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x, tags = %tags, compress_ratio = 2 }
}
"#,
    );
}

#[test]
fn sparse_rules() {
    check(
        r#"
kernel @k(%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 2048], %tags: sbuf i8[128, 256],
          %ptags: psum u8[128, 256], %w3: sbuf bf16[128, 2, 64])
    -> (%acc: psum f32[128, 512]) {
  // compress_ratio 3: P414
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:1536], tags = %ptags[:, :], compress_ratio = 3 }
  // 1026 is not a multiple of 4: P305 on the moving
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:1026], tags = %tags, compress_ratio = 4 }
  // 2048 / 2 = 1024 columns: P406 on the moving; i8 tags: P407
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x, tags = %tags, compress_ratio = 2 }
  // dst not [M, N / ratio]: P406 on the dst; rank-3 stationary: P400
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:512], tags = %ptags, compress_ratio = 2 }
  MatMulSparseOp { dst = %acc, stationary = %w3, moving = %x[:, 0:512], compress_ratio = 4 }
}
"#,
        expect![[r#""#]],
    );
}

// ----- TransposeOp -----------------------------------------------------------------------

#[test]
fn transpose_lowering() {
    check(
        r#"
kernel @k(%s: sbuf f32[128, 64]) -> (%t: psum f32[64, 128]) {
  TransposeOp { dst = %t, src = %s }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn transpose_schema() {
    check_schema(
        r#"
kernel @k(%s: sbuf bf16[128, 128]) -> (%t: psum bf16[128, 128]) {
  TransposeOp { dst = %t, src = %s }
}
"#,
    );
}

#[test]
fn transpose_rules() {
    check(
        r#"
kernel @k(%s: sbuf bf16[128, 64], %s3: sbuf bf16[64, 2, 32], %i: sbuf i32[64, 64])
    -> (%t: psum bf16[64, 128], %f: psum f32[64, 128], %wide: psum bf16[64, 2048], %ti: psum i32[64, 64]) {
  // dst is not the src reversed: P305 on the dst
  TransposeOp { dst = %t[0:32, :], src = %s }
  // dtype changes: P407 on the dst
  TransposeOp { dst = %f, src = %s }
  // rank 3: P305 on the src
  TransposeOp { dst = %t, src = %s3 }
  // the dst tensor is 4 KiB per partition: P304 on the dst
  TransposeOp { dst = %wide[:, 0:128], src = %s }
  // i32 is not a PE dtype: P407 on the src
  TransposeOp { dst = %ti, src = %i }
}
"#,
        expect![[r#""#]],
    );
}
