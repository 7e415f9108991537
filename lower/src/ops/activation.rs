//! The activation pair on the Activation (scalar) engine (SPEC §6.2; seed 000 §3):
//! ActivationOp → `Activation` (or `ActivationAccumulationOp`), Activate2 → `Activation`
//! with `is_activate2`.

use super::common::{
    check_imm_pointer, check_pointer_shape, check_same_partitions_and_free, check_start_partition,
    dst, src,
};
use crate::bir::{Field as F, Opcode};
use crate::catalog::fname;
use crate::catalog::{
    ACT_FUNC, ALU, Default, Dir, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems,
    OpSpec,
};
use crate::cx::{Cx, alu_bir};
use crate::diag::Code;
use crate::model::Value;
use crate::types::Dtype;

static REDUCE_CMD: EnumSpec = EnumSpec {
    name: fname::reduce_cmd,
    values: &[
        EnumValue {
            text: "idle",
            bir: "Idle",
            doc: "no fused reduce",
        },
        EnumValue {
            text: "reset",
            bir: "Zero",
            doc: "reset the accumulator",
        },
        EnumValue {
            text: "reduce",
            bir: "Accumulate",
            doc: "accumulate into the running reduce",
        },
        EnumValue {
            text: "reset_reduce",
            bir: "ZeroAccumulate",
            doc: "reset, then accumulate",
        },
    ],
};

const DST: FieldSpec = dst(Mems::ON_CHIP, "the output access (sbuf or psum)");
const SRC: FieldSpec = src(
    Mems::ON_CHIP,
    "the input access (sbuf or psum), same partitions and free size as `dst`",
);
const FUNC: FieldSpec = FieldSpec {
    name: fname::func,
    kind: Kind::Enum(&ACT_FUNC),
    default: Default::Required,
    bir: "func (capitalised: exp → \"Exp\", log → \"Ln\")",
    doc: "the activation function",
};
const FUNC_ARGS: FieldSpec = FieldSpec {
    name: fname::func_args,
    kind: Kind::List(&Kind::Float),
    default: Default::EmptyList,
    bir: "func_args",
    doc: "extra constant arguments of the function",
};
const FUNC_OUTS: FieldSpec = FieldSpec {
    name: fname::func_outs,
    kind: Kind::List(&Kind::Acc(Mems::ON_CHIP, Dir::Out)),
    default: Default::EmptyList,
    bir: "func_outs (operands, outs)",
    doc: "extra outputs of the function",
};
const SCALE: FieldSpec = FieldSpec {
    name: fname::scale,
    kind: Kind::Imm(Mems::SBUF),
    default: Default::Float(1.0),
    bir: "scale (a number); a pointer becomes an `ins` argument with role `scale` and scale 1.0",
    doc: "multiplies the input before the function: a number, or a [P, 1] f32 pointer",
};
const BIAS: FieldSpec = FieldSpec {
    name: fname::bias,
    kind: Kind::Acc(Mems::SBUF, Dir::In),
    default: Default::Absent,
    bir: "operand `bias` (ins)",
    doc: "a [P, 1] per-partition bias added before the function",
};
const UP_BIAS: FieldSpec = FieldSpec {
    name: fname::up_bias,
    kind: Kind::Acc(Mems::SBUF, Dir::In),
    default: Default::Absent,
    bir: "operand `up_bias` (ins)",
    doc: "the up-direction bias",
};
const DOWN_BIAS: FieldSpec = FieldSpec {
    name: fname::down_bias,
    kind: Kind::Acc(Mems::SBUF, Dir::In),
    default: Default::Absent,
    bir: "operand `down_bias` (ins)",
    doc: "the down-direction bias",
};
const IMM0: FieldSpec = FieldSpec {
    name: fname::imm0,
    kind: Kind::Imm(Mems::SBUF),
    default: Default::Absent,
    bir: "imm0 (a number), or an `ins` argument with role `imm0`",
    doc: "first immediate (constant or pointer)",
};
const IMM1: FieldSpec = FieldSpec {
    name: fname::imm1,
    kind: Kind::Imm(Mems::SBUF),
    default: Default::Absent,
    bir: "imm1 (a number), or an `ins` argument with role `imm1`",
    doc: "second immediate (constant or pointer)",
};
const REDUCE_OP: FieldSpec = FieldSpec {
    name: fname::reduce_op,
    kind: Kind::Enum(&ALU),
    default: Default::Absent,
    bir: "reduce_op",
    doc: "fuses a reduce along the free dim into `reduce_dst`",
};
const REDUCE_CMD_FIELD: FieldSpec = FieldSpec {
    name: fname::reduce_cmd,
    kind: Kind::Enum(&REDUCE_CMD),
    default: Default::Computed("reset_reduce when reduce_op is set, else idle"),
    bir: "acc: Idle | Zero | Accumulate | ZeroAccumulate",
    doc: "what the fused reduce does with its accumulator",
};
const REDUCE_DST: FieldSpec = FieldSpec {
    name: fname::reduce_dst,
    kind: Kind::Acc(Mems::SBUF, Dir::Out),
    default: Default::Absent,
    bir: "operand `reduce_dst` (outs)",
    doc: "the [P, 1] result of the fused reduce; required iff reduce_op is set",
};
const IS_ACCUMULATE: FieldSpec = FieldSpec {
    name: fname::is_accumulate,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "selects ActivationAccumulationOp; is_accumulate",
    doc: "accumulate into dst (emits ActivationAccumulationOp)",
};

/// ActivationOp → `Activation` / `ActivationAccumulationOp`.
pub static ACTIVATION_OP: OpSpec = OpSpec {
    class: "ActivationOp",
    opcode: "Activation | ActivationAccumulationOp",
    engine: EngineSpec::Fixed(Engine::Act),
    instruction_type: None,
    doc: "`dst = func(src · scale + bias)` on the Activation engine, optionally reducing the \
          result along the free dim into `reduce_dst`. With `is_accumulate` it emits \
          `ActivationAccumulationOp`.",
    source: "seed 000 §3 codegenActivationOp; SPEC §6.2",
    fields: &[
        DST,
        SRC,
        FUNC,
        FUNC_ARGS,
        FUNC_OUTS,
        SCALE,
        BIAS,
        UP_BIAS,
        DOWN_BIAS,
        IMM0,
        IMM1,
        REDUCE_OP,
        REDUCE_CMD_FIELD,
        REDUCE_DST,
        IS_ACCUMULATE,
    ],
    lower: lower_activation,
};

/// Activate2 → `Activation` with `is_activate2: true`.
pub static ACTIVATE2: OpSpec = OpSpec {
    class: "Activate2",
    opcode: "Activation",
    engine: EngineSpec::Fixed(Engine::Act),
    instruction_type: None,
    doc: "The dual activation: ActivationOp's fields plus a second function `func2` writing \
          `dst2` (BIR `Activation` with `is_activate2: true`).",
    source: "seed 000 §3 codegenActivate2 (setIsActivate2); SPEC §6.2",
    fields: &[
        DST,
        SRC,
        FUNC,
        FUNC_ARGS,
        FUNC_OUTS,
        SCALE,
        BIAS,
        UP_BIAS,
        DOWN_BIAS,
        IMM0,
        IMM1,
        REDUCE_OP,
        REDUCE_CMD_FIELD,
        REDUCE_DST,
        IS_ACCUMULATE,
        FieldSpec {
            name: fname::func2,
            kind: Kind::Enum(&ACT_FUNC),
            default: Default::Required,
            bir: "func2 (capitalised like func)",
            doc: "the second activation function",
        },
        FieldSpec {
            name: fname::dst2,
            kind: Kind::Acc(Mems::ON_CHIP, Dir::Out),
            default: Default::Required,
            bir: "operand `dst2` (outs)",
            doc: "the output of the second function; the dst's partitions and free size",
        },
    ],
    lower: lower_activation,
};

/// P305 on `dst2` unless it has the dst's partition count and free size (SPEC §6.2 [2]).
fn check_dst2(cx: &mut Cx<'_>) {
    let (Some(dst), Some(dst2)) = (cx.operand(fname::dst), cx.operand(fname::dst2)) else {
        return;
    };
    let (p, f, p2, f2) = (
        dst.partitions(),
        dst.free_size(),
        dst2.partitions(),
        dst2.free_size(),
    );
    if (p, f) != (p2, f2) {
        let anchor = cx.anchor(fname::dst2);
        cx.error(
            Code::P305,
            anchor,
            format!("`dst2` has {p2} partitions × {f2} elements but `dst` has {p} × {f}"),
        );
    }
}

/// P407 on `bias` unless it is f32, f16 or bf16 (SPEC §7.1 [3]; NKI: "Bias parameter of
/// activation or activation_reduce must be a vector of type float32, float16, or
/// bfloat16").
fn check_bias_dtype(cx: &mut Cx<'_>) {
    let Some(dtype) = cx.operand(fname::bias).map(|b| b.tensor.dtype) else {
        return;
    };
    if !matches!(dtype, Dtype::F32 | Dtype::F16 | Dtype::Bf16) {
        let anchor = cx.anchor(fname::bias);
        cx.error(
            Code::P407,
            anchor,
            format!(
                "{}: `bias` is {}",
                crate::diag::compiler::ACTIVATION_BIAS_DTYPE,
                dtype.name()
            ),
        );
    }
}

fn lower_activation(cx: &mut Cx<'_>) {
    let activate2 = cx.spec.class == "Activate2";
    check_same_partitions_and_free(cx, fname::dst, fname::src);
    if activate2 {
        // `dst2` follows the `dst` rules: the dst's partitions and free size, P305 on
        // `dst2` (SPEC §6.2 [2]).
        check_dst2(cx);
    }
    let class = cx.spec.class;
    check_start_partition(cx, class);
    let partitions = cx.operand(fname::dst).map(|d| d.partitions());
    if let Some(p) = partitions {
        for field in [fname::bias, fname::reduce_dst] {
            if let Some(operand) = cx.operand(field).cloned() {
                let anchor = cx.anchor(field);
                check_pointer_shape(cx, field, anchor, &operand, p);
            }
        }
        check_imm_pointer(cx, fname::scale, Some(p), true);
    }
    check_bias_dtype(cx);
    let reduce = cx.written(fname::reduce_op);
    if reduce && !cx.written(fname::reduce_dst) {
        cx.needs_field(fname::reduce_dst, "reduce_op needs the field `reduce_dst`");
    }
    if !reduce && cx.written(fname::reduce_dst) {
        cx.needs_field(fname::reduce_op, "reduce_dst needs the field `reduce_op`");
    }

    let func = cx.ident(fname::func).map(|f| ACT_FUNC.bir(f).to_string());
    let func2 = activate2
        .then(|| cx.ident(fname::func2).map(|f| ACT_FUNC.bir(f).to_string()))
        .flatten();
    let func_args: Vec<f64> = cx
        .list(fname::func_args)
        .iter()
        .filter_map(Value::as_number)
        .collect();
    let scale = match cx.value(fname::scale) {
        Some(Value::Access(_)) => 1.0,
        _ => cx.float(fname::scale).unwrap_or(1.0),
    };
    let acc = match cx.ident(fname::reduce_cmd) {
        Some(cmd) => REDUCE_CMD.bir(cmd),
        None if reduce => "ZeroAccumulate",
        None => "Idle",
    };
    let reduce_op = cx.ident(fname::reduce_op).map(|op| alu_bir(op).to_string());
    let imms: Vec<(F, Option<f64>)> = [(fname::imm0, F::Imm0), (fname::imm1, F::Imm1)]
        .into_iter()
        .map(|(f, key)| (key, cx.value(f).and_then(Value::as_number)))
        .collect();
    let accumulate = cx.bool(fname::is_accumulate);
    let opcode = if accumulate {
        Opcode::ActivationAccumulationOp
    } else {
        Opcode::Activation
    };
    let inst = cx.inst_with_args(opcode);
    if let Some(func) = func {
        inst.set(F::Func, func);
    }
    if activate2 {
        inst.set(F::IsActivate2, true);
        if let Some(f2) = func2 {
            inst.set(F::Func2, f2);
        }
    }
    if !func_args.is_empty() {
        inst.set_floats(F::FuncArgs, &func_args);
    }
    inst.set_float(F::Scale, scale).set(F::Acc, acc);
    if let Some(op) = reduce_op {
        inst.set(F::ReduceOp, op);
    }
    for (name, value) in imms {
        if let Some(v) = value {
            inst.set_float(name, v);
        }
    }
    inst.set(F::IsAccumulate, accumulate);
}
