kernel @mlp(%x: hbm bf16[4, 1, 4096], %w: hbm bf16[4096, 1792]) -> (%out: hbm bf16[4, 1, 4096]) {
  MLPKernel { srcs = [%x, %w], dsts = [%out] }
  MLPKernel { srcs = [%x[0:4, 0, :], %w], dsts = [%out] }
}
