kernel @k(%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 1024], %tags: sbuf u8[128, 256])
    -> (%acc: psum f32[128, 256]) {
  MatMulSparseOp {
    dst = %acc, stationary = %w, moving = %x, tags = %tags, compress_ratio = 4
    replication_num_rows = 2, isMovingZero = true
  }
}
