kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 256]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [0.5, 2] }
  OffloadedFMA { dst = %o, srcs = [%a], scales = [0.5, 2] }
  OffloadedFMA { dst = %o, srcs = [], scales = [] }
  OffloadedFMA { srcs = [%b], scales = [1.0], dst = %o }
  OffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], cce_op = mul }
}
