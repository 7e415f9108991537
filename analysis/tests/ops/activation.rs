//! ActivationOp and Activate2 (SPEC §6.2): `Activation` / `ActivationAccumulationOp` on
//! the Activation engine.

use expect_test::expect;

use crate::common::check;
use crate::common::check_schema;

#[test]
fn activation_basic() {
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf bf16[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = exp }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
        "#]],
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
        expect![[r#"
            5: Activation Activation I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in scale: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %s start_partition=0
              in bias: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %b start_partition=0
              in up_bias: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %u start_partition=0
              in down_bias: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %d start_partition=0
              in imm1: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out func_outs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o start_partition=0
              out reduce_dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %r start_partition=0
              {"func":"Gelu_apprx_tanh","func_args":[0.5,2.0],"scale":1.0,"acc":"ZeroAccumulate","reduce_op":"mult","imm0":1.5,"is_accumulate":false}
        "#]],
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
        expect![[r#"
            3: ActivationAccumulationOp Activation I-1-0
              in src: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %y start_partition=0
              {"func":"Ln","scale":0.25,"acc":"Idle","is_accumulate":true}
            4: Activation Activation I-2-0
              in src: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[1,64],[1,1]] offset=0 %r start_partition=0
              {"func":"Square","scale":1.0,"acc":"Accumulate","reduce_op":"add","is_accumulate":false}
            5: Activation Activation I-3-0
              in src: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %y start_partition=0
              {"func":"Copy","scale":1.0,"acc":"Zero","is_accumulate":false}
        "#]],
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
        expect![[r#"
            3: Activation Activation I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out dst2: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y2 start_partition=0
              {"func":"Exp","is_activate2":true,"func2":"Ln","scale":2.0,"acc":"Idle","is_accumulate":false}
        "#]],
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
        expect![[r#"
            3: Activation Activation I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            4: Activation Activation I-2-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            P305 error:3:34 `%x`: `src` has 128 partitions × 512 elements but `dst` has 128 × 256
            P305 error:4:43 `%y[0:64, :]`: `src` has 64 partitions × 512 elements but `dst` has 64 × 256
        "#]],
    );
}

#[test]
fn p306_start_partition() {
    // pir-spec/3 §6.2: starts that differ must each be a multiple of 32 (0 → 32 is legal);
    // 0 → 40 is P306 on dst and no P307 for the access at 40; equal starts at 8 are the
    // quadrant rule's P307, on each access.
    check(
        r#"
kernel @k(%x: sbuf f32[64, 512]) -> (%y: sbuf f32[64, 512]) {
  ActivationOp {
    dst = %y[32:64, :], src = %x[0:32, :]
    func = exp
  }
  ActivationOp {
    dst = %y[40:48, :], src = %x[0:8, :]
    func = exp
  }
  ActivationOp {
    dst = %y[8:16, :], src = %x[8:16, :]
    func = exp
  }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0
              in src: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %y start_partition=32
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            7: Activation Activation I-2-0 errors=["P306"]
              in src: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %y start_partition=40
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            11: Activation Activation I-3-0 errors=["P307"]
              in src: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %x start_partition=8
              out dst: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %y start_partition=8
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            P306 error:8:11 `%y[40:48, :]`: ActivationOp src start_partition(0) or dst start_partition(40) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%x[0:8, :]`: the src starts here
            P307 error:12:11 `%y[8:16, :]`: Invalid access of 8 partitions starting at partition 8: an access starts at partition 0, 32, 64 or 96
            P307 error:12:30 `%x[8:16, :]`: Invalid access of 8 partitions starting at partition 8: an access starts at partition 0, 32, 64 or 96
        "#]],
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
        expect![[r#"
            4: Activation Activation I-1-0 errors=["P305","P407"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in scale: physical_ap bfloat16 ap=[[1,128],[1,1]] offset=0 %s start_partition=0
              in bias: physical_ap float32 ap=[[2,128],[1,2]] offset=0 %b start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[1,64],[1,1]] offset=0 %r start_partition=0
              {"func":"Exp","scale":1.0,"acc":"ZeroAccumulate","reduce_op":"add","is_accumulate":false}
            P305 error:4:57 `%b`: `bias` must be [128, 1] (one element per partition); it is [128, 2]
            P305 error:4:91 `%r`: `reduce_dst` must be [128, 1] (one element per partition); it is [64, 1]
            P407 error:4:103 `%s`: the `scale` pointer must be f32; it is bf16
        "#]],
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
        expect![[r#"
            3: Activation Activation I-1-0 errors=["P204"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"ZeroAccumulate","reduce_op":"add","is_accumulate":false}
            4: Activation Activation I-2-0 errors=["P204"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out reduce_dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %r start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            5: Activation Activation I-3-0 errors=["P204"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"scale":1.0,"acc":"Idle","is_accumulate":false}
            6: Activation Activation I-4-0 errors=["P204"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","is_activate2":true,"scale":1.0,"acc":"Idle","is_accumulate":false}
            P204 error:3:3 `ActivationOp`: reduce_op needs the field `reduce_dst`
            P204 error:4:3 `ActivationOp`: reduce_dst needs the field `reduce_op`
            P204 error:5:3 `ActivationOp`: ActivationOp needs the field `func`
            P204 error:6:3 `Activate2`: Activate2 needs the field `func2`
            P204 error:6:3 `Activate2`: Activate2 needs the field `dst2`
        "#]],
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
        expect![[r#"
            3: Activation Activation I-1-0 errors=["P207","P301"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"scale":1.0,"acc":"Idle","is_accumulate":false}
            P207 error:3:45 `expp`: unknown act_func value `expp`; did you mean `exp`?
            P301 error:3:58 `%b`: `%b` is in psum, but this operand must be in sbuf
            P207 error:3:75 `zero`: unknown reduce_cmd value `zero`; did you mean `reset`?
        "#]],
    );
}

#[test]
fn func_args_non_finite_as_strings_and_omitted_when_empty() {
    // pir-spec/2 §6.2: non-finite `func_args` are the strings of §8 (pir-spec/1 wrote
    // `null`, which the schema rejects); an empty list is omitted.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = exp, func_args = [-inf, nan, inf, 0.5] }
  ActivationOp { dst = %y, src = %x, func = exp, func_args = [] }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","func_args":["-inf","nan","inf",0.5],"scale":1.0,"acc":"Idle","is_accumulate":false}
            4: Activation Activation I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
        "#]],
    );
    check_schema(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = exp, func_args = [-inf, nan] }
  ActivationOp { dst = %y, src = %x, func = exp, func_args = [] }
}
"#,
    );
}

#[test]
fn activate2_dst2_has_the_dst_shape() {
    // pir-spec/2 §6.2: `dst2` follows the `dst` rules (P305 on `dst2`); pir-spec/1 did not
    // check it.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512], %y2: sbuf f32[128, 256], %y3: sbuf f32[64, 512]) {
  Activate2 { dst2 = %y2, dst = %y, src = %x, func = exp, func2 = log }
  Activate2 { dst = %y, src = %x, func = exp, func2 = log, dst2 = %y3 }
  Activate2 { dst = %y, src = %x, func = exp, func2 = log, dst2 = %y2[:, 0:256] }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out dst2: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %y2 start_partition=0
              {"func":"Exp","is_activate2":true,"func2":"Ln","scale":1.0,"acc":"Idle","is_accumulate":false}
            4: Activation Activation I-2-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out dst2: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %y3 start_partition=0
              {"func":"Exp","is_activate2":true,"func2":"Ln","scale":1.0,"acc":"Idle","is_accumulate":false}
            5: Activation Activation I-3-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out dst2: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %y2 start_partition=0
              {"func":"Exp","is_activate2":true,"func2":"Ln","scale":1.0,"acc":"Idle","is_accumulate":false}
            P305 error:3:22 `%y2`: `dst2` has 128 partitions × 256 elements but `dst` has 128 × 512
            P305 error:4:67 `%y3`: `dst2` has 64 partitions × 512 elements but `dst` has 128 × 512
            P305 error:5:67 `%y2[:, 0:256]`: `dst2` has 128 partitions × 256 elements but `dst` has 128 × 512
        "#]],
    );
}

#[test]
fn p306_in_every_loop_iteration_with_real_numbers() {
    // pir-spec/2 §6.2: the start partitions are checked in every loop iteration, and the
    // message has the numbers of the first iteration where the rule breaks; pir-spec/3: the
    // rule is alignment (starts that differ must each be a multiple of 32), so a loop whose
    // starts differ but stay aligned is clean.
    check(
        r#"
kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  for %i in 0..4 {
    ActivationOp { dst = %y[%i*32 : %i*32 + 32, :], src = %x[%i*32 : %i*32 + 32, :], func = exp }
    ActivationOp { dst = %y[%i*32 : %i*32 + 32, :], src = %x[0:32, :], func = exp }
    ActivationOp { dst = %y[%i*8 : %i*8 + 8, :], src = %x[0:8, :], func = exp }
    for %j in 0..2 {
      ActivationOp { dst = %y[%i*32 + %j*8 : %i*32 + %j*8 + 8, :], src = %x[%i*32 : %i*32 + 8, :], func = exp }
    }
  }
  for %h in 1..3 {
    ActivationOp { dst = %y[(%h - 1)*32 : (%h - 1)*32 + 32, :], src = %x[64:96, :], func = exp }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":4,"stride":1}
              4: Activation Activation I-1-0
                in src: symbolic_ap float32 ap=[[512,32],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[32,512] %x start_partition=0
                out dst: symbolic_ap float32 ap=[[512,32],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[32,512] %y start_partition=0
                {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
              5: Activation Activation I-2-0
                in src: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %x start_partition=0
                out dst: symbolic_ap float32 ap=[[512,32],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[32,512] %y start_partition=0
                {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
              6: Activation Activation I-3-0 errors=["P306"]
                in src: physical_ap float32 ap=[[512,8],[1,512]] offset=0 %x start_partition=0
                out dst: symbolic_ap float32 ap=[[512,8],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":8}],"c":0,"partition":true}] access_shape=[8,512] %y start_partition=0
                {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
              L-j {"name":"j","lb":0,"ub":2,"stride":1}
                8: Activation Activation I-4-0 errors=["P306"]
                  in src: symbolic_ap float32 ap=[[512,8],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[8,512] %x start_partition=0
                  out dst: symbolic_ap float32 ap=[[512,8],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32},{"axis":"j","coeff":8}],"c":0,"partition":true}] access_shape=[8,512] %y start_partition=0
                  {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            L-h {"name":"h","lb":1,"ub":3,"stride":1}
              12: Activation Activation I-5-0
                in src: physical_ap float32 ap=[[512,32],[1,512]] offset=0 %x start_partition=64
                out dst: symbolic_ap float32 ap=[[512,32],[1,512]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"h","coeff":32}],"c":-32,"partition":true}] access_shape=[32,512] %y start_partition=0
                {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            P306 error:6:26 `%y[%i*8 : %i*8 + 8, :]`: ActivationOp src start_partition(0) or dst start_partition(8) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%x[0:8, :]`: the src starts here when %i = 1
            P306 error:8:28 `%y[%i*32 + %j*8 : %i*32 + %j*8 + 8, :]`: ActivationOp src start_partition(0) or dst start_partition(8) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%x[%i*32 : %i*32 + 8, :]`: the src starts here when %i = 0, %j = 1
        "#]],
    );
}

#[test]
fn p407_activation_bias_dtype() {
    // SPEC §7.1 [3]: an activation's bias is f32, f16 or bf16 (NKI: "Bias parameter of
    // activation or activation_reduce must be a vector of type float32, float16, or
    // bfloat16"), on ActivationOp and Activate2; an f16 bias is fine.
    check(
        r#"
kernel @k(%x: sbuf bf16[128, 512], %bi: sbuf i32[128, 1], %bh: sbuf f16[128, 1]) -> (%y: sbuf bf16[128, 512], %z: sbuf bf16[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = exp, bias = %bi }
  ActivationOp { dst = %y, src = %x, func = exp, bias = %bh }
  Activate2 { dst = %y, dst2 = %z, src = %x, func = exp, func2 = tanh, bias = %bi }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0 errors=["P407"]
              in src: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in bias: physical_ap int32 ap=[[1,128],[1,1]] offset=0 %bi start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            4: Activation Activation I-2-0
              in src: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in bias: physical_ap float16 ap=[[1,128],[1,1]] offset=0 %bh start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            5: Activation Activation I-3-0 errors=["P407"]
              in src: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %x start_partition=0
              in bias: physical_ap int32 ap=[[1,128],[1,1]] offset=0 %bi start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %y start_partition=0
              out dst2: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %z start_partition=0
              {"func":"Exp","is_activate2":true,"func2":"Tanh","scale":1.0,"acc":"Idle","is_accumulate":false}
            P407 error:3:57 `%bi`: Bias parameter of activation or activation_reduce must be a vector of type float32, float16, or bfloat16: `bias` is i32
            P407 error:5:79 `%bi`: Bias parameter of activation or activation_reduce must be a vector of type float32, float16, or bfloat16: `bias` is i32
        "#]],
    );
}

#[test]
fn p418_too_many_strides() {
    // SPEC §7.1 [3]: after dropping the partition pair and counts of 1 and merging
    // adjacent pairs (`[s_o, n_o]` into `[s_i, n_i]` when s_o = s_i · n_i), an Activation
    // access takes at most 3 free dims, a DVE one 4. The compiler's own pattern
    // `{{{{0,+,1}[32],+,64}[4],+,320}[2],+,960}[2]` on Activation is P418, on DVE not; a
    // contiguous view merges into one pair; DMA is exempt.
    check(
        r#"
kernel @k(%x: sbuf bf16[128, 3, 3, 5, 64], %x5: sbuf bf16[128, 3, 3, 3, 5, 64], %h: hbm bf16[128, 2, 2, 4, 32]) -> (%y: sbuf bf16[128, 2, 2, 4, 32], %y5: sbuf bf16[128, 2, 2, 2, 4, 32]) {
  ActivationOp { dst = %y, src = %x[:, 0:2, 0:2, 0:4, 0:32], func = exp }
  TensorCopyOp { dst = %y, src = %x[:, 0:2, 0:2, 0:4, 0:32] }
  TensorCopyOp { dst = %y5, src = %x5[:, 0:2, 0:2, 0:2, 0:4, 0:32] }
  ActivationOp { dst = %y, src = %y, func = exp }
  DmaCopyOp { dst = %h, src = %x[:, 0:2, 0:2, 0:4, 0:32] }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0 errors=["P418"]
              in src: physical_ap bfloat16 ap=[[2880,128],[960,2],[320,2],[64,4],[1,32]] offset=0 %x start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[256,2],[128,2],[32,4],[1,32]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            4: TensorCopy DVE I-2-0
              in src: physical_ap bfloat16 ap=[[2880,128],[960,2],[320,2],[64,4],[1,32]] offset=0 %x start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[256,2],[128,2],[32,4],[1,32]] offset=0 %y start_partition=0
            5: TensorCopy DVE I-3-0 errors=["P418"]
              in src: physical_ap bfloat16 ap=[[8640,128],[2880,2],[960,2],[320,2],[64,4],[1,32]] offset=0 %x5 start_partition=0
              out dst: physical_ap bfloat16 ap=[[1024,128],[512,2],[256,2],[128,2],[32,4],[1,32]] offset=0 %y5 start_partition=0
            6: Activation Activation I-4-0
              in src: physical_ap bfloat16 ap=[[512,128],[256,2],[128,2],[32,4],[1,32]] offset=0 %y start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[256,2],[128,2],[32,4],[1,32]] offset=0 %y start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            7: DMACopy DMA I-5-0
              in src: physical_ap bfloat16 ap=[[2880,128],[960,2],[320,2],[64,4],[1,32]] offset=0 %x start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,128],[256,2],[128,2],[32,4],[1,32]] offset=0 %h
              {"mode":"Copy"}
            P418 error:3:34 `%x[:, 0:2, 0:2, 0:4, 0:32]`: Too many strides! {{{{0,+,1}[32],+,64}[4],+,320}[2],+,960}[2] — 4 free dims; the Activation engine takes at most 3
            P418 error:5:35 `%x5[:, 0:2, 0:2, 0:2, 0:4, 0:32]`: Too many strides! {{{{{0,+,1}[32],+,64}[4],+,320}[2],+,960}[2],+,2880}[2] — 5 free dims; the DVE engine takes at most 4
        "#]],
    );
}

#[test]
fn p417_instruction_sbuf_total() {
    // SPEC §7.1 [3] `[GCA035]`: the declared tensors of an op's sbuf operands together
    // beyond the physical partition (229,376 bytes on trn2), whatever part of them the
    // accesses select; a tensor named by two operands counts twice. The compiler's own
    // listing, 888 + 2 × 98,568 = 198,024, fits; three such tensors do not.
    check(
        r#"
kernel @k(%a: sbuf f32[128, 24642], %b: sbuf f32[128, 24642], %s: sbuf f32[128, 222]) -> (%c: sbuf f32[128, 24642]) {
  TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }
  TensorTensorOp { dst = %a, src0 = %a, src1 = %a, op = add }
  TensorTensorOp { dst = %s, src0 = %a[:, 0:222], src1 = %a[:, 0:222], op = add }
}
"#,
        expect![[r#"
            3: TensorTensor DVE I-1-0 errors=["P417"]
              in src0: physical_ap float32 ap=[[24642,128],[1,24642]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[24642,128],[1,24642]] offset=0 %b start_partition=0
              out dst: physical_ap float32 ap=[[24642,128],[1,24642]] offset=0 %c start_partition=0
              {"op":"add","acc":"Idle"}
            4: TensorTensor DVE I-2-0 errors=["P417"]
              in src0: physical_ap float32 ap=[[24642,128],[1,24642]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[24642,128],[1,24642]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[24642,128],[1,24642]] offset=0 %a start_partition=0
              {"op":"add","acc":"Idle"}
            5: TensorTensor DVE I-3-0
              in src0: physical_ap float32 ap=[[24642,128],[1,222]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[24642,128],[1,222]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[222,128],[1,222]] offset=0 %s start_partition=0
              {"op":"add","acc":"Idle"}
            P416 warning:2:8 `@k`: peak SBUF occupancy 296,592 bytes per partition exceeds the capacity of 212,984 bytes at op #1 `TensorTensorOp`
                related `TensorTensorOp`: SBUF peak of 296,592 bytes reached here
                related `%a: sbuf f32[128, 24642]`: `%a` is live there: 98,568 bytes per partition
                related `%b: sbuf f32[128, 24642]`: `%b` is live there: 98,568 bytes per partition
                related `%c: sbuf f32[128, 24642]`: `%c` is live there: 98,568 bytes per partition
            P417 error:3:3 `TensorTensorOp`: [GCA035] Instruction: TensorTensorOp #1 couldn't be allocated in SB
            Total Accessed Bytes per partition by instruction: 295704
            Total SB Partition Size: 229376
            dst %c: 98568 Bytes per Partition
            src0 %a: 98568 Bytes per Partition
            src1 %b: 98568 Bytes per Partition
                related `%c`: dst %c: 98568 Bytes per Partition
                related `%a`: src0 %a: 98568 Bytes per Partition
                related `%b`: src1 %b: 98568 Bytes per Partition
            P417 error:4:3 `TensorTensorOp`: [GCA035] Instruction: TensorTensorOp #2 couldn't be allocated in SB
            Total Accessed Bytes per partition by instruction: 295704
            Total SB Partition Size: 229376
            dst %a: 98568 Bytes per Partition
            src0 %a: 98568 Bytes per Partition
            src1 %a: 98568 Bytes per Partition
                related `%a`: dst %a: 98568 Bytes per Partition
                related `%a`: src0 %a: 98568 Bytes per Partition
                related `%a`: src1 %a: 98568 Bytes per Partition
        "#]],
    );
}
