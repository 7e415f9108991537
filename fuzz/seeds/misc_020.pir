kernel @k(%a: sbuf f32[128, 512], %p: psum f32[128, 512], %q: psum f32[128, 512]) -> (%c: sbuf f32[128, 512]) {
  TensorTensorOp { dst = %c, src0 = %p, src1 = %q, op = add }
  TensorTensorOp { dst = %c, src0 = %a, src1 = %p, op = add, engine = pool }
  TensorTensorOp { dst = %c, src0 = %a[:, 0:256], src1 = %a, op = subtract }
  TensorTensorOp { dst = %c[0:64, :], src0 = %a, src1 = %a, op = max }
  TensorTensorOp { dst = %c, src0 = %a, src1 = %a }
}
