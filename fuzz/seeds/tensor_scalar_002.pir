kernel @k(%x: sbuf f32[128, 512], %z: sbuf f32[128, 512], %s: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = max, operand0 = 0, engine = pool }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = bitwise_and, operand0 = 255, op1 = bitwise_or, operand1 = 1, engine = act }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = %s, op1 = add, operand1 = %z, is_scalar_tensor_tensor = true }
}
