// Rule P416 (SPEC §10.1 [2]): the peak PSUM occupancy of a kernel exceeds 16,384 bytes per
// partition, though each tensor fits alone (no P304). Eight accumulators of one bank each
// (f32 × 512 = 2,048 bytes) are written by eight matmuls and summed only afterwards, so each
// lives from its matmul to its add: at the eighth matmul (#10) 8 × 2,048 = 16,384 bytes,
// exactly the capacity. A ninth result, %tail (f32 × 1 = 4 bytes, a matmul with N = 1),
// makes 16,388 > 16,384 at its matmul (#11): P416 on the kernel name (related: that op,
// and %acc0, %acc1, %acc2, the largest live there, ties in declaration order).

kernel @rule_p416_psum(%w: hbm bf16[128, 128], %x: hbm bf16[128, 512])  //! P416
    -> (%y: hbm f32[128, 512]) {
  tensor %w_sb : sbuf bf16[128, 128]
  tensor %x_sb : sbuf bf16[128, 512]
  tensor %acc0 : psum f32[128, 512]
  tensor %acc1 : psum f32[128, 512]
  tensor %acc2 : psum f32[128, 512]
  tensor %acc3 : psum f32[128, 512]
  tensor %acc4 : psum f32[128, 512]
  tensor %acc5 : psum f32[128, 512]
  tensor %acc6 : psum f32[128, 512]
  tensor %acc7 : psum f32[128, 512]
  tensor %tail : psum f32[128, 1]
  tensor %sum  : sbuf f32[128, 512]
  DmaCopyOp { dst = %w_sb, src = %w }  //> DMACopy DMA
  DmaCopyOp { dst = %x_sb, src = %x }  //> DMACopy DMA
  MatMulOp { dst = %acc0, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc1, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc2, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc3, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc4, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc5, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc6, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %acc7, stationary = %w_sb, moving = %x_sb }  //> Matmult PE
  MatMulOp { dst = %tail, stationary = %w_sb, moving = %x_sb[:, 0:1] }  //> Matmult PE
  TensorCopyOp { dst = %sum, src = %acc0 }  //> TensorCopy DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc1, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc2, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc3, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc4, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc5, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc6, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum, src0 = %sum, src1 = %acc7, op = add }  //> TensorTensor DVE
  TensorTensorOp { dst = %sum[:, 0:1], src0 = %sum[:, 0:1], src1 = %tail, op = add }  //> TensorTensor DVE
  DmaCopyOp { dst = %y, src = %sum }  //> DMACopy DMA
}
