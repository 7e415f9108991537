//! The matmul family and TransposeOp (SPEC §6.1, §6.7).

#[allow(unused_imports)]
use crate::common::check;
