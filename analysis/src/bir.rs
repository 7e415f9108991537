//! Assembling a file's BIR document (SPEC §8) from the per-op lowerings: allocations,
//! loops as nested blocks, and each instruction's `debuginfo` position and errors.

use std::collections::HashSet;

use lower::Severity;
use serde_json::{Value as Json, json};

use crate::check::{diagnostics, for_each_op};
use crate::db::{Db, SourceFile, file_items, line_index, op_lowering};
use crate::diagnostic::Diagnostic;
use crate::resolve::{Allocation, Item, KernelItems, OpItem};
use crate::{LineCol, line_col};

/// The §8 JSON of the whole file.
#[salsa::tracked(returns(ref))]
pub fn file_bir(db: &dyn Db, file: SourceFile) -> Json {
    let items = file_items(db, file);
    let functions: Vec<Json> = items
        .kernels
        .iter()
        .map(|k| function(db, file, k))
        .collect();
    object([
        ("attributes", json!({"neuron_core_id": 0})),
        ("functions", Json::Array(functions)),
        ("arch", json!("gen3")),
        ("version", json!(2)),
    ])
}

/// A JSON object of `pairs` in order. Unlike `json!`, it moves its values instead of
/// serializing them again (which would copy every instruction of the file).
fn object<const N: usize>(pairs: [(&str, Json); N]) -> Json {
    Json::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn function(db: &dyn Db, file: SourceFile, kernel: &KernelItems) -> Json {
    let mut weights: HashSet<&str> = HashSet::new();
    for_each_op(&kernel.body, &mut |op| {
        weights.extend(op_lowering(db, op).stationary.iter().map(String::as_str));
    });
    let allocations: Vec<Json> = kernel
        .allocations
        .iter()
        .map(|a| match a {
            Allocation::Tensor(t) => lower::allocation(t, weights.contains(t.name.as_str())),
            Allocation::Register(r) => lower::register_allocation(r),
        })
        .collect();
    let entry = object([
        ("name", json!("entry")),
        (
            "instructions",
            Json::Array(instructions(db, file, &kernel.body)),
        ),
    ]);
    object([
        ("name", json!(kernel.name)),
        ("attributes", json!([])),
        ("allocations", Json::Array(allocations)),
        ("blocks", Json::Array(vec![entry])),
    ])
}

/// The instructions of a block: each op's lowering with its position, loops nested.
pub fn instructions(db: &dyn Db, file: SourceFile, items: &[Item]) -> Vec<Json> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Op(op) => out.extend(op_instructions(db, file, op)),
            Item::Loop(lp) => {
                let (lb, ub, stride) = lp.var.bounds.unwrap_or((0, 0, 1));
                let body = object([
                    ("name", json!(format!("{}-body", lp.bir_name))),
                    (
                        "instructions",
                        Json::Array(instructions(db, file, &lp.body)),
                    ),
                ]);
                out.push(object([
                    ("opcode", json!("Loop")),
                    ("name", json!(lp.bir_name)),
                    (
                        "LoopAxis",
                        json!({"name": lp.var.name, "lb": lb, "ub": ub, "stride": stride}),
                    ),
                    ("blocks", Json::Array(vec![body])),
                ]));
            }
        }
    }
    out
}

/// The instructions of one op with `debuginfo.line`/`column` (1-based, where the class
/// name starts) and `errors` (every error diagnostic inside the op, sorted, unique).
pub fn op_instructions(db: &dyn Db, file: SourceFile, op: &OpItem) -> Vec<Json> {
    let lowered = op_lowering(db, op);
    let LineCol { line, column } = line_col(
        line_index(db, file),
        file.text(db),
        op.syntax.class.range.start(),
    );
    let errors = op_error_codes(diagnostics(db, file), op);
    let stamp = lower::Stamp {
        op_id: op.op_id,
        line,
        column,
        errors: &errors,
    };
    lowered
        .instructions
        .iter()
        .enumerate()
        .map(|(k, inst)| lower::stamp_instruction(inst, k, &op.resolved, &stamp))
        .collect()
}

/// The codes of the error diagnostics whose primary range lies within `op`.
fn op_error_codes(diagnostics: &[Diagnostic], op: &OpItem) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && op.syntax.range.contains_range(d.range))
        .map(|d| d.code.as_str())
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}
