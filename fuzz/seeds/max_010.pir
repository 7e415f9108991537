kernel @k(%d: sbuf bf16[128, 64], %v: sbuf bf16[128, 8], %s: sbuf f32[128, 1], %t: sbuf f32[128, 2]) {
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v, imm = %s }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v, imm = %t }
}
