kernel @k(%a: hbm f16[256, 1024], %b: hbm f16[256, 1024]) -> (%c: hbm f16[256, 1024]) {
  ExternalNativeNkiKlirKernel { func = "add", klir_binary = "add.klir", klir_input_names = ["a", "b"], srcs = [%a, tile(%b)], dsts = [%c] }
  ExternalNativeNkiKlirKernel { func = "add", srcs = [%a], dsts = [%c], klir_input_names = [1] }
}
