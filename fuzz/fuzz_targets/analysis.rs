//! Every analysis query and IDE feature over the decoded bytes (see `src/lib.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pir_fuzz::analysis(data));
