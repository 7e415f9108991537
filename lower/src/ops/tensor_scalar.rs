//! The tensor-scalar pointer family (SPEC §6.3; seed 000 §4): TensorScalarPtrOp,
//! TensorScalarCacheCumulative, AffSelTensorScalarOp and TensorScalarGEPOp share the
//! `getTensorScalarPtr` emitter → `TensorScalarPtr`; the predicate siblings RangeSelect →
//! `RangeSelect`, TensorSelect and SelectReduce → `Select` (IT 51), TensorCopyPredicated →
//! `CopyPredicated` (IT 52) run on DVE.
//!
//! BIR keys: the opcode's row of `crate::bir::OPCODES`. The public schema requires `op0`,
//! `reverse0`, `op1` and `reverse1`, so they are always written.

use crate::bir::{Arg, ArgKind, Field as F, Opcode, Role, Value as BirValue};
use crate::catalog::fname;

use super::common::{
    check_imm_pointer, check_pointer_shape, check_same_partitions_and_free, check_start_partition,
    dst, src,
};
use crate::access::Affine;
use crate::catalog::{
    ALU, Default, Dir, ENGINE, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems,
    OpSpec,
};
use crate::cx::{Cx, Inst, alu_bir};
use crate::diag::{Anchor, Code, Diag, FixHint};
use crate::model::{Target, Value};
use crate::types::{self, Dtype};

/// The engines the `engine` field of the pointer ops may name.
const TSP_ENGINES: &[Engine] = &[Engine::Dve, Engine::Pool, Engine::Act];

/// RangeSelect's comparisons (SPEC §6.3: a subset of `alu`).
static COMPARE: EnumSpec = EnumSpec {
    name: "compare",
    values: &[
        EnumValue {
            text: "is_ge",
            bir: "is_ge",
            doc: "1 if a ≥ b else 0",
        },
        EnumValue {
            text: "is_gt",
            bir: "is_gt",
            doc: "1 if a > b else 0",
        },
        EnumValue {
            text: "is_le",
            bir: "is_le",
            doc: "1 if a ≤ b else 0",
        },
        EnumValue {
            text: "is_lt",
            bir: "is_lt",
            doc: "1 if a < b else 0",
        },
        EnumValue {
            text: "is_equal",
            bir: "is_equal",
            doc: "1 if a = b else 0",
        },
    ],
};

const DST: FieldSpec = dst(Mems::ON_CHIP, "the output access (sbuf or psum)");
const SRC: FieldSpec = src(
    Mems::ON_CHIP,
    "the input access (sbuf or psum), same partitions and free size as `dst`",
);
const OP0: FieldSpec = FieldSpec {
    name: fname::op0,
    kind: Kind::Enum(&ALU),
    default: Default::Required,
    bir: "op0 (public spelling: multiply → mult)",
    doc: "the first ALU op, applied to the src and `operand0`",
};
const OPERAND0: FieldSpec = FieldSpec {
    name: fname::operand0,
    kind: Kind::Imm(Mems::ON_CHIP),
    default: Default::Required,
    bir: "operand0 (a number), or an `ins` argument with role `operand0`",
    doc: "the first scalar: a number, or a [P, 1] pointer (one scalar per partition)",
};
const OP1: FieldSpec = FieldSpec {
    name: fname::op1,
    kind: Kind::Enum(&ALU),
    default: Default::Absent,
    bir: "op1 (\"bypass\" when absent)",
    doc: "the second ALU op, applied to the first result and `operand1`",
};
const OPERAND1: FieldSpec = FieldSpec {
    name: fname::operand1,
    kind: Kind::Imm(Mems::ON_CHIP),
    default: Default::Absent,
    bir: "operand1 (a number), or an `ins` argument with role `operand1`",
    doc: "the second scalar; writing it selects the two-operand (TSC) mode, which needs `op1`",
};
const REVERSE0: FieldSpec = FieldSpec {
    name: fname::reverse0,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "reverse0",
    doc: "swap the operands of op0 (`operand0 op0 src`)",
};
const REVERSE1: FieldSpec = FieldSpec {
    name: fname::reverse1,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "reverse1",
    doc: "swap the operands of op1",
};
const IS_STT: FieldSpec = FieldSpec {
    name: fname::is_scalar_tensor_tensor,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_scalar_tensor_tensor",
    doc: "scalar-tensor-tensor mode: `operand1` is a tensor access shaped like `src`",
};

const TSP_FILL_VALUE: FieldSpec = FieldSpec {
    name: fname::fill_value,
    kind: Kind::Float,
    default: Default::Absent,
    bir: "fill_value, when written",
    doc: "the value written where the op's predicate does not hold (the shared \
          `getTensorScalarPtr` sets it, seed 000 §4)",
};
const TSP_REVERSE_PRED: FieldSpec = FieldSpec {
    name: fname::reverse_pred,
    kind: Kind::Bool,
    default: Default::Absent,
    bir: "reverse_pred, when written",
    doc: "invert the op's predicate (the shared `getTensorScalarPtr` sets it, seed 000 §4)",
};

/// The `engine` field of the pointer ops, with its default.
const fn engine_field(default: &'static str, doc: &'static str) -> FieldSpec {
    FieldSpec {
        name: fname::engine,
        kind: Kind::Enum(&ENGINE),
        default: Default::Ident(default),
        bir: "the instruction's `engine`",
        doc,
    }
}

/// TensorScalarPtrOp → `TensorScalarPtr`.
pub static TENSOR_SCALAR_PTR_OP: OpSpec = OpSpec {
    class: "TensorScalarPtrOp",
    opcode: "TensorScalarPtr",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: TSP_ENGINES,
    },
    instruction_type: None,
    doc: "`dst = (src op0 operand0) op1 operand1`, each operand a number or a [P, 1] pointer \
          (one scalar per partition). Writing `operand1` selects the two-operand (TSC) mode, \
          which needs `op1`; both ops are arithmetic or both bitwise.",
    source: "seed 000 §4 codegenTensorScalarPtrOp, getTensorScalarPtr; SPEC §6.3",
    fields: &[
        DST,
        SRC,
        OP0,
        OPERAND0,
        OP1,
        OPERAND1,
        REVERSE0,
        REVERSE1,
        IS_STT,
        engine_field("dve", "the engine that computes: dve, pool or act"),
        TSP_FILL_VALUE,
        TSP_REVERSE_PRED,
    ],
    lower: lower_tensor_scalar_ptr,
};

/// TensorScalarCacheCumulative → `TensorScalarPtr`, always in TSC mode.
pub static TENSOR_SCALAR_CACHE_CUMULATIVE: OpSpec = OpSpec {
    class: "TensorScalarCacheCumulative",
    opcode: "TensorScalarPtr",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: TSP_ENGINES,
    },
    instruction_type: None,
    doc: "The cumulative tensor-scalar: TensorScalarPtrOp's fields, always in two-operand \
          (TSC) mode with the carry as `operand1` (implied when absent), so `op1` is needed.",
    source: "seed 000 §4 codegenTensorScalarCacheCumulative (Union[TensorScalarPtrOp, \
             TensorScalarCacheCumulative]); SPEC §6.3",
    fields: &[
        DST,
        SRC,
        OP0,
        OPERAND0,
        OP1,
        FieldSpec {
            doc: "the carry; optional (implied when absent), TSC mode either way",
            ..OPERAND1
        },
        REVERSE0,
        REVERSE1,
        IS_STT,
        engine_field("dve", "the engine that computes: dve, pool or act"),
        TSP_FILL_VALUE,
        TSP_REVERSE_PRED,
    ],
    lower: lower_tensor_scalar_ptr,
};

/// AffSelTensorScalarOp → `TensorScalarPtr` with affine predicates.
pub static AFF_SEL_TENSOR_SCALAR_OP: OpSpec = OpSpec {
    class: "AffSelTensorScalarOp",
    opcode: "TensorScalarPtr",
    engine: EngineSpec::Field {
        default: Engine::Pool,
        allowed: TSP_ENGINES,
    },
    instruction_type: None,
    doc: "Affine select: where every predicate over the dst's dims `$0 $1 …` holds, \
          `dst = src op0 operand0`; elsewhere `fill_value` (e.g. a causal mask). Lowered \
          as a predicated tensor-scalar.",
    source: "seed 000 §4 codegenAffSelTensorScalarOp (BirAffinePredicate, \
             enumerate_predicates_in_codegen_order); SPEC §6.3",
    fields: &[
        DST,
        SRC,
        FieldSpec {
            name: fname::predicates,
            kind: Kind::List(&Kind::Pred),
            default: Default::Required,
            bir: "predicates: [{\"coeffs\", \"const\", \"cmp\"}], Σ c·$d + k CMP 0",
            doc: "affine conditions over the dst access's dims `$0 $1 …` (no loop variables); non-empty",
        },
        FieldSpec {
            name: fname::fill_value,
            kind: Kind::Float,
            default: Default::Required,
            bir: "fill_value",
            doc: "the value written where a predicate fails",
        },
        FieldSpec {
            default: Default::Ident("bypass"),
            doc: "the ALU op applied where the predicates hold (default bypass: a copy)",
            ..OP0
        },
        FieldSpec {
            default: Default::Int(0),
            doc: "the scalar of op0: a number or a [P, 1] pointer",
            ..OPERAND0
        },
        engine_field(
            "pool",
            "the engine that computes: pool (default), dve or act",
        ),
    ],
    lower: lower_aff_sel,
};

/// TensorScalarGEPOp → `TensorScalarPtr` with `is_tensor_scalar_addr`.
pub static TENSOR_SCALAR_GEP_OP: OpSpec = OpSpec {
    class: "TensorScalarGEPOp",
    opcode: "TensorScalarPtr",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: TSP_ENGINES,
    },
    instruction_type: None,
    doc: "A tensor-scalar whose scalar is fetched through a pointer: `dst = src op0 \
          ptr[index]`, the table `ptr` and the `index` (an integer, an access or a register) \
          bound through the pointer slot (`is_tensor_scalar_addr`).",
    source: "seed 000 §4 codegenTensorScalarGEPOp (Union[TensorScalarGEPOp, \
             TensorScalarPtrOp]); SPEC §6.3",
    fields: &[
        DST,
        SRC,
        OP0,
        FieldSpec {
            name: fname::ptr,
            kind: Kind::Acc(Mems::ANY, Dir::In),
            default: Default::Required,
            bir: "an `ins` argument with role `ptr`",
            doc: "the table the scalar is fetched from (any shape; a constant `index` must lie \
                  inside it)",
        },
        FieldSpec {
            name: fname::index,
            kind: Kind::IntAccReg,
            default: Default::Required,
            bir: "an `ins` argument with role `index` (imm_value, physical_ap or register_access)",
            doc: "the index into the table: an integer, an access or a register",
        },
        engine_field("dve", "the engine that computes: dve, pool or act"),
    ],
    lower: lower_gep,
};

/// RangeSelect → `RangeSelect`.
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static RANGE_SELECT: OpSpec = OpSpec {
    class: "RangeSelect",
    opcode: "RangeSelect",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: None,
    doc: "Keeps `on_true` where its free index (from `range_start`) satisfies both \
          `comp_op0 bound0` and `comp_op1 bound1`, writing FP32 min elsewhere, and can \
          max-reduce the result into `reduce_dst`.",
    source: "seed 000 §4 codegenRangeSelect (the predicate machinery); SPEC §6.3",
    fields: &[
        DST,
        FieldSpec {
            name: fname::on_true,
            kind: Kind::Acc(Mems::ON_CHIP, Dir::In),
            default: Default::Required,
            bir: "operand `on_true` (ins)",
            doc: "the values kept in range; same partitions and free size as `dst`",
        },
        FieldSpec {
            name: fname::comp_op0,
            kind: Kind::Enum(&COMPARE),
            default: Default::Required,
            bir: "compare_op0",
            doc: "the comparison against `bound0`: is_ge, is_gt, is_le, is_lt or is_equal",
        },
        FieldSpec {
            name: fname::comp_op1,
            kind: Kind::Enum(&COMPARE),
            default: Default::Required,
            bir: "compare_op1",
            doc: "the comparison against `bound1`: is_ge, is_gt, is_le, is_lt or is_equal",
        },
        FieldSpec {
            name: fname::bound0,
            kind: Kind::Imm(Mems::ON_CHIP),
            default: Default::Required,
            bir: "bound0 (a number), or an `ins` argument with role `bound0`",
            doc: "the first bound: a number or a [P, 1] f32 pointer",
        },
        FieldSpec {
            name: fname::bound1,
            kind: Kind::Imm(Mems::ON_CHIP),
            default: Default::Required,
            bir: "bound1 (a number), or an `ins` argument with role `bound1`",
            doc: "the second bound: a number or a [P, 1] f32 pointer",
        },
        FieldSpec {
            name: fname::range_start,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "base",
            doc: "the index of the first free element",
        },
        FieldSpec {
            name: fname::fill_value,
            kind: Kind::Float,
            default: Default::Float(FP32_MIN),
            bir: "fill_value",
            doc: "the value out of range; the hardware requires FP32 min (-3.4028234663852886e38)",
        },
        FieldSpec {
            name: fname::reduce_op,
            kind: Kind::Enum(&ALU),
            default: Default::Ident("max"),
            bir: "reduce_op",
            doc: "the fused reduce into `reduce_dst`; only max",
        },
        FieldSpec {
            name: fname::reduce_dst,
            kind: Kind::Acc(Mems::ON_CHIP, Dir::Out),
            default: Default::Absent,
            bir: "operand `reduce_dst` (outs)",
            doc: "the [P, 1] result of the fused reduce",
        },
    ],
    lower: lower_range_select,
};

/// f32's lowest finite value as an f64: RangeSelect's `fill_value` (SPEC §6.3).
const FP32_MIN: f64 = -3.4028234663852886e38;

const PREDICATE: FieldSpec = FieldSpec {
    name: fname::predicate,
    kind: Kind::Acc(Mems::ON_CHIP, Dir::In),
    default: Default::Required,
    bir: "operand `predicate` (ins)",
    doc: "the mask: non-zero selects; same partitions and free size as `dst`",
};
const ON_TRUE: FieldSpec = FieldSpec {
    name: fname::on_true,
    kind: Kind::Acc(Mems::ON_CHIP, Dir::In),
    default: Default::Required,
    bir: "operand `on_true` (ins)",
    doc: "the values where the predicate holds; same partitions and free size as `dst`",
};
const ON_FALSE: FieldSpec = FieldSpec {
    name: fname::on_false,
    kind: Kind::Imm(Mems::ON_CHIP),
    default: Default::Required,
    bir: "on_false (a number), or an `ins` argument with role `on_false`",
    doc: "the value where the predicate fails: a number or a [P, 1] pointer",
};

/// TensorSelect → `Select` (IT 51).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static TENSOR_SELECT: OpSpec = OpSpec {
    class: "TensorSelect",
    opcode: "Select",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(51),
    doc: "`dst = predicate ? on_true : on_false`, elementwise on DVE.",
    source: "seed 000 §4 codegenTensorSelect; SPEC §6.3",
    fields: &[DST, PREDICATE, ON_TRUE, ON_FALSE],
    lower: lower_select,
};

/// SelectReduce → `Select` (IT 51) with a fused reduce.
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static SELECT_REDUCE: OpSpec = OpSpec {
    class: "SelectReduce",
    opcode: "Select",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(51),
    doc: "TensorSelect that also reduces the selected values along the free dim into \
          `reduce_dst` ([P, 1]).",
    source: "seed 000 §4 codegenSelectReduce; SPEC §6.3",
    fields: &[
        DST,
        PREDICATE,
        ON_TRUE,
        ON_FALSE,
        FieldSpec {
            name: fname::reduce_op,
            kind: Kind::Enum(&ALU),
            default: Default::Required,
            bir: "reduce_op (public spelling)",
            doc: "the reduce along the free dim",
        },
        FieldSpec {
            name: fname::reduce_dst,
            kind: Kind::Acc(Mems::ON_CHIP, Dir::Out),
            default: Default::Required,
            bir: "operand `reduce_dst` (outs)",
            doc: "the [P, 1] result of the reduce",
        },
    ],
    lower: lower_select,
};

/// TensorCopyPredicated → `CopyPredicated` (IT 52).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static TENSOR_COPY_PREDICATED: OpSpec = OpSpec {
    class: "TensorCopyPredicated",
    opcode: "CopyPredicated",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(52),
    doc: "Copies `src` to `dst` where `predicate` is non-zero (zero with `reverse_pred`), \
          leaving the other elements of `dst` unchanged.",
    source: "seed 000 §4 codegenTensorCopyPredicated; SPEC §6.3",
    fields: &[
        DST,
        SRC,
        PREDICATE,
        FieldSpec {
            name: fname::reverse_pred,
            kind: Kind::Bool,
            default: Default::Bool(false),
            bir: "reverse_pred",
            doc: "copy where the predicate is zero instead",
        },
    ],
    lower: lower_copy_predicated,
};

// ----- shared checks -------------------------------------------------------------------

/// Whether an ALU op is bitwise (`bitwise_and/or/xor`); `bypass` is neither.
fn alu_class(op: &str) -> Option<bool> {
    match op {
        "bypass" => None,
        "bitwise_and" | "bitwise_or" | "bitwise_xor" => Some(true),
        _ => Some(false),
    }
}

/// The partition count of a usable access field.
fn partitions_of(cx: &Cx<'_>, field: &str) -> Option<u64> {
    cx.operand(field).map(|o| o.partitions())
}

/// An `imm` field's number, when it is written as one (else its numeric default when not
/// written; `None` for a pointer or a bad value).
fn imm_number(cx: &Cx<'_>, field: &str) -> Option<f64> {
    match cx.value(field) {
        Some(Value::Access(_)) => None,
        _ => cx.float(field),
    }
}

/// The `TensorScalarPtr` fields, in the documented order.
struct TspFields {
    op0: Option<String>,
    operand0: Option<f64>,
    reverse0: bool,
    op1: String,
    operand1: Option<f64>,
    reverse1: bool,
    addr: bool,
    stt: bool,
}

impl TspFields {
    /// Reads the fields of a TensorScalarPtrOp-like op (absent ones at their defaults).
    fn read(cx: &Cx<'_>) -> TspFields {
        let has = |name: &str| cx.spec.field(name).is_some();
        let op = |name: &str| has(name).then(|| cx.ident(name)).flatten();
        TspFields {
            op0: op(fname::op0).map(|o| alu_bir(o).to_string()),
            operand0: if has(fname::operand0) {
                imm_number(cx, fname::operand0)
            } else {
                None
            },
            reverse0: has(fname::reverse0) && cx.bool(fname::reverse0),
            op1: alu_bir(op(fname::op1).unwrap_or("bypass")).to_string(),
            operand1: if has(fname::operand1) {
                imm_number(cx, fname::operand1)
            } else {
                None
            },
            reverse1: has(fname::reverse1) && cx.bool(fname::reverse1),
            addr: false,
            stt: has(fname::is_scalar_tensor_tensor) && cx.bool(fname::is_scalar_tensor_tensor),
        }
    }

    fn emit(&self, inst: &mut Inst) {
        if let Some(op0) = &self.op0 {
            inst.set(F::Op0, op0.as_str());
        }
        if let Some(v) = self.operand0 {
            inst.set_float(F::Operand0, v);
        }
        inst.set(F::Reverse0, self.reverse0)
            .set(F::Op1, self.op1.as_str());
        if let Some(v) = self.operand1 {
            inst.set_float(F::Operand1, v);
        }
        inst.set(F::Reverse1, self.reverse1)
            .set(F::IsTensorScalarAddr, self.addr)
            .set(F::IsScalarTensorTensor, self.stt)
            .set(F::Acc, "Idle");
    }
}

/// The src/dst rules (P305, P306) of every op with a `src`.
fn check_src_dst(cx: &mut Cx<'_>) {
    check_same_partitions_and_free(cx, fname::dst, fname::src);
    let class = cx.spec.class;
    check_start_partition(cx, class);
}

/// P407 unless op0 and op1 are both arithmetic or both bitwise (`bypass` and an absent
/// `op1` count as either), on `op1`.
fn check_op_classes(cx: &mut Cx<'_>) {
    let (Some(op0), Some(op1)) = (cx.ident(fname::op0), cx.ident(fname::op1)) else {
        return;
    };
    if let (Some(a), Some(b)) = (alu_class(op0), alu_class(op1))
        && a != b
    {
        let kind = |bitwise: bool| if bitwise { "bitwise" } else { "arithmetic" };
        let anchor = cx.anchor(fname::op1);
        cx.error(
            Code::P407,
            anchor,
            format!(
                "op0 `{op0}` is {} but op1 `{op1}` is {}: both ops are arithmetic or both bitwise",
                kind(a),
                kind(b)
            ),
        );
    }
}

// ----- TensorScalarPtrOp, TensorScalarCacheCumulative ----------------------------------

fn lower_tensor_scalar_ptr(cx: &mut Cx<'_>) {
    let cumulative = cx.spec.class == "TensorScalarCacheCumulative";
    check_src_dst(cx);
    let stt = cx.bool(fname::is_scalar_tensor_tensor);
    let partitions = partitions_of(cx, fname::src).or_else(|| partitions_of(cx, fname::dst));
    check_imm_pointer(cx, fname::operand0, partitions, false);
    if stt {
        match cx.value(fname::operand1) {
            Some(Value::Access(_)) => {
                check_same_partitions_and_free(cx, fname::src, fname::operand1)
            }
            Some(_) => {
                let anchor = cx.anchor(fname::operand1);
                cx.error(
                    Code::P206,
                    anchor,
                    "with is_scalar_tensor_tensor, `operand1` is a tensor access shaped like `src`",
                );
            }
            None if !cx.written(fname::operand1) && !cumulative => cx.needs_field(
                fname::operand1,
                format!(
                    "{} with is_scalar_tensor_tensor needs the field `operand1`",
                    cx.spec.class
                ),
            ),
            None => {}
        }
    } else {
        check_imm_pointer(cx, fname::operand1, partitions, false);
    }
    // TSC mode: operand1 written (always, for the cumulative op) needs op1 (seed 000 §4).
    if (cumulative || cx.written(fname::operand1)) && !cx.written(fname::op1) {
        let anchor = cx.anchor(fname::operand1);
        cx.report(
            Diag::new(
                Code::P404,
                anchor,
                "LOGIC FAULT, TSC mode must have op1 set!",
            )
            .with_fix(Some(FixHint::InsertField {
                name: fname::op1.into(),
                value: Some("add".into()),
            })),
        );
    }
    check_op_classes(cx);

    let fields = TspFields::read(cx);
    // SPEC §6.3 [2]: emitted only when written, after the shared keys.
    let fill = cx.value(fname::fill_value).and_then(Value::as_number);
    let reverse_pred = cx
        .value(fname::reverse_pred)
        .map(|_| cx.bool(fname::reverse_pred));
    let inst = cx.inst_with_args(Opcode::TensorScalarPtr);
    fields.emit(inst);
    if let Some(f) = fill {
        inst.set_float(F::FillValue, f);
    }
    if let Some(r) = reverse_pred {
        inst.set(F::ReversePred, r);
    }
}

// ----- AffSelTensorScalarOp ------------------------------------------------------------

/// Normalises the predicates of `field` to `Σ c·$d + k CMP 0` over the dims of the dst
/// access (`rank` of them; none are emitted when the dst is unusable): P303 for a loop
/// variable or a non-affine term, P300 for a `$d` beyond the rank.
fn predicates(cx: &mut Cx<'_>, field: &str, rank: Option<usize>) -> Vec<BirValue> {
    let Some(path) = cx.path(field).filter(|_| cx.index(field).is_some()) else {
        return Vec::new();
    };
    let items = cx.list(field);
    let mut out = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let Value::Pred(pred) = item else { continue };
        let anchor = Anchor::Value(path.element(k));
        let affine = Affine::of(&pred.lhs, true)
            .and_then(|lhs| Ok((lhs, Affine::of(&pred.rhs, true)?)))
            .and_then(|(lhs, rhs)| lhs.sub(&rhs));
        let affine = match affine {
            Ok(a) => a,
            Err(err) => {
                if let Some(diag) = err.diag(anchor) {
                    cx.report(diag);
                }
                continue;
            }
        };
        let mut dims: Vec<(usize, i64)> = Vec::new();
        let mut ok = true;
        for (var, coeff) in &affine.terms {
            match var.strip_prefix('$').and_then(|d| d.parse::<usize>().ok()) {
                Some(d) if rank.is_none_or(|r| d < r) => dims.push((d, *coeff)),
                Some(d) => {
                    let rank = rank.unwrap_or(0);
                    cx.report(
                        Diag::incorrect_access_pattern(
                            anchor.clone(),
                            cx.anchor(fname::dst),
                            format!(
                                "the predicate names `${d}`, but the dst access has rank {rank} (dims $0 to ${})",
                                rank.saturating_sub(1)
                            ),
                        ),
                    );
                    ok = false;
                    break;
                }
                None => {
                    cx.error(
                        Code::P303,
                        anchor.clone(),
                        format!(
                            "a predicate is over the dst dims `$0 $1 …`; the loop variable `%{var}` cannot appear in it"
                        ),
                    );
                    ok = false;
                    break;
                }
            }
        }
        // Without a usable dst (already an error) the coefficients have no length.
        let Some(len) = rank.filter(|_| ok) else {
            continue;
        };
        let mut coeffs = vec![0i64; len];
        for (d, c) in dims {
            if let Some(slot) = coeffs.get_mut(d) {
                *slot = c;
            }
        }
        out.push(BirValue::Record(vec![
            ("coeffs".into(), coeffs.into()),
            ("const".into(), affine.c.into()),
            ("cmp".into(), pred.cmp.as_str().into()),
        ]));
    }
    out
}

fn lower_aff_sel(cx: &mut Cx<'_>) {
    check_src_dst(cx);
    let partitions = partitions_of(cx, fname::src).or_else(|| partitions_of(cx, fname::dst));
    check_imm_pointer(cx, fname::operand0, partitions, false);
    if cx.index(fname::predicates).is_some() && cx.list(fname::predicates).is_empty() {
        let anchor = cx.anchor(fname::predicates);
        cx.error(
            Code::P414,
            anchor,
            "an affine select needs at least one predicate",
        );
    }
    let rank = cx.any_operand(fname::dst).map(|o| o.rank());
    let preds = predicates(cx, fname::predicates, rank);
    let fill = cx.float(fname::fill_value);

    let fields = TspFields::read(cx);
    let inst = cx.inst_with_args(Opcode::TensorScalarPtr);
    fields.emit(inst);
    if !preds.is_empty() {
        inst.set(F::Predicates, BirValue::List(preds));
    }
    if let Some(f) = fill {
        inst.set_float(F::FillValue, f);
    }
}

// ----- TensorScalarGEPOp ---------------------------------------------------------------

fn lower_gep(cx: &mut Cx<'_>) {
    check_src_dst(cx);
    // The index: an integer (≥ 0), an access or a register, of an integer dtype.
    let mut index_arg = None;
    match cx.value(fname::index) {
        Some(Value::Int(i) | Value::HexInt(i)) => {
            if *i < 0 {
                let anchor = cx.anchor(fname::index);
                cx.error(
                    Code::P414,
                    anchor,
                    format!("an index is a natural number; got {i}"),
                );
            }
            index_arg = Some(Arg::new(
                ArgKind::Imm {
                    dtype: Dtype::I32,
                    value: BirValue::Int(*i),
                },
                Role::field(fname::index),
            ));
        }
        Some(Value::Access(access)) => {
            let dtype = match &access.target {
                Target::Register(reg) => {
                    index_arg = Some(Arg::new(
                        ArgKind::Register {
                            dtype: reg.dtype,
                            regref: reg.name.clone(),
                        },
                        Role::field(fname::index),
                    ));
                    Some(reg.dtype)
                }
                Target::Tensor(_) => cx.operand(fname::index).map(|o| o.tensor.dtype),
                _ => None,
            };
            if let Some(d) = dtype.filter(|d| !d.is_int()) {
                let anchor = cx.anchor(fname::index);
                cx.error(
                    Code::P407,
                    anchor,
                    format!("an index is an integer; `index` is {}", d.name()),
                );
            }
        }
        _ => {}
    }

    // SPEC §6.3 [2]: the table is not a [P, 1] pointer (any shape), but a constant index
    // must lie inside the `ptr` access as written.
    if let (Some(i), Some(table)) = (
        cx.value(fname::index).and_then(Value::as_int),
        cx.operand(fname::ptr).map(|o| o.elements()),
    ) && i >= 0
        && i as u64 >= table
    {
        let anchor = cx.anchor(fname::index);
        cx.error(
            Code::P414,
            anchor,
            format!(
                "index {i} is past the end of the table: the `ptr` access holds {table} elements"
            ),
        );
    }
    let mut fields = TspFields::read(cx);
    fields.addr = true;
    let inst = cx.inst_with_args(Opcode::TensorScalarPtr);
    if let Some(arg) = index_arg {
        inst.ins.push(arg);
    }
    fields.emit(inst);
}

// ----- RangeSelect ---------------------------------------------------------------------

fn lower_range_select(cx: &mut Cx<'_>) {
    check_same_partitions_and_free(cx, fname::dst, fname::on_true);
    let partitions = partitions_of(cx, fname::dst);
    for bound in [fname::bound0, fname::bound1] {
        check_imm_pointer(cx, bound, partitions, true);
    }
    if let (Some(p), Some(reduce_dst)) = (partitions, cx.operand(fname::reduce_dst).cloned()) {
        let anchor = cx.anchor(fname::reduce_dst);
        check_pointer_shape(cx, fname::reduce_dst, anchor, &reduce_dst, p);
    }
    let fill = cx.float(fname::fill_value);
    // SPEC §4 [2]: the value is rounded to f32 first, by the one rounding rule.
    if let Some(f) = fill.filter(|f| types::round_to(Dtype::F32, *f) != Ok(FP32_MIN)) {
        let anchor = cx.anchor(fname::fill_value);
        cx.error(
            Code::P414,
            anchor,
            format!(
                "RangeSelect fills with FP32 min ({FP32_MIN:e}), as the hardware requires; {f:?} is another value in f32"
            ),
        );
    }
    let reduce_op = cx.ident(fname::reduce_op);
    if let Some(op) = reduce_op.filter(|op| *op != "max") {
        let anchor = cx.anchor(fname::reduce_op);
        cx.error(
            Code::P414,
            anchor,
            format!("RangeSelect reduces with max only; got `{op}`"),
        );
    }

    let base = cx.int(fname::range_start).unwrap_or(0);
    let cmp0 = cx.ident(fname::comp_op0).map(|o| alu_bir(o).to_string());
    let cmp1 = cx.ident(fname::comp_op1).map(|o| alu_bir(o).to_string());
    let bounds: Vec<(F, Option<f64>)> = [(fname::bound0, F::Bound0), (fname::bound1, F::Bound1)]
        .into_iter()
        .map(|(b, key)| (key, imm_number(cx, b)))
        .collect();
    let channels = cx.any_operand(fname::dst).map_or(0, |d| d.partitions());
    let inst = cx.inst_with_args(Opcode::RangeSelect);
    inst.set(F::Base, base);
    if let Some(c) = cmp0 {
        inst.set(F::CompareOp0, c);
    }
    if let Some(c) = cmp1 {
        inst.set(F::CompareOp1, c);
    }
    for (name, value) in bounds {
        if let Some(v) = value {
            inst.set_float(name, v);
        }
    }
    if let Some(op) = reduce_op {
        inst.set(F::ReduceOp, alu_bir(op));
    }
    inst.set_float(F::FillValue, fill.unwrap_or(FP32_MIN))
        .set(F::NumActiveChannels, channels);
}

// ----- TensorSelect, SelectReduce ------------------------------------------------------

fn lower_select(cx: &mut Cx<'_>) {
    let reduce = cx.spec.class == "SelectReduce";
    check_same_partitions_and_free(cx, fname::dst, fname::predicate);
    check_same_partitions_and_free(cx, fname::dst, fname::on_true);
    let partitions = partitions_of(cx, fname::dst);
    check_imm_pointer(cx, fname::on_false, partitions, false);
    if reduce
        && let (Some(p), Some(reduce_dst)) = (partitions, cx.operand(fname::reduce_dst).cloned())
    {
        let anchor = cx.anchor(fname::reduce_dst);
        check_pointer_shape(cx, fname::reduce_dst, anchor, &reduce_dst, p);
    }

    let on_false = imm_number(cx, fname::on_false);
    let reduce_op = if reduce {
        cx.ident(fname::reduce_op).map(|o| alu_bir(o).to_string())
    } else {
        None
    };
    let inst = cx.inst_with_args(Opcode::Select);
    if let Some(v) = on_false {
        inst.set_float(F::OnFalse, v);
    }
    if let Some(op) = reduce_op {
        inst.set(F::ReduceOp, op);
    }
}

// ----- TensorCopyPredicated ------------------------------------------------------------

fn lower_copy_predicated(cx: &mut Cx<'_>) {
    check_src_dst(cx);
    check_same_partitions_and_free(cx, fname::dst, fname::predicate);
    let reverse = cx.bool(fname::reverse_pred);
    cx.inst_with_args(Opcode::CopyPredicated)
        .set(F::ReversePred, reverse);
}
