kernel @k(%s: sbuf f32[128, 64]) -> (%t: psum f32[64, 128]) {
  TransposeOp { dst = %t, src = %s }
}
