kernel @k(%lhs: sbuf bf16[128, 64], %rhs: sbuf bf16[128, 512], %w: sbuf f8e4m3[128, 2, 128],
          %x: sbuf f8e4m3[128, 2, 512])
    -> (%acc: psum f32[64, 512], %acc2: psum f32[128, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, is_accumulate = true }
  MatMulOp { dst = %acc2, stationary = %w, moving = %x, perf_mode = double_row }
}
