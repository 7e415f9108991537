kernel @mlp(%x: hbm bf16[4, 1, 4096]) -> (%out: hbm bf16[4, 1, 4096]) {
  MLPKernel { dsts = [%out] }
  MLPKernel { srcs = [%x], dsts = [%out], norm_type = rms, act_fn = sigmoidd, eps = "1e-5" }
  MLPKernel { srcs = [%x], dsts = [%out], is_causal = true }
  MLPKernel { srcs = [tile(%x), full(%x)], dsts = [opaque(%out)] }
}
