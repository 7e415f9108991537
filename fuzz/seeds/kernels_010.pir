kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  BIRKernel {
    kernel_name = "K"
    kernel_attrs = { a = "1", t = %x, b = "2", a = "3", r = { c = 1, c = 2 }, bytes = x"00", p = [1, full(%x)] }
    srcs = [%x]
    dsts = [%y]
  }
}
