kernel @k(%x: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 1]) {
  TensorScalarPtrOp {
    dst = %y
    src = %x
    op0 = multiply
    operand0 = 0.00048828125
    operand1 = 1e-6
  }
}
