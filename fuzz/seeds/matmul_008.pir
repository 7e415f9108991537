kernel @k(%w: sbuf f8e4m3[128, 2, 128], %x: sbuf f8e4m3[128, 2, 512]) -> (%acc: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x, perf_mode = double_row }
}
