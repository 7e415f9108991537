kernel @k(%x: sbuf f32[64, 512], %s: sbuf f32[64, 2], %t: sbuf f32[32, 1]) -> (%y: sbuf f32[64, 512]) {
  // dst free size differs: P305 on the later (src)
  TensorScalarPtrOp { dst = %y[:, 0:256], src = %x, op0 = add, operand0 = 1 }
  // start partitions differ: P306 on dst
  TensorScalarPtrOp { dst = %y[32:64, :], src = %x[0:32, :], op0 = add, operand0 = 1 }
  // pointers not [64, 1]: P305 on each
  TensorScalarPtrOp { dst = %y, src = %x, op0 = add, operand0 = %s, op1 = add, operand1 = %t }
}
