kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: sbuf f32[128, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [2, 2] }
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [3] }
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [] }
}
