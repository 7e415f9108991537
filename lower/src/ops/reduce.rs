//! The reduce pair (SPEC §6.4; seed 000 §5): LocalReduceOp → one `Reduce` on Pool, and
//! NeuronReduceMacro → a chain of `TensorReduce` on DVE, one instruction per reduced axis.

use crate::bir::{Field as F, Opcode};
use crate::catalog::fname;

use super::common::{dst, later_anchor, src};
use crate::catalog::{
    ALU, Default, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec,
};
use crate::cx::{Cx, alu_bir};
use crate::diag::{Anchor, Code};
use crate::model::Value;

static REDUCE_KIND: EnumSpec = EnumSpec {
    name: "reduce_kind",
    values: &[
        EnumValue {
            text: "all_reduce",
            bir: "all_reduce",
            doc: "every member of a group gets the reduction",
        },
        EnumValue {
            text: "reduce_scatter",
            bir: "reduce_scatter",
            doc: "each member gets one slice of the reduction",
        },
        EnumValue {
            text: "all_gather",
            bir: "all_gather",
            doc: "every member gets the concatenation of all inputs",
        },
    ],
};

const OP: FieldSpec = FieldSpec {
    name: fname::op,
    kind: Kind::Enum(&ALU),
    default: Default::Required,
    bir: "op (public ALU spelling: multiply → mult)",
    doc: "the reduction's ALU operation (add, max, …)",
};

/// LocalReduceOp → `Reduce` (engine Pool, SPEC §6.4 decision).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. Operands carry
/// `"access": "nd_dma"` (seed 000 §5.1 `codegenNdDMAAP`).
pub static LOCAL_REDUCE_OP: OpSpec = OpSpec {
    class: "LocalReduceOp",
    opcode: "Reduce",
    engine: EngineSpec::Fixed(Engine::Pool),
    instruction_type: None,
    doc: "The single-step local reduce (BIR `Reduce`, `local: true`): reduces `src` into `dst` \
          with `op` across the replica groups, through an N-d DMA access pattern.",
    source: "seed 000 §5.1 codegenLocalReduceOp (setop, setReplicaGroups, setKind, setLocal, \
             codegenNdDMAAP); SPEC §6.4",
    fields: &[
        dst(Mems::ANY, "the reduced output (an N-d DMA access)"),
        src(Mems::ANY, "the input (an N-d DMA access)"),
        OP,
        FieldSpec {
            name: fname::kind,
            kind: Kind::Enum(&REDUCE_KIND),
            default: Default::Ident("all_reduce"),
            bir: "kind (the same lower-case string)",
            doc: "all_reduce, reduce_scatter or all_gather",
        },
        FieldSpec {
            name: fname::groups,
            kind: Kind::List(&Kind::List(&Kind::Int)),
            default: Default::Computed("[[0]]"),
            bir: "replica_groups",
            doc: "the replica groups, each a list of replica ids (≥ 0)",
        },
    ],
    lower: lower_local_reduce,
};

fn lower_local_reduce(cx: &mut Cx<'_>) {
    // Replica ids are naturals (the public `replica_groups: List (List Nat)`).
    let groups: Option<Vec<Vec<i64>>> = match cx.path(fname::groups) {
        None => Some(vec![vec![0]]),
        Some(_) if cx.is_bad(fname::groups) => None,
        Some(path) => {
            let mut rows = Vec::new();
            for (g, group) in cx.list(fname::groups).iter().enumerate() {
                let Value::List(ids) = group else { continue };
                let mut row = Vec::new();
                for (k, id) in ids.iter().enumerate() {
                    let Some(id) = id.as_int() else { continue };
                    if id < 0 {
                        let anchor = Anchor::Value(path.element(g).element(k));
                        cx.error(Code::P414, anchor, format!("replica id {id} is negative"));
                    }
                    row.push(id);
                }
                rows.push(row);
            }
            Some(rows)
        }
    };
    let op = cx.ident(fname::op).map(|o| alu_bir(o).to_string());
    let kind = cx.ident(fname::kind).unwrap_or("all_reduce").to_string();
    let (ins, outs) = cx.standard_args();
    let inst = cx.inst(Opcode::Reduce);
    inst.ins = ins.into_iter().map(|a| a.with_access("nd_dma")).collect();
    inst.outs = outs.into_iter().map(|a| a.with_access("nd_dma")).collect();
    if let Some(op) = op {
        inst.set(F::Op, op);
    }
    inst.set(F::Kind, kind);
    if let Some(groups) = groups {
        inst.set(F::ReplicaGroups, groups);
    }
    inst.set(F::Local, true);
}

/// NeuronReduceMacro → `TensorReduce` × len(reduce_axes) (engine DVE).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static NEURON_REDUCE_MACRO: OpSpec = OpSpec {
    class: "NeuronReduceMacro",
    opcode: "TensorReduce",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: None,
    doc: "The multi-step reduce: one `TensorReduce` per axis of `reduce_axes`, innermost first. \
          The first reads `src`, each later one folds the running partial in `dst`; all write \
          `dst`. The axes must be exactly the trailing free dims of the src access, and `dst` \
          holds, per partition, the product of the non-reduced free counts.",
    source: "seed 000 §5.2 codegenNeuronReduceMacro (enumerate_axes, setReduceAxes, \
             is_first_reduce, strip_fp32r); SPEC §6.4",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the reduced output: src's partitions × the product of its kept free counts",
        ),
        src(Mems::ON_CHIP, "the input access"),
        OP,
        FieldSpec {
            name: fname::reduce_axes,
            kind: Kind::List(&Kind::Int),
            default: Default::Required,
            bir: "reduce_axes (the whole list on every instruction); one instruction per entry",
            doc: "the access dims to reduce: exactly the trailing free dims of `src`, in any order",
        },
    ],
    lower: lower_reduce_macro,
};

/// Checks `reduce_axes` (P414) against the src access. Returns whether the axes and the src
/// are usable for the dst rule.
fn check_reduce_axes(cx: &mut Cx<'_>, axes: &[i64]) -> bool {
    let Some(path) = cx.path(fname::reduce_axes) else {
        return false;
    };
    if axes.is_empty() {
        cx.error(
            Code::P414,
            Anchor::Value(path),
            "reduce_axes must name at least one axis",
        );
        return false;
    }
    let rank = cx.operand(fname::src).map(|s| s.rank() as i64);
    let mut ok = true;
    for (k, &axis) in axes.iter().enumerate() {
        let anchor = Anchor::Value(path.element(k));
        let message = if axis == 0 {
            "axis 0 is the partition dim, which a TensorReduce cannot reduce".to_string()
        } else if axis < 0 || rank.is_some_and(|r| axis >= r) {
            match rank {
                Some(r) if r <= 1 => {
                    format!("axis {axis}: the rank-{r} src access has no free dim")
                }
                Some(r) => format!(
                    "axis {axis} is not a free dim of the rank-{r} src access (1 to {})",
                    r - 1
                ),
                None => format!("axis {axis} is not a dim index"),
            }
        } else if axes[..k].contains(&axis) {
            format!("axis {axis} is listed twice")
        } else {
            continue;
        };
        cx.error(Code::P414, anchor, message);
        ok = false;
    }
    let Some(rank) = rank else { return false };
    if ok {
        let count = axes.len() as i64;
        let trailing: Vec<i64> = (rank - count..rank).collect();
        if !trailing.iter().all(|a| axes.contains(a)) {
            cx.error(
                Code::P414,
                Anchor::Value(path),
                format!(
                    "reduce axes must be the trailing free dims of the rank-{rank} src access; \
                     {count} of them are {trailing:?}"
                ),
            );
            ok = false;
        }
    }
    ok
}

fn lower_reduce_macro(cx: &mut Cx<'_>) {
    let axes = cx
        .int_list(fname::reduce_axes)
        .filter(|_| cx.index(fname::reduce_axes).is_some());
    let axes_ok = match &axes {
        Some(axes) => check_reduce_axes(cx, axes),
        None => false,
    };
    if let (true, Some(axes), Some(source), Some(out)) = (
        axes_ok,
        &axes,
        cx.operand(fname::src),
        cx.operand(fname::dst),
    ) {
        let shape = source.shape();
        let kept: u64 = shape
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(k, _)| !axes.contains(&(*k as i64)))
            .fold(1, |acc, (_, n)| acc.saturating_mul(*n));
        let (sp, dp, df) = (source.partitions(), out.partitions(), out.free_size());
        if sp != dp || kept != df {
            let anchor = later_anchor(cx, fname::src, fname::dst);
            cx.error(
                Code::P305,
                anchor,
                format!(
                    "reducing axes {axes:?} of the src {shape:?} leaves {sp} partitions × {kept} \
                     elements; dst has {dp} × {df}"
                ),
            );
        }
    }

    // The chain, innermost axis first (seed: `enumerate_axes`); at least one instruction so
    // that a faulty op still appears in the output.
    let mut order: Vec<i64> = axes.clone().unwrap_or_default();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let steps = order.len().max(1);
    let op = cx.ident(fname::op).map(|o| alu_bir(o).to_string());
    let (src_arg, dst_arg) = (cx.arg(fname::src), cx.arg(fname::dst));
    for k in 0..steps {
        let input = if k == 0 {
            src_arg.clone()
        } else {
            dst_arg.clone()
        };
        let inst = cx.inst(Opcode::TensorReduce);
        inst.ins.extend(input);
        inst.outs.extend(dst_arg.clone());
        if let Some(op) = &op {
            inst.set(F::Op, op.as_str());
        }
        inst.set(F::Axis, "X")
            .set(F::Negate, false)
            .set(F::ApplyTranspose, false);
        if let Some(axes) = &axes {
            inst.set(F::ReduceAxes, axes.clone());
        }
        inst.set(F::IsFirstReduce, k == 0);
    }
}
