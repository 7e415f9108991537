kernel @k(%x: hbm bf16[4, 1, 4096], %w: hbm bf16[4096, 1792], %q: hbm bf16[4, 128, 4096])
    -> (%out: hbm bf16[4, 1, 4096], %o: hbm bf16[4, 4096, 128]) {
  tensor %s : sbuf bf16[128, 64]
  BIRKernel { kernel_name = "RouterTopK", kernel_attrs = { k = 8, act = silu }, srcs = [%x, tile(%s)], dsts = [%out], psum_buf_shape = [1, 2, 3] }
  MLPKernel { srcs = [%x, %w], dsts = [%out], act_fn = silu, eps = 1e-5, norm_type = rms_norm }
  TiledMLPKernel { srcs = [%x, %w], dsts = [%out] }
  NormQKV { srcs = [%x, %w], dsts = [%out] }
  TiledNormQKV { srcs = [%x, %w], dsts = [%out] }
  RMSNormQuantKernel { srcs = [%x], dsts = [%out], quant_dtype = f8e4m3 }
  TiledRMSNormQuantKernel { srcs = [%x], dsts = [%out] }
  AttentionMMSoftmaxMM { srcs = [%q, %q, %q], dsts = [%o], scale = 1.0, is_causal = true }
  TiledAttentionMMSoftmaxMM { srcs = [%q, %q, %q], dsts = [%o] }
  BackwardsAttention { srcs = [%q], dsts = [%o], is_causal = true }
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [%x], dsts = [%out], sb_buf_shape = [1, 2] }
  ExternalNativeNkiKernel { func = "f", func_args = [%x], func_outs = [%out] }
  ExternalNativeNkiKlirKernel { func = "f", klir_binary = "f.klir", srcs = [%x], dsts = [%out] }
}
