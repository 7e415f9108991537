kernel @k(%g: sbuf bf16[1, 2048]) -> (%b: sbuf bf16[128, 2048]) {
  for %j in 0..4 {
    StreamShuffleInst {
      dst = %b[%j*32 : %j*32 + 32, :]
      src = %g[0:1, :]
      shuffle_mask = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    }
  }
}
