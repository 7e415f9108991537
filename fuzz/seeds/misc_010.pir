kernel @k() -> (%u: sbuf u8[128, 64], %v: sbuf u8[1, 512], %p: psum i32[128, 4], %h: sbuf bf16[128, 4]) {
  IndexValueInst { dst = %u, base = 300 }
  IndexValueInst { dst = %u, step = -1 }
  IndexValueInst { dst = %u, channel_multiplier = 64 }
  IndexValueInst { dst = %v }
  IndexValueInst { dst = %p }
  IndexValueInst { dst = %h, base = 1e6 }
}
