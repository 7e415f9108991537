//! A loop of keystrokes on the host, for a profiler: the misspelt-field edit of `scale.rs`
//! and its undo, each followed by the document's diagnostics, `N` times (default 2,000).
//!
//! ```sh
//! perf record -g cargo run --release -p pir-gen --example keystrokes -- 10000 [N] [--kernel-ops K]
//! ```
//!
//! `--kernel-ops K`: ops per generated kernel (default 250; `--kernel-ops 100000` with
//! 100,000 ops makes one fully unrolled kernel).

use analysis::{AnalysisHost, TextRange, TextSize};

fn main() {
    let mut numbers = Vec::new();
    let mut kernel_ops = pir_gen::pir::DEFAULT_KERNEL_OPS;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--kernel-ops" {
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
    let generated = pir_gen::pir::generate(ops.max(pir_gen::pir::MIN_OPS), kernel_ops);
    let edit = generated
        .edits
        .iter()
        .find(|e| e.kind == pir_gen::EditKind::MisspellField)
        .expect("a misspelt field edit");
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
    let started = std::time::Instant::now();
    for _ in 0..times {
        host.edit_file(file, at(edit.delete), &edit.insert);
        std::hint::black_box(host.snapshot().diagnostics(file).map(|d| d.len()).ok());
        host.edit_file(file, at(edit.insert.len()), &deleted);
        std::hint::black_box(host.snapshot().diagnostics(file).map(|d| d.len()).ok());
    }
    println!(
        "{:.3} ms per keystroke",
        started.elapsed().as_secs_f64() * 1e3 / (2 * times) as f64
    );
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
