//! The diagnostics of a chunk: syntax, names, every op's lowering (and its P417 on the
//! target), and the kernel-wide rules ([`crate::kernel::rules`]) of each kernel whole in it
//! (one part; those of a kernel cut into chunks are joined over its parts where the
//! document gathers them).

use lower::diag::{Code, ValuePath};
use syntax::ast::TextSize;

use crate::db::{Db, Lowerings, SourceFile, file_items, parse};
use crate::diagnostic::{Finding, from_lowering};
use crate::kernel::rules;
use crate::kernel::summary::Part;
use crate::resolve::{Item, OpItem};

/// Every finding of `file` (relative to it), sorted by range start (then code), without
/// duplicates; the document places them (`crate::document::Document::diagnostics`).
#[salsa::tracked(returns(ref))]
pub fn findings(db: &dyn Db, file: SourceFile) -> Vec<Finding> {
    let parse = parse(db, file);
    let items = file_items(db, file);
    let mut out: Vec<Finding> = parse
        .errors
        .iter()
        .map(|e| {
            let code = match e.code {
                syntax::SyntaxErrorCode::P100 => Code::P100,
                syntax::SyntaxErrorCode::P101 => Code::P101,
                syntax::SyntaxErrorCode::P102 => Code::P102,
                syntax::SyntaxErrorCode::P103 => Code::P103,
            };
            Finding::new(code, e.range, e.message.clone()).with_fix(e.replacement.map(|with| {
                lower::diag::FixHint::Replace {
                    with: with.to_string(),
                }
            }))
        })
        .collect();
    out.extend(items.diagnostics.iter().cloned());
    let parts = crate::kernel::summary::parts(db, file);
    let lowerings = Lowerings::of(db, file);
    let target = db.settings().target(db);
    for (kernel, part) in items.kernels.iter().zip(parts) {
        for_each_op(&kernel.body, &mut |op| {
            let lowered = lowerings.get(op);
            out.extend(
                lowered
                    .diagnostics
                    .iter()
                    .map(|d| from_lowering(op, d, kernel.continues)),
            );
            // The one target-dependent rule of an op (its lowering serves every target).
            let p417 = lowered
                .sbuf_footprint
                .as_ref()
                .and_then(|f| f.check(target));
            out.extend(p417.map(|d| from_lowering(op, &d, kernel.continues)));
        });
        // A kernel cut into chunks is checked over its parts where the document gathers.
        if !kernel.is_split() {
            whole_kernel_rules(part, &mut out);
        }
    }
    for stats in crate::kernel::stats::kernel_stats(db, file)
        .iter()
        .flatten()
    {
        out.extend(rules::p416::findings(stats));
    }
    out.sort_by(|a, b| {
        (a.range.start(), a.range.end(), a.code).cmp(&(b.range.start(), b.range.end(), b.code))
    });
    out.dedup();
    out
}

/// Calls `f` on every op of `items`, loop bodies included, in source order.
pub fn for_each_op<'a>(items: &'a [Item], f: &mut impl FnMut(&'a OpItem)) {
    for item in items {
        match item {
            Item::Op(op) => f(op),
            Item::Loop(lp) => for_each_op(&lp.body, f),
        }
    }
}

/// The kernel-wide rules of a kernel that is one part, `part`: placed in its chunk.
fn whole_kernel_rules(part: &Part, out: &mut Vec<Finding>) {
    let places = |p: u32| (p == 0).then_some((&part.places, TextSize::from(0)));
    let findings = rules::of_part(&part.summary);
    out.extend(findings.iter().filter_map(|f| rules::place(f, places)));
}

/// Every access in the op's fields, with its path, in field order.
pub(crate) fn accesses(op: &OpItem) -> Vec<(ValuePath, &lower::model::Access)> {
    let mut out = Vec::new();
    for (i, f) in op.resolved.fields.iter().enumerate() {
        f.value.collect_accesses(ValuePath::field(i), &mut out);
    }
    out
}
