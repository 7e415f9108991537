// Rule P419 (SPEC §7.1 [3]; NKI: "A tensor was either passed as an output parameter to kernel
// but never written to"): a `->` parameter that no executed op writes, a warning on its name in
// the signature. %y is written by a DMA inside a loop that runs 4 times: written. %z's only write
// is inside a loop over 4..4, which runs 0 times: P419 on %z (the message says so, the op is the
// related location). %w is never named by any op: P419. The second kernel is the closest correct
// code: the same loop over 0..4 writes its output, and nothing is diagnosed.

kernel @rule_p419(%x: hbm f32[128, 512])
    -> (%y: hbm f32[128, 512],
        %z: hbm f32[128, 512],  //! P419
        %w: hbm f32[128, 512]) {  //! P419
  tensor %t : sbuf f32[128, 512]
  DmaCopyOp { dst = %t, src = %x }  //> DMACopy DMA
  for %i in 0..4 {
    DmaCopyOp { dst = %y, src = %t }  //> DMACopy DMA
  }
  for %j in 4..4 {
    DmaCopyOp { dst = %z, src = %t }  //> DMACopy DMA
  }
}

kernel @rule_p419_written(%x: hbm f32[128, 512]) -> (%z: hbm f32[128, 512]) {
  tensor %t : sbuf f32[128, 512]
  DmaCopyOp { dst = %t, src = %x }  //> DMACopy DMA
  for %j in 0..4 {
    DmaCopyOp { dst = %z, src = %t }  //> DMACopy DMA
  }
}
