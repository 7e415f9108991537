kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512]) -> (%acc: psum f32[64, 1024]) {
  MatMulOp { dst = %acc[:, 0:512], stationary = %lhs, moving = %rhs }
}
