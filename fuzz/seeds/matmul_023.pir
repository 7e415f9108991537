kernel @k(%lhs: sbuf bf16[128, 32], %rhs: sbuf bf16[128, 512], %k64: sbuf bf16[64, 32],
          %r64: sbuf bf16[64, 512])
    -> (%acc: psum f32[128, 512]) {
  // a size not in {32, 64, 128}: on pe_tile_size
  MatMulOp { dst = %acc[0:32, :], stationary = %lhs, moving = %rhs, pe_tile_size = [48, 128] }
  // a position that is not a multiple of the size: on pe_tile_position
  MatMulOp { dst = %acc[0:32, :], stationary = %k64, moving = %r64, pe_tile_size = [64, 128], pe_tile_position = [32, 0] }
  // K = 128 larger than 64 tile rows: on pe_tile_size
  MatMulOp { dst = %acc[0:32, :], stationary = %lhs, moving = %rhs, pe_tile_size = [64, 128] }
  // column tiling: the dst must start at the column position 64
  MatMulOp { dst = %acc[0:32, :], stationary = %lhs, moving = %rhs, pe_tile_size = [128, 32], pe_tile_position = [0, 64] }
  // the same, right
  MatMulOp { dst = %acc[64:96, :], stationary = %lhs, moving = %rhs, pe_tile_size = [128, 32], pe_tile_position = [0, 64] }
}
