kernel @k(%data: sbuf bf16[128, 1024]) -> (%vals: sbuf bf16[128, 8], %inds: sbuf i32[128, 8]) {
  SundaMax8 { dst = %vals, src = %data }
  SundaMaxIndex8 { dst = %inds, max_vals = %vals, src = %data }
  SundaMatchReplace8 { dst = %data, src = %data, vals = %vals, imm = -inf }
  MaxIndexAndMatchReplace { dst = %data, dst_idx = %inds, src = %data, vals = %vals, imm = 2.5 }
}
