kernel @k() {
  tensor %a : sbuf f32[64, 16]
  tensor %b : sbuf f32[64, 16]
  TensorCopyOp { dst = %b[32:64, :], src = %a[0:32, :], engine = act }
}
