kernel @k(%data: sbuf bf16[128, 1024], %v: sbuf bf16[128, 8]) -> (%a: sbuf i16[128, 8], %b: sbuf i32[128, 8], %c: sbuf f32[128, 8], %d: sbuf bf16[128, 8]) {
  SundaMaxIndex8 { dst = %a, max_vals = %v, src = %data }
  SundaMaxIndex8 { dst = %b, max_vals = %v, src = %data }
  SundaMaxIndex8 { dst = %c, max_vals = %v, src = %data }
  SundaMaxIndex8 { dst = %d, max_vals = %v, src = %data }
}
