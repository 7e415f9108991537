kernel @k(%s: sbuf bf16[128, 64], %s3: sbuf bf16[64, 2, 32], %i: sbuf i32[64, 64], %wsrc: sbuf bf16[64, 256])
    -> (%t: psum bf16[64, 128], %f: psum f32[64, 128], %wide: psum bf16[64, 2048], %ti: psum i32[64, 64]) {
  // dst is not the src reversed: P305 on the later-written of the two (src)
  TransposeOp { dst = %t[0:32, :], src = %s }
  // dtype changes: P407 on the dst
  TransposeOp { dst = %f, src = %s }
  // rank 3: P305 on the src
  TransposeOp { dst = %t, src = %s3 }
  // the dst tensor is 4 KiB per partition: P304 on the dst
  TransposeOp { dst = %wide[:, 0:128], src = %s }
  // i32 is not a PE dtype: P407 on the src
  TransposeOp { dst = %ti, src = %i }
  // more than 128 columns: P406 on the src
  TransposeOp { dst = %t, src = %wsrc }
}
