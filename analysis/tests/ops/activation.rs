//! ActivationOp and Activate2 (SPEC §6.2).

#[allow(unused_imports)]
use crate::common::check;
