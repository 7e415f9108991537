kernel @k(%a: hbm f16[256, 1024], %b: hbm f16[256, 1024]) -> (%c: hbm f16[256, 1024]) {
  ExternalNativeNkiKernel { func = "nki_tensor_add", func_args = [%a, %b], func_outs = [%c] }
  ExternalNativeNkiKernel { func = "nki_tensor_add", func_args = [%a[0:128, :], %b], func_outs = [%c], sb_buf_shape = [128, 2048], psum_buf_shape = [1, 128, 2048] }
  ExternalNativeNkiKernel { func_args = [%a], func_outs = [full(%c)] }
  ExternalNativeNkiKernel { func = "" }
}
