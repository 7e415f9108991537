//! The keystroke path with the cost estimate on and off (issue 21; SPEC §10.2.11): the
//! misspelt-field edit of `scale.rs` and its undo, each followed by the document's
//! diagnostics, on two hosts of the same N-op file, one lowering with the estimate
//! (`lower::cost::set_estimating(true)`, the product) and one without, alternated keystroke
//! by keystroke so that the machine's load falls on both alike; the diagnostics are those
//! an editor is given (`capped_diagnostics`). Both have the same
//! diagnostics (P420/P421 do not depend on the knob). Prints each median and their
//! difference; with `--check`, exits 1 when it exceeds 0.2 ms.
//!
//! ```sh
//! cargo run --release -p pir-gen --example cost -- [OPS=100000] [N=200] [--kernel-ops K] [--check]
//! ```

use std::time::{Duration, Instant};

use analysis::{AnalysisHost, FileId, TextRange, TextSize};

fn main() {
    let mut numbers = Vec::new();
    let mut kernel_ops = pir_gen::pir::DEFAULT_KERNEL_OPS;
    let mut check = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--kernel-ops" {
            kernel_ops = args
                .next()
                .and_then(|a| a.parse().ok())
                .unwrap_or(kernel_ops);
        } else if arg == "--check" {
            check = true;
        } else {
            numbers.push(arg.parse::<usize>().ok());
        }
    }
    let ops = numbers.first().copied().flatten().unwrap_or(100_000);
    let times = numbers.get(1).copied().flatten().unwrap_or(200);
    let generated = pir_gen::pir::generate(ops.max(pir_gen::pir::MIN_OPS), kernel_ops);
    let edit = generated
        .edits
        .iter()
        .find(|e| e.kind == pir_gen::EditKind::MisspellField)
        .expect("the misspelt-field edit");
    let deleted = generated.text[edit.offset..edit.offset + edit.delete].to_string();
    let open = |on: bool| {
        lower::cost::set_estimating(on);
        let mut host = AnalysisHost::new();
        let file = host.add_file(&generated.text);
        host.warm(file);
        let count = host.snapshot().diagnostics(file).map_or(0, |d| d.len());
        println!(
            "estimate {}: {count} diagnostics",
            if on { "on" } else { "off" }
        );
        (host, file)
    };
    let mut hosts: [(AnalysisHost, FileId); 2] = [open(true), open(false)];
    let at = |len: usize| {
        TextRange::at(
            TextSize::from(edit.offset as u32),
            TextSize::from(len as u32),
        )
    };
    let mut samples: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for i in 0..2 * times {
        for (which, (host, file)) in hosts.iter_mut().enumerate() {
            lower::cost::set_estimating(which == 0);
            let started = Instant::now();
            if i % 2 == 0 {
                host.edit_file(*file, at(edit.delete), &edit.insert);
            } else {
                host.edit_file(*file, at(edit.insert.len()), &deleted);
            }
            std::hint::black_box(
                host.snapshot()
                    .capped_diagnostics(*file)
                    .map(|d| d.diagnostics.len())
                    .ok(),
            );
            if let Some(s) = samples.get_mut(which) {
                s.push(started.elapsed());
            }
        }
    }
    let median = |s: &mut Vec<Duration>| {
        s.sort();
        s.get(s.len() / 2)
            .copied()
            .unwrap_or_default()
            .as_secs_f64()
            * 1e3
    };
    let [on, off] = &mut samples;
    let (on, off) = (median(on), median(off));
    println!(
        "{ops} ops, {} keystrokes each: estimate on {on:.3} ms, off {off:.3} ms (median); difference {:.3} ms",
        2 * times,
        on - off
    );
    if check && (on - off).abs() > 0.2 {
        eprintln!("over the 0.2 ms budget of issue 21");
        std::process::exit(1);
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
