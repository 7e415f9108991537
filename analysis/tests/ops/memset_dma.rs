//! Memset, OffloadedFMA, registers, sequence bounds (SPEC §6.6).

#[allow(unused_imports)]
use crate::common::check;
