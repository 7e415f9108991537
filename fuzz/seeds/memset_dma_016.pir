kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, 1.0], tiles = 2 }
}
