kernel @k(%x: sbuf f32[128, 512], %b: sbuf f32[128, 2], %s: sbuf bf16[128, 1])
    -> (%y: sbuf f32[128, 512], %r: sbuf f32[64, 1]) {
  ActivationOp { dst = %y, src = %x, func = exp, bias = %b, reduce_op = add, reduce_dst = %r, scale = %s }
}
