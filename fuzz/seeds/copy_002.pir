kernel @k(%x: hbm bf16[256, 512]) {
  tensor %t : sbuf bf16[128, 512]
  DmaCopyOp { dst = %t, src = %x }
}
