kernel @k(%x: sbuf f32[128, 512], %b: psum f32[128, 1]) -> (%y: sbuf f32[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = expp, bias = %b, reduce_cmd = zero }
}
