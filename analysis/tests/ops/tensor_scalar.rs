//! The tensor-scalar pointer family (SPEC §6.3): TensorScalarPtrOp,
//! TensorScalarCacheCumulative, AffSelTensorScalarOp, TensorScalarGEPOp →
//! `TensorScalarPtr`; RangeSelect → `RangeSelect`; TensorSelect, SelectReduce → `Select`
//! (IT 51); TensorCopyPredicated → `CopyPredicated` (IT 52).

use expect_test::expect;

use crate::common::check;
use crate::common::check_schema;

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
        expect![[r#"
            3: TensorScalarPtr DVE I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":0.25,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            4: TensorScalarPtr DVE I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in operand0: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %s start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"subtract","reverse0":true,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            5: TensorScalarPtr DVE I-3-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":0.00048828125,"reverse0":false,"op1":"add","operand1":1e-6,"reverse1":true,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
        "#]],
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
        expect![[r#"
            3: TensorScalarPtr Pool I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"max","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            4: TensorScalarPtr Activation I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"bitwise_and","operand0":255.0,"reverse0":false,"op1":"bitwise_or","operand1":1.0,"reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            5: TensorScalarPtr DVE I-3-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in operand0: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %s start_partition=0
              in operand1: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %z start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"mult","reverse0":false,"op1":"add","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":true,"acc":"Idle"}
        "#]],
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
        expect![[r#"
            3: TensorScalarPtr DVE I-1-0 errors=["P404"]
              in src: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":0.00048828125,"reverse0":false,"op1":"bypass","operand1":1e-6,"reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P404 error:8:16 `1e-6`: LOGIC FAULT, TSC mode must have op1 set!
        "#]],
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
        expect![[r#"
            3: TensorScalarPtr DVE I-1-0 errors=["P407"]
              in src: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bitwise_xor","operand1":3.0,"reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            4: TensorScalarPtr DVE I-2-0
              in src: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"bitwise_and","operand0":1.0,"reverse0":false,"op1":"bypass","operand1":0.0,"reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            5: TensorScalarPtr DVE I-3-0
              in src: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"bitwise_and","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P407 error:3:74 `bitwise_xor`: op0 `add` is arithmetic but op1 `bitwise_xor` is bitwise: both ops are arithmetic or both bitwise
        "#]],
    );
}

#[test]
fn p305_p306_src_dst_and_pointers() {
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512], %s: sbuf f32[64, 2], %t: sbuf f32[32, 1]) -> (%y: sbuf f32[64, 512]) {
  // dst free size differs: P305 on the later (src)
  TensorScalarPtrOp { dst = %y[:, 0:256], src = %x, op0 = add, operand0 = 1 }
  // start partitions differ, aligned: legal (pir-spec/3)
  TensorScalarPtrOp { dst = %y[32:64, :], src = %x[0:32, :], op0 = add, operand0 = 1 }
  // start partitions differ, 48 is not a multiple of 32: P306 on dst, no P307
  TensorScalarPtrOp { dst = %y[48:56, :], src = %x[0:8, :], op0 = add, operand0 = 1 }
  // pointers not [64, 1]: P305 on each
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = %s, op1 = add, operand1 = %t }
}
"#,
        expect![[r#"
            4: TensorScalarPtr DVE I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,256]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            6: TensorScalarPtr DVE I-2-0
              in src: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %y start_partition=32
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            8: TensorScalarPtr DVE I-3-0 errors=["P306"]
              in src: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %y start_partition=48
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            10: TensorScalarPtr DVE I-4-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              in operand0: physical_ap float32 ap=[[2,64],[1,2]] offset=0 %s start_partition=0
              in operand1: physical_ap float32 ap=[[1,32],[1,1]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"add","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P305 error:4:49 `%x`: `src` has 64 partitions × 512 elements but `dst` has 64 × 256
            P306 error:8:29 `%y[48:56, :]`: TensorScalarPtrOp src start_partition(0) or dst start_partition(48) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%x[0:8, :]`: the src starts here
            P305 error:10:65 `%s`: `operand0` must be [64, 1] (one element per partition); it is [64, 2]
            P305 error:10:91 `%t`: `operand1` must be [64, 1] (one element per partition); it is [32, 1]
        "#]],
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
        expect![[r#"
            4: TensorScalarPtr DVE I-1-0 errors=["P206"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"add","operand1":2.0,"reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":true,"acc":"Idle"}
            6: TensorScalarPtr DVE I-2-0 errors=["P204"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":true,"acc":"Idle"}
            8: TensorScalarPtr DVE I-3-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in operand1: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %z start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"add","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":true,"acc":"Idle"}
            P206 error:4:90 `2`: with is_scalar_tensor_tensor, `operand1` is a tensor access shaped like `src`
            P204 error:6:3 `TensorScalarPtrOp`: TensorScalarPtrOp with is_scalar_tensor_tensor needs the field `operand1`
            P305 error:8:90 `%z`: `operand1` has 128 partitions × 256 elements but `src` has 128 × 512
        "#]],
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
        expect![[r#"
            3: TensorScalarPtr Pool I-1-0 errors=["P301"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            4: TensorScalarPtr DVE I-2-0 errors=["P207"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            5: TensorScalarPtr DVE I-3-0 errors=["P203"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            6: TensorScalarPtr DVE I-4-0 errors=["P204"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"operand0":1.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P301 error:3:39 `%x`: Pool-engine ops cannot access PSUM (`%x`)
            P207 error:4:77 `sp`: TensorScalarPtrOp cannot run on `sp`; its engines are dve, pool, act
            P203 error:5:68 `revers0`: TensorScalarPtrOp has no field `revers0`; did you mean `reverse0`?
            P204 error:6:3 `TensorScalarPtrOp`: TensorScalarPtrOp needs the field `op0`
        "#]],
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
        expect![[r#"
            3: TensorScalarPtr DVE I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in operand1: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %c start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":0.9,"reverse0":false,"op1":"add","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            4: TensorScalarPtr DVE I-2-0 errors=["P404"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in operand1: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %c start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":0.9,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            5: TensorScalarPtr DVE I-3-0 errors=["P404"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":0.9,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P404 error:4:96 `%c`: LOGIC FAULT, TSC mode must have op1 set!
            P404 error:5:3 `TensorScalarCacheCumulative`: LOGIC FAULT, TSC mode must have op1 set!
        "#]],
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
        expect![[r#"
            3: TensorScalarPtr Pool I-1-0
              in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %y start_partition=0
              {"op0":"bypass","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","predicates":[{"coeffs":[1,-1],"const":-3,"cmp":">="},{"coeffs":[0,2],"const":-100,"cmp":"<"},{"coeffs":[-1,0],"const":5,"cmp":"!="}],"fill_value":-1000000000.0}
            4: TensorScalarPtr DVE I-2-0
              in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %y start_partition=0
              {"op0":"mult","operand0":2.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","predicates":[{"coeffs":[0,1],"const":0,"cmp":"=="}],"fill_value":0.0}
        "#]],
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
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              5: TensorScalarPtr Pool I-1-0 errors=["P300"]
                in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
                out dst: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %y start_partition=0
                {"op0":"bypass","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","fill_value":0.0}
              7: TensorScalarPtr Pool I-2-0 errors=["P303"]
                in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
                out dst: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %y start_partition=0
                {"op0":"bypass","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","fill_value":0.0}
              9: TensorScalarPtr Pool I-3-0 errors=["P303"]
                in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
                out dst: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %y start_partition=0
                {"op0":"bypass","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","fill_value":0.0}
              11: TensorScalarPtr Pool I-4-0 errors=["P204","P414"]
                in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
                out dst: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %y start_partition=0
                {"op0":"bypass","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P300 error:5:62 `$2 >= 0`: Incorrect access pattern! the predicate names `$2`, but the dst access has rank 2 (dims $0 to $1)
                related `%y`: the predicate names `$2`, but the dst access has rank 2 (dims $0 to $1)
            P303 error:7:62 `$0 - %i >= 0`: a predicate is over the dst dims `$0 $1 …`; the loop variable `%i` cannot appear in it
            P303 error:9:62 `$0 * $1 >= 0`: expression is not affine: a product may have at most one non-constant factor
            P204 error:11:5 `AffSelTensorScalarOp`: AffSelTensorScalarOp needs the field `fill_value`
            P414 error:11:61 `[]`: an affine select needs at least one predicate
        "#]],
    );
}

#[test]
fn aff_sel_unusable_dst() {
    // The dst is in hbm (P301): the predicates have no rank to be checked against, and a
    // huge `$d` must not make the lowering allocate its coefficients.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 128]) -> (%h: hbm f32[128, 128]) {
  AffSelTensorScalarOp { dst = %h, src = %x, predicates = [$4000000000 >= 0], fill_value = 0 }
}
"#,
        expect![[r#"
            3: TensorScalarPtr Pool I-1-0 errors=["P301"]
              in src: physical_ap float32 ap=[[128,128],[1,128]] offset=0 %x start_partition=0
              {"op0":"bypass","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","fill_value":0.0}
            P301 error:3:32 `%h`: `%h` is in hbm, but this operand must be in sbuf|psum
        "#]],
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
        expect![[r#"
            6: TensorScalarPtr DVE I-1-0
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
              in index: imm_value int32 value=5
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            7: TensorScalarPtr Pool I-2-0
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
              in index: register_access int32 %r
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"mult","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            8: TensorScalarPtr DVE I-3-0
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
              in index: physical_ap int32 ap=[[1,128],[1,1]] offset=0 %idx start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"mult","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            10: TensorScalarPtr DVE I-4-0 errors=["P407"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
              in index: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %fidx start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            11: TensorScalarPtr DVE I-5-0 errors=["P407"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
              in index: register_access float32 %fr
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            12: TensorScalarPtr DVE I-6-0 errors=["P414"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
              in index: imm_value int32 value=-1
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              15: TensorScalarPtr DVE I-7-0 errors=["P206"]
                in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
                in ptr: physical_ap float32 ap=[[16,128],[1,16]] offset=0 %table start_partition=0
                out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
                {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P407 error:10:76 `%fidx`: an index is an integer; `index` is f32
            P407 error:11:76 `%fr`: an index is an integer; `index` is f32
            P414 error:12:76 `-1`: an index is a natural number; got -1
            P206 error:15:78 `%i`: expected int | acc | reg, found a loop variable
        "#]],
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
        expect![[r#"
            3: RangeSelect DVE I-1-0
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              in bound0: physical_ap float32 ap=[[1,64],[1,1]] offset=0 %lo start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[1,64],[1,1]] offset=0 %m start_partition=0
              {"base":128,"compare_op0":"is_ge","compare_op1":"is_lt","bound1":256.0,"reduce_op":"max","fill_value":-3.4028234663852886e+38,"num_active_channels":64}
            4: RangeSelect DVE I-2-0
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_gt","compare_op1":"is_le","bound0":0.0,"bound1":10.0,"reduce_op":"max","fill_value":-3.4028235e+38,"num_active_channels":64}
        "#]],
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
  // reduce_dst not [64, 1]: P305
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 8, reduce_dst = %wide }
  // on_true not shaped like dst: P305; comp_op1 and bound1 missing: P204
  RangeSelect { dst = %y, on_true = %x[:, 0:8], comp_op0 = is_ge, bound0 = 0 }
}
"#,
        expect![[r#"
            4: RangeSelect DVE I-1-0 errors=["P414"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","bound0":0.0,"bound1":8.0,"reduce_op":"max","fill_value":-1e+30,"num_active_channels":64}
            6: RangeSelect DVE I-2-0 errors=["P414"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","bound0":0.0,"bound1":8.0,"reduce_op":"add","fill_value":-3.4028234663852886e+38,"num_active_channels":64}
            8: RangeSelect DVE I-3-0 errors=["P207"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op1":"is_lt","bound0":0.0,"bound1":8.0,"reduce_op":"max","fill_value":-3.4028234663852886e+38,"num_active_channels":64}
            10: RangeSelect DVE I-4-0 errors=["P305","P407"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              in bound0: physical_ap bfloat16 ap=[[1,64],[1,1]] offset=0 %lo start_partition=0
              in bound1: physical_ap float32 ap=[[2,64],[1,2]] offset=0 %wide start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","reduce_op":"max","fill_value":-3.4028234663852886e+38,"num_active_channels":64}
            12: RangeSelect DVE I-5-0 errors=["P305"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[2,64],[1,2]] offset=0 %wide start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","bound0":0.0,"bound1":8.0,"reduce_op":"max","fill_value":-3.4028234663852886e+38,"num_active_channels":64}
            14: RangeSelect DVE I-6-0 errors=["P204","P305"]
              in on_true: physical_ap float32 ap=[[512,64],[1,8]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","bound0":0.0,"reduce_op":"max","fill_value":-3.4028234663852886e+38,"num_active_channels":64}
            P414 error:4:114 `-1e30`: RangeSelect fills with FP32 min (-3.4028234663852886e38), as the hardware requires; -1e30 is another value in f32
            P414 error:6:113 `add`: RangeSelect reduces with max only; got `add`
            P207 error:8:52 `add`: unknown compare value `add`; expected one of is_ge, is_gt, is_le, is_lt, is_equal
            P407 error:10:86 `%lo`: the `bound0` pointer must be f32; it is bf16
            P305 error:10:100 `%wide`: `bound1` must be [64, 1] (one element per partition); it is [64, 2]
            P305 error:12:114 `%wide`: `reduce_dst` must be [64, 1] (one element per partition); it is [64, 2]
            P204 error:14:3 `RangeSelect`: RangeSelect needs the field `comp_op1`
            P204 error:14:3 `RangeSelect`: RangeSelect needs the field `bound1`
            P305 error:14:37 `%x[:, 0:8]`: `on_true` has 64 partitions × 8 elements but `dst` has 64 × 512
        "#]],
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
        expect![[r#"
            4: Select DVE I-1-0 IT51
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              in on_true: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"on_false":"-inf"}
            5: Select DVE I-2-0 IT51
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              in on_true: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in on_false: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %f start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
            6: Select DVE I-3-0 IT51
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              in on_true: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %r start_partition=0
              {"on_false":0.0,"reduce_op":"mult"}
        "#]],
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
        expect![[r#"
            5: Select DVE I-1-0 IT51 errors=["P305"]
              in predicate: physical_ap uint8 ap=[[256,128],[1,256]] offset=0 %m start_partition=0
              in on_true: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in on_false: physical_ap float32 ap=[[1,64],[1,1]] offset=0 %f start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
            7: Select DVE I-2-0 IT51 errors=["P204","P305"]
              in predicate: physical_ap uint8 ap=[[256,128],[1,256]] offset=0 %m start_partition=0
              in on_true: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[2,128],[1,2]] offset=0 %r start_partition=0
              {"on_false":0.0}
            P305 error:5:40 `%m`: `predicate` has 128 partitions × 256 elements but `dst` has 128 × 512
            P305 error:5:69 `%f`: `on_false` must be [128, 1] (one element per partition); it is [64, 1]
            P204 error:7:3 `SelectReduce`: SelectReduce needs the field `reduce_op`
            P305 error:7:40 `%m[:, :]`: `predicate` has 128 partitions × 256 elements but `dst` has 128 × 512
            P305 error:7:91 `%r`: `reduce_dst` must be [128, 1] (one element per partition); it is [128, 2]
        "#]],
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
  // start partitions differ, 16 is not a multiple of 32: P306; predicate shape: P305
  TensorCopyPredicated { dst = %y[32:48, :], src = %x[16:32, :], predicate = %m }
  // DVE only: no engine field (P203)
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m, engine = pool }
}
"#,
        expect![[r#"
            3: CopyPredicated DVE I-1-0 IT52
              in src: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"reverse_pred":false}
            4: CopyPredicated DVE I-2-0 IT52
              in src: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"reverse_pred":true}
            6: CopyPredicated DVE I-3-0 IT52 errors=["P305","P306"]
              in src: physical_ap bfloat16 ap=[[512,16],[1,512]] offset=0 %x start_partition=16
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,16],[1,512]] offset=0 %y start_partition=32
              {"reverse_pred":false}
            8: CopyPredicated DVE I-4-0 IT52 errors=["P203"]
              in src: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in predicate: physical_ap uint8 ap=[[512,128],[1,512]] offset=0 %m start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"reverse_pred":false}
            P306 error:6:32 `%y[32:48, :]`: TensorCopyPredicated src start_partition(16) or dst start_partition(32) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%x[16:32, :]`: the src starts here
            P305 error:6:78 `%m`: `predicate` has 128 partitions × 512 elements but `dst` has 16 × 512
            P203 error:8:62 `engine`: TensorCopyPredicated has no field `engine`
        "#]],
    );
}

#[test]
fn tsp_fill_value_and_reverse_pred() {
    // pir-spec/2 §6.3: TensorScalarPtrOp (and the cumulative op, which takes its fields)
    // has `fill_value` and `reverse_pred`, emitted only when written (the shared
    // `getTensorScalarPtr` sets both, seed 000 §4); pir-spec/1 had neither (P203).
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = max, operand0 = 0.0, fill_value = -inf, reverse_pred = true }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = add, operand0 = 0, op1 = add, reverse_pred = false }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = max, operand0 = 0.0 }
}
"#,
        expect![[r#"
            3: TensorScalarPtr DVE I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"max","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","fill_value":"-inf","reverse_pred":true}
            4: TensorScalarPtr DVE I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"add","operand0":0.0,"reverse0":false,"op1":"add","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle","reverse_pred":false}
            5: TensorScalarPtr DVE I-3-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"op0":"max","operand0":0.0,"reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":false,"is_scalar_tensor_tensor":false,"acc":"Idle"}
        "#]],
    );
    check_schema(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = max, operand0 = 0.0, fill_value = -inf, reverse_pred = true }
}
"#,
    );
}

#[test]
fn gep_constant_index_past_the_table() {
    // pir-spec/2 §6.3: the table is any shape (not a [P, 1] pointer), and a constant index
    // at or beyond the element count of the `ptr` access as written is P414; pir-spec/1
    // accepted it.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 64], %table: sbuf f32[4, 16]) -> (%y: sbuf f32[128, 64]) {
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = 63 }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = 64 }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table[0:2, 0:8], index = 0x10 }
}
"#,
        expect![[r#"
            3: TensorScalarPtr DVE I-1-0
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,4],[1,16]] offset=0 %table start_partition=0
              in index: imm_value int32 value=63
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            4: TensorScalarPtr DVE I-2-0 errors=["P414"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,4],[1,16]] offset=0 %table start_partition=0
              in index: imm_value int32 value=64
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            5: TensorScalarPtr DVE I-3-0 errors=["P414"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x start_partition=0
              in ptr: physical_ap float32 ap=[[16,2],[1,8]] offset=0 %table start_partition=0
              in index: imm_value int32 value=16
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %y start_partition=0
              {"op0":"add","reverse0":false,"op1":"bypass","reverse1":false,"is_tensor_scalar_addr":true,"is_scalar_tensor_tensor":false,"acc":"Idle"}
            P414 error:4:76 `64`: index 64 is past the end of the table: the `ptr` access holds 64 elements
            P414 error:5:86 `0x10`: index 16 is past the end of the table: the `ptr` access holds 16 elements
        "#]],
    );
}

#[test]
fn range_select_fill_value_rounds_to_f32_first() {
    // pir-spec/2 §4: RangeSelect's `fill_value` meets f32 through the one rounding rule:
    // numpy's `-3.4028235e38` and any value that rounds to FP32 min are accepted; a value at
    // or beyond max + ½ ulp(max) does not round to a finite f32 and is P414, as is another
    // finite value.
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512]) -> (%y: sbuf f32[64, 512]) {
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 10, fill_value = -3.40282356e38 }
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 10, fill_value = -3.4028235677973366e38 }
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 10, fill_value = -3.4e38 }
}
"#,
        expect![[r#"
            3: RangeSelect DVE I-1-0
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","bound0":0.0,"bound1":10.0,"reduce_op":"max","fill_value":-3.40282356e+38,"num_active_channels":64}
            4: RangeSelect DVE I-2-0 errors=["P414"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","bound0":0.0,"bound1":10.0,"reduce_op":"max","fill_value":-3.4028235677973366e+38,"num_active_channels":64}
            5: RangeSelect DVE I-3-0 errors=["P414"]
              in on_true: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y start_partition=0
              {"base":0,"compare_op0":"is_ge","compare_op1":"is_lt","bound0":0.0,"bound1":10.0,"reduce_op":"max","fill_value":-3.4e+38,"num_active_channels":64}
            P414 error:4:115 `-3.4028235677973366e38`: RangeSelect fills with FP32 min (-3.4028234663852886e38), as the hardware requires; -3.4028235677973366e38 is another value in f32
            P414 error:5:115 `-3.4e38`: RangeSelect fills with FP32 min (-3.4028234663852886e38), as the hardware requires; -3.4e38 is another value in f32
        "#]],
    );
}
