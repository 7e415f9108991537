// The NKI matmul tutorial's `nki_matmul_fully_optimized_`, ported (SPEC §10.2.0 [T]; see
// tut0_tiled.pir). lhsT [8192, 4096], rhs [8192, 8192] bf16, TILES_IN_BLOCK_M = 16,
// TILES_IN_BLOCK_N = 2, TILES_IN_BLOCK_K = 8; measured on trn1: 6.97 ms.
// `result_tiles` (NUM_BLOCK_M = 2 × 16 × 2 tiles of 128 × 512) is zeroed on Pool, the
// PSUM tile accumulated into it on DVE, and packed into 128 × 1024 rows for the store.

kernel @nki_matmul_fully_optimized(%lhsT: hbm bf16[8192, 4096], %rhs: hbm bf16[8192, 8192])
    -> (%result: hbm bf16[4096, 8192]) {
  for %n in 0..8 {
    tensor %result_tiles : sbuf bf16[128, 2, 16, 2, 512]
    MemsetOp { dst = %result_tiles, value = 0 }
    for %k in 0..8 {
      tensor %rhs_tiles : sbuf bf16[128, 8, 1024]
      for %bk_r in 0..8 {
        DmaCopyOp {
          dst = %rhs_tiles[:, %bk_r, :]
          src = %rhs[(%k*8 + %bk_r)*128 : (%k*8 + %bk_r)*128 + 128, %n*1024 : %n*1024 + 1024]
        }
      }
      for %m in 0..2 {
        tensor %lhsT_tiles : sbuf bf16[128, 8, 2048]
        for %bk_l in 0..8 {
          DmaCopyOp {
            dst = %lhsT_tiles[:, %bk_l, :]
            src = %lhsT[(%k*8 + %bk_l)*128 : (%k*8 + %bk_l)*128 + 128, %m*2048 : %m*2048 + 2048]
          }
        }
        for %bn in 0..2 {
          for %bm in 0..16 {
            tensor %res_tile : psum f32[128, 512]
            for %bk in 0..8 {
              MatMulOp {
                dst = %res_tile
                stationary = %lhsT_tiles[:, %bk, %bm*128 : %bm*128 + 128]
                moving = %rhs_tiles[:, %bk, %bn*512 : %bn*512 + 512]
                is_accumulate = true
              }
            }
            TensorTensorOp {
              dst = %result_tiles[:, %m, %bm, %bn, :]
              src0 = %result_tiles[:, %m, %bm, %bn, :]
              src1 = %res_tile
              op = add
            }
          }
        }
      }
    }
    for %m in 0..2 {
      for %bm in 0..16 {
        tensor %result_packed : sbuf bf16[128, 1024]
        for %bn in 0..2 {
          TensorCopyOp {
            dst = %result_packed[:, %bn*512 : %bn*512 + 512]
            src = %result_tiles[:, %m, %bm, %bn, :]
          }
        }
        DmaCopyOp {
          dst = %result[(%m*16 + %bm)*128 : (%m*16 + %bm)*128 + 128, %n*1024 : %n*1024 + 1024]
          src = %result_packed
        }
      }
    }
  }
}
