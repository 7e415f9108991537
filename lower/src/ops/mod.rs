//! The op classes of SPEC §6, one module per family: each op's [`OpSpec`] (its row of the
//! catalog) sits beside the function that checks and lowers it.

mod activation;
mod common;
mod copy;
pub(crate) mod instruction;
mod kernels;
mod matmul;
mod max;
mod memset_dma;
mod misc;
mod reduce;
mod tensor_scalar;

use crate::catalog::OpSpec;

pub use kernels::reads_tkg_threshold;

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
    &reduce::LOCAL_REDUCE_OP,
    &reduce::NEURON_REDUCE_MACRO,
    // (end §6.4)
    // §6.5 max / match-replace
    &max::SUNDA_MAX8,
    &max::SUNDA_MAX_INDEX8,
    &max::SUNDA_MATCH_REPLACE8,
    &max::MAX_INDEX_AND_MATCH_REPLACE,
    // (end §6.5)
    // §6.6 memset, DMA, registers, sequence bounds
    &memset_dma::MEMSET_OP,
    &memset_dma::OFFLOADED_FMA,
    &memset_dma::TILED_OFFLOADED_FMA,
    &copy::DMA_COPY_OP,
    &memset_dma::LOAD_TENSOR_TO_REGISTER,
    &memset_dma::GET_SEQUENCE_BOUNDS,
    // (end §6.6)
    // §6.7 inline asm, dropout, iota, shuffle, no-op, copy, tensor-tensor, transpose
    &matmul::TRANSPOSE_OP,
    &copy::TENSOR_COPY_OP,
    &misc::INLINE_ASM_INST,
    &misc::INLINE_ASM_BYTES_INST,
    &misc::DROPOUT_MASK_INST,
    &misc::INDEX_VALUE_INST,
    &misc::STREAM_SHUFFLE_INST,
    &misc::NO_OP,
    &misc::TENSOR_TENSOR_OP,
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
