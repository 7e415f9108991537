kernel @k(%in: sbuf bf16[2, 3, 3, 2, 2]) -> (%out: sbuf bf16[2, 3, 3]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [3, 4] }
}
