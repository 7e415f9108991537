kernel @k(%a: sbuf f32[128, 64], %g: sbuf f32[1, 64]) -> (%o: sbuf f32[128, 64], %i: sbuf i32[128, 64]) {
  InlineASMInst { engine = pool, opcode = "X", asm_attrs = { k = 1 }, operands = [%a, %o] }
  InlineASMBytesInst { engine = dve, asm_bytes = x"0102", sync_type = data_path, latency_estimate = 3, operands = [%a, %o] }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.5 }
  IndexValueInst { dst = %i, base = 1, step = 2, channel_multiplier = 64 }
  StreamShuffleInst { dst = %o[0:32, :], src = %g, shuffle_mask = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
  NoOp {}
  TensorTensorOp { dst = %o, src0 = %a, src1 = %o, op = multiply }
  TensorCopyOp { dst = %o, src = %a }
}
