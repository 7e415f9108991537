kernel @k() -> (%a: sbuf i16[128, 4], %b: sbuf u32[128, 4], %c: sbuf f8e4m3[128, 4]) {
  MemsetOp { dst = %a, value = -1 }
  MemsetOp { dst = %b, value = 4294967295 }
  MemsetOp { dst = %c, value = -inf }
}
