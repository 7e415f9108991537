kernel @k(%x: sbuf f32[128, 512], %s: sbuf f32[128, 1], %m: sbuf u8[128, 512]) -> (%y: sbuf f32[128, 512]) {
  TensorScalarPtrOp { dst = %y, src = %x, op0 = multiply, operand0 = %s, op1 = add, operand1 = 1.0 }
  TensorScalarCacheCumulative { dst = %y, src = %x, op0 = add, operand0 = 0, op1 = add }
  AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 - $1 >= 0], fill_value = -inf }
  TensorScalarGEPOp { dst = %y, src = %x, op0 = add, ptr = %s, index = 3 }
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = %s }
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = 0.0 }
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m }
}
