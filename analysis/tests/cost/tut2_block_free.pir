// The NKI matmul tutorial's `nki_matmul_block_free_dimension_`, ported (SPEC §10.2.0 [T];
// see tut0_tiled.pir). lhsT [8192, 4096], rhs [8192, 8192] bf16; measured on trn1:
// 22.07 ms. Blocks of 2 × 128 rows of M and 2 × 512 columns of N.

kernel @nki_matmul_block_free_dimension(%lhsT: hbm bf16[8192, 4096], %rhs: hbm bf16[8192, 8192])
    -> (%result: hbm bf16[4096, 8192]) {
  for %m in 0..16 {
    tensor %lhsT_tiles : sbuf bf16[128, 2, 64, 128]
    for %bm in 0..2 {
      for %k in 0..64 {
        DmaCopyOp {
          dst = %lhsT_tiles[:, %bm, %k, :]
          src = %lhsT[%k*128 : %k*128 + 128, (%m*2 + %bm)*128 : (%m*2 + %bm)*128 + 128]
        }
      }
    }
    for %n in 0..8 {
      tensor %rhs_tiles : sbuf bf16[128, 2, 64, 512]
      for %bn in 0..2 {
        for %k in 0..64 {
          DmaCopyOp {
            dst = %rhs_tiles[:, %bn, %k, :]
            src = %rhs[%k*128 : %k*128 + 128, (%n*2 + %bn)*512 : (%n*2 + %bn)*512 + 512]
          }
        }
      }
      for %bm in 0..2 {
        for %bn in 0..2 {
          tensor %res_psum : psum f32[128, 512]
          for %k in 0..64 {
            MatMulOp {
              dst = %res_psum
              stationary = %lhsT_tiles[:, %bm, %k, :]
              moving = %rhs_tiles[:, %bn, %k, :]
              is_accumulate = true
            }
          }
          tensor %res_sb : sbuf bf16[128, 512]
          TensorCopyOp { dst = %res_sb, src = %res_psum }
          DmaCopyOp {
            dst = %result[(%m*2 + %bm)*128 : (%m*2 + %bm)*128 + 128, (%n*2 + %bn)*512 : (%n*2 + %bn)*512 + 512]
            src = %res_sb
          }
        }
      }
    }
  }
}
