kernel @k(%x: sbuf f32[128, 64], %table: sbuf f32[128, 16], %idx: sbuf i32[128, 1], %fidx: sbuf f32[128, 1])
    -> (%y: sbuf f32[128, 64]) {
  reg %r : i32
  reg %fr : f32
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = 5 }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = multiply, ptr = %table, index = %r, engine = pool }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = multiply, ptr = %table, index = %idx }
  // a float index: P407; a negative one: P414
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = %fidx }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = %fr }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = -1 }
  // a loop variable is not an index: P206
  for %i in 0..2 {
    TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %table, index = %i }
  }
}
