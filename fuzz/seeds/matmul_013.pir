kernel @k(%w: sbuf f8e4m3[128, 2, 128], %x: sbuf f8e4m3[128, 2, 1024], %w2: sbuf f8e4m3[128, 256])
    -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x[:, :, 0:512], perf_mode = double_row }
  MatMulOp { dst = %acc, stationary = %w2, moving = %x[:, :, 0:512], perf_mode = double_row }
}
