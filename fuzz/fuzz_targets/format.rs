//! `analysis::ide::format` keeps every token and is idempotent (see `src/lib.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pir_fuzz::format(data));
