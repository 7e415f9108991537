kernel @k(%a: hbm f32[128, 512], %ids: sbuf i32[1, 512]) -> (%o: hbm f32[128, 512], %s: sbuf bf16[128, 512], %b: sbuf i32[1, 1024]) {
  reg %r0 : i32
  MemsetOp { dst = %s, value = 1.0 }
  MemsetOp { dst = %s, mode = random, engine = dve }
  OffloadedFMA { dst = %o, srcs = [%a, %a], scales = [0.5, 2], cce_op = min }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 4 }
  LoadTensorToRegister { src = %ids[:, 0:1], dst_registers = [%r0] }
  GetSequenceBounds { dst = %b, src = %ids }
  DmaCopyOp { dst = %o, src = %a }
}
