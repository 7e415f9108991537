kernel @k(%x: hbm bf16[16, 512]) -> (%t: sbuf bf16[128, 512]) {
  DmaCopyOp { dst = %t[5:21, :], src = %x }
}
