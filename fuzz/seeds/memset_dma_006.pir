kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o, mode = random, value = 3.0 }
  MemsetOp { dst = %o, mode = random }
}
