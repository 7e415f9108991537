//! `syntax::decode`, `parse`, `parse_bytes` and `lex` over arbitrary bytes (see `src/lib.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pir_fuzz::parse(data));
