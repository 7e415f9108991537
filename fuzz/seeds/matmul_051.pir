kernel @k(%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 1024], %tags: sbuf u16[128, 512])
    -> (%acc: psum f32[128, 512]) {
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x, tags = %tags, compress_ratio = 2 }
}
