kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  BIRKernel {
    kernel_name = "ExpertMLPs"
    kernel_attrs = { name = "a b", on = true, k = -8, eps = 1e-6, scale = 1.0, third = 0.125, act = silu, dt = bf16, dims = [1, 2, "x"], nested = { a = 1, b = false } }
    srcs = [%x]
    dsts = [%y]
  }
}
