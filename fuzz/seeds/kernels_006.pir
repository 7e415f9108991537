kernel @k(%x: hbm bf16[256, 64]) -> (%y: hbm bf16[256, 64]) {
  for %i in 0..2 {
    BIRKernel { kernel_name = "ColumnTiledMM", srcs = [%x[%i*128 : %i*128 + 128, :]], dsts = [subtensor(%y[%i*128 : %i*128 + 128, :])] }
  }
}
