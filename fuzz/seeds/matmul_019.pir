kernel @k(%a: sbuf i8[128, 64], %b: sbuf bf16[128, 64], %f: sbuf f32[128, 512],
          %h: sbuf bf16[128, 512])
    -> (%acc: psum f32[64, 512], %acc16: psum bf16[64, 512]) {
  MatMulOp { dst = %acc, stationary = %a, moving = %h }
  MatMulOp { dst = %acc, stationary = %b, moving = %f }
  MatMulOp { dst = %acc16, stationary = %b, moving = %h }
  MatMulOp { dst = %acc16, stationary = %b, moving = %h, isTranspose = true }
  MatMulOp { dst = %acc, stationary = %b, moving = %h, isTranspose = true }
}
