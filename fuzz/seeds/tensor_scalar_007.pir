kernel @k(%x: sbuf i32[128, 64]) -> (%y: sbuf i32[128, 64]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, op1 = bitwise_xor, operand1 = 3 }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = bitwise_and, operand0 = 1, op1 = bypass, operand1 = 0 }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = bitwise_and, operand0 = 1 }
}
