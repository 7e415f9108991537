//! Kernel nodes (SPEC §6.8, §6.9).

#[allow(unused_imports)]
use crate::common::check;
