//! Memset, the offloaded FMA on the DMA queues, register loads and sequence bounds
//! (SPEC §6.6; seed 000 §7.1–§7.4). DmaCopyOp, the plain copy, lives in `copy.rs`.

use crate::bir::{Arg, Field as F, Opcode, Role, Value as BirValue};
use crate::catalog::fname;

use super::common::{dma_shape_lead, dst, later_anchor, src};
use crate::access::{Affine, Operand};
use crate::catalog::{
    Default, Dir, ENGINE, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec,
};
use crate::cx::Cx;
use crate::diag::{Anchor, Code, ValuePath};
use crate::model::{Target, Value};
use crate::types::{self, Dtype};

// ----- MemsetOp ---------------------------------------------------------------------

static MEMSET_MODE: EnumSpec = EnumSpec {
    name: "memset_mode",
    values: &[
        EnumValue {
            text: "const",
            bir: "Const",
            doc: "fill with `value`",
        },
        EnumValue {
            text: "random",
            bir: "Random",
            doc: "fill with random bits (engine-side RNG)",
        },
    ],
};

/// MemsetOp → `Memset` (engine pool by default, or dve).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static MEMSET_OP: OpSpec = OpSpec {
    class: "MemsetOp",
    opcode: "Memset",
    engine: EngineSpec::Field {
        default: Engine::Pool,
        allowed: &[Engine::Dve, Engine::Pool],
    },
    instruction_type: None,
    doc: "Fills `dst` with a constant (BIR `Memset`, `mode: \"Const\"`) or random bits \
          (`\"Random\"`). The `constant` is the value's bit pattern in the dst dtype, read as an \
          unsigned integer of the dtype's width (bf16 1.0 → 16256 = 0x3f80).",
    source: "seed 000 §7.1 codegenMemsetOp (MemsetMode, setmode, setconstant, \
             reinterpret_dst_inplace); SPEC §6.6",
    fields: &[
        dst(Mems::ON_CHIP, "the access to fill"),
        FieldSpec {
            name: fname::mode,
            kind: Kind::Enum(&MEMSET_MODE),
            default: Default::Ident("const"),
            bir: "mode: \"Const\" | \"Random\"",
            doc: "const (fill with `value`) or random",
        },
        FieldSpec {
            name: fname::value,
            kind: Kind::Float,
            default: Default::Computed("required in const mode"),
            bir: "constant (the value's bit pattern in the dst dtype, as an unsigned integer)",
            doc: "the fill value; rounded to the dst dtype (nearest, ties to even; P412 only when \
                  it does not round to a finite value); a hex literal into an integer dtype is \
                  a bit pattern (`0xFFFFFFFF` into i32)",
        },
        FieldSpec {
            name: fname::engine,
            kind: Kind::Enum(&ENGINE),
            default: Default::Ident("pool"),
            bir: "the instruction's `engine`",
            doc: "the engine that fills: pool or dve",
        },
    ],
    lower: lower_memset,
};

fn lower_memset(cx: &mut Cx<'_>) {
    let mode_bad = cx.is_bad(fname::mode);
    let random = cx.ident(fname::mode) == Some("random");
    let dtype = cx.any_operand(fname::dst).map(|o| o.tensor.dtype);
    let mut constant = 0u64;
    if random {
        if cx.written(fname::value) && !cx.is_bad(fname::value) {
            let anchor = cx.anchor(fname::value);
            cx.error(Code::P413, anchor, "`value` is ignored in random mode");
        }
    } else if let Some(value) = cx.value(fname::value).and_then(Value::as_number) {
        if let Some(dtype) = dtype {
            // A hex literal into an integer dtype is a bit pattern (SPEC §6.6 [2]).
            let hex = match cx.value(fname::value) {
                Some(Value::HexInt(bits)) => types::hex_bit_pattern(dtype, *bits as u64),
                _ => None,
            };
            match hex.unwrap_or_else(|| types::bit_pattern(dtype, value)) {
                Ok(bits) => constant = bits,
                Err(why) => {
                    let anchor = cx.anchor(fname::value);
                    cx.error(Code::P412, anchor, why);
                }
            }
        }
    } else if !cx.written(fname::value) && !mode_bad {
        cx.needs_field(
            fname::value,
            "MemsetOp in const mode needs the field `value`",
        );
    }
    let mode = if random { "Random" } else { "Const" };
    cx.inst_with_args(Opcode::Memset)
        .set(F::Mode, mode)
        .set(F::Constant, constant);
}

// ----- OffloadedFMA / TiledOffloadedFMA --------------------------------------------

static CCE_OP: EnumSpec = EnumSpec {
    name: fname::cce_op,
    values: &[
        EnumValue {
            text: "add",
            bir: "add",
            doc: "Σ scale·src",
        },
        EnumValue {
            text: "max",
            bir: "max",
            doc: "the largest scale·src",
        },
        EnumValue {
            text: "min",
            bir: "min",
            doc: "the smallest scale·src",
        },
    ],
};

const FMA_DST: FieldSpec = dst(Mems::ANY, "the destination, in any memory");
const FMA_SRCS: FieldSpec = FieldSpec {
    name: fname::srcs,
    kind: Kind::List(&Kind::Acc(Mems::ANY, Dir::In)),
    default: Default::Required,
    bir: "operands `srcs[i]` (ins)",
    doc: "one or more sources, in any memory, each with the dst's element count",
};
const FMA_SCALES: FieldSpec = FieldSpec {
    name: fname::scales,
    kind: Kind::List(&Kind::Float),
    default: Default::Required,
    bir: "constants",
    doc: "one multiplier per src",
};
const FMA_CCE_OP: FieldSpec = FieldSpec {
    name: fname::cce_op,
    kind: Kind::Enum(&CCE_OP),
    default: Default::Ident("add"),
    bir: "cce_op",
    doc: "how the scaled sources combine: add, max or min",
};

/// OffloadedFMA → `DMACopy` in CCE mode (engine DMA).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. The srcs carry `"access": "seq"`, the dst
/// `"access": "ap"`.
pub static OFFLOADED_FMA: OpSpec = OpSpec {
    class: "OffloadedFMA",
    opcode: "DMACopy",
    engine: EngineSpec::Fixed(Engine::Dma),
    instruction_type: None,
    doc: "A multiply-add done by a DMA queue while it copies (BIR `DMACopy`, `mode: \"CCE\"`): \
          `dst = cce_op over i of scales[i] · srcs[i]`. The srcs are streamed (`addSeqAccess`); \
          the dst is a plain access pattern (`addAP`).",
    source: "seed 000 §7.2 codegenOffloadedFMA (setmode, setconstants, setCceOp, \
             addSeqAccess, addAP(dst, isOutput=True)); SPEC §6.6",
    fields: &[FMA_DST, FMA_SRCS, FMA_SCALES, FMA_CCE_OP],
    lower: lower_offloaded_fma,
};

/// TiledOffloadedFMA → one `DMACopy` per tile (engine DMA).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. Operands carry `"access": "ap"`.
pub static TILED_OFFLOADED_FMA: OpSpec = OpSpec {
    class: "TiledOffloadedFMA",
    opcode: "DMACopy",
    engine: EngineSpec::Fixed(Engine::Dma),
    instruction_type: None,
    doc: "OffloadedFMA split into `tiles` equal parts along the last dim of every operand: one \
          `DMACopy` (CCE mode) per tile, with static access patterns.",
    source: "seed 000 §7.2 codegenTiledOffloadedFMA (addAP per tile); SPEC §6.6",
    fields: &[
        FMA_DST,
        FMA_SRCS,
        FMA_SCALES,
        FMA_CCE_OP,
        FieldSpec {
            name: fname::tiles,
            kind: Kind::Int,
            default: Default::Required,
            bir: "one DMACopy per tile",
            doc: "the number of tiles (≥ 1); must divide the last dim of every operand",
        },
    ],
    lower: lower_offloaded_fma,
};

/// The checks shared by both FMA ops: srcs non-empty (P414), element counts (P305), one
/// scale per src (P305).
fn check_fma(cx: &mut Cx<'_>) {
    if cx.index(fname::srcs).is_some() && cx.list(fname::srcs).is_empty() {
        let anchor = cx.anchor(fname::srcs);
        cx.error(Code::P414, anchor, "srcs must hold at least one access");
    }
    if let Some(out) = cx.operand(fname::dst) {
        let want = out.elements();
        let dst_later = matches!((cx.path(fname::dst), cx.path(fname::srcs)), (Some(d), Some(s)) if d.field > s.field);
        let bad: Vec<(ValuePath, u64)> = cx
            .list_operands(fname::srcs)
            .into_iter()
            .filter(|(_, o)| o.elements() != want)
            .map(|(p, o)| (p, o.elements()))
            .collect();
        if dst_later {
            if let Some((path, n)) = bad.first() {
                let k = path.elements.first().copied().unwrap_or(0);
                let anchor = cx.anchor(fname::dst);
                cx.error(
                    Code::P305,
                    anchor,
                    dma_shape_lead(
                        cx,
                        format!("dst has {want} elements but `srcs[{k}]` has {n}"),
                    ),
                );
            }
        } else {
            for (path, n) in bad {
                let k = path.elements.first().copied().unwrap_or(0);
                cx.error(
                    Code::P305,
                    Anchor::Value(path),
                    dma_shape_lead(
                        cx,
                        format!("`srcs[{k}]` has {n} elements but dst has {want}"),
                    ),
                );
            }
        }
    }
    if cx.index(fname::srcs).is_some() && cx.index(fname::scales).is_some() {
        let (n, m) = (cx.list(fname::srcs).len(), cx.list(fname::scales).len());
        if n != m {
            let anchor = later_anchor(cx, fname::srcs, fname::scales);
            cx.error(
                Code::P305,
                anchor,
                format!("{m} scales for {n} srcs: one scale per src"),
            );
        }
    }
}

/// The operand with its last kept dim cut into `tiles` parts, part `t`; `None` when the
/// count does not divide.
fn tile_of(operand: &Operand, tiles: u64, t: u64) -> Option<Operand> {
    let mut out = operand.clone();
    let last = out
        .dims
        .iter_mut()
        .enumerate()
        .rev()
        .find(|(k, d)| d.kept || (*k == 0 && operand.on_chip()))
        .map(|(_, d)| d)?;
    if tiles == 0 || last.count % tiles != 0 {
        return None;
    }
    let part = last.count / tiles;
    let shift = i64::try_from(t.checked_mul(part)?)
        .ok()?
        .checked_mul(last.step)?;
    last.start = last.start.add(&Affine::constant(shift)).ok()?;
    last.count = part;
    Some(out)
}

/// At most this many tiles, one `DMACopy` each (a larger `tiles` is P414): a typo must not
/// make the server build billions of instructions.
const MAX_TILES: i64 = 1 << 16;

fn lower_offloaded_fma(cx: &mut Cx<'_>) {
    check_fma(cx);
    let tiled = cx.spec.class == "TiledOffloadedFMA";
    let constants: Vec<f64> = cx
        .list(fname::scales)
        .iter()
        .filter_map(Value::as_number)
        .collect();
    let cce_op = cx.ident(fname::cce_op).unwrap_or("add").to_string();

    // Every operand (dst, srcs in order), faulty ones included for emission.
    let dst_op = cx.any_operand(fname::dst).cloned();
    let srcs: Vec<(usize, Option<Operand>)> = match cx
        .path(fname::srcs)
        .filter(|_| cx.index(fname::srcs).is_some())
    {
        Some(path) => (0..cx.list(fname::srcs).len())
            .map(|k| (k, cx.operand_at(&path.element(k)).cloned()))
            .collect(),
        None => Vec::new(),
    };

    let mut tiles = 1u64;
    if tiled {
        match cx.int(fname::tiles) {
            Some(n) if (1..=MAX_TILES).contains(&n) => tiles = n as u64,
            Some(n) if n > MAX_TILES => {
                let anchor = cx.anchor(fname::tiles);
                cx.error(
                    Code::P414,
                    anchor,
                    format!("tiles must be at most {MAX_TILES}; got {n}"),
                );
            }
            Some(n) => {
                let anchor = cx.anchor(fname::tiles);
                cx.error(
                    Code::P414,
                    anchor,
                    format!("tiles must be at least 1; got {n}"),
                );
            }
            None => {}
        }
        // The dst must split evenly along its last dim (P305); then every src (P305 on
        // the src), so that a wrong `tiles` gives one diagnostic.
        if tiles > 1 {
            let mut even = true;
            if let Some(d) = dst_op.as_ref().filter(|d| !d.faulty)
                && tile_of(d, tiles, 0).is_none()
            {
                let anchor = cx.anchor(fname::dst);
                let last = d.shape().last().copied().unwrap_or(1);
                cx.error(
                    Code::P305,
                    anchor,
                    format!("the dst's last dim ({last}) does not split into {tiles} tiles"),
                );
                even = false;
            }
            if let Some(path) = cx.path(fname::srcs).filter(|_| even) {
                for (k, o) in &srcs {
                    let Some(o) = o.as_ref().filter(|o| !o.faulty) else {
                        continue;
                    };
                    if tile_of(o, tiles, 0).is_none() {
                        let last = o.shape().last().copied().unwrap_or(1);
                        cx.error(
                            Code::P305,
                            Anchor::Value(path.element(*k)),
                            format!("the last dim of `srcs[{k}]` ({last}) does not split into {tiles} tiles"),
                        );
                        even = false;
                    }
                }
            }
            // Without a dst (P204, P202) there is nothing to split.
            let all_split = dst_op.is_some()
                && dst_op
                    .iter()
                    .chain(srcs.iter().filter_map(|(_, o)| o.as_ref()))
                    .all(|o| tile_of(o, tiles, 0).is_some());
            if !even || !all_split {
                tiles = 1;
            }
        }
    }

    // The srcs are streamed (`addSeqAccess`) unless tiled; the dst is always `addAP(dst,
    // isOutput=True)` (seed 000 §7.2; SPEC §6.6 [2]).
    let access = if tiled { "ap" } else { "seq" };
    for t in 0..tiles {
        let part = |o: &Operand| {
            if tiles > 1 {
                tile_of(o, tiles, t)
            } else {
                Some(o.clone())
            }
        };
        let ins: Vec<Arg> = srcs
            .iter()
            .filter_map(|(k, o)| {
                Some(
                    part(o.as_ref()?)?
                        .to_arg(Role::element(fname::srcs, *k))
                        .with_access(access),
                )
            })
            .collect();
        let outs: Vec<Arg> = dst_op
            .as_ref()
            .and_then(part)
            .map(|o| o.to_arg(Role::field(fname::dst)).with_access("ap"))
            .into_iter()
            .collect();
        let inst = cx.inst(Opcode::DmaCopy);
        inst.ins = ins;
        inst.outs = outs;
        inst.set(F::Mode, "CCE")
            .set_floats(F::Constants, &constants)
            .set(F::CceOp, cce_op.as_str());
    }
}

// ----- LoadTensorToRegister ----------------------------------------------------------

/// LoadTensorToRegister → `TensorLoad` (engine `ALL`).
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. The src argument carries `"argument": true`.
pub static LOAD_TENSOR_TO_REGISTER: OpSpec = OpSpec {
    class: "LoadTensorToRegister",
    opcode: "TensorLoad",
    engine: EngineSpec::Fixed(Engine::All),
    instruction_type: None,
    doc: "Loads tensor elements into named 32-bit integer registers (BIR `TensorLoad` on every \
          engine): element k of `src` goes to `dst_registers[k]`.",
    source: "seed 000 §7.3 codegenLoadTensorToRegister (RegisterAccess, addRegister, \
             result_index, addArgumentOrOutput, EngineType.ALL); SPEC §6.6",
    fields: &[
        src(
            Mems::SBUF_HBM,
            "the elements to load (sbuf or hbm), one per register",
        ),
        FieldSpec {
            name: fname::dst_registers,
            kind: Kind::List(&Kind::Reg),
            default: Default::Required,
            bir: "registers: [{\"name\", \"result_index\"}]",
            doc: "the 32-bit integer registers written, in element order",
        },
    ],
    lower: lower_load_to_register,
};

fn lower_load_to_register(cx: &mut Cx<'_>) {
    let mut registers = Vec::new();
    if let Some(path) = cx
        .path(fname::dst_registers)
        .filter(|_| cx.index(fname::dst_registers).is_some())
    {
        for (k, value) in cx.list(fname::dst_registers).iter().enumerate() {
            let Value::Access(access) = value else {
                continue;
            };
            let Target::Register(reg) = &access.target else {
                continue;
            };
            if !matches!(reg.dtype, Dtype::I32 | Dtype::U32) {
                cx.error(
                    Code::P407,
                    Anchor::Value(path.element(k)),
                    format!("register `%{}` is {}; TensorLoad writes 32-bit integer registers (i32, u32)", reg.name, reg.dtype.name()),
                );
            }
            registers.push(BirValue::Record(vec![
                ("name".into(), reg.name.as_str().into()),
                ("result_index".into(), k.into()),
            ]));
        }
        if let Some(source) = cx.operand(fname::src) {
            let (n, m) = (
                source.elements(),
                cx.list(fname::dst_registers).len() as u64,
            );
            if n != m {
                let anchor = later_anchor(cx, fname::src, fname::dst_registers);
                cx.error(
                    Code::P305,
                    anchor,
                    format!("src has {n} elements for {m} registers: one element per register"),
                );
            }
        }
    }
    let src_arg = cx.arg(fname::src).map(|mut a| {
        a.argument = true;
        a
    });
    let inst = cx.inst(Opcode::TensorLoad);
    inst.ins.extend(src_arg);
    inst.set(F::Registers, BirValue::List(registers));
}

// ----- GetSequenceBounds -------------------------------------------------------------

/// GetSequenceBounds → `GetSequenceBounds` (engine pool by default, or dve, act).
///
/// No BIR fields beyond the common ones.
pub static GET_SEQUENCE_BOUNDS: OpSpec = OpSpec {
    class: "GetSequenceBounds",
    opcode: "GetSequenceBounds",
    engine: EngineSpec::Field {
        default: Engine::Pool,
        allowed: &[Engine::Pool, Engine::Dve, Engine::Act],
    },
    instruction_type: None,
    doc: "For each element of a `[1, N]` row of segment ids, the start and end of its segment: \
          `dst` holds all N starts, then all N ends (the public `[1, 2, N]` layout). Padding \
          (id 0) gets start N and end −1. f32 or i32 in and out.",
    source: "seed 000 §7.4 codegenGetSequenceBounds (setEngine(engineTrans(engine))); \
             SPEC §6.6; public nki.isa.sequence_bounds",
    fields: &[
        dst(
            Mems::ON_CHIP,
            "the bounds: one partition, 2·N elements (starts, then ends); f32 or i32",
        ),
        src(Mems::ON_CHIP, "the segment ids, [1, N]; f32 or i32"),
        FieldSpec {
            name: fname::engine,
            kind: Kind::Enum(&ENGINE),
            default: Default::Ident("pool"),
            bir: "the instruction's `engine`",
            doc: "pool (GpSimd, the public default), dve or act",
        },
    ],
    lower: lower_sequence_bounds,
};

fn lower_sequence_bounds(cx: &mut Cx<'_>) {
    for field in [fname::src, fname::dst] {
        let Some(d) = cx.any_operand(field).map(|o| o.tensor.dtype) else {
            continue;
        };
        if !matches!(d, Dtype::F32 | Dtype::I32) {
            let anchor = cx.anchor(field);
            cx.error(
                Code::P407,
                anchor,
                format!("`{field}` is {}; sequence bounds take f32 or i32", d.name()),
            );
        }
    }
    let source = cx
        .operand(fname::src)
        .map(|s| (s.partitions(), s.elements()));
    let out = cx
        .operand(fname::dst)
        .map(|d| (d.partitions(), d.elements()));
    let mut src_ok = true;
    if let Some((p, _)) = source.filter(|(p, _)| *p != 1) {
        let anchor = cx.anchor(fname::src);
        cx.error(
            Code::P305,
            anchor,
            format!("the segment ids are one partition, [1, N]; src has {p}"),
        );
        src_ok = false;
    }
    if let Some((p, _)) = out.filter(|(p, _)| *p != 1) {
        let anchor = cx.anchor(fname::dst);
        cx.error(
            Code::P305,
            anchor,
            format!("the bounds are one partition, [1, 2·N]; dst has {p}"),
        );
    } else if let (true, Some((_, n)), Some((_, m))) = (src_ok, source, out)
        && m != n.saturating_mul(2)
    {
        let anchor = later_anchor(cx, fname::src, fname::dst);
        cx.error(
            Code::P305,
            anchor,
            format!(
                "dst holds a start and an end per id: {} elements for N = {n}; it has {m}",
                n.saturating_mul(2)
            ),
        );
    }
    cx.inst_with_args(Opcode::GetSequenceBounds);
}
