kernel @k(%in: sbuf f32[128, 64]) -> (%out: sbuf f32[128, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = sum }
}
