kernel @k() -> (%o: sbuf bf16[128, 512]) {
  MemsetOp { dst = %o, value = 1.0 }
  MemsetOp { dst = %o[0:32, :], value = -2, engine = dve }
}
