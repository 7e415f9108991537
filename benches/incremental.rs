//! How long the analysis takes after an edit, measured on the database directly
//! (`cargo bench --bench incremental`): a cold check of a file, an edit of one field
//! value (which re-lowers exactly one op), and a comment inserted above every op (which
//! re-lowers none). Each case first asserts, from salsa's execution log, that it re-lowers
//! what it should, so the numbers always measure the incremental path.

use analysis::{RootDatabase, SourceFile};
use criterion::{Criterion, criterion_group, criterion_main};
use salsa::Setter;

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

fn analyse(db: &RootDatabase, file: SourceFile) {
    std::hint::black_box(analysis::diagnostics(db, file));
    std::hint::black_box(analysis::file_bir(db, file));
}

fn lowerings(db: &RootDatabase) -> usize {
    db.take_executions()
        .iter()
        .filter(|e| e.starts_with("lower_op"))
        .count()
}

fn bench(c: &mut Criterion) {
    for n in [100, 1000] {
        let text = kernel_with_ops(n);
        c.bench_function(&format!("cold check, {n} ops"), |b| {
            b.iter(|| {
                let db = RootDatabase::default();
                let file = SourceFile::new(&db, text.clone());
                analyse(&db, file);
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
        let mut db = RootDatabase::new(true);
        let file = SourceFile::new(&db, with_value(0));
        analyse(&db, file);
        db.take_executions();
        file.set_text(&mut db).to(with_value(1));
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
                        file.set_text(&mut db).to(edited);
                        std::hint::black_box(analysis::diagnostics(&db, file));
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
                        file.set_text(&mut db).to(edited);
                        analyse(&db, file);
                    },
                    criterion::BatchSize::SmallInput,
                );
            },
        );

        // A comment line moves every op.
        let commented = text.replacen("  DmaCopyOp", "  // moved\n  DmaCopyOp", 1);
        file.set_text(&mut db).to(text.clone());
        analyse(&db, file);
        db.take_executions();
        file.set_text(&mut db).to(commented.clone());
        analyse(&db, file);
        assert_eq!(lowerings(&db), 0, "moving ops must re-lower none");
        let mut flip = false;
        c.bench_function(
            &format!("insert a comment line above every op, {n} ops"),
            |b| {
                b.iter(|| {
                    flip = !flip;
                    file.set_text(&mut db).to(if flip {
                        commented.clone()
                    } else {
                        text.clone()
                    });
                    analyse(&db, file);
                });
            },
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
