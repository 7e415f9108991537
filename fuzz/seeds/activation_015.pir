kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf f32[128, 512], %r: sbuf f32[128, 1]) {
  ActivationOp { dst = %y, src = %x, func = exp, reduce_op = add }
  ActivationOp { dst = %y, src = %x, func = exp, reduce_dst = %r }
  ActivationOp { dst = %y, src = %x }
  Activate2 { dst = %y, src = %x, func = exp }
}
