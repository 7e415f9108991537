//! The diagnostics of a file: syntax, names, every op's lowering, the dataflow warnings
//! P500 (declared, never used) and P501 (read before any write), and each kernel's P416
//! (peak SBUF/PSUM occupancy over the capacity, [`crate::resources`]).

use rustc_hash::FxHashSet as HashSet;

use lower::diag::{Anchor, Code, ValuePath};
use lower::model::TensorKind;
use syntax::ast::TextRange;

use crate::db::{Db, SourceFile, file_items, lowering, parse};
use crate::diagnostic::{Diagnostic, anchor_range, from_lowering};
use crate::resolve::{Allocation, DefKind, Item, KernelItems, OpItem};

/// Every diagnostic of `file`, sorted by range start (then code), without duplicates.
#[salsa::tracked(returns(ref))]
pub fn diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let parse = parse(db, file);
    let items = file_items(db, file);
    let mut out: Vec<Diagnostic> = parse
        .errors
        .iter()
        .map(|e| {
            let code = match e.code {
                syntax::SyntaxErrorCode::P100 => Code::P100,
                syntax::SyntaxErrorCode::P101 => Code::P101,
                syntax::SyntaxErrorCode::P102 => Code::P102,
                syntax::SyntaxErrorCode::P103 => Code::P103,
            };
            Diagnostic::new(code, e.range, e.message.clone())
        })
        .collect();
    out.extend(items.diagnostics.iter().cloned());
    for kernel in &items.kernels {
        for_each_op(&kernel.body, &mut |op| {
            let lowered = lowering(db, file, op);
            out.extend(
                lowered
                    .diagnostics
                    .iter()
                    .map(|d| from_lowering(op, d, kernel.continues)),
            );
        });
        // A split kernel's are checked across its chunks (`crate::split::kernel_checks`).
        if !kernel.is_split() {
            dataflow(db, file, kernel, &mut out);
        }
    }
    for (kernel, stats) in items
        .kernels
        .iter()
        .zip(crate::resources::kernel_stats(db, file))
    {
        if !kernel.is_split() {
            out.extend(crate::resources::p416(stats));
        }
    }
    let split: Vec<TextRange> = parse
        .file
        .kernels
        .iter()
        .filter(|k| k.continues || k.goes_on)
        .map(|k| k.range)
        .collect();
    unused_declarations(items, &split, &mut out);
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

/// P501 at the first read of a tensor that neither a parameter nor an earlier op wrote.
/// One pass over the kernel's ops, each name looked up in a set (linear in the kernel).
fn dataflow(db: &dyn Db, file: SourceFile, kernel: &KernelItems, out: &mut Vec<Diagnostic>) {
    let tensors: HashSet<&str> = kernel
        .allocations
        .iter()
        .filter_map(|a| match a {
            Allocation::Tensor(t) => Some(t.name.as_str()),
            Allocation::Register(_) => None,
        })
        .collect();
    let mut written: HashSet<&str> = kernel
        .allocations
        .iter()
        .filter_map(|a| match a {
            Allocation::Tensor(t) if t.kind != TensorKind::Internal => Some(t.name.as_str()),
            _ => None,
        })
        .collect();
    let mut warned: HashSet<String> = HashSet::default();
    for_each_op(&kernel.body, &mut |op| {
        let lowered = lowering(db, file, op);
        if lower::lookup(&op.resolved.class).is_none() {
            // An unknown op (P202) says nothing of what it reads or writes: count every
            // tensor it names as written, so that its mistake does not make later reads warn.
            for (_, access) in accesses(op) {
                if let Some(&name) = tensors.get(access.name.as_str()) {
                    written.insert(name);
                }
            }
            return;
        }
        for name in &lowered.reads {
            if !written.contains(name.as_str()) && warned.insert(name.clone()) {
                let first = accesses(op).into_iter().find(|(_, a)| a.name == name);
                let anchor = first.map_or(Anchor::Class, |(path, _)| Anchor::Value(path));
                out.push(Diagnostic::new(
                    Code::P501,
                    anchor_range(op, &anchor),
                    format!("`%{name}` is read here before any op writes it"),
                ));
            }
        }
        for name in &lowered.writes {
            if let Some(&name) = tensors.get(name.as_str()) {
                written.insert(name);
            }
        }
    });
}

/// P500 on the declarations (tensors, registers) that no op names, kernel by kernel: one
/// pass over the file's definitions (kernels come first, then what they declare, in source
/// order) and its use table, whatever the number of kernels.
///
/// The declarations of a split kernel (in `split`, its parts' ranges) are left to
/// `crate::split::kernel_checks`.
fn unused_declarations(
    items: &crate::resolve::FileItems,
    split: &[TextRange],
    out: &mut Vec<Diagnostic>,
) {
    // Used: named anywhere (resolution's use table), whatever else is wrong with the use.
    let used: HashSet<usize> = items.references.iter().map(|(_, d)| *d).collect();
    let mut kernel_scope: Option<TextRange> = None;
    let mut seen: HashSet<&str> = HashSet::default();
    for (index, def) in items.definitions.iter().enumerate() {
        if def.kind == DefKind::Kernel {
            kernel_scope = Some(def.scope);
            seen.clear();
            continue;
        }
        let declared = matches!(
            def.kind,
            DefKind::Tensor | DefKind::Register | DefKind::Param
        );
        if !declared
            || !kernel_scope.is_some_and(|scope| scope.contains_range(def.range))
            || split.iter().any(|r| r.contains_range(def.range))
        {
            continue;
        }
        // A second definition of a name is P201 already: one diagnostic per mistake.
        let first = seen.insert(def.name.as_str());
        if first && def.kind != DefKind::Param && !used.contains(&index) {
            let what = if def.kind == DefKind::Tensor {
                "tensor"
            } else {
                "register"
            };
            out.push(Diagnostic::new(
                Code::P500,
                def.range,
                format!("{what} `%{}` is declared but no op uses it", def.name),
            ));
        }
    }
}

/// Every access in the op's fields, with its path, in field order.
pub(crate) fn accesses(op: &OpItem) -> Vec<(ValuePath, &lower::model::Access)> {
    let mut out = Vec::new();
    for (i, f) in op.resolved.fields.iter().enumerate() {
        f.value.collect_accesses(ValuePath::field(i), &mut out);
    }
    out
}
