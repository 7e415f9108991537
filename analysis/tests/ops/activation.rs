//! ActivationOp and Activate2 (SPEC §6.2): `Activation` / `ActivationAccumulationOp` on
//! the Activation engine.

use expect_test::expect;

use crate::common::check;
use crate::matmul::check_schema;

#[test]
fn activation_basic() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf bf16[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = exp }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn activation_every_field() {
    // A pointer scale becomes an `ins` argument and `scale` 1.0; imm0 a number, imm1 a
    // pointer; the fused reduce defaults to reset_reduce (ZeroAccumulate).
    check(
        r#"
kernel @k(%x: psum f32[128, 512], %s: sbuf f32[128, 1], %b: sbuf f32[128, 1], %u: sbuf f32[128, 512],
          %d: sbuf f32[128, 512])
    -> (%y: sbuf bf16[128, 512], %r: sbuf f32[128, 1], %o: sbuf f32[128, 512]) {
  ActivationOp {
    dst = %y, src = %x, func = gelu_apprx_tanh, func_args = [0.5, 2], func_outs = [%o]
    scale = %s, bias = %b, up_bias = %u, down_bias = %d, imm0 = 1.5, imm1 = %s
    reduce_op = multiply, reduce_dst = %r
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn activation_accumulate_and_reduce_cmd() {
    check(
        r#"
kernel @k(%x: sbuf f32[64, 256]) -> (%y: sbuf f32[64, 256], %r: sbuf f32[64, 1]) {
  ActivationOp { dst = %y, src = %x, func = log, scale = 0.25, is_accumulate = true }
  ActivationOp { dst = %y, src = %x, func = square, reduce_op = add, reduce_dst = %r, reduce_cmd = reduce }
  ActivationOp { dst = %y, src = %x, func = copy, reduce_cmd = reset }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn activate2() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512], %y2: sbuf f32[128, 512]) {
  Activate2 { dst = %y, src = %x, func = exp, func2 = log, dst2 = %y2, scale = 2 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn activation_schema() {
    check_schema(
        r#"
kernel @k(%x: sbuf f32[128, 512], %s: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512], %y2: sbuf f32[128, 512], %r: sbuf f32[128, 1]) {
  ActivationOp { dst = %y, src = %x, func = exp, scale = %s, reduce_op = max, reduce_dst = %r }
  ActivationOp { dst = %y, src = %x, func = relu, is_accumulate = true }
  Activate2 { dst = %y, src = %x, func = exp, func2 = sigmoid, dst2 = %y2 }
}
"#,
    );
}

// ----- rules -----------------------------------------------------------------------------

#[test]
fn p305_src_dst_shape() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 256]) {
  ActivationOp { dst = %y, src = %x, func = exp }
  ActivationOp { src = %x[0:64, :], dst = %y[0:64, :], func = exp }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p306_start_partition() {
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512]) -> (%y: sbuf f32[64, 512]) {
  ActivationOp {
    dst = %y[32:64, :], src = %x[0:32, :]
    func = exp
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p305_pointer_shapes() {
    // bias [128, 2], reduce_dst over 64 partitions, scale [128, 1] in bf16 (P407).
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %b: sbuf f32[128, 2], %s: sbuf bf16[128, 1])
    -> (%y: sbuf f32[128, 512], %r: sbuf f32[64, 1]) {
  ActivationOp { dst = %y, src = %x, func = exp, bias = %b, reduce_op = add, reduce_dst = %r, scale = %s }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p204_reduce_pairing() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512], %r: sbuf f32[128, 1]) {
  ActivationOp { dst = %y, src = %x, func = exp, reduce_op = add }
  ActivationOp { dst = %y, src = %x, func = exp, reduce_dst = %r }
  ActivationOp { dst = %y, src = %x }
  Activate2 { dst = %y, src = %x, func = exp }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p207_p301_generic() {
    // An unknown function gets a did-you-mean; the bias must be in sbuf.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %b: psum f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = expp, bias = %b, reduce_cmd = zero }
}
"#,
        expect![[r#""#]],
    );
}
