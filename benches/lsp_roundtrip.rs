//! didChange → publishDiagnostics, end to end through the real `pir lsp` over stdio
//! (`cargo bench --bench lsp_roundtrip`): each iteration changes one field value of one op
//! to a number never used before and waits for the diagnostics of that version.

#[path = "../tests/lsp/support.rs"]
#[allow(dead_code)]
mod support;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use support::{Server, position_of, uri};

fn corpus(name: &str) -> String {
    std::fs::read_to_string(test_utils::corpus_dir().join(name)).expect("corpus file")
}

/// Measures the round trip on `file`, editing the number after the first `needle`.
fn roundtrip(c: &mut Criterion, file: &str, needle: &str) {
    let text = corpus(file);
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri(file);
    server.open(&u, &text);
    server.diagnostics(&u, 1);
    // The first occurrence of the needle followed by a number.
    let start = text
        .match_indices(needle)
        .map(|(i, _)| i + needle.len())
        .find(|&i| text[i..].starts_with(|c: char| c.is_ascii_digit()))
        .expect("a needle followed by a number");
    let old_len = text[start..]
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
        .expect("number end");
    let from = position_of(&text, start, server.encoding);
    let mut current = old_len as u32;
    let mut version = 1;
    c.bench_function(&format!("didChange → publishDiagnostics, {file}"), |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                version += 1;
                let value = format!("0.{version}");
                let to = json!({"line": from.line, "character": from.character + current});
                let began = Instant::now();
                server.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": u, "version": version},
                           "contentChanges": [{"range": {"start": from, "end": to}, "text": value}]}),
                );
                let diagnostics = server.diagnostics(&u, version);
                total += began.elapsed();
                assert!(diagnostics.iter().all(|d| d["severity"] != 1), "{diagnostics:?}");
                current = value.len() as u32;
            }
            total
        });
    });
    assert!(server.shutdown_and_exit().success());
}

fn bench(c: &mut Criterion) {
    // The corpus kernel with the most ops (23), a smaller one, and the largest file.
    roundtrip(c, "attention_fwd.pir", "operand0 = ");
    roundtrip(c, "rmsnorm.pir", "operand0 = ");
    roundtrip(c, "library_kernels.pir", "scale = ");
}

criterion_group!(benches, bench);
criterion_main!(benches);
