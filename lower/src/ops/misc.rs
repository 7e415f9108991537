//! The small lowerings of SPEC §6.7 (seed 000 §7.5–§7.6): inline assembly, dropout, iota,
//! stream shuffle, the no-op and tensor-tensor arithmetic. TensorCopyOp lives in `copy.rs`.

use crate::bir::{Arg, ArgKind, Field as F, Opcode, Role, Value as BirValue};
use crate::catalog::fname;

use super::common::{check_same_partitions_and_free, dst, input, later_anchor, src};
use crate::catalog::{
    ALU, Default, Dir, ENGINE, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems,
    OpSpec,
};
use crate::cx::{Cx, alu_bir};
use crate::diag::{Anchor, Code, ValuePath};
use crate::model::{Target, Value};
use crate::types::{self, Dtype, Memory, limits};

// ----- InlineASMInst / InlineASMBytesInst ------------------------------------------

/// Every engine an inline-assembly instruction may name.
const ALL_ENGINES: &[Engine] = Engine::NAMEABLE;

const ASM_ENGINE: FieldSpec = FieldSpec {
    name: fname::engine,
    kind: Kind::Enum(&ENGINE),
    default: Default::Required,
    bir: "the instruction's `engine`",
    doc: "the engine that runs the raw instruction: pe, act, dve, pool, sp or dma",
};
const ASM_OPERANDS: FieldSpec = FieldSpec {
    name: fname::operands,
    kind: Kind::List(&Kind::Acc(Mems::ANY, Dir::In)),
    default: Default::EmptyList,
    bir: "the first `num_inputs` in `ins` (roles `operands[i]`), the rest in `outs`",
    doc: "the instruction's operands: inputs first, then outputs",
};
const ASM_NUM_INPUTS: FieldSpec = FieldSpec {
    name: fname::num_inputs,
    kind: Kind::Int,
    default: Default::Computed("len(operands) − 1"),
    bir: "num_inputs",
    doc: "how many of `operands` are inputs (≤ len(operands)); the rest are outputs",
};

/// InlineASMInst → `InlineASM` (built with `addInlineASMInst`).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. The assembly opcode is
/// emitted as `asm_opcode` because `opcode` is the instruction's own key (SPEC §8).
pub static INLINE_ASM_INST: OpSpec = OpSpec {
    class: "InlineASMInst",
    opcode: "InlineASM",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: ALL_ENGINES,
    },
    instruction_type: None,
    doc: "A structured inline-assembly escape hatch (BIR `InlineASM`): an engine instruction \
          named by `opcode` with attributes `asm_attrs`, which the compiler treats as opaque. \
          The first `num_inputs` operands are read, the rest written.",
    source: "seed 000 §7.5 codegenInlineASMInst (addInlineASMInst(opcode, asm_attrs, operands, \
             num_inputs)); SPEC §6.7",
    fields: &[
        ASM_ENGINE,
        FieldSpec {
            name: fname::opcode,
            kind: Kind::Str,
            default: Default::Required,
            bir: "asm_opcode",
            doc: "the ISA opcode of the raw instruction",
        },
        FieldSpec {
            name: fname::asm_attrs,
            kind: Kind::Record,
            default: Default::Computed("{}"),
            bir: "asm_attrs (a JSON object)",
            doc: "the per-ISA attributes of the instruction",
        },
        ASM_OPERANDS,
        ASM_NUM_INPUTS,
    ],
    lower: lower_inline_asm,
};

static SYNC_TYPE: EnumSpec = EnumSpec {
    name: fname::sync_type,
    values: &[
        EnumValue {
            text: "data_path",
            bir: "DataPathType",
            doc: "synchronised on the data path",
        },
        EnumValue {
            text: "sequencer",
            bir: "SequencerType",
            doc: "synchronised by the sequencer",
        },
        EnumValue {
            text: "dma",
            bir: "DMAType",
            doc: "synchronised like a DMA",
        },
    ],
};

/// InlineASMBytesInst → `InlineASMBytes`.
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static INLINE_ASM_BYTES_INST: OpSpec = OpSpec {
    class: "InlineASMBytesInst",
    opcode: "InlineASMBytes",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: ALL_ENGINES,
    },
    instruction_type: None,
    doc: "A raw-bytes inline-assembly escape hatch (BIR `InlineASMBytes`): the encoded \
          instruction, with the synchronisation and latency the scheduler cannot infer.",
    source: "seed 000 §7.5 codegenInlineASMBytesInst (setAsmBytes, setSyncType, \
             setLatencyEstimate); SPEC §6.7",
    fields: &[
        ASM_ENGINE,
        FieldSpec {
            name: fname::asm_bytes,
            kind: Kind::Bytes,
            default: Default::Required,
            bir: "asm_bytes (lower-case hex)",
            doc: "the encoded instruction, non-empty",
        },
        FieldSpec {
            name: fname::sync_type,
            kind: Kind::Enum(&SYNC_TYPE),
            default: Default::Required,
            bir: "sync_type: DataPathType | SequencerType | DMAType",
            doc: "how the scheduler synchronises the instruction",
        },
        FieldSpec {
            name: fname::latency_estimate,
            kind: Kind::Int,
            default: Default::Required,
            bir: "latency_estimate",
            doc: "the instruction's latency for the scheduler (≥ 0)",
        },
        ASM_OPERANDS,
        ASM_NUM_INPUTS,
    ],
    lower: lower_inline_asm,
};

/// A record value as JSON (InlineASM's `asm_attrs`): numbers, strings, bools, identifiers
/// as strings, bytes as hex, accesses as `%name`, lists and records nested.
fn value_json(value: &Value) -> Option<BirValue> {
    Some(match value {
        Value::Int(i) | Value::HexInt(i) => (*i).into(),
        Value::Float(f) => f.0.into(),
        Value::Bool(b) => (*b).into(),
        Value::Str(s) => s.into(),
        Value::Ident(s) => s.as_str().into(),
        Value::Bytes(b) => hex(b).into(),
        Value::Access(a) => format!("%{}", a.name).into(),
        Value::List(items) => BirValue::List(
            items
                .iter()
                .map(|v| value_json(v).unwrap_or(BirValue::Null))
                .collect(),
        ),
        Value::Record(fields) => record_json(fields),
        Value::Call { name, .. } => name.into(),
        Value::Pred(_) | Value::Error => return None,
    })
}

/// A record as a JSON object; a key written twice keeps its first place and last value.
fn record_json(fields: &[crate::model::Field]) -> BirValue {
    BirValue::record(fields.iter().map(|field| {
        (
            field.name.to_string().into(),
            value_json(&field.value).unwrap_or(BirValue::Null),
        )
    }))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn lower_inline_asm(cx: &mut Cx<'_>) {
    let bytes_form = cx.spec.class == "InlineASMBytesInst";
    let count = cx.list(fname::operands).len();
    let default_inputs = count.saturating_sub(1);
    let num_inputs = match cx.int(fname::num_inputs) {
        Some(n) if n < 0 => {
            let anchor = cx.anchor(fname::num_inputs);
            cx.error(
                Code::P414,
                anchor,
                format!("num_inputs is a count; got {n}"),
            );
            default_inputs
        }
        Some(n) if n as u64 > count as u64 => {
            let anchor = cx.anchor(fname::num_inputs);
            cx.error(
                Code::P305,
                anchor,
                format!("num_inputs is {n} but there are {count} operands"),
            );
            count
        }
        Some(n) => n as usize,
        None => default_inputs,
    };

    // Arguments: inputs in `ins`, outputs in `outs`; outputs count as writes (P501).
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    let mut written = Vec::new();
    if let Some(path) = cx
        .path(fname::operands)
        .filter(|_| cx.index(fname::operands).is_some())
    {
        for (k, value) in cx.list(fname::operands).iter().enumerate() {
            let Some(operand) = cx.operand_at(&path.element(k)) else {
                continue;
            };
            let arg = operand.to_arg(Role::element(fname::operands, k));
            if k < num_inputs {
                ins.push(arg);
            } else {
                outs.push(arg);
                if let Value::Access(a) = value {
                    written.push(a.name.to_string());
                }
            }
        }
        let read: Vec<String> = cx.list(fname::operands)[..num_inputs.min(count)]
            .iter()
            .filter_map(|v| match v {
                Value::Access(a) if matches!(a.target, Target::Tensor(_)) => {
                    Some(a.name.to_string())
                }
                _ => None,
            })
            .collect();
        for name in written {
            let still_read = read.contains(&name);
            cx.mark_written(&name, still_read);
        }
    }

    if bytes_form {
        let asm = match cx.value(fname::asm_bytes) {
            Some(Value::Bytes(b)) if b.is_empty() => {
                let anchor = cx.anchor(fname::asm_bytes);
                cx.error(Code::P414, anchor, "asm_bytes is empty");
                String::new()
            }
            Some(Value::Bytes(b)) => hex(b),
            _ => String::new(),
        };
        let latency = cx.int(fname::latency_estimate);
        if let Some(n) = latency.filter(|n| *n < 0) {
            let anchor = cx.anchor(fname::latency_estimate);
            cx.error(
                Code::P414,
                anchor,
                format!("latency_estimate is a number of cycles (≥ 0); got {n}"),
            );
        }
        let sync = cx
            .ident(fname::sync_type)
            .map_or("DataPathType", |s| SYNC_TYPE.bir(s));
        let inst = cx.inst(Opcode::InlineAsmBytes);
        inst.ins = ins;
        inst.outs = outs;
        inst.set(F::AsmBytes, asm)
            .set(F::SyncType, sync)
            .set(F::LatencyEstimate, latency.unwrap_or(0).max(0))
            .set(F::NumInputs, num_inputs);
    } else {
        let opcode = cx.string(fname::opcode).map(str::to_string);
        let attrs = match cx.value(fname::asm_attrs) {
            Some(Value::Record(fields)) => record_json(fields),
            _ => BirValue::Record(Vec::new()),
        };
        let inst = cx.inst(Opcode::InlineAsm);
        inst.ins = ins;
        inst.outs = outs;
        if let Some(opcode) = opcode {
            inst.set(F::AsmOpcode, opcode);
        }
        inst.set(F::AsmAttrs, attrs).set(F::NumInputs, num_inputs);
    }
}

// ----- DropoutMaskInst ------------------------------------------------------------

/// DropoutMaskInst → `Dropout` (engine DVE).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static DROPOUT_MASK_INST: OpSpec = OpSpec {
    class: "DropoutMaskInst",
    opcode: "Dropout",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: None,
    doc: "Dropout: keeps each element of `src` with probability `keep_rate` (or, with \
          `is_keep_rate = false`, drops it with that probability) and zeroes the rest, into \
          `dst` (BIR `Dropout`; `is_keep_threshold` carries `is_keep_rate`).",
    source: "seed 000 §7.6 codegenDropoutMaskInst (set_keep_rate, is_keep_rate, strip_fp32r); \
             SPEC §6.7",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the masked output; same partitions and free size as `src`",
        ),
        src(Mems::ON_CHIP, "the input"),
        FieldSpec {
            name: fname::keep_rate,
            kind: Kind::Float,
            default: Default::Required,
            bir: "an `imm_value` argument (float32) last in `ins`, role `keep_rate`",
            doc: "the rate, in (0, 1]: of keeping an element (`is_keep_rate`, the default) \
                  or of dropping it",
        },
        FieldSpec {
            name: fname::is_keep_rate,
            kind: Kind::Bool,
            default: Default::Bool(true),
            bir: "is_keep_threshold",
            doc: "true: `keep_rate` is the probability of keeping an element; false: of \
                  dropping it (the seed gates the rate with `is_keep_rate`)",
        },
    ],
    lower: lower_dropout,
};

fn lower_dropout(cx: &mut Cx<'_>) {
    check_same_partitions_and_free(cx, fname::src, fname::dst);
    let keep = cx.float(fname::keep_rate);
    if let Some(k) = keep.filter(|k| !(*k > 0.0 && *k <= 1.0)) {
        let anchor = cx.anchor(fname::keep_rate);
        cx.error(
            Code::P414,
            anchor,
            format!(
                "keep_rate is a probability in (0, 1]; got {}",
                types::show_number(k)
            ),
        );
    }
    let is_keep_rate = cx.bool(fname::is_keep_rate);
    let inst = cx.inst_with_args(Opcode::Dropout);
    // SPEC §6.7 [3]: the rate is bound as an immediate (seed 000 §7.6 addImmValue), the
    // last `ins` entry, not a key.
    if let Some(k) = keep {
        inst.ins.push(Arg::new(
            ArgKind::Imm {
                dtype: Dtype::F32,
                value: BirValue::Float(k),
            },
            Role::field(fname::keep_rate),
        ));
    }
    inst.set(F::IsKeepThreshold, is_keep_rate);
}

// ----- IndexValueInst -------------------------------------------------------------

/// IndexValueInst → `Iota` (engine Pool).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static INDEX_VALUE_INST: OpSpec = OpSpec {
    class: "IndexValueInst",
    opcode: "Iota",
    engine: EngineSpec::Fixed(Engine::Pool),
    instruction_type: None,
    doc: "Fills `dst` with an affine index: element (p, f) = base + channel_multiplier·p + \
          step·f, f the flattened free index (BIR `Iota`, the public `iota`). Every value must \
          fit the dst dtype.",
    source: "seed 000 §7.6 codegenIndexValueInst (set_base, step, set_pattern, \
             set_channel_multiplier); SPEC §6.7",
    fields: &[
        dst(Mems::SBUF, "the output, in sbuf"),
        FieldSpec {
            name: fname::base,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "base",
            doc: "the value of element (0, 0)",
        },
        FieldSpec {
            name: fname::step,
            kind: Kind::Int,
            default: Default::Int(1),
            bir: "pattern [{\"step\": step, \"num\": dst free size}]",
            doc: "the increment along the flattened free dims",
        },
        FieldSpec {
            name: fname::channel_multiplier,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "channel_multiplier",
            doc: "the increment per partition",
        },
    ],
    lower: lower_iota,
};

fn lower_iota(cx: &mut Cx<'_>) {
    let (base, step, cm) = (
        cx.int(fname::base),
        cx.int(fname::step),
        cx.int(fname::channel_multiplier),
    );
    let shape = cx
        .any_operand(fname::dst)
        .map(|d| (d.partitions(), d.free_size(), d.tensor.dtype));
    // P412: the extreme values over every element (an affine function of p and f reaches
    // them at the corners).
    if let (Some(b), Some(s), Some(c), Some((p, f, dtype))) = (base, step, cm, shape) {
        let (b, s, c) = (b as i128, s as i128, c as i128);
        let (pl, fl) = (p.saturating_sub(1) as i128, f.saturating_sub(1) as i128);
        let (cp, sf) = (c.saturating_mul(pl), s.saturating_mul(fl));
        // The first value outside the range (SPEC §4 [2] for float dtypes) among base, the
        // lowest and the highest element.
        let outside = |terms: &[i128]| {
            let low = terms
                .iter()
                .fold(b, |acc, t| acc.saturating_add((*t).min(0)));
            let high = terms
                .iter()
                .fold(b, |acc, t| acc.saturating_add((*t).max(0)));
            [b, low, high]
                .into_iter()
                .find(|v| !types::in_range(dtype, *v as f64))
        };
        // The base first, then the lowest and highest element over p and f.
        if let Some(value) = outside(&[sf, cp]) {
            // SPEC §7 [2]: the `step` value when written and non-zero, else the `base`
            // value when written, else the op class name.
            let anchor = if cx.written(fname::step) && step != Some(0) {
                cx.anchor(fname::step)
            } else if cx.written(fname::base) {
                cx.anchor(fname::base)
            } else {
                Anchor::Class
            };
            cx.error(
                Code::P412,
                anchor,
                format!(
                    "iota reaches {value}, outside {}'s range (base {b}, step {s}, channel_multiplier {c} over [{p}, {f}])",
                    dtype.name()
                ),
            );
        }
    }
    let num = shape.map(|(_, f, _)| f);
    let inst = cx.inst_with_args(Opcode::Iota);
    if let Some(b) = base {
        inst.set(F::Base, b);
    }
    // An unknown step or count (a faulty field) is written as the public APPair's
    // default, 1, since the schema requires both.
    let pair = BirValue::Record(vec![
        (fname::step.into(), step.unwrap_or(1).into()),
        ("num".into(), num.unwrap_or(1).into()),
    ]);
    inst.set(F::Pattern, BirValue::List(vec![pair]));
    if let Some(c) = cm {
        inst.set(F::ChannelMultiplier, c);
    }
}

// ----- StreamShuffleInst ------------------------------------------------------------

/// The mask entry that leaves a lane unchanged (SPEC §6.7).
const SHUFFLE_KEEP: i64 = 255;

/// StreamShuffleInst → `StreamShuffle` (engine DVE).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static STREAM_SHUFFLE_INST: OpSpec = OpSpec {
    class: "StreamShuffleInst",
    opcode: "StreamShuffle",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: None,
    doc: "Moves partitions within one 32-partition quadrant: lane i of `dst` gets partition \
          `shuffle_mask[i]` of `src` (255 leaves the lane unchanged). The public RMSNorm kernel \
          broadcasts one partition to 32 with a mask of zeros.",
    source: "seed 000 §7.6 codegenStreamShuffleInst (setMask(shuffle_mask)); SPEC §6.7",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the output, inside one quadrant; src's dtype and free size",
        ),
        src(Mems::ON_CHIP, "the input, inside one quadrant"),
        FieldSpec {
            name: fname::shuffle_mask,
            kind: Kind::List(&Kind::Int),
            default: Default::Required,
            bir: "mask",
            doc: "32 entries: a partition of `src` per lane, or 255 to leave the lane unchanged",
        },
    ],
    lower: lower_stream_shuffle,
};

fn lower_stream_shuffle(cx: &mut Cx<'_>) {
    if let (Some(a), Some(b)) = (cx.operand(fname::src), cx.operand(fname::dst)) {
        let (ad, bd, af, bf) = (a.tensor.dtype, b.tensor.dtype, a.free_size(), b.free_size());
        if ad != bd || af != bf {
            let anchor = later_anchor(cx, fname::src, fname::dst);
            cx.error(
                Code::P305,
                anchor,
                format!(
                    "a shuffle moves whole partitions: src is {} × {af} per partition, dst {} × {bf}",
                    ad.name(),
                    bd.name()
                ),
            );
        }
    }
    // Quadrant-local: the generic P307 check puts each access at a quadrant start, so it
    // stays in its quadrant iff it spans at most 32 partitions. A stepped partition slice is
    // P415 (SPEC §6.7 [2] decision: seed 000 §2.3 gives the literal and its owner, the
    // stream-shuffle mask surface).
    for field in [fname::dst, fname::src] {
        let Some(o) = cx.operand(field) else { continue };
        let Some(d0) = o.dims.first().filter(|_| o.on_chip()) else {
            continue;
        };
        if d0.step != 1 {
            let anchor = cx.anchor(field);
            cx.error(
                Code::P415,
                anchor,
                "Mask pattern only support 1 step multiplier",
            );
            continue;
        }
        let span = (d0.count as i128 - 1) * d0.step as i128 + 1;
        if span > limits::QUADRANT as i128 {
            let anchor = cx.anchor(field);
            cx.error(
                Code::P414,
                anchor,
                format!("a stream shuffle stays inside one 32-partition quadrant; `{field}` spans {span} partitions"),
            );
        }
    }
    let mask = cx
        .int_list(fname::shuffle_mask)
        .filter(|_| cx.index(fname::shuffle_mask).is_some());
    if let (Some(mask), Some(path)) = (&mask, cx.path(fname::shuffle_mask)) {
        let partitions = cx.operand(fname::src).map(|s| s.partitions());
        if mask.len() as u64 != limits::QUADRANT {
            cx.error(
                Code::P414,
                Anchor::Value(path),
                format!(
                    "shuffle_mask has one entry per lane of a quadrant: 32, not {}",
                    mask.len()
                ),
            );
        } else {
            check_mask_entries(cx, mask, &path, partitions);
        }
    }
    let inst = cx.inst_with_args(Opcode::StreamShuffle);
    if let Some(mask) = mask {
        inst.set(F::Mask, mask);
    }
}

/// P414 on each mask entry that is neither 255 nor a partition of `src`.
fn check_mask_entries(cx: &mut Cx<'_>, mask: &[i64], path: &ValuePath, partitions: Option<u64>) {
    let limit = partitions.unwrap_or(limits::QUADRANT) as i64;
    for (k, &entry) in mask.iter().enumerate() {
        if entry != SHUFFLE_KEEP && !(0..limit).contains(&entry) {
            cx.error(
                Code::P414,
                Anchor::Value(path.element(k)),
                format!(
                    "mask entry {entry} is neither 255 (unchanged) nor a src partition (0..{limit})"
                ),
            );
        }
    }
}

// ----- NoOp -----------------------------------------------------------------------

/// NoOp: no instruction.
pub static NO_OP: OpSpec = OpSpec {
    class: "NoOp",
    opcode: "",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: None,
    doc: "Does nothing and emits no BIR instruction (a scheduling or scope marker).",
    source: "seed 000 §7.6 codegenNoOp; SPEC §6.7",
    fields: &[],
    lower: lower_no_op,
};

fn lower_no_op(_cx: &mut Cx<'_>) {}

// ----- TensorTensorOp ---------------------------------------------------------------

/// TensorTensorOp → `TensorTensor` (engine dve by default, or pool).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static TENSOR_TENSOR_OP: OpSpec = OpSpec {
    class: "TensorTensorOp",
    opcode: "TensorTensor",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: &[Engine::Dve, Engine::Pool],
    },
    instruction_type: None,
    doc: "Elementwise `dst = src0 op src1` (BIR `TensorTensor`, the public \
          `tensor_tensor`). All three have the same partitions and free size; at most one \
          source is in PSUM. The accesses may start at different partitions.",
    source: "SPEC §6.7 (decision); public nki.isa.tensor_tensor",
    fields: &[
        dst(Mems::ON_CHIP, "the result"),
        input(
            fname::src0,
            Mems::ON_CHIP,
            "operand `src0` (ins)",
            "the left operand",
        ),
        input(
            fname::src1,
            Mems::ON_CHIP,
            "operand `src1` (ins)",
            "the right operand; not in PSUM when src0 is",
        ),
        FieldSpec {
            name: fname::op,
            kind: Kind::Enum(&ALU),
            default: Default::Required,
            bir: "op (public ALU spelling: multiply → mult)",
            doc: "the elementwise ALU operation",
        },
        FieldSpec {
            name: fname::engine,
            kind: Kind::Enum(&ENGINE),
            default: Default::Ident("dve"),
            bir: "the instruction's `engine`",
            doc: "dve or pool",
        },
    ],
    lower: lower_tensor_tensor,
};

fn lower_tensor_tensor(cx: &mut Cx<'_>) {
    // One P305 at most: the first operand, in the order written, that disagrees with an
    // earlier one.
    let mut written: Vec<(usize, &str)> = [fname::dst, fname::src0, fname::src1]
        .into_iter()
        .filter_map(|f| Some((cx.index(f)?, f)))
        .collect();
    written.sort_unstable();
    'outer: for (i, (_, later)) in written.iter().enumerate() {
        for (_, earlier) in &written[..i] {
            let (Some(a), Some(b)) = (cx.operand(earlier), cx.operand(later)) else {
                continue;
            };
            if a.partitions() != b.partitions() || a.free_size() != b.free_size() {
                let (pa, fa, pb, fb) =
                    (a.partitions(), a.free_size(), b.partitions(), b.free_size());
                let anchor = cx.anchor(later);
                cx.error(
                    Code::P305,
                    anchor,
                    format!("`{later}` has {pb} partitions × {fb} elements but `{earlier}` has {pa} × {fa}"),
                );
                break 'outer;
            }
        }
    }
    // Pool's own PSUM rule (generic P301) already covers the pool engine.
    let in_psum = |cx: &Cx<'_>, f: &str| {
        cx.any_operand(f)
            .is_some_and(|o| o.tensor.memory == Memory::Psum)
    };
    if cx.engine != Engine::Pool && in_psum(cx, fname::src0) && in_psum(cx, fname::src1) {
        let anchor = cx.anchor(fname::src1);
        cx.error(Code::P301, anchor, "src0 and src1 cannot both be in PSUM");
    }
    let op = cx.ident(fname::op).map(|o| alu_bir(o).to_string());
    let inst = cx.inst_with_args(Opcode::TensorTensor);
    if let Some(op) = op {
        inst.set(F::Op, op);
    }
    inst.set(F::Acc, "Idle");
}
