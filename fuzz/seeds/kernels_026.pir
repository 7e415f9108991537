kernel @k(%h: hbm bf16[1025, 2048], %a: hbm bf16[1025, 128]) -> (%out: hbm bf16[1025, 2048]) {
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [%h, opaque(%a)], dsts = [%out] }
  InternalNativeNkiKernel {
    func_name = "tiled_pf_transpose"
    srcs = [%h]
    dsts = [%out]
    nki_frontend = beta3
    nki_binary_version_identifier = "2.24"
    sb_buf_shape = [128, 8192]
    psum_buf_shape = [8, 128, 2048]
  }
  InternalNativeNkiKernel { func_name = "ResizeNearest", srcs = [%h], dsts = [%out], klir_binary = "/tmp/resize.klir" }
}
