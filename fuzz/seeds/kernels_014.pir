kernel @mlp(%x: hbm bf16[1, 2048, 4096], %ln_w: hbm bf16[1, 4096], %gate_w: hbm bf16[4096, 1792],
            %up_w: hbm bf16[4096, 1792], %down_w: hbm bf16[1792, 4096], %ub: hbm bf16[1, 1792],
            %db: hbm bf16[1, 4096])
    -> (%out: hbm bf16[1, 2048, 4096]) {
  MLPKernel {
    srcs = [%x, %ln_w, %gate_w, %up_w, %down_w]
    dsts = [%out]
    eps = 1e-5
    act_fn = silu
    fused_rmsnorm = true
    norm_type = layer_norm
    store_add = true
    quant_kernel = true
    lower_bound = -3
    skip_gate = false
    up_bias = %ub
    down_bias = %db
  }
}
