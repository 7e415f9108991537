kernel @k(%st: sbuf f8e5m2x4[128, 128], %mv: sbuf f8e5m2x4[128, 4096], %ls: sbuf u8[16, 128],
          %rs: sbuf u8[16, 4096])
    -> (%acc: psum f32[128, 4096]) {
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs, scale = 0.5 }
}
