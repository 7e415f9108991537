kernel @k() -> (%a: sbuf i8[128, 4], %b: sbuf u8[128, 4], %c: sbuf f8e4m3fn[128, 4], %d: sbuf f8e5m2x4[128, 4], %e: sbuf bf16[128, 4]) {
  MemsetOp { dst = %a, value = 200 }
  MemsetOp { dst = %b, value = 0.5 }
  MemsetOp { dst = %c, value = 1000.0 }
  MemsetOp { dst = %d, value = 1.0 }
  MemsetOp { dst = %e, value = 1e39 }
}
