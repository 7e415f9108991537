// Rule P417 (SPEC §7.1 [3]; the compiler's `[GCA035] Instruction: … couldn't be allocated in
// SB`, aws-neuron-sdk#1060): one instruction needs every SBUF location it touches resident at
// once. The sum of the per-partition footprints of the declared tensors of its sbuf operands
// may not exceed the physical partition (229,376 bytes on trn2), whatever part of each the
// accesses select. Three f32[128, 24642] tiles (98,568 bytes each) in one TensorTensorOp sum to
// 295,704: P417 on the op class name. Beside it, the compiler's own passing listing: a small
// dst (888 bytes) and two of the big tiles, 888 + 2 × 98,568 = 198,024, fits. The kernel's
// SBUF peak also exceeds the usable capacity (P416, a warning on the kernel name).

kernel @rule_p417(%x: hbm f32[128, 24642]) -> (%y: hbm f32[128, 222]) {  //! P416
  tensor %a : sbuf f32[128, 24642]
  tensor %b : sbuf f32[128, 24642]
  tensor %c : sbuf f32[128, 24642]
  tensor %s : sbuf f32[128, 222]
  DmaCopyOp { dst = %a, src = %x }  //> DMACopy DMA
  DmaCopyOp { dst = %b, src = %x }  //> DMACopy DMA
  TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }  //> TensorTensor DVE {"errors": ["P417"]} //! P417
  TensorTensorOp { dst = %s, src0 = %a[:, 0:222], src1 = %c[:, 0:222], op = add }  //> TensorTensor DVE {"errors": []}
  DmaCopyOp { dst = %y, src = %s }  //> DMACopy DMA
}
