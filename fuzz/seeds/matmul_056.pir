kernel @k(%s: sbuf bf16[128, 128]) -> (%t: psum bf16[128, 128]) {
  TransposeOp { dst = %t, src = %s }
}
