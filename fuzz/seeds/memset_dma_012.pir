kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b[64:128, :]], scales = [0.5, 2], cce_op = max }
  OffloadedFMA { dst = %o[0:64, :], srcs = [%b[0:64, :]], scales = [1.0] }
}
