//! The op catalog of the Penguin text IR and its lowering to BIR JSON (SPEC §4–§8).
//!
//! Everything here is a pure function of position-free input: [`lower_op`] takes a
//! [`ResolvedOp`] and returns its BIR instructions and diagnostics (anchored inside the op,
//! see [`diag::Anchor`]). The analysis crate resolves names, memoizes one lowering per op
//! and maps anchors back to text ranges.
//!
//! Architecture Invariant: this crate knows no text positions, no salsa and no LSP.

pub mod access;
pub mod bir;
pub mod catalog;
pub mod cost;
pub mod cx;
pub mod diag;
pub mod model;
mod ops;
pub mod target;
pub mod types;

use serde_json::{Value as Json, json};

pub use catalog::{CATALOG, OpSpec, lookup};
pub use diag::{Anchor, Code, Diag, FixHint, Severity};
pub use model::ResolvedOp;
pub use ops::instruction::SbufFootprint;
pub use ops::reads_tkg_threshold;

/// The result of lowering one op.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lowered {
    /// The BIR instructions (SPEC §8), typed, in order, without `name` and `debuginfo`,
    /// which [`stamp_instruction`] adds for whoever knows the op's id and position.
    pub instructions: Vec<bir::Inst>,
    /// The op's diagnostics, position-free.
    pub diagnostics: Vec<Diag>,
    /// Tensors the op reads (P501), in field order.
    pub reads: Vec<String>,
    /// Tensors the op writes.
    pub writes: Vec<String>,
    /// Registers the op names (P500).
    pub registers: Vec<String>,
    /// Tensors used as a matmul stationary (their allocation is a `NeuronWeightTensor`).
    pub stationary: Vec<String>,
    /// The cost estimate of each instruction on every target (SPEC §10.2), at the
    /// instruction's place: kept with the lowering, position-free.
    pub costs: Vec<cost::InstCost>,
    /// What the op needs resident in SBUF at once when that is over some target's
    /// physical partition (P417, SPEC §7.1 [3]): checked per target by the analysis, so
    /// that this lowering serves every target. `None` for almost every op.
    pub sbuf_footprint: Option<Box<SbufFootprint>>,
}

/// What an op's lowering leaves out of its instructions because it changes when text
/// moves: the op id (SPEC §3) and the op's position and error codes (SPEC §8 `debuginfo`).
#[derive(Clone, Copy, Debug)]
pub struct Stamp<'a> {
    /// The op id: the written `#N`, else the 1-based ordinal in the kernel.
    pub op_id: u32,
    /// 1-based line of the op's class name.
    pub line: u32,
    /// 1-based column of the op's class name, in Unicode scalar values.
    pub column: u32,
    /// The codes of the error diagnostics within the op, sorted and unique.
    pub errors: &'a [&'a str],
}

/// The §8 JSON of the `k`-th instruction (0-based) of `op`, from its lowering `inst`: the
/// name `I-<op id>-<k>` after `opcode`, and `debuginfo` last.
pub fn stamp_instruction(inst: &bir::Inst, k: usize, op: &ResolvedOp, stamp: &Stamp<'_>) -> Json {
    let debuginfo = debuginfo(op, stamp);
    let name = instruction_name(k, stamp);
    serde_json::to_value(inst.json(Some(&name), Some(&debuginfo))).unwrap_or(Json::Null)
}

/// The `name` of the `k`-th instruction (0-based) of the op stamped `stamp`: `I-<op id>-<k>`
/// (SPEC §8).
pub fn instruction_name(k: usize, stamp: &Stamp<'_>) -> String {
    format!("I-{}-{k}", stamp.op_id)
}

/// The `debuginfo` of every instruction of `op` (SPEC §8): the class, op id, codegen,
/// InstructionType, 1-based line and column, and the error codes within the op.
pub fn debuginfo(op: &ResolvedOp, stamp: &Stamp<'_>) -> Json {
    let spec = lookup(&op.class);
    json!({
        "op": op.class.as_str(),
        "op_id": stamp.op_id,
        "codegen": spec.map(OpSpec::codegen),
        "instruction_type": spec.and_then(|s| s.instruction_type),
        "line": stamp.line,
        "column": stamp.column,
        "errors": stamp.errors,
    })
}

/// Checks and lowers one op (SPEC §6): the catalog's generic checks, then the op's own
/// rules and instructions. An unknown class is P202 and lowers to nothing; an op with
/// errors still lowers what it can (SPEC §7).
pub fn lower_op(op: &ResolvedOp) -> Lowered {
    let Some(spec) = lookup(&op.class) else {
        let classes = CATALOG.iter().map(|s| s.class);
        let suggestion = diag::did_you_mean(&op.class, classes);
        let message = match (suggestion, catalog::alias(&op.class)) {
            (Some(s), _) => format!("unknown op class `{}`; did you mean `{s}`?", op.class),
            (None, Some(alias)) => format!(
                "unknown op class `{}`: write `{} {{ …, {} = {} }}`",
                op.class, alias.class, alias.field, alias.value
            ),
            (None, None) => format!("unknown op class `{}`", op.class),
        };
        let diag = Diag::new(Code::P202, Anchor::Class, message)
            .with_fix(diag::FixHint::replace(suggestion));
        return Lowered {
            diagnostics: vec![diag],
            ..Lowered::default()
        };
    };
    let mut cx = cx::Cx::new(op, spec);
    (spec.lower)(&mut cx);
    let sbuf_footprint = ops::instruction::check(&mut cx);
    let mut lowered = cx.finish();
    lowered.sbuf_footprint = sbuf_footprint;
    // An unresolved name is an error the analysis reports on the op (P200).
    let mut accesses = Vec::new();
    for (i, field) in op.fields.iter().enumerate() {
        field
            .value
            .collect_accesses(diag::ValuePath::field(i), &mut accesses);
    }
    // P417 is not among these errors: it is the target's allocation limit, checked per
    // target by the analysis ([`SbufFootprint`]), and an op over one target's SBUF is
    // estimated like any other (`docs/decisions.md`).
    let has_error = lowered
        .diagnostics
        .iter()
        .any(|d| d.code.severity() == Severity::Error)
        || accesses
            .iter()
            .any(|(_, a)| a.target == model::Target::Unresolved);
    lowered.costs = cost::estimate(&op.class, &lowered.instructions, has_error);
    if !has_error {
        let warnings = cost::warnings(op, &lowered.instructions);
        lowered.diagnostics.extend(warnings);
    }
    lowered.costs.shrink_to_fit();
    lowered
}

/// Checks a tensor declaration or parameter type (SPEC §4): P302 for an `sbuf` or `psum`
/// partition dim (dim 0) over 128, P304 for a per-partition footprint beyond the memory's
/// capacity on `target` (usable SBUF, §4 [3]), P414 for a dim of size 0. (P302 is on the
/// declaration, where the mistake is, not on each access of it: `docs/decisions.md`.)
pub fn check_tensor(tensor: &model::Tensor, target: target::Target) -> Vec<(Code, String)> {
    let mut out = Vec::new();
    if let Some(&partitions) = tensor.dims.first()
        && tensor.memory.is_on_chip()
        && partitions > types::limits::PARTITIONS
    {
        out.push((
            Code::P302,
            format!(
                "`%{}` declares {partitions} partitions (dim 0); {} has {}: declare a tile of at \
                 most {} and loop over the tiles",
                tensor.name,
                tensor.memory.name(),
                types::limits::PARTITIONS,
                types::limits::PARTITIONS,
            ),
        ));
    }
    if let Some(capacity) = target.capacity(tensor.memory) {
        let bytes = tensor.partition_bytes();
        if bytes > capacity {
            out.push((
                Code::P304,
                format!(
                    "{}: `%{}` needs {bytes} bytes per partition; {} has {capacity}",
                    diag::compiler::ALLOCATED_OUT_OF_BOUND,
                    tensor.name,
                    tensor.memory.name()
                ),
            ));
        }
    }
    if tensor.dims.contains(&0) {
        out.push((Code::P414, "a dim of size 0 holds no element".to_string()));
    }
    out
}

/// The BIR allocation of a tensor (SPEC §8 "Allocations"). `weight`: the tensor is a
/// declared sbuf tensor used as a matmul stationary.
pub fn allocation(tensor: &model::Tensor, weight: bool) -> Json {
    use model::TensorKind;
    let parameter = tensor.kind != TensorKind::Internal;
    let tensor_class = if weight && !parameter && tensor.memory == types::Memory::Sbuf {
        "NeuronWeightTensor"
    } else {
        match tensor.memory {
            types::Memory::Sbuf => "NeuronSBTensor",
            types::Memory::Psum => "NeuronPSUMTensor",
            _ => "Tensor",
        }
    };
    let dims = if tensor.memory.is_on_chip() || tensor.dims.len() > 1 {
        json!([
            tensor.dims.first().copied().unwrap_or(1),
            tensor.partition_bytes()
        ])
    } else {
        json!([
            1,
            tensor
                .partition_bytes()
                .saturating_mul(tensor.dims.first().copied().unwrap_or(1))
        ])
    };
    let kind = match tensor.kind {
        TensorKind::Input => "ExternalInput",
        TensorKind::Output => "ExternalOutput",
        TensorKind::Internal => "Internal",
    };
    json!({
        "Skind": "memory_location_set",
        "addr_space": if parameter { "Shared" } else { "Local" },
        "dtype": tensor.dtype.bir_name(),
        "partition_dim": 0,
        "tensor_shape": tensor.dims,
        "name": format!("{}_set", tensor.name),
        "file": "",
        "no_spill": false,
        "volatile": false,
        "virtual": false,
        "kind": kind,
        "tensor_class": tensor_class,
        "memorylocations": [memory_location(&tensor.name, tensor.memory.bir_type(), dims)],
        "tensorId2MemLocSize": 1,
    })
}

/// The BIR allocation of a register (SPEC §8): `Internal`, `Tensor`, type `REG`, `[1, 4]`.
pub fn register_allocation(register: &model::Register) -> Json {
    json!({
        "Skind": "memory_location_set",
        "addr_space": "Local",
        "dtype": register.dtype.bir_name(),
        "partition_dim": 0,
        "tensor_shape": [1],
        "name": format!("{}_set", register.name),
        "file": "",
        "no_spill": false,
        "volatile": false,
        "virtual": false,
        "kind": "Internal",
        "tensor_class": "Tensor",
        "memorylocations": [memory_location(&register.name, "REG", json!([1, 4]))],
        "tensorId2MemLocSize": 1,
    })
}

fn memory_location(name: &str, memory_type: &str, dims: Json) -> Json {
    json!({
        "Skind": "memory_location",
        "name": name,
        "type": memory_type,
        "addr": 0,
        "dims": dims,
        "bank": 0,
        "base": 0,
        "allocated": false,
        "pinned": false,
        "tensor_id": 0,
    })
}
