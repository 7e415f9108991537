kernel @k() -> (%a: sbuf i32[128, 64], %b: sbuf f32[128, 2, 32]) {
  IndexValueInst { dst = %a, channel_multiplier = 64 }
  IndexValueInst { dst = %b, base = -5, step = 2 }
}
