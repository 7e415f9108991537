kernel @k(%lhs: sbuf f8e4m3[128, 32], %rhs: sbuf f8e5m2[128, 256]) -> (%acc: psum f32[128, 256]) {
  MatMulOp {
    dst = %acc[32:64, :]
    stationary = %lhs
    moving = %rhs
    isStationaryOneZero = true
    isMovingZero = true
    ifmap_quant_offset = 3
    pe_tile_position = [0, 32]
    pe_tile_size = [128, 32]
    num_active_partitions = 64
    is_accumulate = true
  }
}
