kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: sbuf f32[128, 64]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [1] }
}
