//! The matmul family and TransposeOp (SPEC §6.1, §6.7): MatMulOp, MatMulMXOp,
//! MatMulSparseOp → `Matmult` / `MatmultMx` / `MatmultSparse`, and TransposeOp →
//! `Matmult` with `is_transpose` and `identity`.
//!
//! Inputs are kernel parameters (in sbuf where the op needs it) so that the snapshots show
//! only the op's own diagnostics, not P500/P501.

use expect_test::expect;

use crate::common::{check, check_schema};

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
        expect![[r#"
            3: Matmult PE I-1-0
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0
              in stationary: physical_ap float8e4 ap=[[32,128],[1,32]] offset=0 %lhs start_partition=0
              in moving: physical_ap float8e5 ap=[[256,128],[1,256]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[256,32],[1,256]] offset=0 %acc start_partition=32
              {"start_tensor_calc":false,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":true,"is_weight_onezero":true,"tile_size":[128,32],"tile_position":[0,32],"perf_mode":"None","ifmap_quant_offset":3,"num_active_channels":64,"psum_buf_shape":[128,256],"is_accumulate":true}
        "#]],
    );
}

#[test]
fn matmul_penguin_onezero_spellings() {
    // SPEC §6.1 [3]: seed 000 §2.1's NOTE, "The Penguin op exposes is_lhs_onezero /
    // is_rhs_onezero": the same fields as isStationaryOneZero / isMovingZero, on MatMulOp
    // and MatMulSparseOp; both spellings of one field is P205; MatMulMXOp has neither.
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512], %t: sbuf u8[128, 256]) -> (%acc: psum f32[64, 512], %sp: psum f32[64, 256]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, is_lhs_onezero = true, is_rhs_onezero = true }
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, isStationaryOneZero = true, is_lhs_onezero = false }
  MatMulSparseOp { dst = %sp, stationary = %lhs, moving = %rhs, tags = %t, compress_ratio = 2, is_rhs_onezero = true }
}
"#,
        expect![[r#"
            3: Matmult PE I-1-0
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":true,"is_weight_onezero":true,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            4: Matmult PE I-2-0 errors=["P205"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":true,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            5: MatmultSparse PE I-3-0
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              in tags: physical_ap uint8 ap=[[256,128],[1,256]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %sp start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":true,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":2,"is_accumulate":false}
            P205 error:4:88 `is_lhs_onezero`: field `is_lhs_onezero` is written twice: `isStationaryOneZero` is another spelling of it
                related `isStationaryOneZero`: first written here
        "#]],
    );
}

#[test]
fn matmul_in_loops_is_symbolic() {
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 128], %rhs: sbuf bf16[128, 1024]) -> (%acc: psum f32[128, 512]) {
  for %m in 0..2 {
    for %n in 0..2 {
      MatMulOp {
        dst = %acc[%m*64 : %m*64 + 64, :]
        stationary = %lhs[:, %m*64 : %m*64 + 64]
        moving = %rhs[:, %n*512 : %n*512 + 512]
        is_accumulate = true
      }
    }
  }
}
"#,
        expect![[r#"
            L-m {"name":"m","lb":0,"ub":2,"stride":1}
              L-n {"name":"n","lb":0,"ub":2,"stride":1}
                5: Matmult PE I-1-0
                  in stationary: symbolic_ap bfloat16 ap=[[128,128],[1,64]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"m","coeff":64}],"c":0}] access_shape=[128,64] %lhs start_partition=0
                  in moving: symbolic_ap bfloat16 ap=[[1024,128],[1,512]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"n","coeff":512}],"c":0}] access_shape=[128,512] %rhs start_partition=0
                  out dst: symbolic_ap float32 ap=[[512,64],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"m","coeff":64}],"c":0,"partition":true}] access_shape=[64,512] %acc start_partition=0
                  {"start_tensor_calc":false,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":true}
        "#]],
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
    expect![[r#"
        "w_set" "Tensor"
        "x_set" "NeuronSBTensor"
        "acc_set" "NeuronPSUMTensor"
        "w_sb_set" "NeuronWeightTensor""#]]
    .assert_eq(&classes.join("\n"));
}

#[test]
fn matmul_double_row() {
    check(
        r#"
kernel @k(%w: sbuf f8e4m3[128, 2, 128], %x: sbuf f8e4m3[128, 2, 512]) -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x, perf_mode = double_row }
}
"#,
        expect![[r#"
            3: Matmult PE I-1-0
              in stationary: physical_ap float8e4 ap=[[256,128],[128,2],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap float8e4 ap=[[1024,128],[512,2],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"DoubleRow","replication_num_rows":2,"ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P400"]
              in stationary: physical_ap bfloat16 ap=[[1024,128],[128,1],[1,128]] offset=384 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            4: Matmult PE I-2-0
              in stationary: physical_ap bfloat16 ap=[[1024,128],[1,128]] offset=384 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            P400 error:3:39 `%w[:, 3:4, :]`: A splittable NeuronWeightTensor should be of rank 2
        "#]],
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
        expect![[r#"
            4: Matmult PE I-1-0 errors=["P401"]
              in stationary: physical_ap float8e4 ap=[[256,128],[128,2],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap float8e4 ap=[[2048,128],[1024,2],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"DoubleRow","replication_num_rows":2,"ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            5: Matmult PE I-2-0 errors=["P401"]
              in stationary: physical_ap float8e4 ap=[[256,128],[1,256]] offset=0 %w2 start_partition=0
              in moving: physical_ap float8e4 ap=[[2048,128],[1024,2],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"DoubleRow","replication_num_rows":2,"ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            P401 error:4:52 `%x[:, :, 0:512]`: incorrect double row step
            P401 error:5:39 `%w2`: incorrect double row step
            P401 error:5:53 `%x[:, :, 0:512]`: incorrect double row step
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P405"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            P405 error:3:54 `%rhs[0:64, :]`: contraction mismatch: the stationary has 128 partitions and the moving 64 (K ≤ 128)
        "#]],
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
        expect![[r#"
            4: Matmult PE I-1-0 errors=["P406"]
              in stationary: physical_ap bfloat16 ap=[[256,128],[1,128]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            5: Matmult PE I-2-0 errors=["P406"]
              in stationary: physical_ap bfloat16 ap=[[256,128],[1,256]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[1024,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            6: Matmult PE I-3-0 errors=["P406"]
              in stationary: physical_ap bfloat16 ap=[[256,128],[1,128]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[1024,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            P419 warning:3:35 `%big`: output `%big` is never written
            P406 error:4:64 `%rhs`: moving free size N = 1024 exceeds 512 (one PSUM bank of f32)
            P406 error:5:20 `%acc`: stationary free size M = 256 exceeds 128
            P406 error:6:20 `%acc[0:64, :]`: dst must be [M, N] = [128, 512]; it is [64, 512]
        "#]],
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
        expect![[r#"
            5: Matmult PE I-1-0 errors=["P407"]
              in stationary: physical_ap int8 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %h start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            6: Matmult PE I-2-0 errors=["P407"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %b start_partition=0
              in moving: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %f start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            7: Matmult PE I-3-0 errors=["P407"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %b start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %h start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %acc16 start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            8: Matmult PE I-4-0
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %b start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %h start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %acc16 start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            9: Matmult PE I-5-0 errors=["P407"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %b start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %h start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            P407 error:5:39 `%a`: Expect ap datatype to be of type f32, f32r, tf32, bf16, f16, f8e4m3 or f8e5m2: `stationary` is i8 (the PE's input dtypes)
            P407 error:6:52 `%f`: stationary is bf16 and moving f32: an f32-family input (f32, f32r, tf32) needs both in that family
            P407 error:7:20 `%acc16`: dst is bf16 but must be f32: a matmul writes f32 into PSUM
            P407 error:9:20 `%acc`: dst is f32 but must be bf16: with isTranspose the dst dtype equals the moving dtype
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P407"]
              in stationary: physical_ap bfloat16 ap=[[256,128],[128,2],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[1024,128],[512,2],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"DoubleRow","replication_num_rows":2,"ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            P407 error:3:39 `%w`: Expect ap datatype to be of type f8e4m3 or f8e5m2: `stationary` is bf16 (double_row takes fp8 inputs)
            P407 error:3:52 `%x`: Expect ap datatype to be of type f8e4m3 or f8e5m2: `moving` is bf16 (double_row takes fp8 inputs)
        "#]],
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
        expect![[r#"
            6: Matmult PE I-1-0 errors=["P409"]
              in stationary: physical_ap bfloat16 ap=[[32,128],[1,32]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[48,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            8: Matmult PE I-2-0 errors=["P409"]
              in stationary: physical_ap bfloat16 ap=[[32,64],[1,32]] offset=0 %k64 start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %r64 start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[64,128],"tile_position":[32,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":64,"psum_buf_shape":[128,512],"is_accumulate":false}
            10: Matmult PE I-3-0 errors=["P409"]
              in stationary: physical_ap bfloat16 ap=[[32,128],[1,32]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[64,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            12: Matmult PE I-4-0 errors=["P409"]
              in stationary: physical_ap bfloat16 ap=[[32,128],[1,32]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,32],"tile_position":[0,64],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            14: Matmult PE I-5-0
              in stationary: physical_ap bfloat16 ap=[[32,128],[1,32]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %acc start_partition=64
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,32],"tile_position":[0,64],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,512],"is_accumulate":false}
            P409 error:6:84 `[48, 128]`: PE tile sizes are 32, 64 or 128; got [48, 128]
            P409 error:8:114 `[32, 0]`: PE tile row position 32 must be a multiple of the tile size 64 with position + size ≤ 128
            P409 error:10:84 `[64, 128]`: K = 128 and M = 32 must fit the PE tile of 64 rows × 128 columns
            P409 error:12:114 `[0, 64]`: with column tiling the dst starts at the tile's column position 64; it starts at partition 0
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P409"]
              in stationary: physical_ap float8e4 ap=[[64,128],[32,2],[1,32]] offset=0 %w start_partition=0
              in moving: physical_ap float8e4 ap=[[1024,128],[512,2],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,32],"tile_position":[0,0],"perf_mode":"DoubleRow","replication_num_rows":2,"ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[32,512],"is_accumulate":false}
            P409 error:3:3 `MatMulOp`: double_row does not allow column tiling (tile columns must be 128)
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P206"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            P206 error:3:75 `[128]`: `pe_tile_size` is a list of two integers
        "#]],
    );
}

#[test]
fn p304_one_bank() {
    // pir-spec/2 §4: the one-bank rule measures the dst **access** in every loop iteration,
    // not the declared tensor (pir-spec/1 flagged every dst of a tensor wider than a bank,
    // so multi-buffered PSUM tiles were P304). `%acc` is f32[64, 1024]: two banks.
    check(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512], %r256: sbuf bf16[128, 256])
    -> (%acc: psum f32[64, 1024], %buf: psum f32[64, 4, 512]) {
  MatMulOp { dst = %acc[:, 0:512], stationary = %lhs, moving = %rhs }
  MatMulOp { dst = %acc[:, 512:1024], stationary = %lhs, moving = %rhs }
  MatMulOp { dst = %acc[:, 256:768], stationary = %lhs, moving = %rhs }
  for %k in 0..4 {
    MatMulOp { dst = %buf[:, %k, :], stationary = %lhs, moving = %rhs }
  }
  for %j in 0..4 {
    MatMulOp { dst = %acc[:, %j*256 : %j*256 + 256], stationary = %lhs, moving = %r256 }
  }
  for %j in 0..3 {
    MatMulOp { dst = %acc[:, %j*384 : %j*384 + 256], stationary = %lhs, moving = %r256 }
  }
}
"#,
        expect![[r#"
            4: Matmult PE I-1-0
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[1024,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,1024],"is_accumulate":false}
            5: Matmult PE I-2-0
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[1024,64],[1,512]] offset=512 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,1024],"is_accumulate":false}
            6: Matmult PE I-3-0 errors=["P304"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[1024,64],[1,512]] offset=256 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,1024],"is_accumulate":false}
            L-k {"name":"k","lb":0,"ub":4,"stride":1}
              8: Matmult PE I-4-0
                in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
                in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
                out dst: symbolic_ap float32 ap=[[2048,64],[1,512]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"k","coeff":512}],"c":0}] access_shape=[64,512] %buf start_partition=0
                {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,2048],"is_accumulate":false}
            L-j {"name":"j","lb":0,"ub":4,"stride":1}
              11: Matmult PE I-5-0
                in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
                in moving: physical_ap bfloat16 ap=[[256,128],[1,256]] offset=0 %r256 start_partition=0
                out dst: symbolic_ap float32 ap=[[1024,64],[1,256]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"j","coeff":256}],"c":0}] access_shape=[64,256] %acc start_partition=0
                {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,1024],"is_accumulate":false}
            L-j-2 {"name":"j","lb":0,"ub":3,"stride":1}
              14: Matmult PE I-6-0 errors=["P304"]
                in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
                in moving: physical_ap bfloat16 ap=[[256,128],[1,256]] offset=0 %r256 start_partition=0
                out dst: symbolic_ap float32 ap=[[1024,64],[1,256]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"j","coeff":384}],"c":0}] access_shape=[64,256] %acc start_partition=0
                {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,1024],"is_accumulate":false}
            P304 error:6:20 `%acc[:, 256:768]`: Allocated memory out of bound: a matmul dst must lie inside one PSUM bank (2048 bytes per partition); this access covers bytes 1024..=3071 of `%acc` in each partition, across the bank boundary at 2048
            P304 error:14:22 `%acc[:, %j*384 : %j*384 + 256]`: Allocated memory out of bound: a matmul dst must lie inside one PSUM bank (2048 bytes per partition); this access covers bytes 1536..=2559 of `%acc` in each partition, across the bank boundary at 2048 when %j = 1
        "#]],
    );
    check_schema(
        r#"
kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%buf: psum f32[64, 4, 512]) {
  for %k in 0..4 {
    MatMulOp { dst = %buf[:, %k, :], stationary = %lhs, moving = %rhs }
  }
}
"#,
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P414"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              in moving: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %rhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":0,"psum_buf_shape":[64,512],"is_accumulate":false}
            P414 error:3:81 `-1`: `ifmap_quant_offset` is a natural number; got -1
            P414 error:3:109 `0`: num_active_partitions is between 1 and 128; got 0
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0 errors=["P203","P207","P301"]
              in stationary: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %lhs start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,512],"is_accumulate":false}
            P301 error:3:54 `%rhs`: `%rhs` is in hbm, but this operand must be in sbuf
            P203 error:3:60 `isTranpose`: MatMulOp has no field `isTranpose`; did you mean `isTranspose`?
            P207 error:3:91 `double_rows`: unknown perf_mode value `double_rows`; did you mean `double_row`?
        "#]],
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
        &mx(
            r#"  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs }
  MatMulMXOp {
    dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs
    scale_ptr = %sp, offset_scale = 512, is_accumulate = true, pe_tile_size = [128, 128]
  }"#,
        ),
        expect![[r#"
            2: MatmultMx PE I-1-0
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            3: MatmultMx PE I-2-0
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              in scale_ptr: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %sp start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":false,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"offset_scale":512,"psum_buf_shape":[128,512],"is_accumulate":true}
            P416 warning:1:8 `@k`: peak PSUM occupancy 17,408 bytes per partition exceeds the capacity of 16,384 bytes at op #1 `MatMulMXOp`
                related `MatMulMXOp`: PSUM peak of 17,408 bytes reached here
                related `%acc32: psum f32[128, 4096]`: `%acc32` is live there: 16,384 bytes per partition
                related `%acc: psum bf16[128, 512]`: `%acc` is live there: 1,024 bytes per partition
            P419 warning:1:179 `%acc32`: output `%acc32` is never written
        "#]],
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
        expect![[r#"
            5: MatmultMx PE I-1-0
              in stationary: physical_ap float8_e5m2_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e5m2_x4 ap=[[4096,128],[1,4096]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap uint8 ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap uint8 ap=[[4096,16],[1,4096]] offset=0 %rs start_partition=0
              out dst: physical_ap float32 ap=[[4096,128],[1,4096]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":0.5,"psum_buf_shape":[128,4096],"is_accumulate":false}
        "#]],
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
        expect![[r#"
            2: MatmultMx PE I-1-0 errors=["P402"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              in scale_ptr: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %sp start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":0.5,"psum_buf_shape":[128,512],"is_accumulate":false}
            7: MatmultMx PE I-2-0
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":0.5,"psum_buf_shape":[128,512],"is_accumulate":false}
            P416 warning:1:8 `@k`: peak PSUM occupancy 17,408 bytes per partition exceeds the capacity of 16,384 bytes at op #1 `MatMulMXOp`
                related `MatMulMXOp`: PSUM peak of 17,408 bytes reached here
                related `%acc32: psum f32[128, 4096]`: `%acc32` is live there: 16,384 bytes per partition
                related `%acc: psum bf16[128, 512]`: `%acc` is live there: 1,024 bytes per partition
            P419 warning:1:179 `%acc32`: output `%acc32` is never written
            P402 error:5:13 `0.5`: Scale should be 1.0 if scale_ptr is specified
                related `%sp`: `scale` is 0.5 and `scale_ptr` is given here
        "#]],
    );
}

#[test]
fn p403_offset_scale() {
    check(
        &mx(r#"  MatMulMXOp #7 {
    dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs
    offset_scale = 256
  }"#),
        expect![[r#"
            2: MatmultMx PE I-7-0 errors=["P403"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"offset_scale":256,"psum_buf_shape":[128,512],"is_accumulate":false}
            P416 warning:1:8 `@k`: peak PSUM occupancy 17,408 bytes per partition exceeds the capacity of 16,384 bytes at op #7 `MatMulMXOp`
                related `MatMulMXOp`: PSUM peak of 17,408 bytes reached here
                related `%acc32: psum f32[128, 4096]`: `%acc32` is live there: 16,384 bytes per partition
                related `%acc: psum bf16[128, 512]`: `%acc` is live there: 1,024 bytes per partition
            P419 warning:1:179 `%acc32`: output `%acc32` is never written
            P403 error:4:20 `256`: offset scale is not equivalent to the accumulated tensor size on right of generic dim in MatMulMXOp #7
                related `%mv`: the moving's free size is 512
        "#]],
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
        expect![[r#"
            5: MatmultMx PE I-1-0 errors=["P407"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float4_e2m1fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float32 ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              in scale_ptr: physical_ap bfloat16 ap=[[1,128],[1,1]] offset=0 %sp start_partition=0
              out dst: physical_ap float16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            P407 error:5:22 `%acc`: dst is f16: an MX matmul writes f32 or bf16
            P407 error:5:41 `%st`: Expect ap datatype to be of type f8e5m2x4, f8e4m3fnx4 or f4e2m1fnx4: `stationary` is bf16 (an MX matmul's packed inputs)
            P407 error:5:72 `%ls`: `lhs_scale` is f32: MX scales are e8m0 or u8
            P407 error:5:106 `%sp`: `scale_ptr` is bf16: it must be f32
        "#]],
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
  // K differs between stationary and moving: P405 on the moving
  MatMulMXOp { dst = %acc16, stationary = %st, moving = %m48, lhs_scale = %ls, rhs_scale = %rs[0:6, 0:512] }
}
"#,
        expect![[r#"
            6: MatmultMx PE I-1-0 errors=["P406"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[8192,128],[1,8192]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[8192,16],[1,8192]] offset=0 %rs start_partition=0
              out dst: physical_ap float32 ap=[[4096,128],[1,4096]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,4096],"is_accumulate":false}
            8: MatmultMx PE I-2-0 errors=["P406"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,127]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[8192,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,127]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[8192,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,127],[1,512]] offset=0 %acc16 start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            10: MatmultMx PE I-3-0 errors=["P406"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,48],[1,128]] offset=0 %s48 start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,48],[1,512]] offset=0 %m48 start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,6],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[8192,6],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc16 start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            12: MatmultMx PE I-4-0 errors=["P406"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[8192,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[8192,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap float32 ap=[[4096,128],[1,4096]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,4096],"is_accumulate":false}
            14: MatmultMx PE I-5-0 errors=["P405"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,48],[1,512]] offset=0 %m48 start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[8192,6],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc16 start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            P416 warning:2:8 `@k`: peak PSUM occupancy 17,408 bytes per partition exceeds the capacity of 16,384 bytes at op #1 `MatMulMXOp`
                related `MatMulMXOp`: PSUM peak of 17,408 bytes reached here
                related `%acc: psum f32[128, 4096]`: `%acc` is live there: 16,384 bytes per partition
                related `%acc16: psum bf16[128, 512]`: `%acc16` is live there: 1,024 bytes per partition
            P406 error:6:55 `%mv`: moving free size N = 8192 exceeds 4096 for this dst dtype
            P406 error:8:22 `%acc16[0:127, :]`: the stationary free size M = 127 must be even and at most 128
            P406 error:10:58 `%m48`: an MX matmul contracts over a multiple of 32 partitions, at most 128; K = 48
            P406 error:12:22 `%acc`: dst must be [M, N] = [128, 512]; it is [128, 4096]
            P405 error:14:57 `%m48`: contraction mismatch: the stationary has 128 partitions and the moving 48
        "#]],
    );
}

#[test]
fn mx_p409_row_tiling_only() {
    check(
        &mx(
            r#"  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, pe_tile_size = [128, 64] }
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, pe_tile_size = [64, 128] }"#,
        ),
        expect![[r#"
            2: MatmultMx PE I-1-0 errors=["P409"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,64],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            3: MatmultMx PE I-2-0 errors=["P409"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[64,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            P416 warning:1:8 `@k`: peak PSUM occupancy 17,408 bytes per partition exceeds the capacity of 16,384 bytes at op #1 `MatMulMXOp`
                related `MatMulMXOp`: PSUM peak of 17,408 bytes reached here
                related `%acc32: psum f32[128, 4096]`: `%acc32` is live there: 16,384 bytes per partition
                related `%acc: psum bf16[128, 512]`: `%acc` is live there: 1,024 bytes per partition
            P419 warning:1:179 `%acc32`: output `%acc32` is never written
            P409 error:2:3 `MatMulMXOp`: an MX matmul tiles rows only: the tile has 128 columns at column 0
            P409 error:3:109 `[64, 128]`: K = 128 and M = 128 must fit the PE tile of 64 rows × 128 columns
        "#]],
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
        expect![[r#"
            5: MatmultMx PE I-1-0 errors=["P300","P305"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,32],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[256,16],[1,256]] offset=0 %rs start_partition=0
              in scale_ptr: physical_ap float32 ap=[[2,128],[1,2]] offset=0 %sp start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            P300 error:5:72 `%ls`: Incorrect access pattern! `lhs_scale` has 32 partitions; one E8M0 scale per 8 partitions of the stationary (128) needs 16
                related `%ls`: `lhs_scale` has 32 partitions; one E8M0 scale per 8 partitions of the stationary (128) needs 16
            P305 error:5:89 `%rs`: `rhs_scale` has 256 elements per partition but the moving has 512
            P305 error:5:106 `%sp`: `scale_ptr` must be [128, 1] (one element per partition); it is [128, 2]
        "#]],
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
        expect![[r#"
            5: MatmultMx PE I-1-0 errors=["P203","P400"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[64,2],[1,64]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            P400 error:5:41 `%st`: A splittable NeuronWeightTensor should be of rank 2
            P203 error:5:94 `perf_mode`: MatMulMXOp has no field `perf_mode`
        "#]],
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
        expect![[r#"
            4: MatmultSparse PE I-1-0
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %x start_partition=0
              in tags: physical_ap uint8 ap=[[256,128],[1,256]] offset=0 %tags start_partition=0
              out dst: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":2,"is_transpose":false,"is_fmap_onezero":true,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":4,"is_accumulate":false}
        "#]],
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
  // negative replication fields: P414 on each
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:1024], tags = %tags[:, :], compress_ratio = 2, replication_resolution = -1, replication_shift_amnt = -2 }
}
"#,
        expect![[r#"
            6: MatmultSparse PE I-1-0 errors=["P301","P414"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[2048,128],[1,1536]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":3,"is_accumulate":false}
            8: MatmultSparse PE I-2-0 errors=["P305","P407"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[2048,128],[1,1026]] offset=0 %x start_partition=0
              in tags: physical_ap int8 ap=[[256,128],[1,256]] offset=0 %tags start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":4,"is_accumulate":false}
            10: MatmultSparse PE I-3-0 errors=["P406","P407"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[2048,128],[1,2048]] offset=0 %x start_partition=0
              in tags: physical_ap int8 ap=[[256,128],[1,256]] offset=0 %tags start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":2,"is_accumulate":false}
            12: MatmultSparse PE I-4-0 errors=["P301","P406"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[2048,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":2,"is_accumulate":false}
            13: MatmultSparse PE I-5-0 errors=["P204","P400"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[64,2],[1,64]] offset=0 %w3 start_partition=0
              in moving: physical_ap bfloat16 ap=[[2048,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":4,"is_accumulate":false}
            15: MatmultSparse PE I-6-0 errors=["P407","P414"]
              in stationary: physical_ap bfloat16 ap=[[128,128],[1,128]] offset=0 %w start_partition=0
              in moving: physical_ap bfloat16 ap=[[2048,128],[1,1024]] offset=0 %x start_partition=0
              in tags: physical_ap int8 ap=[[256,128],[1,256]] offset=0 %tags start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"replication_resolution":0,"replication_shift_amnt":0,"replication_num_rows":0,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"compress_ratio":2,"is_accumulate":false}
            P301 error:6:80 `%ptags[:, :]`: `%ptags` is in psum, but this operand must be in sbuf
            P414 error:6:111 `3`: compress_ratio is 2 or 4; got 3
            P305 error:8:58 `%x[:, 0:1026]`: the moving free size 1026 is not a multiple of compress_ratio 4
            P407 error:8:80 `%tags`: `tags` is i8: sparsity tags are u8 or u16
            P406 error:10:58 `%x`: the dst free size N = 1024 (moving free size 2048) exceeds 512 (one PSUM bank of f32)
            P407 error:10:69 `%tags`: `tags` is i8: sparsity tags are u8 or u16
            P406 error:12:26 `%acc`: dst must be [M, N] = [128, 256]; it is [128, 512]
            P301 error:12:79 `%ptags`: `%ptags` is in psum, but this operand must be in sbuf
            P204 error:13:3 `MatMulSparseOp`: MatMulSparseOp needs the field `tags`
            P400 error:13:45 `%w3`: A splittable NeuronWeightTensor should be of rank 2
            P407 error:15:80 `%tags[:, :]`: `tags` is i8: sparsity tags are u8 or u16
            P414 error:15:138 `-1`: `replication_resolution` is a natural number; got -1
            P414 error:15:167 `-2`: `replication_shift_amnt` is a natural number; got -2
        "#]],
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
        expect![[r#"
            3: Matmult PE I-1-0
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap float32 ap=[[128,64],[1,128]] offset=0 %t start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,128],"is_accumulate":false}
        "#]],
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
kernel @k(%s: sbuf bf16[128, 64], %s3: sbuf bf16[64, 2, 32], %i: sbuf i32[64, 64], %wsrc: sbuf bf16[64, 256])
    -> (%t: psum bf16[64, 128], %f: psum f32[64, 128], %wide: psum bf16[64, 2048], %ti: psum i32[64, 64]) {
  // dst is not the src reversed: P305 on the later-written of the two (src)
  TransposeOp { dst = %t[0:32, :], src = %s }
  // dtype changes: P407 on the dst
  TransposeOp { dst = %f, src = %s }
  // rank 3: P305 on the src
  TransposeOp { dst = %t, src = %s3 }
  // the dst access crosses a bank (bytes 1920..=2175): P304 on the dst (pir-spec/2 §4;
  // pir-spec/1 measured the 4 KiB tensor, so `%wide[:, 0:128]` was P304 too)
  TransposeOp { dst = %wide[:, 960:1088], src = %s }
  TransposeOp { dst = %wide[:, 0:128], src = %s }
  // i32 is not a PE dtype: P407 on the src
  TransposeOp { dst = %ti, src = %i }
  // more than 128 columns: P406 on the src
  TransposeOp { dst = %t, src = %wsrc }
}
"#,
        expect![[r#"
            5: Matmult PE I-1-0 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[128,32],[1,128]] offset=0 %t start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,128],"is_accumulate":false}
            7: Matmult PE I-2-0 errors=["P407"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap float32 ap=[[128,64],[1,128]] offset=0 %f start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,128],"is_accumulate":false}
            9: Matmult PE I-3-0 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[64,64],[32,2],[1,32]] offset=0 %s3 start_partition=0
              out dst: physical_ap bfloat16 ap=[[128,64],[1,128]] offset=0 %t start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":64,"psum_buf_shape":[64,128],"is_accumulate":false}
            12: Matmult PE I-4-0 errors=["P304"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[2048,64],[1,128]] offset=960 %wide start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,2048],"is_accumulate":false}
            13: Matmult PE I-5-0
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[2048,64],[1,128]] offset=0 %wide start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[64,2048],"is_accumulate":false}
            15: Matmult PE I-6-0 errors=["P407"]
              in src: physical_ap int32 ap=[[64,64],[1,64]] offset=0 %i start_partition=0
              out dst: physical_ap int32 ap=[[64,64],[1,64]] offset=0 %ti start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":64,"psum_buf_shape":[64,64],"is_accumulate":false}
            17: Matmult PE I-7-0 errors=["P406"]
              in src: physical_ap bfloat16 ap=[[256,64],[1,256]] offset=0 %wsrc start_partition=0
              out dst: physical_ap bfloat16 ap=[[128,64],[1,128]] offset=0 %t start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":true,"identity":true,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":64,"psum_buf_shape":[64,128],"is_accumulate":false}
            P305 error:5:42 `%s`: the dst of a transpose is the src shape reversed, [64, 128]; it is [32, 128]
            P407 error:7:23 `%f`: dst is f32 but a transpose keeps the dtype: it must be bf16
            P305 error:9:33 `%s3`: a transpose takes rank-2 accesses; `src` has rank 3
            P304 error:12:23 `%wide[:, 960:1088]`: Allocated memory out of bound: a matmul dst must lie inside one PSUM bank (2048 bytes per partition); this access covers bytes 1920..=2175 of `%wide` in each partition, across the bank boundary at 2048
            P407 error:15:34 `%i`: Expect ap datatype to be of type f32, f32r, tf32, bf16, f16, f8e4m3 or f8e5m2: `src` is i32 (the PE's input dtypes)
            P406 error:17:33 `%wsrc`: a transpose is at most [128, 128]; `src` has 256 elements per partition
        "#]],
    );
}

#[test]
fn mx_dst_scale_is_the_last_input() {
    // pir-spec/2 §6.1: MatMulMXOp's `dst_scale` (seed 000 §2.2) is an e8m0 or u8 operand,
    // the last `ins` entry; pir-spec/1 had no such field (P203).
    check(
        &mx(
            r#"  MatMulMXOp { dst_scale = %ls, dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale_ptr = %sp }
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, dst_scale = %sp }"#,
        ),
        expect![[r#"
            2: MatmultMx PE I-1-0
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              in scale_ptr: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %sp start_partition=0
              in dst_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            3: MatmultMx PE I-2-0 errors=["P407"]
              in stationary: physical_ap float8_e4m3fn_x4 ap=[[128,128],[1,128]] offset=0 %st start_partition=0
              in moving: physical_ap float8_e4m3fn_x4 ap=[[512,128],[1,512]] offset=0 %mv start_partition=0
              in lhs_scale: physical_ap float8_e8m0fnu ap=[[128,16],[1,128]] offset=0 %ls start_partition=0
              in rhs_scale: physical_ap float8_e8m0fnu ap=[[512,16],[1,512]] offset=0 %rs start_partition=0
              in dst_scale: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %sp start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %acc start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"tile_size":[128,128],"tile_position":[0,0],"scale":1.0,"psum_buf_shape":[128,512],"is_accumulate":false}
            P416 warning:1:8 `@k`: peak PSUM occupancy 17,408 bytes per partition exceeds the capacity of 16,384 bytes at op #1 `MatMulMXOp`
                related `MatMulMXOp`: PSUM peak of 17,408 bytes reached here
                related `%acc32: psum f32[128, 4096]`: `%acc32` is live there: 16,384 bytes per partition
                related `%acc: psum bf16[128, 512]`: `%acc` is live there: 1,024 bytes per partition
            P419 warning:1:179 `%acc32`: output `%acc32` is never written
            P407 error:3:106 `%sp`: `dst_scale` is f32: MX scales are e8m0 or u8
        "#]],
    );
    check_schema(&mx(
        r#"  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, dst_scale = %rs }"#,
    ));
}
