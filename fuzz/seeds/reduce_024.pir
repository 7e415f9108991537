kernel @k(%a: hbm f32[128, 512], %in: sbuf bf16[2, 3, 3, 2, 2]) -> (%o: hbm f32[128, 512], %out: sbuf bf16[2, 3, 3]) {
  LocalReduceOp { dst = %o, src = %a, op = add, groups = [[0, 1]] }
  NeuronReduceMacro { dst = %out, src = %in, op = multiply, reduce_axes = [3, 4] }
}
