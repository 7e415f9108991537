kernel @k(%x: hbm bf16[256, 64]) -> (%y: hbm bf16[256, 64]) {
  tensor %s : sbuf bf16[128, 64]
  BIRKernel {
    kernel_name = "RowTiledMM"
    srcs = [%x, %x[0:128, :], %x[:, :], full(%x), subtensor(%x[128:256]), tile(%s[0:64, :]), opaque(%x)]
    dsts = [%y[0:128, 0:32]]
    sb_buf_shape = [128, 4096]
    psum_buf_shape = [2, 128, 2048]
    auto_cast = "matmult"
    auto_cast_type = bf16
  }
}
