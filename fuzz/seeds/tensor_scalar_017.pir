kernel @k(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {
  AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 >= $1 + 3, 2*$1 < 100, 5 != $0], fill_value = -1e9 }
  AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$1 == 0], fill_value = 0, op0 = multiply, operand0 = 2.0, engine = dve }
}
