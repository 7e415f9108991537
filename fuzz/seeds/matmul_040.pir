kernel @k(%st: sbuf bf16[128, 128], %mv: sbuf f4e2m1fnx4[128, 512], %ls: sbuf f32[16, 128],
          %rs: sbuf e8m0[16, 512], %sp: sbuf bf16[128, 1])
    -> (%acc: psum f16[128, 512]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale_ptr = %sp }
}
