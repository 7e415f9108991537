kernel @k(%x: hbm bf16[256, 512]) {
  tensor %t : sbuf bf16[128, 512]
  for %i in 0..2 {
    DmaCopyOp { dst = %t, src = %x[%i*128 : %i*128 + 128, :] }
  }
}
