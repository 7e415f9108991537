// Rule P416 (SPEC §10.1 [2]): the peak SBUF occupancy of a kernel exceeds 212,984 bytes per
// partition, though each tensor fits alone (no P304). A running sum over four row blocks:
// %acc (f32 × 4,096 = 16,384 bytes) is zeroed before the loop, added to in it and stored
// after it, so it is live over the whole loop (its value crosses iterations); each
// iteration loads a block into %tile (f32 × 49,152 = 196,608 bytes) first. At that load (#2,
// the first op of the loop) both are live: 212,992 > 212,984 bytes, P416 on the kernel name
// (related: the load, then %tile and %acc, the largest live there). The add itself names
// %acc twice and %tile once, 229,376 bytes: exactly the physical partition, so no P417
// (pir-spec/3 §7.1).

kernel @rule_p416_sbuf(%x: hbm f32[512, 49152]) -> (%y: hbm f32[128, 4096]) {  //! P416
  tensor %acc  : sbuf f32[128, 4096]
  tensor %tile : sbuf f32[128, 49152]
  MemsetOp { dst = %acc, value = 0.0 }  //> Memset Pool
  for %i in 0..4 {
    DmaCopyOp { dst = %tile, src = %x[%i*128 : %i*128 + 128, :] }  //> DMACopy DMA
    TensorTensorOp { dst = %acc, src0 = %acc, src1 = %tile[:, 0:4096], op = add }  //> TensorTensor DVE
  }
  DmaCopyOp { dst = %y, src = %acc }  //> DMACopy DMA
}
