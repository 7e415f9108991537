//! Writes a generated file to standard output, to try it in an editor:
//!
//! ```sh
//! cargo run --release -p pir-gen --example generate -- 100000 > big.pir
//! cargo run --release -p pir-gen --example generate -- 100000 --mlir > big.mlir
//! cargo run --release -p pir-gen --example generate -- 100000 --kernel-ops 100000 > one.pir
//! ```
//!
//! Arguments: the number of ops (at least 100), `--mlir` for the MLIR counterpart,
//! `--kernel-ops N` for the ops per kernel or function (default 250), `--edits` to list
//! the five edits (byte offset, 0-based line, replaced bytes, inserted text) on stderr.

use std::io::Write;

fn main() {
    let mut ops = None;
    let mut mlir = false;
    let mut list_edits = false;
    let mut kernel_ops = pir_gen::pir::DEFAULT_KERNEL_OPS;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mlir" => mlir = true,
            "--edits" => list_edits = true,
            "--kernel-ops" => {
                kernel_ops = args
                    .next()
                    .and_then(|n| n.replace('_', "").parse().ok())
                    .unwrap_or_else(|| usage("--kernel-ops takes a number"));
            }
            n if ops.is_some() => usage(&format!(
                "one number of ops only (`{n}` is a second; ops per kernel: --kernel-ops {n})"
            )),
            n => ops = Some(n.replace('_', "").parse().unwrap_or_else(|_| usage(n))),
        }
    }
    let ops: usize = ops.unwrap_or_else(|| usage("the number of ops is missing"));
    if ops < pir_gen::pir::MIN_OPS || kernel_ops == 0 {
        usage("at least 100 ops, and at least one per kernel");
    }
    let generated = if mlir {
        pir_gen::mlir::generate(ops, kernel_ops)
    } else {
        pir_gen::pir::generate(ops, kernel_ops)
    };
    if list_edits {
        for edit in &generated.edits {
            eprintln!(
                "{:<15} byte {} line {} replaces {:?} with {:?}",
                edit.kind.name(),
                edit.offset,
                pir_gen::line_of(&generated.text, edit.offset),
                &generated.text[edit.offset..edit.offset + edit.delete],
                edit.insert
            );
        }
    }
    let mut out = std::io::stdout().lock();
    if out.write_all(generated.text.as_bytes()).is_err() {
        std::process::exit(1);
    }
}

fn usage(problem: &str) -> ! {
    eprintln!("generate: {problem}\nusage: generate OPS [--mlir] [--kernel-ops N] [--edits]");
    std::process::exit(2);
}
