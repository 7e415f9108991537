//! Inline assembly, dropout, iota, shuffle, no-op, tensor-tensor (SPEC §6.7).

use expect_test::expect;

use crate::common::check;
use crate::memset_dma::check_schema;

#[test]
fn inline_asm_splits_operands() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64], %b: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMInst { engine = pool, opcode = "IotaX", asm_attrs = { mode = 2, name = "x", fast = true, kind = relu }, operands = [%a, %b, %o] }
  InlineASMInst { engine = sp, opcode = "Nop" }
  InlineASMInst { engine = dma, opcode = "Copy", operands = [%a, %o], num_inputs = 0 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn inline_asm_rules() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMInst { engine = dve, opcode = "A", operands = [%a, %o], num_inputs = 3 }
  InlineASMInst { engine = dve, opcode = "A", operands = [%a, %o], num_inputs = -1 }
  InlineASMInst { opcode = "A", operands = [%a, %o] }
  InlineASMInst { engine = dve, operands = [%a, %o] }
  InlineASMInst { engine = gpsimd, opcode = "A" }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn inline_asm_bytes() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMBytesInst { engine = act, asm_bytes = x"DE AD be ef", sync_type = sequencer, latency_estimate = 12, operands = [%a, %o] }
  InlineASMBytesInst { engine = act, asm_bytes = x"", sync_type = dma, latency_estimate = -1 }
  InlineASMBytesInst { engine = act, asm_bytes = x"00", sync_type = datapath, latency_estimate = 1 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn dropout() {
    check(
        r#"
kernel @k(%a: sbuf bf16[128, 64]) -> (%o: sbuf bf16[128, 64], %p: sbuf bf16[128, 32]) {
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.9 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 1 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.0 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 1.5 }
  DropoutMaskInst { dst = %p, src = %a, keep_rate = 0.5 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn iota() {
    check(
        r#"
kernel @k() -> (%a: sbuf i32[128, 64], %b: sbuf f32[128, 2, 32]) {
  IndexValueInst { dst = %a, channel_multiplier = 64 }
  IndexValueInst { dst = %b, base = -5, step = 2 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn iota_range_and_memory() {
    check(
        r#"
kernel @k() -> (%u: sbuf u8[128, 64], %v: sbuf u8[1, 512], %p: psum i32[128, 4], %h: sbuf bf16[128, 4]) {
  IndexValueInst { dst = %u, base = 300 }
  IndexValueInst { dst = %u, step = -1 }
  IndexValueInst { dst = %u, channel_multiplier = 64 }
  IndexValueInst { dst = %v }
  IndexValueInst { dst = %p }
  IndexValueInst { dst = %h, base = 1e6 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn stream_shuffle_broadcast() {
    // rmsnorm.pir: one partition broadcast to each quadrant.
    check(
        r#"
kernel @k(%g: sbuf bf16[1, 2048]) -> (%b: sbuf bf16[128, 2048]) {
  for %j in 0..4 {
    StreamShuffleInst {
      dst = %b[%j*32 : %j*32 + 32, :]
      src = %g[0:1, :]
      shuffle_mask = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    }
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn stream_shuffle_rules() {
    check(
        r#"
kernel @k(%s: sbuf bf16[128, 64], %f: sbuf f32[32, 64]) -> (%d: sbuf bf16[128, 64]) {
  StreamShuffleInst { dst = %d[0:32, :], src = %s[32:64, :], shuffle_mask = [31, 30, 29, 255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 32] }
  StreamShuffleInst { dst = %d[0:32, :], src = %s[0:32, :], shuffle_mask = [0, 1, 2] }
  StreamShuffleInst { dst = %d[0:64, :], src = %s[0:32, :], shuffle_mask = [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255] }
  StreamShuffleInst { dst = %d[0:32, :], src = %f, shuffle_mask = [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn no_op_emits_nothing() {
    check(
        r#"
kernel @k() {
  NoOp {}
  NoOp { engine = dve }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tensor_tensor() {
    check(
        r#"
kernel @k(%a: sbuf f16[128, 512], %b: sbuf f16[128, 512]) -> (%c: sbuf f16[128, 512]) {
  TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }
  TensorTensorOp { dst = %c[0:32, :], src0 = %a[32:64, :], src1 = %b[64:96, :], op = multiply, engine = pool }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tensor_tensor_rules() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 512], %p: psum f32[128, 512], %q: psum f32[128, 512]) -> (%c: sbuf f32[128, 512]) {
  TensorTensorOp { dst = %c, src0 = %p, src1 = %q, op = add }
  TensorTensorOp { dst = %c, src0 = %a, src1 = %p, op = add, engine = pool }
  TensorTensorOp { dst = %c, src0 = %a[:, 0:256], src1 = %a, op = subtract }
  TensorTensorOp { dst = %c[0:64, :], src0 = %a, src1 = %a, op = max }
  TensorTensorOp { dst = %c, src0 = %a, src1 = %a }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn misc_bir_passes_the_schema() {
    check_schema(
        r#"
kernel @k(%a: sbuf f32[128, 64], %g: sbuf f32[1, 64]) -> (%o: sbuf f32[128, 64], %i: sbuf i32[128, 64]) {
  InlineASMInst { engine = pool, opcode = "X", asm_attrs = { k = 1 }, operands = [%a, %o] }
  InlineASMBytesInst { engine = dve, asm_bytes = x"0102", sync_type = data_path, latency_estimate = 3, operands = [%a, %o] }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.5 }
  IndexValueInst { dst = %i, base = 1, step = 2, channel_multiplier = 64 }
  StreamShuffleInst { dst = %o[0:32, :], src = %g, shuffle_mask = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
  NoOp {}
  TensorTensorOp { dst = %o, src0 = %a, src1 = %o, op = multiply }
  TensorCopyOp { dst = %o, src = %a }
}
"#,
    );
}
