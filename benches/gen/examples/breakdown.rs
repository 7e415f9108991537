//! Where the time of one keystroke goes, query by query, on the salsa database directly
//! (no server, no JSON): a cold check of a generated file, then the misspelt-field edit of
//! `scale.rs` and its undo, each timed per analysis query.
//!
//! ```sh
//! cargo run --release -p pir-gen --example breakdown -- 100000 [--kernel-ops N]
//! ```
//!
//! Prints, in ms of this thread's CPU time: `parse` (lexing and parsing the whole text), `resolve` (`file_items`:
//! name resolution into position-free ops), `lookups` (`op_lowering` of every op: interning
//! each resolved op and fetching its memoized lowering; the lowering itself when it is not
//! memoized), `diagnostics` (the `diagnostics` query once the three above are cached: the
//! dataflow warnings, sorting and collecting), `line index`, and `set text` (handing the
//! new text to salsa, which drops the old one).
//!
//! Then the same through the `AnalysisHost` the server uses, where the document is kept
//! as chunks of whole kernels: the cold diagnostics, and for each edit kind of `scale.rs`
//! the CPU time of `edit_file` (routing the edit to its chunk) and of the document's
//! diagnostics after it (wall time: these are below the CPU clock's 4 ms tick), edit and
//! undo, median of 5.

use std::time::Duration;

use analysis::{AnalysisHost, RootDatabase, SourceFile, TextRange, TextSize};
use salsa::Setter;

/// The allocator of `pir` (lsp/src/main.rs), so that the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A clock of this thread's CPU time (`/proc/thread-self/schedstat`, ns), so that a
/// loaded machine does not inflate the figures; salsa runs the queries on this thread.
#[derive(Clone, Copy)]
struct Instant(Duration);

impl Instant {
    fn now() -> Instant {
        let ns = std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        Instant(Duration::from_nanos(ns))
    }

    fn elapsed(self) -> Duration {
        Instant::now().0.saturating_sub(self.0)
    }
}

fn ms(began: Instant) -> String {
    format!("{:8.1}", began.elapsed().as_secs_f64() * 1e3)
}

/// Runs every query on `file`, printing the time of each.
fn queries(db: &RootDatabase, file: SourceFile, label: &str) {
    let t = Instant::now();
    let parse = analysis::parse(db, file);
    let parse_ms = ms(t);
    let t = Instant::now();
    let items = analysis::file_items(db, file);
    let resolve_ms = ms(t);
    let t = Instant::now();
    let mut ops = 0;
    for kernel in &items.kernels {
        analysis::for_each_op(&kernel.body, &mut |op| {
            std::hint::black_box(analysis::op_lowering(db, op));
            ops += 1;
        });
    }
    let lookups_ms = ms(t);
    let t = Instant::now();
    let diagnostics = analysis::diagnostics(db, file).len();
    let diagnostics_ms = ms(t);
    let t = Instant::now();
    std::hint::black_box(analysis::line_index(db, file));
    let index_ms = ms(t);
    println!(
        "{label:<22} parse {parse_ms}  resolve {resolve_ms}  lookups {lookups_ms}  diagnostics {diagnostics_ms}  line index {index_ms}   ({ops} ops, {} syntax errors, {diagnostics} diagnostics)",
        parse.errors.len()
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut ops = 100_000;
    let mut kernel_ops = pir_gen::pir::DEFAULT_KERNEL_OPS;
    while let Some(arg) = args.next() {
        let number = |s: Option<String>| -> usize {
            s.and_then(|s| s.replace('_', "").parse().ok())
                .unwrap_or_else(|| {
                    eprintln!("usage: breakdown [OPS] [--kernel-ops N]");
                    std::process::exit(2)
                })
        };
        if arg == "--kernel-ops" {
            kernel_ops = number(args.next());
        } else {
            ops = number(Some(arg));
        }
    }
    let generated = pir_gen::pir::generate(ops.max(pir_gen::pir::MIN_OPS), kernel_ops);
    let edit = generated
        .edits
        .iter()
        .find(|e| e.kind == pir_gen::EditKind::MisspellField)
        .expect("a misspelt field edit");
    let edited = edit.apply(&generated.text);
    println!(
        "{} ops, {:.1} MB, kernels of about {kernel_ops} ops; CPU times in ms",
        generated.ops,
        generated.text.len() as f64 / 1e6
    );
    through_the_host(&generated);
    let mut db = RootDatabase::default();
    let file = SourceFile::new(&db, generated.text.to_string());
    queries(&db, file, "cold");
    for (label, text) in [
        ("misspelt field", &edited),
        ("undo", &generated.text),
        ("misspelt field again", &edited),
        ("undo again", &generated.text),
    ] {
        let t = Instant::now();
        file.set_text(&mut db).to(text.clone());
        let set_ms = ms(t);
        queries(&db, file, label);
        println!("{:<22} set text {set_ms}", "");
    }
}

/// The keystroke path of the server's analysis: `edit_file` and the document's diagnostics.
fn through_the_host(generated: &pir_gen::Generated) {
    let mut host = AnalysisHost::new();
    let t = Instant::now();
    let file = host.add_file(&generated.text);
    host.warm(file);
    let n = host.snapshot().diagnostics(file).map_or(0, |d| d.len());
    println!(
        "host: cold add + diagnostics {} ms ({n} diagnostics)",
        ms(t)
    );
    let range = |offset: usize, len: usize| {
        TextRange::at(TextSize::from(offset as u32), TextSize::from(len as u32))
    };
    let t = std::time::Instant::now();
    for _ in 0..10 {
        std::hint::black_box(host.snapshot().diagnostics(file).map(|d| d.len()).ok());
    }
    println!(
        "host: diagnostics with nothing changed (the gathering alone) {:6.2} ms",
        t.elapsed().as_secs_f64() * 1e2
    );
    for kind in pir_gen::EditKind::ALL {
        let Some(edit) = generated.edits.iter().find(|e| e.kind == kind) else {
            continue;
        };
        let deleted = generated.text[edit.offset..edit.offset + edit.delete].to_string();
        let (mut edits, mut gathers) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            for (at, len, insert) in [
                (edit.offset, edit.delete, edit.insert.as_str()),
                (edit.offset, edit.insert.len(), deleted.as_str()),
            ] {
                // Wall time: the CPU clock of `/proc` moves in scheduler ticks (4 ms).
                let t = std::time::Instant::now();
                host.edit_file(file, range(at, len), insert);
                edits.push(t.elapsed());
                let t = std::time::Instant::now();
                std::hint::black_box(host.snapshot().diagnostics(file).map(|d| d.len()).ok());
                gathers.push(t.elapsed());
            }
        }
        edits.sort();
        gathers.sort();
        println!(
            "host: {:<16} edit_file {:6.2} ms   diagnostics {:6.2} ms   (median wall time)",
            format!("{kind:?}"),
            edits[edits.len() / 2].as_secs_f64() * 1e3,
            gathers[gathers.len() / 2].as_secs_f64() * 1e3,
        );
    }
}
