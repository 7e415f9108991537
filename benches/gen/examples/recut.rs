//! Memory over a session of re-cuts, for issue 23: in one unrolled kernel of `OPS` ops (default
//! 20,000), paste eight lines that close two loops and open an op into the middle of the kernel,
//! then delete them, `N` times (default 2,000), each followed by the document's diagnostics;
//! prints the resident memory every 100 edits. With `anywhere`, each paste goes to another
//! line start (a fixed pseudo-random one), as in the soak (`benches/soak.rs`).
//!
//! ```sh
//! cargo run --release -p pir-gen --example recut -- [OPS] [N] [anywhere]
//! ```

use analysis::{AnalysisHost, TextRange, TextSize};

/// The pasted lines: they end the loops the middle of the kernel is in (there are none in an
/// unrolled kernel: the `}`s close the kernel early and what follows is outside) and open an op.
const PASTE: &str =
    "  }\n  }\n  TensorCopyOp {\n    dst = %a,\n    src = %b\n  }\n  for %q in 0..2 {\n  }\n";

fn rss_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let ops: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let times: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let anywhere = args.next().is_some_and(|a| a == "anywhere");
    let generated = pir_gen::pir::generate(ops.max(pir_gen::pir::MIN_OPS), ops);
    let text = &generated.text;
    // The start of the line nearest the middle of the file.
    let middle = text[..text.len() / 2].rfind('\n').map_or(0, |i| i + 1);
    let mut host = AnalysisHost::new();
    let file = host.add_file(text);
    let _ = host.snapshot().diagnostics(file);
    println!("edits 0: {:.0} MiB", rss_mib());
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut at = TextSize::from(middle as u32);
    for i in 1..=times {
        if i % 2 == 1 {
            if anywhere {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let line = line_starts[(seed >> 33) as usize % line_starts.len()];
                at = TextSize::from(line as u32);
            }
            host.edit_file(file, TextRange::empty(at), PASTE);
        } else {
            host.edit_file(
                file,
                TextRange::at(at, TextSize::from(PASTE.len() as u32)),
                "",
            );
        }
        std::hint::black_box(
            host.snapshot()
                .capped_diagnostics(file)
                .map(|d| d.diagnostics.len())
                .ok(),
        );
        if i % 100 == 0 {
            println!("edits {i}: {:.0} MiB", rss_mib());
        }
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
