kernel @k(%x: sbuf bf16[128, 512], %m: sbuf u8[128, 512]) -> (%y: sbuf bf16[128, 512]) {
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m }
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m, reverse_pred = true }
  // start partitions differ: P306; predicate shape: P305
  TensorCopyPredicated { dst = %y[32:64, :], src = %x[0:32, :], predicate = %m }
  // DVE only: no engine field (P203)
  TensorCopyPredicated { dst = %y, src = %x, predicate = %m, engine = pool }
}
