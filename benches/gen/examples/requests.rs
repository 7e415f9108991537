//! What each request an editor sends after a change costs in the analysis alone (no
//! server, no LSP conversion): each of the five edits of `scale.rs` and its undo, each
//! followed by the diagnostics, code lenses, folding ranges, semantic token chunks,
//! document symbols and inlay hints of 60 lines, timed apart (median of `N` pairs).
//!
//! ```sh
//! cargo run --release -p pir-gen --example requests -- 100000 [N] [--kernel-ops K]
//! ```

use std::time::{Duration, Instant};

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
    let times = numbers.get(1).copied().flatten().unwrap_or(5);
    let generated = pir_gen::pir::generate(ops.max(pir_gen::pir::MIN_OPS), kernel_ops);
    let mut host = AnalysisHost::new();
    let file = host.add_file(&generated.text);
    host.warm(file);
    let _ = host.snapshot().diagnostics(file);
    let names = [
        "diagnostics",
        "code lens",
        "folding",
        "token chunks",
        "symbols",
        "inlay (60 lines)",
    ];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    for edit in &generated.edits {
        let deleted = generated.text[edit.offset..edit.offset + edit.delete].to_string();
        let at = |len: usize| {
            TextRange::at(
                TextSize::from(edit.offset as u32),
                TextSize::from(len as u32),
            )
        };
        let visible = TextRange::at(TextSize::from(edit.offset as u32), TextSize::from(3000));
        for i in 0..2 * times {
            if i % 2 == 0 {
                host.edit_file(file, at(edit.delete), &edit.insert);
            } else {
                host.edit_file(file, at(edit.insert.len()), &deleted);
            }
            let snap = host.snapshot();
            let mut time = |k: usize, f: &mut dyn FnMut() -> usize| {
                let started = Instant::now();
                std::hint::black_box(f());
                samples[k].push(started.elapsed());
            };
            time(0, &mut || {
                snap.capped_diagnostics(file)
                    .map(|d| d.diagnostics.len())
                    .unwrap_or(0)
            });
            time(1, &mut || {
                snap.code_lenses(file).map(|d| d.len()).unwrap_or(0)
            });
            time(2, &mut || {
                snap.folding_ranges(file).map(|d| d.len()).unwrap_or(0)
            });
            time(3, &mut || {
                snap.semantic_token_chunks(file)
                    .map(|d| d.len())
                    .unwrap_or(0)
            });
            time(4, &mut || {
                snap.document_symbols(file).map(|d| d.len()).unwrap_or(0)
            });
            time(5, &mut || {
                snap.inlay_hints(file, Some(visible))
                    .map(|d| d.len())
                    .unwrap_or(0)
            });
        }
    }
    for (name, mut s) in names.iter().zip(samples) {
        s.sort();
        println!(
            "{name:>18}: median {:8.3} ms, max {:8.3} ms",
            s[s.len() / 2].as_secs_f64() * 1e3,
            s.last().copied().unwrap_or_default().as_secs_f64() * 1e3
        );
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
