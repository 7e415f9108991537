kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  BIRKernel { kernel_attrs = {}, srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "", srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "K", kernel_atrs = { a = 1 }, srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%x], dsts = [%y], auto_cast_type = bf61 }
  BIRKernel { kernel_name = 7, srcs = [%x], dsts = [%y] }
}
