//! The tensor-scalar pointer family (SPEC §6.3).

#[allow(unused_imports)]
use crate::common::check;
