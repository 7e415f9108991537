kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  LocalReduceOp { dst = %o, src = %a, op = multiply, kind = reduce_scatter, groups = [[0, 1], [2, 3]] }
}
