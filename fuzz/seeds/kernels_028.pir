kernel @k(%x: hbm bf16[4, 1, 4096]) -> (%out: hbm bf16[4, 1, 4096]) {
  InternalNativeNkiKernel { func_name = "MLP", srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "Blockwise_MM", srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "RouterTopK", srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "my_conv", srcs = [%x], dsts = [%out] }
}
