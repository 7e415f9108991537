kernel @k(%a: sbuf bf16[128, 64]) -> (%o: sbuf bf16[128, 64], %p: sbuf bf16[128, 32]) {
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.9 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 1 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.0 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 1.5 }
  DropoutMaskInst { dst = %p, src = %a, keep_rate = 0.5 }
}
