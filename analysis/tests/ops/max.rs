//! Max / MaxIndex / MatchReplace (SPEC §6.5).

#[allow(unused_imports)]
use crate::common::check;
