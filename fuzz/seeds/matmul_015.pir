kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs[0:64, :] }
}
