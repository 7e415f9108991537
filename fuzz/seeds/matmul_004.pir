kernel @k(%lhs: sbuf bf16[128, 128], %rhs: sbuf bf16[128, 1024]) -> (%acc: psum f32[128, 512]) {
  for %m in 0..2 {
    for %n in 0..2 {
      MatMulOp {
        dst = %acc[%m*64 : %m*64 + 64, :]
        stationary = %lhs[:, %m*64 : %m*64 + 64]
        moving = %rhs[:, %n*512 : %n*512 + 512]
        is_accumulate = true
      }
    }
  }
}
