kernel @k(%x: sbuf f32[128, 512], %s: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = 0.25 }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = subtract, operand0 = %s, reverse0 = true }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = 0.00048828125, op1 = add, operand1 = 1e-6, reverse1 = true }
}
