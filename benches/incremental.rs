//! How long the analysis takes after an edit, measured on the database directly
//! (`cargo bench --bench incremental`): a cold check of a file, an edit of one field
//! value (which re-lowers exactly one op), and a comment inserted above every op (which
//! re-lowers none). Each case first asserts, from salsa's execution log, that it re-lowers
//! what it should, so the numbers always measure the incremental path.

use analysis::{AnalysisHost, FileId};
use criterion::{Criterion, criterion_group, criterion_main};

/// A kernel of `n` ops, one per line: a DMA in, element-wise ops, a DMA out.
fn kernel_with_ops(n: usize) -> String {
    let mut text = String::from(
        "kernel @k(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) {\n  tensor %a : sbuf f32[128, 512]\n  tensor %b : sbuf f32[128, 512]\n  DmaCopyOp { dst = %a, src = %x }\n",
    );
    for i in 1..n - 1 {
        let op = if i % 2 == 0 { "add" } else { "multiply" };
        text.push_str(&format!(
            "  TensorTensorOp {{ dst = %b, src0 = %a, src1 = %a, op = {op} }}\n"
        ));
    }
    text.push_str("  DmaCopyOp { dst = %y, src = %b }\n}\n");
    text
}

fn analyse(host: &AnalysisHost, file: FileId) {
    let analysis = host.snapshot();
    std::hint::black_box(analysis.diagnostics(file).ok());
    std::hint::black_box(analysis.file_bir(file).ok());
}

fn lowerings(host: &AnalysisHost) -> usize {
    host.take_executions()
        .iter()
        .filter(|e| e.starts_with("lower_op"))
        .count()
}

fn bench(c: &mut Criterion) {
    for n in [100, 1000] {
        let text = kernel_with_ops(n);
        c.bench_function(&format!("cold check, {n} ops"), |b| {
            b.iter(|| {
                let mut host = AnalysisHost::new();
                let file = host.add_file(&text);
                host.warm(file);
                analyse(&host, file);
            });
        });

        // The op in the middle becomes a Memset whose value changes at every edit, so each
        // edit makes an op never seen before (no memo can be reused for it).
        let middle = text
            .lines()
            .nth(n / 2 + 3)
            .expect("a middle op")
            .to_string();
        let with_value = |v: u64| {
            text.replacen(
                &middle,
                &format!("  MemsetOp {{ dst = %b, value = {v} }}"),
                1,
            )
        };
        let mut db = AnalysisHost::with_execution_log();
        let file = db.add_file(&with_value(0));
        analyse(&db, file);
        db.take_executions();
        db.set_file_text(file, &with_value(1));
        analyse(&db, file);
        assert_eq!(
            lowerings(&db),
            1,
            "an edit of one field must re-lower exactly one op"
        );
        let mut value = 1;
        c.bench_function(
            &format!("edit one field value → diagnostics, {n} ops"),
            |b| {
                b.iter_batched(
                    || {
                        value += 1;
                        with_value(value)
                    },
                    |edited| {
                        // What the server computes after each change.
                        db.set_file_text(file, &edited);
                        std::hint::black_box(db.snapshot().diagnostics(file).ok());
                    },
                    criterion::BatchSize::SmallInput,
                );
            },
        );
        c.bench_function(
            &format!("edit one field value → diagnostics + BIR, {n} ops"),
            |b| {
                b.iter_batched(
                    || {
                        value += 1;
                        with_value(value)
                    },
                    |edited| {
                        db.set_file_text(file, &edited);
                        analyse(&db, file);
                    },
                    criterion::BatchSize::SmallInput,
                );
            },
        );

        // A comment line moves every op.
        let commented = text.replacen("  DmaCopyOp", "  // moved\n  DmaCopyOp", 1);
        db.set_file_text(file, &text);
        analyse(&db, file);
        db.take_executions();
        db.set_file_text(file, &commented);
        analyse(&db, file);
        assert_eq!(lowerings(&db), 0, "moving ops must re-lower none");
        let mut flip = false;
        c.bench_function(
            &format!("insert a comment line above every op, {n} ops"),
            |b| {
                b.iter(|| {
                    flip = !flip;
                    db.set_file_text(file, if flip { &commented } else { &text });
                    analyse(&db, file);
                });
            },
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
