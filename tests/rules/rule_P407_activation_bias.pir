// Rule P407 for an activation bias (SPEC §7.1 [3]; NKI: "Bias parameter of activation or
// activation_reduce must be a vector of type float32, float16, or bfloat16"): a per-partition
// bias of exp(x + b) kept as i32 (as a kernel reading integer offsets might) is P407 on the
// `bias` value. Beside it, the same bias copied to f32 first is legal.

kernel @rule_p407_bias(%x: hbm bf16[128, 512], %b: hbm i32[128, 1]) -> (%y: hbm bf16[128, 512]) {
  tensor %x_sb : sbuf bf16[128, 512]
  tensor %b_i : sbuf i32[128, 1]
  tensor %b_f : sbuf f32[128, 1]
  tensor %e : sbuf bf16[128, 512]
  DmaCopyOp { dst = %x_sb, src = %x }  //> DMACopy DMA
  DmaCopyOp { dst = %b_i, src = %b }  //> DMACopy DMA
  ActivationOp { dst = %e, src = %x_sb, func = exp, bias = %b_i }  //> Activation Activation {"errors": ["P407"]} //! P407
  TensorCopyOp { dst = %b_f, src = %b_i }  //> TensorCopy DVE
  ActivationOp { dst = %e, src = %x_sb, func = exp, bias = %b_f }  //> Activation Activation {"errors": []}
  DmaCopyOp { dst = %y, src = %e }  //> DMACopy DMA
}
