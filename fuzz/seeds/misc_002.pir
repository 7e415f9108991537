kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMInst { engine = dve, opcode = "A", operands = [%a, %o], num_inputs = 3 }
  InlineASMInst { engine = dve, opcode = "A", operands = [%a, %o], num_inputs = -1 }
  InlineASMInst { opcode = "A", operands = [%a, %o] }
  InlineASMInst { engine = dve, operands = [%a, %o] }
  InlineASMInst { engine = gpsimd, opcode = "A" }
}
