kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: sbuf f32[128, 2], %o2: sbuf f32[64, 4]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [2] }
  NeuronReduceMacro { src = %in, op = add, reduce_axes = [2], dst = %o2 }
}
