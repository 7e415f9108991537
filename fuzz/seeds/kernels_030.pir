kernel @k(%x: hbm bf16[4, 1, 4096]) -> (%out: hbm bf16[4, 1, 4096]) {
  InternalNativeNkiKernel { srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [full(%x)], dsts = [%out], nki_frontend = beta4 }
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [%x], dsts = [%out], sb_buf_shape = [1] }
}
