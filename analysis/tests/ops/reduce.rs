//! LocalReduceOp and NeuronReduceMacro (SPEC §6.4).

#[allow(unused_imports)]
use crate::common::check;
