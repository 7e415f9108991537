// The NKI matmul tutorial's `nki_matmul_tiled_`, ported (SPEC §10.2.0 [T]:
// aws-neuron-sdk@72825d50 general/nki/tutorials/matrix_multiplication.rst L308–334 and
// general/nki/examples/matrix_multiplication/matrix_multiplication_nki_kernels.py).
// The tutorial's benchmark shapes: lhsT [K=8192, M=4096], rhs [K=8192, N=8192] bf16;
// measured on trn1: 51.80 ms. Tiles TILE_M = 128, TILE_K = 128, TILE_N = 512.
// `nl.zeros` of the PSUM tile is the first matmul's overwrite (no Pool op: Pool cannot
// reach PSUM), as in the corpus port `matmul_tiled.pir`.

kernel @nki_matmul_tiled(%lhsT: hbm bf16[8192, 4096], %rhs: hbm bf16[8192, 8192])
    -> (%result: hbm bf16[4096, 8192]) {
  for %m in 0..32 {
    for %n in 0..16 {
      tensor %res_psum : psum f32[128, 512]
      for %k in 0..64 {
        tensor %lhsT_tile : sbuf bf16[128, 128]
        tensor %rhs_tile  : sbuf bf16[128, 512]
        DmaCopyOp {
          dst = %lhsT_tile
          src = %lhsT[%k*128 : %k*128 + 128, %m*128 : %m*128 + 128]
        }
        DmaCopyOp {
          dst = %rhs_tile
          src = %rhs[%k*128 : %k*128 + 128, %n*512 : %n*512 + 512]
        }
        MatMulOp {
          dst = %res_psum
          stationary = %lhsT_tile
          moving = %rhs_tile
          is_accumulate = true
        }
      }
      tensor %res_sb : sbuf bf16[128, 512]
      TensorCopyOp { dst = %res_sb, src = %res_psum }
      DmaCopyOp {
        dst = %result[%m*128 : %m*128 + 128, %n*512 : %n*512 + 512]
        src = %res_sb
      }
    }
  }
}
