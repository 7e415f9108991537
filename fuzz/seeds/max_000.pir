kernel @k(%data: sbuf bf16[128, 1024]) -> (%vals: sbuf bf16[128, 16], %inds: sbuf u32[128, 16]) {
  for %f in 0..2 {
    SundaMax8 { dst = %vals[:, %f*8 : %f*8 + 8], src = %data }
    MaxIndexAndMatchReplace {
      dst = %data
      dst_idx = %inds[:, %f*8 : %f*8 + 8]
      src = %data
      vals = %vals[:, %f*8 : %f*8 + 8]
      imm = -inf
    }
  }
}
