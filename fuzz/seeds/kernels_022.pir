kernel @k(%x: hbm bf16[4, 128, 64], %w: hbm bf16[64, 64]) -> (%out: hbm bf16[4, 128, 64]) {
  TiledMLPKernel { srcs = [%x, tile(%w)], dsts = [%out], act_fn = gelu }
  TiledNormQKV { srcs = [%x, %w], dsts = [%out], norm_type = rms_norm, eps = 1e-6 }
  TiledRMSNormQuantKernel { srcs = [%x], dsts = [%out], quant_dtype = f8e4m3, eps = 1e-6 }
  TiledAttentionMMSoftmaxMM { srcs = [%x, %x, %x], dsts = [%out], scale = 0.125, is_causal = true }
  TiledMLPKernel { srcs = [full(%x)], dsts = [%out] }
}
