kernel @k(%w: sbuf f8e4m3[128, 2, 32], %x: sbuf f8e4m3[128, 2, 512]) -> (%acc: psum f32[32, 512]) {
  MatMulOp { dst = %acc, stationary = %w, moving = %x, perf_mode = double_row, pe_tile_size = [128, 32] }
}
