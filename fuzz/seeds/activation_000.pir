kernel @k(%x: sbuf f32[128, 512]) -> (%y: sbuf bf16[128, 512]) {
  ActivationOp { dst = %y, src = %x, func = exp }
}
