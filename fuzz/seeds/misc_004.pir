kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMBytesInst { engine = act, asm_bytes = x"DE AD be ef", sync_type = sequencer, latency_estimate = 12, operands = [%a, %o] }
  InlineASMBytesInst { engine = act, asm_bytes = x"", sync_type = dma, latency_estimate = -1 }
  InlineASMBytesInst { engine = act, asm_bytes = x"00", sync_type = datapath, latency_estimate = 1 }
}
