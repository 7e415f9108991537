kernel @k(%lhs: sbuf bf16[128, 256], %rhs: sbuf bf16[128, 1024])
    -> (%acc: psum f32[128, 512], %big: psum f32[128, 4, 256]) {
  MatMulOp { dst = %acc, stationary = %lhs[:, 0:128], moving = %rhs }
  MatMulOp { dst = %acc, stationary = %lhs, moving = %rhs[:, 0:512] }
  MatMulOp { dst = %acc[0:64, :], stationary = %lhs[:, 0:128], moving = %rhs[:, 0:512] }
}
