//! The kernel-wide rules against an oracle: the whole-kernel implementations `pir` had
//! before every kernel became a list of parts (P208 in name resolution, P500 over the
//! definitions, P501 a walk over the ops; P419, an output no executed op writes, written
//! here the same way), kept here, simple and slow, to say what the rules must find. The document's answers — a kernel in one part, and the same kernel cut
//! into chunks at every statement line — must equal the oracle's on the corpus and on
//! mangled copies of it (lines dropped, op ids written).

use std::collections::{BTreeSet, HashMap, HashSet};

use analysis::resolve::{Allocation, DefKind, FileItems, KernelItems};
use analysis::{AnalysisHost, RootDatabase, SourceFile, TextRange};
use lower::Code;
use lower::model::TensorKind;
use proptest::prelude::*;

/// A finding: the code and its primary range.
type Found = BTreeSet<(u32, u32, &'static str)>;

fn found(code: Code, range: TextRange) -> (u32, u32, &'static str) {
    (range.start().into(), range.end().into(), code.as_str())
}

/// P208, P419, P500 and P501 as the oracle finds them in `text`, analysed as one file.
fn oracle(text: &str) -> Found {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let items = analysis::file_items(&db, file);
    let mut out = Found::new();
    for kernel in &items.kernels {
        op_ids(kernel, &mut out);
        dataflow(&db, kernel, &mut out);
        outputs_never_written(&db, items, kernel, &mut out);
    }
    unused_declarations(items, &mut out);
    out
}

/// P208: an op id used before in the kernel (an implicit id is the op's ordinal).
fn op_ids(kernel: &KernelItems, out: &mut Found) {
    let mut seen: HashSet<u32> = HashSet::new();
    let mut ordinal = 0;
    analysis::for_each_op(&kernel.body, &mut |op| {
        ordinal += 1;
        let (id, range) = match op.syntax.id {
            Some((id, range)) => (id, range),
            None => (ordinal, op.syntax.class.range),
        };
        if !seen.insert(id) {
            out.insert(found(Code::P208, range));
        }
    });
}

/// P501 at the first read of a tensor that neither a parameter nor an earlier op wrote,
/// once per name; an unknown op counts every tensor it names as written.
fn dataflow(db: &RootDatabase, kernel: &KernelItems, out: &mut Found) {
    let tensors: HashSet<&str> = kernel
        .allocations
        .iter()
        .filter_map(|a| match a {
            Allocation::Tensor(t) => Some(t.name.as_str()),
            Allocation::Register(_) => None,
        })
        .collect();
    let mut written: HashSet<String> = kernel
        .allocations
        .iter()
        .filter_map(|a| match a {
            Allocation::Tensor(t) if t.kind != TensorKind::Internal => Some(t.name.clone()),
            _ => None,
        })
        .collect();
    let mut warned: HashSet<String> = HashSet::new();
    analysis::for_each_op(&kernel.body, &mut |op| {
        let mut accesses = Vec::new();
        for (i, f) in op.resolved.fields.iter().enumerate() {
            f.value
                .collect_accesses(lower::diag::ValuePath::field(i), &mut accesses);
        }
        if lower::lookup(&op.resolved.class).is_none() {
            for (_, access) in &accesses {
                if tensors.contains(&*access.name) {
                    written.insert(access.name.to_string());
                }
            }
            return;
        }
        let lowered = analysis::op_lowering(db, op);
        for name in &lowered.reads {
            if !written.contains(name) && warned.insert(name.clone()) {
                let first = accesses.iter().find(|(_, a)| a.name == *name);
                let anchor = first.map_or(lower::diag::Anchor::Class, |(path, _)| {
                    lower::diag::Anchor::Value(path.clone())
                });
                let range = analysis::diagnostic::anchor_range(op, &anchor);
                out.insert(found(Code::P501, range));
            }
        }
        for name in &lowered.writes {
            if tensors.contains(name.as_str()) {
                written.insert(name.clone());
            }
        }
    });
}

/// P419 on each output parameter's name that no op outside a loop running 0 times writes
/// (an unknown op writes every name it names).
fn outputs_never_written(
    db: &RootDatabase,
    items: &FileItems,
    kernel: &KernelItems,
    out: &mut Found,
) {
    let mut written: HashSet<String> = HashSet::new();
    analysis::for_each_op(&kernel.body, &mut |op| {
        if op
            .resolved
            .loops
            .iter()
            .any(|l| l.bounds.is_some() && l.trip_count() == 0)
        {
            return;
        }
        if lower::lookup(&op.resolved.class).is_none() {
            for (i, f) in op.resolved.fields.iter().enumerate() {
                let mut accesses = Vec::new();
                f.value
                    .collect_accesses(lower::diag::ValuePath::field(i), &mut accesses);
                written.extend(accesses.iter().map(|(_, a)| a.name.to_string()));
            }
            return;
        }
        written.extend(analysis::op_lowering(db, op).writes.iter().cloned());
    });
    for allocation in &kernel.allocations {
        let Allocation::Tensor(t) = allocation else {
            continue;
        };
        if t.kind != TensorKind::Output || written.contains(&t.name) {
            continue;
        }
        let param = items.definitions[kernel.definitions.clone()]
            .iter()
            .find(|d| d.kind == DefKind::Param && d.name == t.name);
        if let Some(param) = param {
            out.insert(found(Code::P419, param.range));
        }
    }
}

/// P500 on each declaration (tensor, register) no op names, its first definition only.
fn unused_declarations(items: &FileItems, out: &mut Found) {
    let used: HashSet<usize> = items.references.iter().map(|(_, d)| *d).collect();
    let mut kernel_scope: Option<TextRange> = None;
    let mut seen: HashSet<&str> = HashSet::new();
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
        if !declared || !kernel_scope.is_some_and(|scope| scope.contains_range(def.range)) {
            continue;
        }
        if seen.insert(def.name.as_str())
            && def.kind != DefKind::Param
            && !def.flawed
            && !used.contains(&index)
        {
            out.insert(found(Code::P500, def.range));
        }
    }
}

/// P208, P419, P500 and P501 as the document reports `text`, cut into chunks of at least
/// `target` bytes.
fn document(text: &str, target: usize) -> Found {
    let mut host = AnalysisHost::new().with_chunk_target(target);
    let file = host.add_file(text);
    host.snapshot()
        .diagnostics(file)
        .unwrap()
        .into_iter()
        .filter(|d| matches!(d.code, Code::P208 | Code::P419 | Code::P500 | Code::P501))
        .map(|d| found(d.code, d.range))
        .collect()
}

#[track_caller]
fn check(name: &str, text: &str) {
    let want = oracle(text);
    for target in [usize::MAX, 1] {
        let got = document(text, target);
        assert_eq!(got, want, "{name}, chunks of {target} bytes or more");
    }
}

#[test]
fn the_rules_find_what_the_oracle_finds_on_the_corpus() {
    let mut all = String::new();
    let mut found_any = HashMap::new();
    for (name, text) in test_utils::corpus_files() {
        check(&name, &text);
        for (_, _, code) in oracle(&text) {
            *found_any.entry(code).or_insert(0) += 1;
        }
        all.push_str(text.trim_start_matches('\u{FEFF}'));
        all.push('\n');
    }
    let p419 = include_str!("../../tests/rules/rule_P419_output_never_written.pir");
    check("rule_P419_output_never_written.pir", p419);
    for (_, _, code) in oracle(p419) {
        *found_any.entry(code).or_insert(0) += 1;
    }
    all.push_str(p419);
    check("the corpus in one file", &all);
    // The corpus itself is clean of these; a mangled copy is not: the test compares
    // findings, not two empty sets.
    let drop: Vec<bool> = (0..9).map(|i| i == 4).collect();
    let text = mangled(&drop, &[0, 2, 0, 0, 3, 1]);
    check("the corpus mangled", &text);
    for (_, _, code) in oracle(&text) {
        *found_any.entry(code).or_insert(0) += 1;
    }
    for code in ["P208", "P419", "P500", "P501"] {
        assert!(found_any.contains_key(code), "{code}: {found_any:?}");
    }
}

/// The corpus in one file with lines dropped (reads before writes, unused declarations,
/// broken ops) and op ids written on some ops (duplicates).
fn mangled(drop: &[bool], ids: &[u8]) -> String {
    let all: String = test_utils::corpus_files()
        .into_iter()
        .map(|(_, text)| format!("{}\n", text.trim_start_matches('\u{FEFF}')))
        .collect();
    let mut out = String::new();
    for (i, line) in all.lines().enumerate() {
        if drop.get(i % drop.len().max(1)).copied().unwrap_or(false) {
            continue;
        }
        let id = ids.get(i % ids.len().max(1)).copied().unwrap_or(0);
        // `Op {` → `Op #N {` on some op lines (ids 1–4 repeat across ops and kernels).
        match line.find(" {") {
            Some(at) if id % 5 != 0 && line.trim_start().starts_with(char::is_uppercase) => {
                out.push_str(&format!("{} #{}{}\n", &line[..at], id % 5, &line[at..]));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_rules_find_what_the_oracle_finds_on_mangled_kernels(
        drop in proptest::collection::vec(proptest::bool::weighted(0.08), 1..64),
        ids in proptest::collection::vec(0u8..25, 1..32),
    ) {
        let text = mangled(&drop, &ids);
        let want = oracle(&text);
        for target in [usize::MAX, 1] {
            prop_assert_eq!(document(&text, target), want.clone(), "chunks of {} bytes", target);
        }
    }
}
