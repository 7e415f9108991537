//! Max / MaxIndex / MatchReplace (SPEC §6.5).

use expect_test::expect;

use crate::common::check;
use crate::memset_dma::check_schema;

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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
