kernel @k(%x: sbuf f32[128, 512], %s: sbuf f32[128, 1]) -> (%y: sbuf f32[128, 512], %y2: sbuf f32[128, 512], %r: sbuf f32[128, 1]) {
  ActivationOp { dst = %y, src = %x, func = exp, scale = %s, reduce_op = max, reduce_dst = %r }
  ActivationOp { dst = %y, src = %x, func = relu, is_accumulate = true }
  Activate2 { dst = %y, src = %x, func = exp, func2 = sigmoid, dst2 = %y2 }
}
