kernel @k(%data: sbuf bf16[128, 1024], %v: sbuf bf16[64, 8]) -> (%a: sbuf bf16[128, 4], %b: sbuf bf16[64, 8], %i: sbuf u16[128, 8]) {
  SundaMax8 { dst = %a, src = %data }
  SundaMax8 { dst = %b, src = %data }
  SundaMax8 { src = %data, dst = %b }
  SundaMaxIndex8 { dst = %i, max_vals = %v, src = %data }
}
