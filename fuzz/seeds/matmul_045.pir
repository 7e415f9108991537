kernel @k(%st: sbuf f8e4m3fnx4[128, 128], %mv: sbuf f8e4m3fnx4[128, 512], %ls: sbuf e8m0[32, 128],
          %rs: sbuf e8m0[16, 256], %sp: sbuf f32[128, 2])
    -> (%acc: psum bf16[128, 512]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale_ptr = %sp }
}
