kernel @k(%x: psum f32[128, 512], %s: sbuf f32[128, 1], %b: sbuf f32[128, 1], %u: sbuf f32[128, 512],
          %d: sbuf f32[128, 512])
    -> (%y: sbuf bf16[128, 512], %r: sbuf f32[128, 1], %o: sbuf f32[128, 512]) {
  ActivationOp {
    dst = %y, src = %x, func = gelu_apprx_tanh, func_args = [0.5, 2], func_outs = [%o]
    scale = %s, bias = %b, up_bias = %u, down_bias = %d, imm0 = 1.5, imm1 = %s
    reduce_op = multiply, reduce_dst = %r
  }
}
