kernel @k(%a: sbuf i32[1, 2]) {
  reg %r0 : i32
  reg %r1 : u32
  LoadTensorToRegister { src = %a, dst_registers = [%r0, %r1] }
}
