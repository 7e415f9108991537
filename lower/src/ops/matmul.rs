//! The matmul family on the PE (SPEC §6.1; seed 000 §2): MatMulOp → `Matmult`.
//!
//! Terms: the stationary (weight, LHS) is `[K, M]`, the moving (ifmap, RHS) `[K, N]`, the
//! dst in PSUM `[M, N]`; K is the contraction over partitions.

use serde_json::json;

use super::common::input;
use crate::access::Operand;
use crate::catalog::{Default, Dir, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec};
use crate::cx::Cx;
use crate::diag::Code;
use crate::types::{Dtype, limits};

static PERF_MODE: EnumSpec = EnumSpec {
    name: "perf_mode",
    values: &[
        EnumValue {
            text: "none",
            bir: "None",
            doc: "one row of the contraction per cycle",
        },
        EnumValue {
            text: "double_row",
            bir: "DoubleRow",
            doc: "two contraction rows per cycle (fp8 only); operands laid out [P, 2, F]",
        },
    ],
};

/// `dst` of the matmul family: PSUM, written.
pub const MATMUL_DST: FieldSpec = FieldSpec {
    name: "dst",
    kind: Kind::Acc(Mems::PSUM, Dir::Out),
    default: Default::Required,
    bir: "operand `dst` (outs); `psum_buf_shape` = the dst tensor's [P, F]",
    doc: "the PSUM result [M, N]",
};
/// `stationary`: the weight `[K, M]`.
pub const STATIONARY: FieldSpec = input(
    "stationary",
    Mems::SBUF,
    "operand `stationary` (ins)",
    "the stationary (weight, LHS) [K, M] in sbuf, loaded into the PE array",
);
/// `moving`: the ifmap `[K, N]`.
pub const MOVING: FieldSpec = input(
    "moving",
    Mems::SBUF,
    "operand `moving` (ins)",
    "the moving (ifmap, RHS) [K, N] in sbuf, streamed through the PE array",
);
/// `pe_tile_position`: `[row, col]`.
pub const PE_TILE_POSITION: FieldSpec = FieldSpec {
    name: "pe_tile_position",
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[0, 0]"),
    bir: "tile_position",
    doc: "[row, col] of the PE tile used; each a multiple of the matching tile size",
};
/// `pe_tile_size`: `[rows, cols]`.
pub const PE_TILE_SIZE: FieldSpec = FieldSpec {
    name: "pe_tile_size",
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[128, 128]"),
    bir: "tile_size",
    doc: "[rows, cols] of the PE tile used, each 32, 64 or 128",
};
/// `is_accumulate`.
pub const IS_ACCUMULATE: FieldSpec = FieldSpec {
    name: "is_accumulate",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_accumulate; start_tensor_calc = not is_accumulate, stop_tensor_calc = false",
    doc: "accumulate into the PSUM dst instead of overwriting it (the scheduler finalises the start/stop flags)",
};
const IS_TRANSPOSE: FieldSpec = FieldSpec {
    name: "isTranspose",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_transpose",
    doc: "transpose through the PE: the dst dtype then equals the moving dtype",
};
const IS_STATIONARY_ONE_ZERO: FieldSpec = FieldSpec {
    name: "isStationaryOneZero",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_weight_onezero",
    doc: "the stationary holds only ones and zeros",
};
const IS_MOVING_ZERO: FieldSpec = FieldSpec {
    name: "isMovingZero",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_fmap_onezero",
    doc: "the moving holds only ones and zeros",
};

/// MatMulOp → `Matmult`.
pub static MATMUL_OP: OpSpec = OpSpec {
    class: "MatMulOp",
    opcode: "Matmult",
    engine: EngineSpec::Fixed(Engine::Pe),
    instruction_type: None,
    doc: "Matrix multiply on the PE array: `dst[M, N] (+)= stationary[K, M]ᵀ · moving[K, N]`, \
          contracting over the K partitions (K ≤ 128, M ≤ 128, N ≤ 512: one PSUM bank of f32).",
    source: "seed 000 §2.1 codegenMatMulOp; SPEC §6.1",
    fields: &[
        MATMUL_DST,
        STATIONARY,
        MOVING,
        IS_TRANSPOSE,
        IS_STATIONARY_ONE_ZERO,
        IS_MOVING_ZERO,
        FieldSpec {
            name: "ifmap_quant_offset",
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "ifmap_quant_offset",
            doc: "quantisation offset of the moving operand (≥ 0)",
        },
        PE_TILE_POSITION,
        PE_TILE_SIZE,
        FieldSpec {
            name: "num_active_partitions",
            kind: Kind::Int,
            default: Default::Computed("the stationary partition count"),
            bir: "num_active_channels",
            doc: "number of active PE rows",
        },
        FieldSpec {
            name: "perf_mode",
            kind: Kind::Enum(&PERF_MODE),
            default: Default::Ident("none"),
            bir: "perf_mode (\"None\" | \"DoubleRow\"); with DoubleRow replication_num_rows = 2",
            doc: "none, or double_row: two contraction rows per cycle (fp8, [P, 2, F] operands)",
        },
        IS_ACCUMULATE,
    ],
    lower: lower_matmul,
};

/// PE tile `[rows, cols]` and `[row, col]` as read (defaults when absent or malformed).
pub struct PeTile {
    /// `[rows, cols]`.
    pub size: [i64; 2],
    /// `[row, col]`.
    pub position: [i64; 2],
}

/// Reads and checks `pe_tile_size` / `pe_tile_position` (P206 arity, P409 values).
pub fn pe_tile(cx: &mut Cx<'_>) -> PeTile {
    let pair = |cx: &mut Cx<'_>, name: &str, default: [i64; 2]| -> [i64; 2] {
        if !cx.written(name) {
            return default;
        }
        match cx.int_list(name).as_deref() {
            Some([a, b]) => [*a, *b],
            Some(_) => {
                let anchor = cx.anchor(name);
                cx.error(Code::P206, anchor, format!("`{name}` is a list of two integers"));
                default
            }
            None => default,
        }
    };
    let size = pair(cx, "pe_tile_size", [128, 128]);
    let position = pair(cx, "pe_tile_position", [0, 0]);
    let size_ok = size.iter().all(|s| matches!(s, 32 | 64 | 128));
    if !size_ok {
        let anchor = cx.anchor("pe_tile_size");
        cx.error(
            Code::P409,
            anchor,
            format!("PE tile sizes are 32, 64 or 128; got {size:?}"),
        );
    } else {
        for k in 0..2 {
            let (p, s) = (position[k], size[k]);
            if p < 0 || p % s != 0 || p + s > limits::PARTITIONS as i64 {
                let anchor = cx.anchor("pe_tile_position");
                let what = if k == 0 { "row" } else { "column" };
                cx.error(
                    Code::P409,
                    anchor,
                    format!(
                        "PE tile {what} position {p} must be a multiple of the tile size {s} with position + size ≤ 128"
                    ),
                );
                break;
            }
        }
    }
    PeTile { size, position }
}

/// The K/M/N of a matmul: partitions of the stationary, its free size (or last dim under
/// double_row), the moving's free size (or last dim).
fn dims(stationary: &Operand, moving: &Operand, double_row: bool) -> (u64, u64, u64) {
    let last = |o: &Operand| o.shape().last().copied().unwrap_or(1);
    if double_row {
        (stationary.partitions(), last(stationary), last(moving))
    } else {
        (stationary.partitions(), stationary.free_size(), moving.free_size())
    }
}

/// P401 unless `operand` is laid out `[P, 2, F]` with adjacent rows (seed 000 §2.4
/// `addDoubleRowAP`: "incorrect double row step").
fn check_double_row_layout(cx: &mut Cx<'_>, field: &str) -> bool {
    let Some(operand) = cx.operand(field) else { return false };
    let ap = operand.ap();
    let ok = operand.rank() == 3 && ap.len() == 3 && ap[1][1] == 2 && ap[1][0] == ap[2][0] * ap[2][1];
    if !ok {
        let anchor = cx.anchor(field);
        cx.error(Code::P401, anchor, "incorrect double row step");
    }
    ok
}

fn is_pe_input_dtype(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::F32 | Dtype::F32r | Dtype::Tf32 | Dtype::Bf16 | Dtype::F16 | Dtype::F8e4m3 | Dtype::F8e5m2
    )
}

fn is_fp32_family(d: Dtype) -> bool {
    matches!(d, Dtype::F32 | Dtype::F32r | Dtype::Tf32)
}

/// P304 when the psum tensor of `dst` does not fit one 2 KiB bank per partition (SPEC §4).
pub fn check_one_bank(cx: &mut Cx<'_>) {
    let Some(dst) = cx.any_operand("dst") else { return };
    let bytes = dst.tensor.partition_bytes();
    if bytes > limits::PSUM_BANK_BYTES {
        let name = dst.tensor.name.clone();
        let anchor = cx.anchor("dst");
        cx.error(
            Code::P304,
            anchor,
            format!(
                "a matmul dst must fit one PSUM bank ({} bytes per partition); `%{name}` needs {bytes}",
                limits::PSUM_BANK_BYTES
            ),
        );
    }
}

/// `psum_buf_shape`: the dst tensor's `[P, F]` (F the product of its free dims).
pub fn psum_buf_shape(cx: &Cx<'_>) -> Option<[u64; 2]> {
    let dst = cx.any_operand("dst")?;
    let dims = &dst.tensor.dims;
    Some([dims.first().copied().unwrap_or(1), dims.iter().skip(1).product()])
}

fn lower_matmul(cx: &mut Cx<'_>) {
    let double_row = cx.ident("perf_mode") == Some("double_row");
    let transpose = cx.bool("isTranspose");
    cx.mark_stationary("stationary");
    let tile = pe_tile(cx);

    // Layout: rank-2 weight (P400) or the double-row [P, 2, F] layout (P401).
    let mut layout_ok = true;
    if double_row {
        layout_ok &= check_double_row_layout(cx, "stationary");
        layout_ok &= check_double_row_layout(cx, "moving");
        if tile.size[1] != 128 {
            let anchor = cx.anchor("pe_tile_position");
            cx.error(Code::P409, anchor, "double_row does not allow column tiling (tile columns must be 128)");
        }
    } else if let Some(stationary) = cx.operand("stationary") {
        if stationary.rank() != 2 {
            let anchor = cx.anchor("stationary");
            cx.error(Code::P400, anchor, "A splittable NeuronWeightTensor should be of rank 2");
            layout_ok = false;
        }
    }

    // Dtypes (P407).
    let dtype = |cx: &Cx<'_>, f: &str| cx.operand(f).map(|o| o.tensor.dtype);
    let (st, mv, ds) = (dtype(cx, "stationary"), dtype(cx, "moving"), dtype(cx, "dst"));
    for (field, d) in [("stationary", st), ("moving", mv)] {
        let Some(d) = d else { continue };
        let allowed = if double_row { d.is_fp8() && is_pe_input_dtype(d) } else { is_pe_input_dtype(d) };
        if !allowed {
            let anchor = cx.anchor(field);
            let want = if double_row {
                "double_row takes fp8 inputs (f8e4m3, f8e5m2)"
            } else {
                "the PE takes f32, f32r, tf32, bf16, f16, f8e4m3 or f8e5m2"
            };
            cx.error(Code::P407, anchor, format!("`{field}` is {}: {want}", d.name()));
        }
    }
    if let (Some(s), Some(m)) = (st, mv) {
        if is_pe_input_dtype(s) && is_pe_input_dtype(m) && is_fp32_family(s) != is_fp32_family(m) {
            let anchor = cx.anchor("moving");
            cx.error(
                Code::P407,
                anchor,
                format!("stationary is {} and moving {}: an f32-family input needs both f32-family", s.name(), m.name()),
            );
        }
    }
    if let Some(d) = ds {
        let want = if transpose { mv } else { Some(Dtype::F32) };
        if let Some(want) = want {
            if d != want {
                let anchor = cx.anchor("dst");
                let why = if transpose { "with isTranspose the dst dtype equals the moving dtype" } else { "a matmul writes f32 into PSUM" };
                cx.error(Code::P407, anchor, format!("dst is {} but must be {}: {why}", d.name(), want.name()));
            }
        }
    }

    // Sizes (P405, P406, P409).
    if let (true, Some(s), Some(m)) = (layout_ok, cx.operand("stationary"), cx.operand("moving")) {
        let (k, mdim, n) = dims(s, m, double_row);
        let (mk, dst) = (m.partitions(), cx.operand("dst").map(|d| (d.partitions(), d.free_size(), d.start_partition())));
        if k != mk || k > limits::PARTITIONS {
            let anchor = cx.anchor("moving");
            cx.error(Code::P405, anchor, format!("contraction mismatch: stationary has {k} partitions, moving {mk} (K ≤ 128)"));
        } else if n > limits::MATMUL_MAX_MOVING_FREE {
            let anchor = cx.anchor("moving");
            cx.error(Code::P406, anchor, format!("moving free size N = {n} exceeds 512 (one PSUM bank of f32)"));
        } else if mdim > limits::MATMUL_MAX_STATIONARY_FREE {
            let anchor = cx.anchor("dst");
            cx.error(Code::P406, anchor, format!("stationary free size M = {mdim} exceeds 128"));
        } else if let Some((dp, df, dst_start)) = dst {
            if dp != mdim || df != n {
                let anchor = cx.anchor("dst");
                cx.error(Code::P406, anchor, format!("dst must be [M, N] = [{mdim}, {n}]; it is [{dp}, {df}]"));
            } else if k > tile.size[0] as u64 || mdim > tile.size[1] as u64 {
                let anchor = cx.anchor("pe_tile_size");
                cx.error(Code::P409, anchor, format!("K = {k} and M = {mdim} must fit the PE tile {:?}", tile.size));
            } else if tile.size[1] < 128 && (!dst_start.is_const() || dst_start.c != tile.position[1]) {
                let anchor = cx.anchor("pe_tile_position");
                cx.error(
                    Code::P409,
                    anchor,
                    format!("with column tiling the dst starts at the tile's column position {}", tile.position[1]),
                );
            }
        }
    }
    check_one_bank(cx);
    if let Some(offset) = cx.int("ifmap_quant_offset").filter(|o| *o < 0) {
        let anchor = cx.anchor("ifmap_quant_offset");
        cx.error(Code::P414, anchor, format!("ifmap_quant_offset is a natural number; got {offset}"));
    }

    let accumulate = cx.bool("is_accumulate");
    let channels = cx.int("num_active_partitions").or_else(|| cx.any_operand("stationary").map(|s| s.partitions() as i64));
    let psum = psum_buf_shape(cx);
    let weight_onezero = cx.bool("isStationaryOneZero");
    let fmap_onezero = cx.bool("isMovingZero");
    let quant = cx.int("ifmap_quant_offset").unwrap_or(0);
    let inst = cx.inst_with_args("Matmult");
    inst.set("start_tensor_calc", !accumulate)
        .set("stop_tensor_calc", false)
        .set("is_transpose", transpose)
        .set("is_fmap_onezero", fmap_onezero)
        .set("is_weight_onezero", weight_onezero)
        .set("tile_size", json!(tile.size))
        .set("tile_position", json!(tile.position))
        .set("perf_mode", if double_row { "DoubleRow" } else { "None" });
    if double_row {
        inst.set("replication_num_rows", 2);
    }
    inst.set("ifmap_quant_offset", quant.max(0));
    if let Some(c) = channels {
        inst.set("num_active_channels", c);
    }
    if let Some(p) = psum {
        inst.set("psum_buf_shape", json!(p));
    }
    inst.set("is_accumulate", accumulate);
}
