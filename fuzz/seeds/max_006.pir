kernel @k(%f8: sbuf f8e4m3[128, 64], %u8: sbuf u8[128, 64], %bf: sbuf bf16[128, 64], %v8: sbuf f8e4m3[128, 8], %vu: sbuf u8[128, 8], %vb: sbuf bf16[128, 8]) {
  SundaMatchReplace8 { dst = %f8, src = %f8, vals = %v8, imm = 1000.0 }
  SundaMatchReplace8 { dst = %u8, src = %u8, vals = %vu, imm = -3.7 }
  SundaMatchReplace8 { dst = %u8, src = %u8, vals = %vu, imm = 5 }
  SundaMatchReplace8 { dst = %bf, src = %bf, vals = %vb, imm = -inf }
  SundaMatchReplace8 { dst = %u8, src = %u8, vals = %vu, imm = -inf }
}
