kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 4, 128]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 3 }
  TiledOffloadedFMA { dst = %o, srcs = [%b], scales = [1.0], tiles = 256 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 0 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0] }
}
