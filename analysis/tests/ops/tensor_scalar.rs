//! The tensor-scalar pointer family (SPEC §6.3): TensorScalarPtrOp,
//! TensorScalarCacheCumulative, AffSelTensorScalarOp, TensorScalarGEPOp →
//! `TensorScalarPtr`; RangeSelect → `RangeSelect`; TensorSelect, SelectReduce → `Select`
//! (IT 51); TensorCopyPredicated → `CopyPredicated` (IT 52).

use expect_test::expect;

use crate::common::check;
use crate::matmul::check_schema;

// ----- TensorScalarPtrOp -----------------------------------------------------------------

#[test]
fn tsp_immediate_and_pointer() {
    // One operand (op1 emitted bypass), a [P, 1] pointer operand, and TSC mode.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %s: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = 0.25 }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = subtract, operand0 = %s, reverse0 = true }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = 0.00048828125, op1 = add, operand1 = 1e-6, reverse1 = true }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tsp_engines_and_stt() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %z: sbuf f32[128, 512], %s: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = max, operand0 = 0, engine = pool }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = bitwise_and, operand0 = 255, op1 = bitwise_or, operand1 = 1, engine = act }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = %s, op1 = add, operand1 = %z, is_scalar_tensor_tensor = true }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tsp_schema() {
    check_schema(
        r#"
kernel @k(%x: sbuf f32[128, 512], %s: sbuf f32[128, 1], %m: sbuf u8[128, 512]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = %s, op1 = add, operand1 = 1.0 }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = add, operand0 = 0, op1 = add }
  AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 - $1 >= 0], fill_value = -inf }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %s, index = 3 }
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = %s }
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = 0.0 }
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m }
}
"#,
    );
}

#[test]
fn p404_tsc_needs_op1() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 1]) {
  TensorScalarPtrOp {
    dst = %y
    src = %x
    op0 = multiply
    operand0 = 0.00048828125
    operand1 = 1e-6
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p407_arithmetic_and_bitwise() {
    // Mixed classes are P407 on op1; bypass and an absent op1 count as either.
    check(
        r#"
kernel @k(%x: sbuf i32[128, 64]) -> (%y: sbuf i32[128, 64]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, op1 = bitwise_xor, operand1 = 3 }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = bitwise_and, operand0 = 1, op1 = bypass, operand1 = 0 }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = bitwise_and, operand0 = 1 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn p305_p306_src_dst_and_pointers() {
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512], %s: sbuf f32[64, 2], %t: sbuf f32[32, 1]) -> (%y: sbuf f32[64, 512]) {
  // dst free size differs: P305 on the later (src)
  TensorScalarPtrOp { dst = %y[:, 0:256], src = %x, op0 = add, operand0 = 1 }
  // start partitions differ: P306 on dst
  TensorScalarPtrOp { dst = %y[32:64, :], src = %x[0:32, :], op0 = add, operand0 = 1 }
  // pointers not [64, 1]: P305 on each
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = %s, op1 = add, operand1 = %t }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn stt_operand1_rules() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %z: sbuf f32[128, 256]) -> (%y: sbuf f32[128, 512]) {
  // operand1 a number: P206
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, op1 = add, operand1 = 2, is_scalar_tensor_tensor = true }
  // operand1 absent: P204
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, is_scalar_tensor_tensor = true }
  // operand1 not shaped like src: P305
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, op1 = add, operand1 = %z, is_scalar_tensor_tensor = true }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tsp_generic_rules() {
    // Pool cannot read PSUM (P301); `sp` is not an engine of the op (P207); an unknown
    // field gets a did-you-mean (P203); op0 is required (P204).
    check(
        r#"
kernel @k(%x: psum f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, engine = pool }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, engine = sp }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, revers0 = true }
  TensorScalarPtrOp { dst = %y, src = %x, operand0 = 1 }
}
"#,
        expect![[r#""#]],
    );
}

// ----- TensorScalarCacheCumulative -------------------------------------------------------

#[test]
fn cache_cumulative() {
    // Always TSC mode: without op1, P404 on operand1, or on the class name when the carry
    // is implied.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %c: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = multiply, operand0 = 0.9, op1 = add, operand1 = %c }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = multiply, operand0 = 0.9, operand1 = %c }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = multiply, operand0 = 0.9 }
}
"#,
        expect![[r#""#]],
    );
}

// ----- AffSelTensorScalarOp --------------------------------------------------------------

#[test]
fn aff_sel_predicates() {
    // A causal mask: keep where row ≥ column. Every term moves to the left, the
    // comparison kept: `$0 >= $1 + 3` → coeffs [1, -1], const -3, ">=".
    check(
        r#"
kernel @k(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {
  AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 >= $1 + 3, 2*$1 < 100, 5 != $0], fill_value = -1e9 }
  AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$1 == 0], fill_value = 0, op0 = multiply, operand0 = 2.0, engine = dve }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn aff_sel_rules() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {
  for %i in 0..2 {
    // $2 beyond the rank 2 of the dst access: P300
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$2 >= 0], fill_value = 0 }
    // a loop variable: P303
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 - %i >= 0], fill_value = 0 }
    // not affine: P303
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 * $1 >= 0], fill_value = 0 }
    // no predicate: P414; fill_value missing: P204
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [] }
  }
}
"#,
        expect![[r#""#]],
    );
}

// ----- TensorScalarGEPOp -----------------------------------------------------------------

#[test]
fn gep_index_kinds() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 64], %table: sbuf f32[128, 16], %idx: sbuf i32[128, 1], %fidx: sbuf f32[128, 1])
    -> (%y: sbuf f32[128, 64]) {
  reg %r : i32
  reg %fr : f32
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = 5 }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = multiply, ptr = %table, index = %r, engine = pool }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = multiply, ptr = %table, index = %idx }
  // a float index: P407; a negative one: P414
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = %fidx }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = %fr }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = -1 }
  // a loop variable is not an index: P206
  for %i in 0..2 {
    TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = %i }
  }
}
"#,
        expect![[r#""#]],
    );
}

// ----- RangeSelect -----------------------------------------------------------------------

#[test]
fn range_select_lowering() {
    // fill_value defaults to FP32 min; reduce_op defaults to max; num_active_channels is
    // the dst partitions.
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512], %lo: sbuf f32[64, 1]) -> (%y: sbuf f32[64, 512], %m: sbuf f32[64, 1]) {
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = %lo, bound1 = 256, range_start = 128, reduce_dst = %m }
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_gt, comp_op1 = is_le, bound0 = 0, bound1 = 10, fill_value = -3.4028235e38 }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn range_select_rules() {
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512], %lo: sbuf bf16[64, 1], %wide: sbuf f32[64, 2]) -> (%y: sbuf f32[64, 512]) {
  // fill_value other than FP32 min: P414
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 8, fill_value = -1e30 }
  // reduce_op other than max: P414
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 8, reduce_op = add }
  // not a comparison: P207
  RangeSelect { dst = %y, on_true = %x, comp_op0 = add, comp_op1 = is_lt, bound0 = 0, bound1 = 8 }
  // a bf16 bound pointer (P407), a [64, 2] one (P305)
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = %lo, bound1 = %wide }
  // on_true not shaped like dst: P305; comp_op1 and bound1 missing: P204
  RangeSelect { dst = %y, on_true = %x[:, 0:8], comp_op0 = is_ge, bound0 = 0 }
}
"#,
        expect![[r#""#]],
    );
}

// ----- TensorSelect, SelectReduce --------------------------------------------------------

#[test]
fn select_lowering() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %m: sbuf u8[128, 512], %f: sbuf f32[128, 1])
    -> (%y: sbuf f32[128, 512], %r: sbuf f32[128, 1]) {
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = -inf }
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = %f }
  SelectReduce { dst = %y, predicate = %m, on_true = %x, on_false = 0, reduce_op = multiply, reduce_dst = %r }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn select_rules() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512], %m: sbuf u8[128, 256], %f: sbuf f32[64, 1])
    -> (%y: sbuf f32[128, 512], %r: sbuf f32[128, 2]) {
  // the predicate is not shaped like dst: P305; the on_false pointer is not [128, 1]: P305
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = %f }
  // reduce_dst not [128, 1]: P305; reduce_op missing: P204
  SelectReduce { dst = %y, predicate = %m[:, :], on_true = %x, on_false = 0, reduce_dst = %r }
}
"#,
        expect![[r#""#]],
    );
}

// ----- TensorCopyPredicated --------------------------------------------------------------

#[test]
fn copy_predicated() {
    check(
        r#"
kernel @k(%x: sbuf bf16[128, 512], %m: sbuf u8[128, 512]) -> (%y: sbuf bf16[128, 512]) {
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m }
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m, reverse_pred = true }
  // start partitions differ: P306; predicate shape: P305
  TensorCopyPredicated { dst = %y[32:64, :], src = %x[0:32, :], predicate = %m }
  // DVE only: no engine field (P203)
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m, engine = pool }
}
"#,
        expect![[r#""#]],
    );
}
