kernel @k(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {
  for %i in 0..2 {
    // $2 beyond the rank 2 of the dst access: P300
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$2 >= 0], fill_value = 0 }
    // a loop variable: P303
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 - %i >= 0], fill_value = 0 }
    // not affine: P303
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 * $1 >= 0], fill_value = 0 }
    // no predicate: P414; fill_value missing: P204
    AffSelTensorScalarOp { dst = %y, src = %x, predicates = [] }
  }
}
