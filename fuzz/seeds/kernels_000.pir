kernel @router(%x: hbm bf16[1024, 2048], %w: hbm bf16[2048, 128])
    -> (%logits: hbm f32[1024, 128], %index: hbm u32[1024, 8]) {
  BIRKernel {
    kernel_name = "RouterTopK"
    kernel_attrs = { act_fn = "softmax", k = "8", norm_topk_prob = "true" }
    srcs = [%x, %w]
    dsts = [%logits, %index]
  }
}
