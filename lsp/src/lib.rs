//! The language server of `pir` (SPEC §10) and the position conversions it shares with
//! its protocol tests. The command line lives in the binary (`main.rs`, `cli.rs`).
//!
//! Architecture Invariant: this crate is the only one that names an LSP type, and
//! [`convert`] is the only place that turns LSP positions into byte offsets or back.

pub mod convert;
pub mod files;
mod handlers;
pub mod plot;
pub mod server;
mod state;
mod tokens;
mod transport;
mod workspace;
