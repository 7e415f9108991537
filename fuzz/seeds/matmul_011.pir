kernel @k(%w: sbuf bf16[128, 8, 128], %x: sbuf bf16[128, 512]) -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w[:, 3:4, :], moving = %x }
  MatMulOp { dst = %acc, stationary = %w[:, 3, :], moving = %x }
}
