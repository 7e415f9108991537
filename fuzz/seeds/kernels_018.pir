kernel @mlp(%x: hbm bf16[1, 2048, 4096], %w: hbm bf16[4096, 1792]) -> (%out: hbm bf16[1, 2048, 4096]) {
  MLPKernel { srcs = [%x, %w], dsts = [%out] }
  NormQKV { srcs = [%x, %w], dsts = [%out] }
}
