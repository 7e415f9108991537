//! DmaCopyOp and TensorCopyOp (SPEC §6.6, §6.7).

use expect_test::expect;

use crate::common::check;

#[test]
fn dma_copy_hbm_to_sbuf() {
    check(
        r#"
kernel @k(%x: hbm bf16[256, 512]) {
  tensor %t : sbuf bf16[128, 512]
  for %i in 0..2 {
    DmaCopyOp { dst = %t, src = %x[%i*128 : %i*128 + 128, :] }
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn dma_copy_element_count_mismatch() {
    check(
        r#"
kernel @k(%x: hbm bf16[256, 512]) {
  tensor %t : sbuf bf16[128, 512]
  DmaCopyOp { dst = %t, src = %x }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tensor_copy_start_partition_mismatch() {
    check(
        r#"
kernel @k() {
  tensor %a : sbuf f32[64, 16]
  tensor %b : sbuf f32[64, 16]
  TensorCopyOp { dst = %b[32:64, :], src = %a[0:32, :], engine = act }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tensor_copy_psum_to_sbuf_casts() {
    check(
        r#"
kernel @k(%p: psum f32[64, 512]) -> (%o: sbuf bf16[64, 512]) {
  TensorCopyOp { dst = %o, src = %p }
  TensorCopyOp { dst = %o, src = %p, engine = pool }
  TensorCopyOp { dst = %o, src = %p, engine = pe }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tensor_copy_element_count_mismatch() {
    check(
        r#"
kernel @k(%a: sbuf f32[64, 512]) -> (%o: sbuf f32[64, 256]) {
  TensorCopyOp { dst = %o, src = %a }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn dma_copy_any_partition_range() {
    // DMA is not bound by the compute engines' quadrant rule (SPEC §5).
    check(
        r#"
kernel @k(%x: hbm bf16[16, 512]) -> (%t: sbuf bf16[128, 512]) {
  DmaCopyOp { dst = %t[5:21, :], src = %x }
}
"#,
        expect![[r#""#]],
    );
}
