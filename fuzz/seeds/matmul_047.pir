kernel @k(%st: sbuf f8e4m3fnx4[128, 2, 64], %mv: sbuf f8e4m3fnx4[128, 512], %ls: sbuf e8m0[16, 128],
          %rs: sbuf e8m0[16, 512])
    -> (%acc: psum bf16[128, 512]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, perf_mode = none }
}
