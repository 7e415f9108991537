kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: psum f32r[128, 4, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = max, reduce_axes = [2] }
}
