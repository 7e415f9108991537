//! A loop of keystrokes on the host, for a profiler: the misspelt-field edit of `scale.rs`
//! and its undo, each followed by the document's diagnostics, `N` times (default 2,000).
//!
//! ```sh
//! perf record -g cargo run --release -p pir-gen --example keystrokes -- 10000 [N] [MiB] [--kernel-ops K]
//! ```
//!
//! With `MiB` (default 0), that many mebibytes are written between two keystrokes, which
//! flushes the caches as an editor idle between keystrokes (or a client reading a big text)
//! does: what a keystroke costs then grows with what it touches, not with what it computes.
//! `--kernel-ops K`: ops per generated kernel (default 250; `--kernel-ops 100000` with
//! 100,000 ops makes one fully unrolled kernel). `--edit KIND`: another edit of the
//! benchmark's (`type-in-value`, `insert-op`, `delete-op`, `unclosed-brace`). The
//! diagnostics are those an editor is given ([`analysis::Analysis::capped_diagnostics`]);
//! `--all`: every one, as `pir check` gathers them.

use std::time::{Duration, Instant};

use analysis::{AnalysisHost, FileId, TextRange, TextSize};

fn main() {
    let mut numbers = Vec::new();
    let mut kernel_ops = pir_gen::pir::DEFAULT_KERNEL_OPS;
    let mut kind = pir_gen::EditKind::MisspellField;
    let mut all = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--all" {
            all = true;
        } else if arg == "--edit" {
            let name = args.next().unwrap_or_default();
            kind = pir_gen::EditKind::ALL
                .into_iter()
                .find(|k| k.name() == name)
                .unwrap_or_else(|| panic!("no edit kind `{name}`"));
        } else if arg == "--kernel-ops" {
            kernel_ops = args
                .next()
                .and_then(|a| a.parse().ok())
                .unwrap_or(kernel_ops);
        } else {
            numbers.push(arg.parse::<usize>().ok());
        }
    }
    let ops = numbers.first().copied().flatten().unwrap_or(10_000);
    let times = numbers.get(1).copied().flatten().unwrap_or(2_000);
    let flush_mib = numbers.get(2).copied().flatten().unwrap_or(0);
    let generated = pir_gen::pir::generate(ops.max(pir_gen::pir::MIN_OPS), kernel_ops);
    let edit = generated
        .edits
        .iter()
        .find(|e| e.kind == kind)
        .expect("an edit of that kind");
    let deleted = generated.text[edit.offset..edit.offset + edit.delete].to_string();
    let mut host = AnalysisHost::new();
    let file = host.add_file(&generated.text);
    host.warm(file);
    let _ = host.snapshot().diagnostics(file);
    let at = |len: usize| {
        TextRange::at(
            TextSize::from(edit.offset as u32),
            TextSize::from(len as u32),
        )
    };
    let mut flush = vec![0u8; flush_mib << 20];
    let mut samples: Vec<Duration> = Vec::with_capacity(2 * times);
    for i in 0..2 * times {
        // One write per cache line.
        for byte in flush.iter_mut().step_by(64) {
            *byte = byte.wrapping_add(1);
        }
        std::hint::black_box(&flush);
        let started = Instant::now();
        let (range, text) = if i % 2 == 0 {
            (at(edit.delete), edit.insert.as_str())
        } else {
            (at(edit.insert.len()), deleted.as_str())
        };
        keystroke(&mut host, file, range, text, all);
        samples.push(started.elapsed());
    }
    let mean = samples.iter().sum::<Duration>() / samples.len().max(1) as u32;
    samples.sort();
    println!(
        "{:.3} ms per keystroke (median {:.3} ms)",
        mean.as_secs_f64() * 1e3,
        samples[samples.len() / 2].as_secs_f64() * 1e3
    );
}

/// One keystroke: the edit, then the diagnostics. Its own function, never inlined, so that
/// `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='keystrokes::keystroke'` counts
/// the instructions of the keystrokes alone (repeatable on a loaded machine).
#[inline(never)]
fn keystroke(host: &mut AnalysisHost, file: FileId, range: TextRange, text: &str, all: bool) {
    host.edit_file(file, range, text);
    let snap = host.snapshot();
    if all {
        std::hint::black_box(snap.diagnostics(file).map(|d| d.len()).ok());
    } else {
        std::hint::black_box(
            snap.capped_diagnostics(file)
                .map(|d| d.diagnostics.len())
                .ok(),
        );
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
