// The NKI matmul tutorial's `nki_matmul_hoist_load_`, ported (SPEC §10.2.0 [T]; see
// tut0_tiled.pir). lhsT [8192, 4096], rhs [8192, 8192] bf16; measured on trn1: 42.96 ms.
// A column of lhsT tiles is loaded once per m, a column of rhs tiles once per (m, n).

kernel @nki_matmul_hoist_load(%lhsT: hbm bf16[8192, 4096], %rhs: hbm bf16[8192, 8192])
    -> (%result: hbm bf16[4096, 8192]) {
  for %m in 0..32 {
    tensor %lhsT_tiles : sbuf bf16[128, 64, 128]
    for %k in 0..64 {
      DmaCopyOp {
        dst = %lhsT_tiles[:, %k, :]
        src = %lhsT[%k*128 : %k*128 + 128, %m*128 : %m*128 + 128]
      }
    }
    for %n in 0..16 {
      tensor %rhs_tiles : sbuf bf16[128, 64, 512]
      for %k in 0..64 {
        DmaCopyOp {
          dst = %rhs_tiles[:, %k, :]
          src = %rhs[%k*128 : %k*128 + 128, %n*512 : %n*512 + 512]
        }
      }
      tensor %res_psum : psum f32[128, 512]
      for %k in 0..64 {
        MatMulOp {
          dst = %res_psum
          stationary = %lhsT_tiles[:, %k, :]
          moving = %rhs_tiles[:, %k, :]
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
