kernel @k(%x: sbuf f32[128, 512], %c: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = multiply, operand0 = 0.9, op1 = add, operand1 = %c }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = multiply, operand0 = 0.9, operand1 = %c }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = multiply, operand0 = 0.9 }
}
