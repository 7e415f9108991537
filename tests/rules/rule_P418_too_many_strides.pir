// Rule P418 (SPEC §7.1 [3]; the compiler's `BirCodeGenLoop:Too many strides!`,
// aws-neuron-sdk#1112, nki-llama#20): a compute-engine access takes a bounded number of free
// dims once the partition pair and the counts of 1 are dropped and adjacent pairs merged. The
// Activation engine takes 3. exp of a [2, 2, 4, 32] window of a [3, 3, 5, 64] tile reads
// {{{{0,+,1}[32],+,64}[4],+,320}[2],+,960}[2] (the public report's pattern): four free dims,
// P418 on the access. Beside it, the same exp over the whole contiguous tile merges into one
// free dim and is legal; and the DVE copy of the same window (4 free dims) is legal too.

kernel @rule_p418(%x: hbm bf16[128, 3, 3, 5, 64]) -> (%y: hbm bf16[128, 2, 2, 4, 32]) {
  tensor %t : sbuf bf16[128, 3, 3, 5, 64]
  tensor %e : sbuf bf16[128, 2, 2, 4, 32]
  tensor %w : sbuf bf16[128, 2, 2, 4, 32]
  DmaCopyOp { dst = %t, src = %x }  //> DMACopy DMA
  ActivationOp { dst = %e, src = %t[:, 0:2, 0:2, 0:4, 0:32], func = exp }  //> Activation Activation {"errors": ["P418"]} //! P418
  ActivationOp { dst = %t, src = %t, func = exp }  //> Activation Activation {"errors": []}
  TensorCopyOp { dst = %w, src = %t[:, 0:2, 0:2, 0:4, 0:32] }  //> TensorCopy DVE {"errors": []}
  TensorTensorOp { dst = %w, src0 = %w, src1 = %e, op = add }  //> TensorTensor DVE
  DmaCopyOp { dst = %y, src = %w }  //> DMACopy DMA
}
