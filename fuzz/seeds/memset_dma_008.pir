kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o }
  MemsetOp { dst = %o, mode = randon }
}
