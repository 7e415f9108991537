//! The matmul family on the PE (SPEC §6.1; seed 000 §2): MatMulOp → `Matmult`,
//! MatMulMXOp → `MatmultMx`, MatMulSparseOp → `MatmultSparse`, and TransposeOp (SPEC §6.7)
//! → `Matmult` with `is_transpose` against an implied identity.
//!
//! Terms: the stationary (weight, LHS) is `[K, M]`, the moving (ifmap, RHS) `[K, N]`, the
//! dst in PSUM `[M, N]`; K is the contraction over partitions.
//!
//! Primary ranges (SPEC §7): P400 the `stationary`; P401 the operand with the wrong layout;
//! P405/P406 the `moving` (limits of K and N) or the `dst` (M and the `[M, N]` shape);
//! P409 the `pe_tile_size` for a bad size or a K/M larger than the tile, otherwise the
//! `pe_tile_position` (or the class name when it is absent); P304 (one bank) the `dst`.

use crate::bir::{Field as F, Opcode};
use crate::catalog::fname;

use super::common::{check_pointer_shape, dst, input, later_anchor, src};
use crate::access::{Operand, describe_iteration};
use crate::catalog::{
    Default, Dir, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec,
};
use crate::cx::{Cx, Inst};
use crate::diag::{Code, Diag, FixHint};
use crate::types::{Dtype, limits};

static PERF_MODE: EnumSpec = EnumSpec {
    name: fname::perf_mode,
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
    name: fname::dst,
    kind: Kind::Acc(Mems::PSUM, Dir::Out),
    default: Default::Required,
    bir: "operand `dst` (outs); `psum_buf_shape` = the dst tensor's [P, F]",
    doc: "the PSUM result [M, N]",
};
/// `stationary`: the weight `[K, M]`.
pub const STATIONARY: FieldSpec = input(
    fname::stationary,
    Mems::SBUF,
    "operand `stationary` (ins)",
    "the stationary (weight, LHS) [K, M] in sbuf, loaded into the PE array",
);
/// `moving`: the ifmap `[K, N]`.
pub const MOVING: FieldSpec = input(
    fname::moving,
    Mems::SBUF,
    "operand `moving` (ins)",
    "the moving (ifmap, RHS) [K, N] in sbuf, streamed through the PE array",
);
/// `pe_tile_position`: `[row, col]`.
pub const PE_TILE_POSITION: FieldSpec = FieldSpec {
    name: fname::pe_tile_position,
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[0, 0]"),
    bir: "tile_position",
    doc: "[row, col] of the PE tile used; each a multiple of the matching tile size",
};
/// `pe_tile_size`: `[rows, cols]`.
pub const PE_TILE_SIZE: FieldSpec = FieldSpec {
    name: fname::pe_tile_size,
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[128, 128]"),
    bir: "tile_size",
    doc: "[rows, cols] of the PE tile used, each 32, 64 or 128",
};
/// `is_accumulate`.
pub const IS_ACCUMULATE: FieldSpec = FieldSpec {
    name: fname::is_accumulate,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_accumulate; start_tensor_calc = not is_accumulate, stop_tensor_calc = false",
    doc: "accumulate into the PSUM dst instead of overwriting it (the scheduler finalises the start/stop flags)",
};
/// `isTranspose`.
pub const IS_TRANSPOSE: FieldSpec = FieldSpec {
    name: fname::isTranspose,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_transpose",
    doc: "transpose through the PE: the dst dtype then equals the moving dtype",
};
/// `isStationaryOneZero`.
pub const IS_STATIONARY_ONE_ZERO: FieldSpec = FieldSpec {
    name: fname::isStationaryOneZero,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_weight_onezero",
    doc: "the stationary holds only ones and zeros",
};
/// `isMovingZero`.
pub const IS_MOVING_ZERO: FieldSpec = FieldSpec {
    name: fname::isMovingZero,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_fmap_onezero",
    doc: "the moving holds only ones and zeros",
};

/// MatMulOp → `Matmult`.
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
pub static MATMUL_OP: OpSpec = OpSpec {
    class: "MatMulOp",
    opcode: "Matmult",
    engine: EngineSpec::Fixed(Engine::Pe),
    instruction_type: None,
    doc: "Matrix multiply on the PE array: `dst[M, N] (+)= stationary[K, M]ᵀ · moving[K, N]`, \
          contracting over the K partitions (K ≤ 128, M ≤ 128, N ≤ 512: one PSUM bank of f32).",
    source: "seed 000 §2.1 codegenMatMulOp, §2.4 addDoubleRowAP; SPEC §6.1",
    fields: &[
        MATMUL_DST,
        STATIONARY,
        MOVING,
        IS_TRANSPOSE,
        IS_STATIONARY_ONE_ZERO,
        IS_MOVING_ZERO,
        FieldSpec {
            name: fname::ifmap_quant_offset,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "ifmap_quant_offset",
            doc: "quantisation offset of the moving operand (≥ 0)",
        },
        PE_TILE_POSITION,
        PE_TILE_SIZE,
        FieldSpec {
            name: fname::num_active_partitions,
            kind: Kind::Int,
            default: Default::Computed("the stationary partition count"),
            bir: "num_active_channels",
            doc: "number of active PE rows (1 to 128)",
        },
        FieldSpec {
            name: fname::perf_mode,
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
    /// The sizes are each 32, 64 or 128 (no P409 reported on them).
    pub size_ok: bool,
    /// The positions fit the sizes (no P409 reported on them).
    pub position_ok: bool,
}

impl PeTile {
    /// Whether the tile has fewer than 128 columns (column tiling).
    pub fn column_tiling(&self) -> bool {
        self.size_ok && self.size[1] < limits::PARTITIONS as i64
    }
}

/// Reads and checks `pe_tile_size` / `pe_tile_position` (P206 arity, P409 values).
pub fn pe_tile(cx: &mut Cx<'_>) -> PeTile {
    let pair = |cx: &mut Cx<'_>, name: &str, default: [i64; 2]| -> Option<[i64; 2]> {
        if !cx.written(name) {
            return Some(default);
        }
        match cx.int_list(name).as_deref() {
            Some([a, b]) if cx.index(name).is_some() => Some([*a, *b]),
            Some(_) if cx.index(name).is_some() => {
                let anchor = cx.anchor(name);
                cx.error(
                    Code::P206,
                    anchor,
                    format!("`{name}` is a list of two integers"),
                );
                None
            }
            _ => None,
        }
    };
    let size = pair(cx, fname::pe_tile_size, [128, 128]);
    let position = pair(cx, fname::pe_tile_position, [0, 0]);
    let mut tile = PeTile {
        size: size.unwrap_or([128, 128]),
        position: position.unwrap_or([0, 0]),
        size_ok: size.is_some(),
        position_ok: position.is_some(),
    };
    if tile.size_ok && !tile.size.iter().all(|s| matches!(s, 32 | 64 | 128)) {
        let anchor = cx.anchor(fname::pe_tile_size);
        cx.error(
            Code::P409,
            anchor,
            format!("PE tile sizes are 32, 64 or 128; got {:?}", tile.size),
        );
        tile.size_ok = false;
    }
    if tile.size_ok && tile.position_ok {
        for k in 0..2 {
            let (p, s) = (tile.position[k], tile.size[k]);
            let end = p.saturating_add(s);
            if p < 0 || p % s != 0 || end > limits::PARTITIONS as i64 {
                let anchor = cx.anchor(fname::pe_tile_position);
                let what = if k == 0 { "row" } else { "column" };
                cx.error(
                    Code::P409,
                    anchor,
                    format!(
                        "PE tile {what} position {p} must be a multiple of the tile size {s} with position + size ≤ 128"
                    ),
                );
                tile.position_ok = false;
                break;
            }
        }
    }
    tile
}

/// P409 on `pe_tile_size` when K or M does not fit the tile (rows × columns).
fn check_tile_fit(cx: &mut Cx<'_>, tile: &PeTile, k: u64, m: u64) -> bool {
    if !tile.size_ok {
        return true;
    }
    let (rows, cols) = (tile.size[0] as u64, tile.size[1] as u64);
    if k > rows || m > cols {
        let anchor = cx.anchor(fname::pe_tile_size);
        cx.error(
            Code::P409,
            anchor,
            format!("K = {k} and M = {m} must fit the PE tile of {rows} rows × {cols} columns"),
        );
        return false;
    }
    true
}

/// P409 on `pe_tile_position` when, with column tiling, the dst does not start at the
/// partition of the tile's column position (the public router kernel writes
/// `psum[col_off : col_off + t]`).
fn check_column_start(cx: &mut Cx<'_>, tile: &PeTile) {
    if !tile.column_tiling() || !tile.position_ok {
        return;
    }
    let Some(start) = cx.operand(fname::dst).map(Operand::start_partition) else {
        return;
    };
    if !start.is_const() || start.c != tile.position[1] {
        let anchor = cx.anchor(fname::pe_tile_position);
        let at = if start.is_const() {
            format!("partition {}", start.c)
        } else {
            "a loop-dependent partition".to_string()
        };
        cx.error(
            Code::P409,
            anchor,
            format!(
                "with column tiling the dst starts at the tile's column position {}; it starts at {at}",
                tile.position[1]
            ),
        );
    }
}

/// P406 on `dst` unless it is `[m, n]` (partitions, free size).
fn check_dst_shape(cx: &mut Cx<'_>, m: u64, n: u64) {
    let Some((dp, df)) = cx
        .operand(fname::dst)
        .map(|d| (d.partitions(), d.free_size()))
    else {
        return;
    };
    if dp != m || df != n {
        let anchor = cx.anchor(fname::dst);
        cx.error(
            Code::P406,
            anchor,
            format!("dst must be [M, N] = [{m}, {n}]; it is [{dp}, {df}]"),
        );
    }
}

/// P400 unless the stationary access is rank 2 (seed 000 §2.1
/// `transformNeuronWeightTensor`). Returns whether it is.
fn check_weight_rank(cx: &mut Cx<'_>) -> bool {
    let Some(rank) = cx.operand(fname::stationary).map(Operand::rank) else {
        return false;
    };
    if rank != 2 {
        let anchor = cx.anchor(fname::stationary);
        cx.error(
            Code::P400,
            anchor,
            "A splittable NeuronWeightTensor should be of rank 2",
        );
        return false;
    }
    true
}

/// P401 unless `operand` is laid out `[P, 2, F]` with adjacent rows (seed 000 §2.4
/// `addDoubleRowAP`: "incorrect double row step").
fn check_double_row_layout(cx: &mut Cx<'_>, field: &str) -> bool {
    let Some(operand) = cx.operand(field) else {
        return false;
    };
    let ap = operand.ap();
    let ok = operand.rank() == 3
        && ap.len() == 3
        && ap[1][1] == 2
        && ap[1][0] == ap[2][0].saturating_mul(ap[2][1]);
    if !ok {
        let anchor = cx.anchor(field);
        cx.error(Code::P401, anchor, "incorrect double row step");
    }
    ok
}

/// The dtypes the PE takes as stationary/moving (public `nc_matmul`).
fn is_pe_input_dtype(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::F32
            | Dtype::F32r
            | Dtype::Tf32
            | Dtype::Bf16
            | Dtype::F16
            | Dtype::F8e4m3
            | Dtype::F8e5m2
    )
}

fn is_fp32_family(d: Dtype) -> bool {
    matches!(d, Dtype::F32 | Dtype::F32r | Dtype::Tf32)
}

/// The dtype of a usable access field.
fn dtype_of(cx: &Cx<'_>, field: &str) -> Option<Dtype> {
    cx.operand(field).map(|o| o.tensor.dtype)
}

/// P407 on `field` with `message`.
/// The dtypes the PE takes as inputs (SPEC §6.1), as the P407 message lists them.
pub(super) const PE_INPUT_DTYPES: &str = "f32, f32r, tf32, bf16, f16, f8e4m3 or f8e5m2";

/// P407 on PE input `field` of dtype `dtype`, led by the compiler's `Expect ap datatype
/// to be of type …` (SPEC §7.1 [3]) with the dtypes `want` it takes and `why`.
pub(super) fn pe_input_dtype_error(
    cx: &mut Cx<'_>,
    field: &str,
    dtype: Dtype,
    want: &str,
    why: &str,
) {
    let lead = crate::diag::compiler::PE_INPUT_DTYPE;
    let message = format!("{lead} {want}: `{field}` is {} ({why})", dtype.name());
    dtype_error(cx, field, message);
}

fn dtype_error(cx: &mut Cx<'_>, field: &str, message: String) {
    let anchor = cx.anchor(field);
    cx.error(Code::P407, anchor, message);
}

/// The dtype rules of MatMulOp / MatMulSparseOp (P407): PE input dtypes (fp8 only under
/// double_row), both f32-family or neither, dst f32 (or the moving dtype with
/// `isTranspose`).
fn check_pe_dtypes(cx: &mut Cx<'_>, double_row: bool, transpose: bool) {
    let (st, mv, ds) = (
        dtype_of(cx, fname::stationary),
        dtype_of(cx, fname::moving),
        dtype_of(cx, fname::dst),
    );
    let mut inputs_ok = true;
    for (field, d) in [(fname::stationary, st), (fname::moving, mv)] {
        let Some(d) = d else { continue };
        let allowed = is_pe_input_dtype(d) && (!double_row || d.is_fp8());
        if !allowed {
            let (want, why) = if double_row {
                ("f8e4m3 or f8e5m2", "double_row takes fp8 inputs")
            } else {
                (PE_INPUT_DTYPES, "the PE's input dtypes")
            };
            pe_input_dtype_error(cx, field, d, want, why);
            inputs_ok = false;
        }
    }
    if let (true, Some(s), Some(m)) = (inputs_ok, st, mv)
        && is_fp32_family(s) != is_fp32_family(m)
    {
        dtype_error(
            cx,
            fname::moving,
            format!(
                "stationary is {} and moving {}: an f32-family input (f32, f32r, tf32) needs both in that family",
                s.name(),
                m.name()
            ),
        );
    }
    if let Some(d) = ds {
        let want = if transpose { mv } else { Some(Dtype::F32) };
        if let Some(want) = want.filter(|w| *w != d) {
            let why = if transpose {
                "with isTranspose the dst dtype equals the moving dtype"
            } else {
                "a matmul writes f32 into PSUM"
            };
            dtype_error(
                cx,
                fname::dst,
                format!("dst is {} but must be {}: {why}", d.name(), want.name()),
            );
        }
    }
}

/// P304 on `dst` when the bytes its **access** covers in a partition, from its offset to
/// its last element, cross a multiple of 2,048 (a PSUM bank) in any loop iteration (SPEC §4
/// [2]). The declared tensor may span several banks (multi-buffering). A tensor beyond the
/// whole PSUM already has P304 on its declaration and is skipped; so is a faulty access.
pub fn check_one_bank(cx: &mut Cx<'_>) {
    // A dst already wrong (its shape, P406; its dtype, P407) is one mistake, not two.
    if cx.has_error_on(fname::dst) {
        return;
    }
    let Some(dst) = cx.operand(fname::dst) else {
        return;
    };
    if !dst.on_chip() || dst.tensor.partition_bytes() > limits::PSUM_PARTITION_BYTES {
        return;
    }
    let bytes = dst.tensor.dtype.bytes() as i128;
    // Elements from the first to the last one in a partition (dims ≥ 1, dropped ones too).
    let span: i128 = dst
        .dims
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, d)| {
            (d.count as i128 - 1).max(0)
                * d.step as i128
                * dst.tensor.stride(k).min(i64::MAX as u64) as i128
        })
        .sum();
    let offset = dst.offset();
    let loops = &cx.op.loops;
    let offsets = offset.values(loops, 1 << 16).or_else(|| {
        // Too many iterations to list: check the extremes only.
        let (min, max) = offset.range(loops)?;
        Some(vec![(min.value, min.at), (max.value, max.at)])
    });
    let bank = limits::PSUM_BANK_BYTES as i128;
    let crossing = offsets.into_iter().flatten().find(|(first, _)| {
        let (lo, hi) = (first * bytes, (first + span) * bytes + bytes - 1);
        lo.div_euclid(bank) != hi.div_euclid(bank)
    });
    if let Some((first, at)) = crossing {
        let name = dst.tensor.name.clone();
        let (lo, hi) = (first * bytes, (first + span) * bytes + bytes - 1);
        let anchor = cx.anchor(fname::dst);
        cx.error(
            Code::P304,
            anchor,
            format!(
                "{}: a matmul dst must lie inside one PSUM bank ({bank} bytes per partition); \
                 this access covers bytes {lo}..={hi} of `%{name}` in each partition, across \
                 the bank boundary at {}{}",
                crate::diag::compiler::ALLOCATED_OUT_OF_BOUND,
                (lo.div_euclid(bank) + 1) * bank,
                describe_iteration(&at)
            ),
        );
    }
}

/// `psum_buf_shape`: the dst tensor's `[P, F]` (F the product of its free dims).
pub fn psum_buf_shape(cx: &Cx<'_>) -> Option<[u64; 2]> {
    let dst = cx.any_operand(fname::dst)?;
    let dims = &dst.tensor.dims;
    let free = dims.iter().skip(1).fold(1u64, |a, d| a.saturating_mul(*d));
    Some([dims.first().copied().unwrap_or(1), free])
}

/// P414 on `field` when its integer value is negative (a `Nat` in the public schema).
fn check_natural(cx: &mut Cx<'_>, field: &str) {
    if let Some(v) = cx.int(field).filter(|v| *v < 0) {
        let anchor = cx.anchor(field);
        cx.error(
            Code::P414,
            anchor,
            format!("`{field}` is a natural number; got {v}"),
        );
    }
}

/// The K, M and N checks shared by MatMulOp and MatMulSparseOp: contraction (P405), the
/// moving and stationary limits and the dst `[M, N]` shape (P406), the tile fit (P409).
/// `n_of` turns the moving's N into the dst's (sparse: divided by the compress ratio);
/// `None` means N is unknown and its checks are skipped.
fn check_sizes(
    cx: &mut Cx<'_>,
    tile: &PeTile,
    double_row: bool,
    n_of: &dyn Fn(&mut Cx<'_>, u64) -> Option<u64>,
) {
    let (Some(s), Some(m)) = (cx.operand(fname::stationary), cx.operand(fname::moving)) else {
        return;
    };
    let last = |o: &Operand| o.shape().last().copied().unwrap_or(1);
    let (k, mk) = (s.partitions(), m.partitions());
    let (mdim, n_moving) = if double_row {
        (last(s), last(m))
    } else {
        (s.free_size(), m.free_size())
    };
    if k != mk || k > limits::PARTITIONS {
        let anchor = cx.anchor(fname::moving);
        cx.error(
            Code::P405,
            anchor,
            format!(
                "contraction mismatch: the stationary has {k} partitions and the moving {mk} (K ≤ 128)"
            ),
        );
        return;
    }
    let n = n_of(cx, n_moving);
    let mut sizes_ok = true;
    if let Some(n) = n.filter(|n| *n > limits::MATMUL_MAX_MOVING_FREE) {
        let anchor = cx.anchor(fname::moving);
        let what = if n == n_moving {
            format!("moving free size N = {n}")
        } else {
            format!("the dst free size N = {n} (moving free size {n_moving})")
        };
        cx.error(
            Code::P406,
            anchor,
            format!("{what} exceeds 512 (one PSUM bank of f32)"),
        );
        sizes_ok = false;
    }
    if mdim > limits::MATMUL_MAX_STATIONARY_FREE {
        let anchor = cx.anchor(fname::dst);
        cx.error(
            Code::P406,
            anchor,
            format!("stationary free size M = {mdim} exceeds 128"),
        );
        sizes_ok = false;
    }
    if !sizes_ok {
        return;
    }
    if let Some(n) = n {
        check_dst_shape(cx, mdim, n);
    }
    if check_tile_fit(cx, tile, k, mdim) {
        check_column_start(cx, tile);
    }
}

/// The fields every matmul-family instruction starts with.
fn set_calc_flags(inst: &mut Inst, accumulate: bool) {
    inst.set(F::StartTensorCalc, !accumulate)
        .set(F::StopTensorCalc, false);
}

fn lower_matmul(cx: &mut Cx<'_>) {
    let mode_known = !cx.is_bad(fname::perf_mode);
    let double_row = cx.ident(fname::perf_mode) == Some("double_row");
    let transpose = cx.bool(fname::isTranspose);
    cx.mark_stationary(fname::stationary);
    let mut tile = pe_tile(cx);

    // Layout: rank-2 weight (P400) or the double-row [P, 2, F] layout (P401).
    let mut layout_ok = mode_known;
    if !mode_known {
        // An unknown perf_mode (P207) says nothing about the layout.
    } else if double_row {
        layout_ok &= check_double_row_layout(cx, fname::stationary);
        layout_ok &= check_double_row_layout(cx, fname::moving);
        if tile.column_tiling() {
            let anchor = cx.anchor(fname::pe_tile_position);
            cx.error(
                Code::P409,
                anchor,
                "double_row does not allow column tiling (tile columns must be 128)",
            );
            // One mistake, one diagnostic: the tile is not checked against K/M again.
            tile.size_ok = false;
        }
    } else {
        layout_ok &= check_weight_rank(cx);
    }

    check_pe_dtypes(cx, double_row, transpose);
    if layout_ok {
        check_sizes(cx, &tile, double_row, &|_, n| Some(n));
    }
    check_one_bank(cx);
    check_natural(cx, fname::ifmap_quant_offset);
    if let Some(n) = cx
        .int(fname::num_active_partitions)
        .filter(|n| !(1..=limits::PARTITIONS as i64).contains(n))
    {
        let anchor = cx.anchor(fname::num_active_partitions);
        cx.error(
            Code::P414,
            anchor,
            format!("num_active_partitions is between 1 and 128; got {n}"),
        );
    }

    let accumulate = cx.bool(fname::is_accumulate);
    let channels = cx.int(fname::num_active_partitions).or_else(|| {
        cx.any_operand(fname::stationary)
            .map(|s| s.partitions() as i64)
    });
    let psum = psum_buf_shape(cx);
    let weight_onezero = cx.bool(fname::isStationaryOneZero);
    let fmap_onezero = cx.bool(fname::isMovingZero);
    let quant = cx.int(fname::ifmap_quant_offset).unwrap_or(0);
    let inst = cx.inst_with_args(Opcode::Matmult);
    set_calc_flags(inst, accumulate);
    inst.set(F::IsTranspose, transpose)
        .set(F::IsFmapOnezero, fmap_onezero)
        .set(F::IsWeightOnezero, weight_onezero)
        .set(F::TileSize, tile.size)
        .set(F::TilePosition, tile.position)
        .set(F::PerfMode, if double_row { "DoubleRow" } else { "None" });
    if double_row {
        inst.set(F::ReplicationNumRows, 2);
    }
    inst.set(F::IfmapQuantOffset, quant.max(0));
    if let Some(c) = channels {
        inst.set(F::NumActiveChannels, c.max(0));
    }
    if let Some(p) = psum {
        inst.set(F::PsumBufShape, p);
    }
    inst.set(F::IsAccumulate, accumulate);
}

mod mx;
mod sparse;
mod transpose;

pub use mx::MATMUL_MX_OP;
pub use sparse::MATMUL_SPARSE_OP;
pub use transpose::TRANSPOSE_OP;
