kernel @k() -> (%p: psum f32[128, 4]) {
  MemsetOp { dst = %p, value = 0 }
  MemsetOp { dst = %p, value = 0, engine = dve }
  MemsetOp { dst = %p, value = 0, engine = act }
}
