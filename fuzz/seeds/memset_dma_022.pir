kernel @k(%a: hbm i32[4], %p: psum i32[1, 1]) {
  reg %r0 : i32
  reg %f : f32
  LoadTensorToRegister { src = %a, dst_registers = [%r0] }
  LoadTensorToRegister { src = %a[0:2], dst_registers = [%r0, %f] }
  LoadTensorToRegister { src = %p, dst_registers = [%r0] }
  LoadTensorToRegister { src = %a[0:1], dst_registers = [%a] }
}
