kernel @k(%x: sbuf f32[128, 512], %m: sbuf u8[128, 256], %f: sbuf f32[64, 1])
    -> (%y: sbuf f32[128, 512], %r: sbuf f32[128, 2]) {
  // the predicate is not shaped like dst: P305; the on_false pointer is not [128, 1]: P305
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = %f }
  // reduce_dst not [128, 1]: P305; reduce_op missing: P204
  SelectReduce { dst = %y, predicate = %m[:, :], on_true = %x, on_false = 0, reduce_dst = %r }
}
