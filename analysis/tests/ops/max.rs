//! Max / MaxIndex / MatchReplace (SPEC §6.5).

use expect_test::expect;

use crate::common::check;
use crate::common::check_schema;

#[test]
fn topk_fold() {
    // topk.pir: -inf stays -inf in a float dtype (no P411), u32 indices stay uint32.
    check(
        r#"
kernel @k(%data: sbuf bf16[128, 1024]) -> (%vals: sbuf bf16[128, 16], %inds: sbuf u32[128, 16]) {
  for %f in 0..2 {
    SundaMax8 { dst = %vals[:, %f*8 : %f*8 + 8], src = %data }
    MaxIndexAndMatchReplace {
      dst = %data
      dst_idx = %inds[:, %f*8 : %f*8 + 8]
      src = %data
      vals = %vals[:, %f*8 : %f*8 + 8]
      imm = -inf
    }
  }
}
"#,
        expect![[r#"
            L-f {"name":"f","lb":0,"ub":2,"stride":1}
              4: Max DVE I-1-0 IT88
                in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
                out dst: symbolic_ap bfloat16 ap=[[16,128],[1,8]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"f","coeff":8}],"c":0}] access_shape=[128,8] %vals start_partition=0
              5: MaxIndexAndMatchReplace DVE I-2-0 IT91
                in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
                in vals: symbolic_ap bfloat16 ap=[[16,128],[1,8]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"f","coeff":8}],"c":0}] access_shape=[128,8] %vals start_partition=0
                out dst: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
                out dst_idx: symbolic_ap uint32 ap=[[16,128],[1,8]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"f","coeff":8}],"c":0}] access_shape=[128,8] %inds start_partition=0
                {"imm_value":"-inf"}
        "#]],
    );
}

#[test]
fn max_index_reinterprets_to_unsigned() {
    check(
        r#"
kernel @k(%data: sbuf bf16[128, 1024], %v: sbuf bf16[128, 8]) -> (%a: sbuf i16[128, 8], %b: sbuf i32[128, 8], %c: sbuf f32[128, 8], %d: sbuf bf16[128, 8]) {
  SundaMaxIndex8 { dst = %a, max_vals = %v, src = %data }
  SundaMaxIndex8 { dst = %b, max_vals = %v, src = %data }
  SundaMaxIndex8 { dst = %c, max_vals = %v, src = %data }
  SundaMaxIndex8 { dst = %d, max_vals = %v, src = %data }
}
"#,
        expect![[r#"
            3: MaxIndex DVE I-1-0 IT89
              in max_vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap uint16 ap=[[8,128],[1,8]] offset=0 %a start_partition=0
            4: MaxIndex DVE I-2-0 IT89
              in max_vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap uint32 ap=[[8,128],[1,8]] offset=0 %b start_partition=0
            5: MaxIndex DVE I-3-0 IT89
              in max_vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap uint32 ap=[[8,128],[1,8]] offset=0 %c start_partition=0
            6: MaxIndex DVE I-4-0 IT89
              in max_vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap uint16 ap=[[8,128],[1,8]] offset=0 %d start_partition=0
            P410 warning:5:26 `%c`: the f32 index output `dst` is reinterpreted as uint32
            P410 warning:6:26 `%d`: the bf16 index output `dst` is reinterpreted as uint16
        "#]],
    );
}

#[test]
fn lanes_are_p_by_8() {
    check(
        r#"
kernel @k(%data: sbuf bf16[128, 1024], %v: sbuf bf16[64, 8]) -> (%a: sbuf bf16[128, 4], %b: sbuf bf16[64, 8], %i: sbuf u16[128, 8]) {
  SundaMax8 { dst = %a, src = %data }
  SundaMax8 { dst = %b, src = %data }
  SundaMax8 { src = %data, dst = %b }
  SundaMaxIndex8 { dst = %i, max_vals = %v, src = %data }
}
"#,
        expect![[r#"
            3: Max DVE I-1-0 IT88 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap bfloat16 ap=[[4,128],[1,4]] offset=0 %a start_partition=0
            4: Max DVE I-2-0 IT88 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap bfloat16 ap=[[8,64],[1,8]] offset=0 %b start_partition=0
            5: Max DVE I-3-0 IT88 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap bfloat16 ap=[[8,64],[1,8]] offset=0 %b start_partition=0
            6: MaxIndex DVE I-4-0 IT89 errors=["P305"]
              in max_vals: physical_ap bfloat16 ap=[[8,64],[1,8]] offset=0 %v start_partition=0
              in src: physical_ap bfloat16 ap=[[1024,128],[1,1024]] offset=0 %data start_partition=0
              out dst: physical_ap uint16 ap=[[8,128],[1,8]] offset=0 %i start_partition=0
            P305 error:3:21 `%a`: `dst` must be [P, 8] (eight per partition); it is [128, 4]
            P305 error:4:31 `%data`: `dst` has 64 partitions but `src` has 128
            P305 error:5:34 `%b`: `dst` has 64 partitions but `src` has 128
            P305 error:6:51 `%data`: `max_vals` has 64 partitions but `src` has 128
        "#]],
    );
}

#[test]
fn match_replace_clips_the_immediate() {
    check(
        r#"
kernel @k(%f8: sbuf f8e4m3[128, 64], %u8: sbuf u8[128, 64], %bf: sbuf bf16[128, 64], %v8: sbuf f8e4m3[128, 8], %vu: sbuf u8[128, 8], %vb: sbuf bf16[128, 8]) {
  SundaMatchReplace8 { dst = %f8, src = %f8, vals = %v8, imm = 1000.0 }
  SundaMatchReplace8 { dst = %u8, src = %u8, vals = %vu, imm = -3.7 }
  SundaMatchReplace8 { dst = %u8, src = %u8, vals = %vu, imm = 5 }
  SundaMatchReplace8 { dst = %bf, src = %bf, vals = %vb, imm = -inf }
  SundaMatchReplace8 { dst = %u8, src = %u8, vals = %vu, imm = -inf }
}
"#,
        expect![[r#"
            3: MatchReplace DVE I-1-0 IT90
              in src: physical_ap float8e4 ap=[[64,128],[1,64]] offset=0 %f8 start_partition=0
              in vals: physical_ap float8e4 ap=[[8,128],[1,8]] offset=0 %v8 start_partition=0
              out dst: physical_ap float8e4 ap=[[64,128],[1,64]] offset=0 %f8 start_partition=0
              {"imm_value":240.0}
            4: MatchReplace DVE I-2-0 IT90
              in src: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u8 start_partition=0
              in vals: physical_ap uint8 ap=[[8,128],[1,8]] offset=0 %vu start_partition=0
              out dst: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u8 start_partition=0
              {"imm_value":0.0}
            5: MatchReplace DVE I-3-0 IT90
              in src: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u8 start_partition=0
              in vals: physical_ap uint8 ap=[[8,128],[1,8]] offset=0 %vu start_partition=0
              out dst: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u8 start_partition=0
              {"imm_value":5.0}
            6: MatchReplace DVE I-4-0 IT90
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %bf start_partition=0
              in vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %vb start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %bf start_partition=0
              {"imm_value":"-inf"}
            7: MatchReplace DVE I-5-0 IT90
              in src: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u8 start_partition=0
              in vals: physical_ap uint8 ap=[[8,128],[1,8]] offset=0 %vu start_partition=0
              out dst: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u8 start_partition=0
              {"imm_value":0.0}
            P411 warning:3:64 `1000.0`: imm 1000 is clipped to 240 to fit the dst dtype f8e4m3
            P411 warning:4:64 `-3.7`: imm -3.7 is clipped to 0 to fit the dst dtype u8
            P411 warning:7:64 `-inf`: imm -inf is clipped to 0 to fit the dst dtype u8
        "#]],
    );
}

#[test]
fn match_replace_shapes() {
    check(
        r#"
kernel @k(%d: sbuf bf16[128, 64], %v: sbuf bf16[128, 8], %w: sbuf bf16[128, 16]) -> (%o: sbuf bf16[128, 32]) {
  SundaMatchReplace8 { dst = %o, src = %d, vals = %v, imm = 0.0 }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %w, imm = 0.0 }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v }
}
"#,
        expect![[r#"
            3: MatchReplace DVE I-1-0 IT90 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap bfloat16 ap=[[32,128],[1,32]] offset=0 %o start_partition=0
              {"imm_value":0.0}
            4: MatchReplace DVE I-2-0 IT90 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap bfloat16 ap=[[16,128],[1,16]] offset=0 %w start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"imm_value":0.0}
            5: MatchReplace DVE I-3-0 IT90 errors=["P204"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"imm_value":0.0}
            P305 error:3:40 `%d`: `dst` has 128 partitions × 32 elements but `src` has 128 × 64
            P305 error:4:51 `%w`: `vals` must be [P, 8] (eight per partition); it is [128, 16]
            P204 error:5:3 `SundaMatchReplace8`: SundaMatchReplace8 needs the field `imm`
        "#]],
    );
}

#[test]
fn match_replace_pointer_immediate() {
    check(
        r#"
kernel @k(%d: sbuf bf16[128, 64], %v: sbuf bf16[128, 8], %s: sbuf f32[128, 1], %t: sbuf f32[128, 2]) {
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v, imm = %s }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v, imm = %t }
}
"#,
        expect![[r#"
            3: MatchReplace DVE I-1-0 IT90
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in imm: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"imm_value":0.0}
            4: MatchReplace DVE I-2-0 IT90 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap bfloat16 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in imm: physical_ap float32 ap=[[2,128],[1,2]] offset=0 %t start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"imm_value":0.0}
            P305 error:4:61 `%t`: `imm` must be [128, 1] (one element per partition); it is [128, 2]
        "#]],
    );
}

#[test]
fn fused_index_output_rules() {
    check(
        r#"
kernel @k(%d: sbuf f32[128, 64], %v: sbuf f32[128, 8]) -> (%fi: sbuf f32[128, 8], %bi: sbuf u8[128, 8]) {
  MaxIndexAndMatchReplace { dst = %d, dst_idx = %fi, src = %d, vals = %v, imm = -3.5e38 }
  MaxIndexAndMatchReplace { dst = %d, dst_idx = %bi, src = %d, vals = %v, imm = 0 }
}
"#,
        expect![[r#"
            3: MaxIndexAndMatchReplace DVE I-1-0 IT91
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              out dst_idx: physical_ap uint32 ap=[[8,128],[1,8]] offset=0 %fi start_partition=0
              {"imm_value":-3.4028234663852886e+38}
            4: MaxIndexAndMatchReplace DVE I-2-0 IT91 errors=["P407"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              out dst_idx: physical_ap uint8 ap=[[8,128],[1,8]] offset=0 %bi start_partition=0
              {"imm_value":0.0}
            P410 warning:3:49 `%fi`: the f32 index output `dst_idx` is reinterpreted as uint32
            P411 warning:3:81 `-3.5e38`: imm -3.5e38 is clipped to -3.4028234663852886e38 to fit the dst dtype f32
            P407 error:4:49 `%bi`: index output `dst_idx` is u8; indices are 2 or 4 bytes wide (u16, i16, u32, i32; others are viewed as uint16/uint32 by width)
        "#]],
    );
}

#[test]
fn max_bir_passes_the_schema() {
    check_schema(
        r#"
kernel @k(%data: sbuf bf16[128, 1024]) -> (%vals: sbuf bf16[128, 8], %inds: sbuf i32[128, 8]) {
  SundaMax8 { dst = %vals, src = %data }
  SundaMaxIndex8 { dst = %inds, max_vals = %vals, src = %data }
  SundaMatchReplace8 { dst = %data, src = %data, vals = %vals, imm = -inf }
  MaxIndexAndMatchReplace { dst = %data, dst_idx = %inds, src = %data, vals = %vals, imm = 2.5 }
}
"#,
    );
}

#[test]
fn match_replace_clips_only_what_does_not_round_to_a_finite_value() {
    // pir-spec/2 §4 / §6.5: P411 after rounding. pir-spec/1 warned "clipped" on numpy's
    // f32 lowest `-3.4028235e38`, on f16's `65519` and on f8e4m3's `247`, which all round to
    // the largest finite value; `65520` into f16 still rounds to infinity and is clipped.
    check(
        r#"
kernel @k(%f: sbuf f32[128, 64], %h: sbuf f16[128, 64], %e: sbuf f8e4m3[128, 64], %vf: sbuf f32[128, 8], %vh: sbuf f16[128, 8], %ve: sbuf f8e4m3[128, 8]) {
  SundaMatchReplace8 { dst = %f, src = %f, vals = %vf, imm = -3.4028235e38 }
  SundaMatchReplace8 { dst = %h, src = %h, vals = %vh, imm = 65519 }
  SundaMatchReplace8 { dst = %h, src = %h, vals = %vh, imm = -65520 }
  SundaMatchReplace8 { dst = %e, src = %e, vals = %ve, imm = 247 }
  SundaMatchReplace8 { dst = %e, src = %e, vals = %ve, imm = 248 }
}
"#,
        expect![[r#"
            3: MatchReplace DVE I-1-0 IT90
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %f start_partition=0
              in vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %vf start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %f start_partition=0
              {"imm_value":-3.4028234663852886e+38}
            4: MatchReplace DVE I-2-0 IT90
              in src: physical_ap float16 ap=[[64,128],[1,64]] offset=0 %h start_partition=0
              in vals: physical_ap float16 ap=[[8,128],[1,8]] offset=0 %vh start_partition=0
              out dst: physical_ap float16 ap=[[64,128],[1,64]] offset=0 %h start_partition=0
              {"imm_value":65504.0}
            5: MatchReplace DVE I-3-0 IT90
              in src: physical_ap float16 ap=[[64,128],[1,64]] offset=0 %h start_partition=0
              in vals: physical_ap float16 ap=[[8,128],[1,8]] offset=0 %vh start_partition=0
              out dst: physical_ap float16 ap=[[64,128],[1,64]] offset=0 %h start_partition=0
              {"imm_value":-65504.0}
            6: MatchReplace DVE I-4-0 IT90
              in src: physical_ap float8e4 ap=[[64,128],[1,64]] offset=0 %e start_partition=0
              in vals: physical_ap float8e4 ap=[[8,128],[1,8]] offset=0 %ve start_partition=0
              out dst: physical_ap float8e4 ap=[[64,128],[1,64]] offset=0 %e start_partition=0
              {"imm_value":240.0}
            7: MatchReplace DVE I-5-0 IT90
              in src: physical_ap float8e4 ap=[[64,128],[1,64]] offset=0 %e start_partition=0
              in vals: physical_ap float8e4 ap=[[8,128],[1,8]] offset=0 %ve start_partition=0
              out dst: physical_ap float8e4 ap=[[64,128],[1,64]] offset=0 %e start_partition=0
              {"imm_value":240.0}
            P411 warning:5:62 `-65520`: imm -65520 is clipped to -65504 to fit the dst dtype f16
            P411 warning:7:62 `248`: imm 248 is clipped to 240 to fit the dst dtype f8e4m3
        "#]],
    );
}

#[test]
fn max8_family_src_holds_8_to_16384_per_partition() {
    // pir-spec/2 §6.5: the src of all four ops holds 8 to 16,384 elements per partition
    // (the public `nki.isa.max8` bounds), else P305 on `src`; pir-spec/1 did not check it.
    check(
        r#"
kernel @k(%small: sbuf f32[128, 4], %ok: sbuf f32[128, 16384], %big: sbuf f32[128, 16385], %v: sbuf f32[128, 8], %i: sbuf u32[128, 8]) {
  SundaMax8 { dst = %v, src = %small }
  SundaMax8 { dst = %v, src = %ok }
  SundaMaxIndex8 { dst = %i, max_vals = %v, src = %big }
  SundaMatchReplace8 { dst = %small, src = %small, vals = %v, imm = 0.0 }
  MaxIndexAndMatchReplace { dst = %big, dst_idx = %i, src = %big, vals = %v, imm = 0.0 }
  SundaMax8 { dst = %v, src = %ok[:, 0:8] }
}
"#,
        expect![[r#"
            3: Max DVE I-1-0 IT88 errors=["P305"]
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %small start_partition=0
              out dst: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
            4: Max DVE I-2-0 IT88
              in src: physical_ap float32 ap=[[16384,128],[1,16384]] offset=0 %ok start_partition=0
              out dst: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
            5: MaxIndex DVE I-3-0 IT89 errors=["P305"]
              in max_vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              in src: physical_ap float32 ap=[[16385,128],[1,16385]] offset=0 %big start_partition=0
              out dst: physical_ap uint32 ap=[[8,128],[1,8]] offset=0 %i start_partition=0
            6: MatchReplace DVE I-4-0 IT90 errors=["P305"]
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %small start_partition=0
              in vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %small start_partition=0
              {"imm_value":0.0}
            7: MaxIndexAndMatchReplace DVE I-5-0 IT91 errors=["P305"]
              in src: physical_ap float32 ap=[[16385,128],[1,16385]] offset=0 %big start_partition=0
              in vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap float32 ap=[[16385,128],[1,16385]] offset=0 %big start_partition=0
              out dst_idx: physical_ap uint32 ap=[[8,128],[1,8]] offset=0 %i start_partition=0
              {"imm_value":0.0}
            8: Max DVE I-6-0 IT88
              in src: physical_ap float32 ap=[[16384,128],[1,8]] offset=0 %ok start_partition=0
              out dst: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
            P305 error:3:31 `%small`: `src` must hold 8 to 16384 elements per partition; it holds 4
            P305 error:5:51 `%big`: `src` must hold 8 to 16384 elements per partition; it holds 16385
            P305 error:6:44 `%small`: `src` must hold 8 to 16384 elements per partition; it holds 4
            P305 error:7:61 `%big`: `src` must hold 8 to 16384 elements per partition; it holds 16385
        "#]],
    );
}
