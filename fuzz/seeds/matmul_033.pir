kernel @k(%lhs: sbuf bf16[128, 64], %rhs: hbm bf16[128, 512]) -> (%acc: psum f32[64, 512]) {
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs, isTranpose = true, perf_mode = double_rows }
}
