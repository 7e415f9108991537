kernel @k(%d: sbuf bf16[128, 64], %v: sbuf bf16[128, 8], %w: sbuf bf16[128, 16]) -> (%o: sbuf bf16[128, 32]) {
  SundaMatchReplace8 { dst = %o, src = %d, vals = %v, imm = 0.0 }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %w, imm = 0.0 }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v }
}
