kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  reg %r : i32
  BIRKernel { kernel_name = "K", srcs = [tiles(%x)], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [full(%x, %x)], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%r], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%x[0:256, :]], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%x], dsts = [%y], sb_buf_shape = [1, 2, 3], psum_buf_shape = [1, -2, 3] }
}
