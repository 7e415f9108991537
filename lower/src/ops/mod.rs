//! The op classes of SPEC §6, one module per family: each op's [`OpSpec`] (its row of the
//! catalog) sits beside the function that checks and lowers it.

mod activation;
mod common;
mod copy;
mod kernels;
mod matmul;
mod max;
mod memset_dma;
mod misc;
mod reduce;
mod tensor_scalar;

use crate::catalog::OpSpec;

/// Every op class of SPEC §6, in the spec's order. The one table of ops.
pub static CATALOG: &[&OpSpec] = &[
    // §6.1 matmul family
    &matmul::MATMUL_OP,
    &matmul::MATMUL_MX_OP,
    &matmul::MATMUL_SPARSE_OP,
    // (end §6.1)
    // §6.2 activation
    &activation::ACTIVATION_OP,
    &activation::ACTIVATE2,
    // §6.3 tensor-scalar pointer family
    &tensor_scalar::TENSOR_SCALAR_PTR_OP,
    &tensor_scalar::TENSOR_SCALAR_CACHE_CUMULATIVE,
    &tensor_scalar::AFF_SEL_TENSOR_SCALAR_OP,
    &tensor_scalar::TENSOR_SCALAR_GEP_OP,
    &tensor_scalar::RANGE_SELECT,
    &tensor_scalar::TENSOR_SELECT,
    &tensor_scalar::SELECT_REDUCE,
    &tensor_scalar::TENSOR_COPY_PREDICATED,
    // (end §6.3)
    // §6.4 reduce
    // (end §6.4)
    // §6.5 max / match-replace
    // (end §6.5)
    // §6.6 memset, DMA, registers, sequence bounds
    &copy::DMA_COPY_OP,
    // (end §6.6)
    // §6.7 inline asm, dropout, iota, shuffle, no-op, copy, tensor-tensor, transpose
    &matmul::TRANSPOSE_OP,
    &copy::TENSOR_COPY_OP,
    // (end §6.7)
    // §6.8 kernel nodes
    &kernels::BIR_KERNEL,
    &kernels::MLP_KERNEL,
    &kernels::TILED_MLP_KERNEL,
    &kernels::NORM_QKV,
    &kernels::TILED_NORM_QKV,
    &kernels::RMS_NORM_QUANT_KERNEL,
    &kernels::TILED_RMS_NORM_QUANT_KERNEL,
    &kernels::ATTENTION_MM_SOFTMAX_MM,
    &kernels::TILED_ATTENTION_MM_SOFTMAX_MM,
    &kernels::BACKWARDS_ATTENTION_OP,
    &kernels::INTERNAL_NATIVE_NKI_KERNEL,
    &kernels::EXTERNAL_NATIVE_NKI_KERNEL,
    &kernels::EXTERNAL_NATIVE_NKI_KLIR_KERNEL,
    // (end §6.8)
];
