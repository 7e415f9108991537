kernel @k(%x: hbm bf16[2, 4096], %w: hbm bf16[4096, 768], %q: hbm bf16[4, 128, 4096])
    -> (%qkv: hbm bf16[2, 768], %xq: hbm f8e4m3[2, 4096], %o: hbm bf16[4, 4096, 128]) {
  NormQKV { srcs = [%x, %w], dsts = [%qkv], fused_rmsnorm = true, norm_type = rms_norm, eps = 1e-6, lower_bound = 0.5 }
  RMSNormQuantKernel { srcs = [%x], dsts = [%xq], quant_dtype = f8e4m3, eps = 1e-6, lower_bound = -448.0 }
  AttentionMMSoftmaxMM { srcs = [%q, %q, %q], dsts = [%o], scale = 1 }
  BackwardsAttention { srcs = [%q], dsts = [%o] }
}
