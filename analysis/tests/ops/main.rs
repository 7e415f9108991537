//! Per-op-class lowering and rule tests: text fixtures in, a snapshot of the BIR
//! instructions and diagnostics out (`UPDATE_EXPECT=1 cargo test -p pir-analysis` to
//! refresh). One module per family of SPEC §6.

mod common;

mod activation;
mod copy;
mod kernels;
mod matmul;
mod max;
mod memset_dma;
mod misc;
mod reduce;
mod rules;
mod tensor_scalar;
