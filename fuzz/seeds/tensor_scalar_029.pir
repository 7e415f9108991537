kernel @k(%x: sbuf f32[128, 512], %m: sbuf u8[128, 512], %f: sbuf f32[128, 1])
    -> (%y: sbuf f32[128, 512], %r: sbuf f32[128, 1]) {
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = -inf }
  TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = %f }
  SelectReduce { dst = %y, predicate = %m, on_true = %x, on_false = 0, reduce_op = multiply, reduce_dst = %r }
}
