kernel @k(%st: sbuf f8e4m3fnx4[128, 128], %mv: sbuf f8e4m3fnx4[128, 8192], %ls: sbuf e8m0[16, 128],
          %rs: sbuf e8m0[16, 8192], %s48: sbuf f8e4m3fnx4[48, 128], %m48: sbuf f8e4m3fnx4[48, 512])
    -> (%acc: psum f32[128, 4096], %acc16: psum bf16[128, 512]) {
  // N = 8192 is over 4096 for an f32 dst: on the moving
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs[:, 0:8192] }
  // M = 127 is odd: on the dst
  MatMulMXOp { dst = %acc16[0:127, :], stationary = %st[:, 0:127], moving = %mv[:, 0:512], lhs_scale = %ls[:, 0:127], rhs_scale = %rs[:, 0:512] }
  // K = 48 is not a multiple of 32: on the moving
  MatMulMXOp { dst = %acc16, stationary = %s48, moving = %m48, lhs_scale = %ls[0:6, :], rhs_scale = %rs[0:6, 0:512] }
  // dst not [M, N]
  MatMulMXOp { dst = %acc, stationary = %st, moving = %mv[:, 0:512], lhs_scale = %ls, rhs_scale = %rs[:, 0:512] }
  // K differs between stationary and moving: P405 on the moving
  MatMulMXOp { dst = %acc16, stationary = %st, moving = %m48, lhs_scale = %ls, rhs_scale = %rs[0:6, 0:512] }
}
