kernel @k(%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 2048], %tags: sbuf i8[128, 256],
          %ptags: psum u8[128, 256], %w3: sbuf bf16[128, 2, 64])
    -> (%acc: psum f32[128, 512]) {
  // compress_ratio 3: P414
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:1536], tags = %ptags[:, :], compress_ratio = 3 }
  // 1026 is not a multiple of 4: P305 on the moving
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:1026], tags = %tags, compress_ratio = 4 }
  // 2048 / 2 = 1024 columns: P406 on the moving; i8 tags: P407
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x, tags = %tags, compress_ratio = 2 }
  // dst not [M, N / ratio]: P406 on the dst; rank-3 stationary: P400
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:512], tags = %ptags, compress_ratio = 2 }
  MatMulSparseOp { dst = %acc, stationary = %w3, moving = %x[:, 0:512], compress_ratio = 4 }
  // negative replication fields: P414 on each
  MatMulSparseOp { dst = %acc, stationary = %w, moving = %x[:, 0:1024], tags = %tags[:, :], compress_ratio = 2, replication_resolution = -1, replication_shift_amnt = -2 }
}
