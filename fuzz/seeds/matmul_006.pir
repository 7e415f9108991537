kernel @k(%w: hbm bf16[128, 128], %x: sbuf bf16[128, 512]) -> (%acc: psum f32[128, 512]) {
  tensor %w_sb : sbuf bf16[128, 128]
  DmaCopyOp { dst = %w_sb, src = %w }
  MatMulOp { dst = %acc, stationary = %w_sb, moving = %x }
}
