kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  LocalReduceOp { dst = %o, src = %a, op = add }
}
