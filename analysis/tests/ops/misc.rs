//! Inline assembly, dropout, iota, shuffle, no-op, tensor-tensor (SPEC §6.7).

#[allow(unused_imports)]
use crate::common::check;
