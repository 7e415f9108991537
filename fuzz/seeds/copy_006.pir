kernel @k(%p: psum f32[64, 512]) -> (%o: sbuf bf16[64, 512]) {
  TensorCopyOp { dst = %o, src = %p }
  TensorCopyOp { dst = %o, src = %p, engine = pool }
  TensorCopyOp { dst = %o, src = %p, engine = pe }
}
