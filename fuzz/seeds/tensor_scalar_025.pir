kernel @k(%x: sbuf f32[64, 512], %lo: sbuf f32[64, 1]) -> (%y: sbuf f32[64, 512], %m: sbuf f32[64, 1]) {
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = %lo, bound1 = 256, range_start = 128, reduce_dst = %m }
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_gt, comp_op1 = is_le, bound0 = 0, bound1 = 10, fill_value = -3.4028235e38 }
}
