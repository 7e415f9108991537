kernel @k(%a: sbuf f16[128, 512], %b: sbuf f16[128, 512]) -> (%c: sbuf f16[128, 512]) {
  TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }
  TensorTensorOp { dst = %c[0:32, :], src0 = %a[32:64, :], src1 = %b[64:96, :], op = multiply, engine = pool }
}
