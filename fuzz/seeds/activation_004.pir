kernel @k(%x: sbuf f32[64, 256]) -> (%y: sbuf f32[64, 256], %r: sbuf f32[64, 1]) {
  ActivationOp { dst = %y, src = %x, func = log, scale = 0.25, is_accumulate = true }
  ActivationOp { dst = %y, src = %x, func = square, reduce_op = add, reduce_dst = %r, reduce_cmd = reduce }
  ActivationOp { dst = %y, src = %x, func = copy, reduce_cmd = reset }
}
