kernel @k(%d: sbuf f32[128, 64], %v: sbuf f32[128, 8]) -> (%fi: sbuf f32[128, 8], %bi: sbuf u8[128, 8]) {
  MaxIndexAndMatchReplace { dst = %d, dst_idx = %fi, src = %d, vals = %v, imm = -3.5e38 }
  MaxIndexAndMatchReplace { dst = %d, dst_idx = %bi, src = %d, vals = %v, imm = 0 }
}
