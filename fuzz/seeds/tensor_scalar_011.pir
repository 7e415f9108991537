kernel @k(%x: sbuf f32[128, 512], %z: sbuf f32[128, 256]) -> (%y: sbuf f32[128, 512]) {
  // operand1 a number: P206
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, op1 = add, operand1 = 2, is_scalar_tensor_tensor = true }
  // operand1 absent: P204
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, is_scalar_tensor_tensor = true }
  // operand1 not shaped like src: P305
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, op1 = add, operand1 = %z, is_scalar_tensor_tensor = true }
}
