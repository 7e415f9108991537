kernel @k(%x: sbuf f32[64, 512], %lo: sbuf bf16[64, 1], %wide: sbuf f32[64, 2]) -> (%y: sbuf f32[64, 512]) {
  // fill_value other than FP32 min: P414
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 8, fill_value = -1e30 }
  // reduce_op other than max: P414
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 8, reduce_op = add }
  // not a comparison: P207
  RangeSelect { dst = %y, on_true = %x, comp_op0 = add, comp_op1 = is_lt, bound0 = 0, bound1 = 8 }
  // a bf16 bound pointer (P407), a [64, 2] one (P305)
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = %lo, bound1 = %wide }
  // reduce_dst not [64, 1]: P305
  RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 8, reduce_dst = %wide }
  // on_true not shaped like dst: P305; comp_op1 and bound1 missing: P204
  RangeSelect { dst = %y, on_true = %x[:, 0:8], comp_op0 = is_ge, bound0 = 0 }
}
