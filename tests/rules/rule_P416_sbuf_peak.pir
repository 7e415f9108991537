// Rule P416 (SPEC §10.1 [2]): the peak SBUF occupancy of a kernel exceeds 212,984 bytes per
// partition, though each tensor fits alone (no P304). A running sum over four row blocks:
// %acc (f32 × 26,624 = 106,496 bytes) is zeroed before the loop, added to in it and stored
// after it, so it is live over the whole loop (its value crosses iterations); each
// iteration loads a block into %tile (106,496 bytes) first. At that load (#2, the first op
// of the loop) both are live: 212,992 > 212,984 bytes, P416 on the kernel name (related:
// the load, then %acc and %tile, the largest live there).

kernel @rule_p416_sbuf(%x: hbm f32[512, 26624]) -> (%y: hbm f32[128, 26624]) {  //! P416
  tensor %acc  : sbuf f32[128, 26624]
  tensor %tile : sbuf f32[128, 26624]
  MemsetOp { dst = %acc, value = 0.0 }  //> Memset Pool
  for %i in 0..4 {
    DmaCopyOp { dst = %tile, src = %x[%i*128 : %i*128 + 128, :] }  //> DMACopy DMA
    TensorTensorOp { dst = %acc, src0 = %acc, src1 = %tile, op = add }  //> TensorTensor DVE
  }
  DmaCopyOp { dst = %y, src = %acc }  //> DMACopy DMA
}
