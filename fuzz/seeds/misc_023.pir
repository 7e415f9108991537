kernel @k(%a: sbuf i32[128, 64], %v: sbuf f32[128, 8]) -> (%o: hbm i32[128, 64], %d: sbuf f32[128, 64]) {
  IndexValueInst { dst = %a, base = 9223372036854775807, step = -9223372036854775807, channel_multiplier = 9223372036854775807 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 9223372036854775807 }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v, imm = nan }
  MemsetOp { dst = %a, value = -9223372036854775807 }
  NeuronReduceMacro { dst = %d, src = %d, op = add, reduce_axes = [-9223372036854775807, 9223372036854775807] }
  InlineASMInst { engine = dve, opcode = "x", operands = [%a], num_inputs = 9223372036854775807 }
  LocalReduceOp { dst = %o, src = %a, op = add, groups = [[]] }
  DropoutMaskInst { dst = %d, src = %d, keep_rate = nan }
}
