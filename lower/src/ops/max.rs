//! The Sunda (DVE) max-of-8 family behind top-k and argmax (SPEC §6.5; seed 000 §6):
//! SundaMax8 → `Max` (IT 88), SundaMaxIndex8 → `MaxIndex` (IT 89), SundaMatchReplace8 →
//! `MatchReplace` (IT 90), MaxIndexAndMatchReplace → `MaxIndexAndMatchReplace` (IT 91).

use super::common::{
    check_pointer_shape, check_same_partitions_and_free, dst, input, later_anchor, src,
};
use crate::bir::{Arg, ArgKind, Field as F, Opcode};
use crate::catalog::fname;
use crate::catalog::{Default, Dir, Engine, EngineSpec, FieldSpec, Kind, Mems, OpSpec};
use crate::cx::Cx;
use crate::diag::Code;
use crate::model::Value;
use crate::types::{self, Dtype, limits};

/// The lane count of the family: eight values (or indices) per partition.
const LANES: u64 = 8;

const SRC: FieldSpec = src(
    Mems::ON_CHIP,
    "the data searched, [P, F] with F from 8 to 16,384",
);
const VALS: FieldSpec = input(
    fname::vals,
    Mems::ON_CHIP,
    "operand `vals` (ins)",
    "the eight values per partition to find and replace, [P, 8]",
);
const IMM: FieldSpec = FieldSpec {
    name: fname::imm,
    kind: Kind::Imm(Mems::SBUF),
    default: Default::Required,
    bir: "imm_value (clipped into the dst dtype's range; \"-inf\" for -inf)",
    doc: "the value written over every match (`-inf` in top-k); clip_scalar-ed into the dst dtype",
};

/// SundaMax8 → `Max` (IT 88). No BIR fields beyond the common ones.
pub static SUNDA_MAX8: OpSpec = OpSpec {
    class: "SundaMax8",
    opcode: "Max",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(88),
    doc: "The eight largest values of each partition of `src`, in descending order, into the \
          `[P, 8]` `dst` (BIR `Max`, the public `nc_max8`).",
    source: "seed 000 §6.2 codegenSundaMax8; SPEC §6.5",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the eight largest values per partition, [P, 8]",
        ),
        SRC,
    ],
    lower: lower_max8,
};

/// SundaMaxIndex8 → `MaxIndex` (IT 89). No BIR fields; the index output is emitted with
/// an unsigned dtype.
pub static SUNDA_MAX_INDEX8: OpSpec = OpSpec {
    class: "SundaMaxIndex8",
    opcode: "MaxIndex",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(89),
    doc: "The indices in `src` of the eight values `max_vals` (from SundaMax8), per partition, \
          into the `[P, 8]` `dst` (BIR `MaxIndex`, the public `nc_find_index8`). The index \
          output is reinterpreted to the unsigned dtype of its width.",
    source: "seed 000 §6.2 codegenSundaMaxIndex8 (reinterpret_dst_inplace, \
             unsigned_int_dtype); SPEC §6.5",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the indices, [P, 8]: u16/i16 (emitted uint16), u32/i32 (uint32); other 2- or 4-byte dtypes by width (P410)",
        ),
        input(
            fname::max_vals,
            Mems::ON_CHIP,
            "operand `max_vals` (ins)",
            "the eight values to locate, [P, 8]",
        ),
        SRC,
    ],
    lower: lower_max_index8,
};

/// SundaMatchReplace8 → `MatchReplace` (IT 90).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static SUNDA_MATCH_REPLACE8: OpSpec = OpSpec {
    class: "SundaMatchReplace8",
    opcode: "MatchReplace",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(90),
    doc: "Copies `src` to `dst`, replacing the first occurrence of each of the eight `vals` of \
          a partition by `imm` (BIR `MatchReplace`, the public `nc_match_replace8`).",
    source: "seed 000 §6.2 codegenSundaMatchReplace8 (asscalar_or_str, setImmediateVal, \
             clip_scalar); SPEC §6.5",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the data with the matches replaced; shaped like `src`",
        ),
        SRC,
        VALS,
        IMM,
    ],
    lower: lower_match_replace8,
};

/// MaxIndexAndMatchReplace → `MaxIndexAndMatchReplace` (IT 91).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. The index output is emitted with an unsigned dtype.
pub static MAX_INDEX_AND_MATCH_REPLACE: OpSpec = OpSpec {
    class: "MaxIndexAndMatchReplace",
    opcode: "MaxIndexAndMatchReplace",
    engine: EngineSpec::Fixed(Engine::Dve),
    instruction_type: Some(91),
    doc: "The fused top-k step: replaces the eight `vals` of each partition of `src` by `imm` \
          into `dst` and writes their indices into `dst_idx` (BIR `MaxIndexAndMatchReplace`, \
          the public `nc_match_replace8` with `dst_idx`).",
    source: "seed 000 §6.1 codegenMaxIndexAndMatchReplace (asscalar_or_str, setImmediateVal, \
             clip_scalar, dst_idx); SPEC §6.5",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the data with the matches replaced; shaped like `src`",
        ),
        FieldSpec {
            name: fname::dst_idx,
            kind: Kind::Acc(Mems::ON_CHIP, Dir::Out),
            default: Default::Required,
            bir: "operand `dst_idx` (outs), emitted with an unsigned dtype",
            doc: "the indices of the matches, [P, 8]: u16/i16, u32/i32; other 2- or 4-byte dtypes by width (P410)",
        },
        SRC,
        VALS,
        IMM,
    ],
    lower: lower_max_index_and_match_replace,
};

/// P305 on `src` unless it holds 8 to 16,384 elements per partition (the public
/// `nki.isa.max8` bounds; SPEC §6.5 [2]), for all four ops.
fn check_src_size(cx: &mut Cx<'_>) {
    let Some(free) = cx.operand(fname::src).map(|s| s.free_size()) else {
        return;
    };
    let (lo, hi) = (limits::MAX8_MIN_FREE, limits::MAX8_MAX_FREE);
    if !(lo..=hi).contains(&free) {
        let anchor = cx.anchor(fname::src);
        cx.error(
            Code::P305,
            anchor,
            format!("`src` must hold {lo} to {hi} elements per partition; it holds {free}"),
        );
    }
}

/// P305 unless `field` is `[P, 8]` with P the src's partition count: a free size other
/// than 8 on the operand itself, a partition mismatch on the later of it and `src`.
fn check_lanes(cx: &mut Cx<'_>, field: &str) {
    let Some(operand) = cx.operand(field) else {
        return;
    };
    let (p, f, shape) = (operand.partitions(), operand.free_size(), operand.shape());
    if f != LANES {
        let anchor = cx.anchor(field);
        cx.error(
            Code::P305,
            anchor,
            format!("`{field}` must be [P, 8] (eight per partition); it is {shape:?}"),
        );
        return;
    }
    let Some(sp) = cx.operand(fname::src).map(|s| s.partitions()) else {
        return;
    };
    if p != sp {
        let anchor = later_anchor(cx, fname::src, field);
        cx.error(
            Code::P305,
            anchor,
            format!("`{field}` has {p} partitions but `src` has {sp}"),
        );
    }
}

/// The dtype the index output `field` is emitted with (seed 000 §6.2
/// `reinterpret_dst_inplace`, "uint16/uint32 by width"; SPEC §6.5 [3]): uint16 for
/// u16/i16, uint32 for u32/i32, and any other 2- or 4-byte dtype (bf16, f16: uint16; f32:
/// uint32) by its width with warning P410; a 1-byte (or packed) dtype has no unsigned view
/// in the seed's pair and is P407, emitted unchanged.
fn index_dtype(cx: &mut Cx<'_>, field: &str) -> Option<Dtype> {
    let dtype = cx.any_operand(field)?.tensor.dtype;
    let anchor = cx.anchor(field);
    match dtype {
        Dtype::U16 | Dtype::I16 => Some(Dtype::U16),
        Dtype::U32 | Dtype::I32 => Some(Dtype::U32),
        other => match other.unsigned_of_width() {
            Some(view @ (Dtype::U16 | Dtype::U32)) if !other.is_x4() => {
                cx.error(
                    Code::P410,
                    anchor,
                    format!(
                        "the {} index output `{field}` is reinterpreted as {}",
                        other.name(),
                        view.bir_name()
                    ),
                );
                Some(view)
            }
            _ => {
                cx.error(
                    Code::P407,
                    anchor,
                    format!(
                        "index output `{field}` is {}; indices are 2 or 4 bytes wide (u16, \
                         i16, u32, i32; others are viewed as uint16/uint32 by width)",
                        other.name()
                    ),
                );
                None
            }
        },
    }
}

/// Rewrites the dtype of the `outs` argument with role `role`.
fn reinterpret(outs: &mut [Arg], role: &str, dtype: Dtype) {
    for arg in outs
        .iter_mut()
        .filter(|a| a.role.field == role && a.role.index.is_none())
    {
        if let ArgKind::Tensor { dtype: d, .. } = &mut arg.kind {
            *d = dtype;
        }
    }
}

/// `imm_value`: the immediate `clip_scalar`-ed into the dst dtype (P411 on `imm` when it
/// changes), or the public schema's default 0 for a pointer `imm` (checked `[P, 1]`, P305).
fn imm_value(cx: &mut Cx<'_>) -> Option<f64> {
    match cx.value(fname::imm)? {
        Value::Access(_) => {
            if let (Some(pointer), Some(p)) = (
                cx.operand(fname::imm).cloned(),
                cx.operand(fname::src).map(|s| s.partitions()),
            ) {
                let anchor = cx.anchor(fname::imm);
                check_pointer_shape(cx, fname::imm, anchor, &pointer, p);
            }
            Some(0.0)
        }
        value => {
            let value = value.as_number()?;
            let Some(dtype) = cx.any_operand(fname::dst).map(|d| d.tensor.dtype) else {
                return Some(value);
            };
            let clipped = types::clip_scalar(dtype, value);
            if types::clip_warns(dtype, value) {
                let anchor = cx.anchor(fname::imm);
                cx.error(
                    Code::P411,
                    anchor,
                    format!(
                        "imm {} is clipped to {} to fit the dst dtype {}",
                        types::show_number(value),
                        types::show_number(clipped),
                        dtype.name()
                    ),
                );
            }
            Some(clipped)
        }
    }
}

fn lower_max8(cx: &mut Cx<'_>) {
    check_src_size(cx);
    check_lanes(cx, fname::dst);
    cx.inst_with_args(Opcode::Max);
}

fn lower_max_index8(cx: &mut Cx<'_>) {
    check_src_size(cx);
    check_lanes(cx, fname::dst);
    check_lanes(cx, fname::max_vals);
    let dtype = index_dtype(cx, fname::dst);
    let inst = cx.inst_with_args(Opcode::MaxIndex);
    if let Some(d) = dtype {
        reinterpret(&mut inst.outs, fname::dst, d);
    }
}

fn lower_match_replace8(cx: &mut Cx<'_>) {
    check_src_size(cx);
    check_same_partitions_and_free(cx, fname::src, fname::dst);
    check_lanes(cx, fname::vals);
    let imm = imm_value(cx);
    cx.inst_with_args(Opcode::MatchReplace)
        .set_float(F::ImmValue, imm.unwrap_or(0.0));
}

fn lower_max_index_and_match_replace(cx: &mut Cx<'_>) {
    check_src_size(cx);
    check_same_partitions_and_free(cx, fname::src, fname::dst);
    check_lanes(cx, fname::dst_idx);
    check_lanes(cx, fname::vals);
    let dtype = index_dtype(cx, fname::dst_idx);
    let imm = imm_value(cx);
    let inst = cx.inst_with_args(Opcode::MaxIndexAndMatchReplace);
    if let Some(d) = dtype {
        reinterpret(&mut inst.outs, fname::dst_idx, d);
    }
    inst.set_float(F::ImmValue, imm.unwrap_or(0.0));
}
