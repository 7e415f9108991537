kernel @k(%x: psum f32[128, 512]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, engine = pool }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, engine = sp }
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = 1, revers0 = true }
  TensorScalarPtrOp { dst = %y, src = %x, operand0 = 1 }
}
