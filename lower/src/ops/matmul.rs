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

use serde_json::json;

use super::common::{check_pointer_shape, dst, input, later_anchor, src};
use crate::access::Operand;
use crate::catalog::{
    Default, Dir, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec,
};
use crate::cx::{Cx, Inst};
use crate::diag::{Code, Diag};
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
/// `isTranspose`.
pub const IS_TRANSPOSE: FieldSpec = FieldSpec {
    name: "isTranspose",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_transpose",
    doc: "transpose through the PE: the dst dtype then equals the moving dtype",
};
/// `isStationaryOneZero`.
pub const IS_STATIONARY_ONE_ZERO: FieldSpec = FieldSpec {
    name: "isStationaryOneZero",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_weight_onezero",
    doc: "the stationary holds only ones and zeros",
};
/// `isMovingZero`.
pub const IS_MOVING_ZERO: FieldSpec = FieldSpec {
    name: "isMovingZero",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_fmap_onezero",
    doc: "the moving holds only ones and zeros",
};

/// MatMulOp → `Matmult`.
///
/// BIR key order: `start_tensor_calc`, `stop_tensor_calc`, `is_transpose`,
/// `is_fmap_onezero`, `is_weight_onezero`, `tile_size`, `tile_position`, `perf_mode`
/// (`replication_num_rows` after it under DoubleRow), `ifmap_quant_offset`,
/// `num_active_channels`, `psum_buf_shape`, `is_accumulate` (the SPEC §8 example).
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
            doc: "number of active PE rows (1 to 128)",
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

/// MatMulMXOp → `MatmultMx`.
///
/// BIR key order: `start_tensor_calc`, `stop_tensor_calc`, `tile_size`, `tile_position`,
/// `scale`, `offset_scale` (when written), `psum_buf_shape`, `is_accumulate`.
pub static MATMUL_MX_OP: OpSpec = OpSpec {
    class: "MatMulMXOp",
    opcode: "MatmultMx",
    engine: EngineSpec::Fixed(Engine::Pe),
    instruction_type: None,
    doc: "Microscaling (MX) matrix multiply on the PE array: packed fp8/fp4 ×4 operands with \
          E8M0 block scales (one per 8 partitions), `dst[M, N] (+)= (lhs_scale·stationary)ᵀ · \
          (rhs_scale·moving) · scale`. M and N count packed elements; the dst may span \
          several PSUM banks. Row tiling only.",
    source: "seed 000 §2.2 codegenMatMulMXOp, getMxScalePartitionAp; SPEC §6.1",
    fields: &[
        MATMUL_DST,
        STATIONARY,
        MOVING,
        PE_TILE_POSITION,
        PE_TILE_SIZE,
        IS_ACCUMULATE,
        input(
            "lhs_scale",
            Mems::SBUF,
            "operand `lhs_scale` (ins)",
            "E8M0 (or u8) block scales of the stationary: [K/8, M]",
        ),
        input(
            "rhs_scale",
            Mems::SBUF,
            "operand `rhs_scale` (ins)",
            "E8M0 (or u8) block scales of the moving: [K/8, N]",
        ),
        FieldSpec {
            name: "scale",
            kind: Kind::Float,
            default: Default::Float(1.0),
            bir: "scale",
            doc: "a constant factor on the product; must be 1.0 when `scale_ptr` is given",
        },
        FieldSpec {
            name: "scale_ptr",
            kind: Kind::Acc(Mems::SBUF, Dir::In),
            default: Default::Absent,
            bir: "operand `scale_ptr` (ins)",
            doc: "a [P, 1] f32 per-partition factor, P the dst partitions",
        },
        FieldSpec {
            name: "offset_scale",
            kind: Kind::Int,
            default: Default::Absent,
            bir: "offset_scale",
            doc: "the moving's accumulated free size (the product of its free counts)",
        },
    ],
    lower: lower_matmul_mx,
};

/// MatMulSparseOp → `MatmultSparse`.
///
/// BIR key order: `start_tensor_calc`, `stop_tensor_calc`, `replication_resolution`,
/// `replication_shift_amnt`, `replication_num_rows`, `is_transpose`, `is_fmap_onezero`,
/// `is_weight_onezero`, `tile_size`, `tile_position`, `compress_ratio`, `psum_buf_shape`,
/// `is_accumulate`.
pub static MATMUL_SPARSE_OP: OpSpec = OpSpec {
    class: "MatMulSparseOp",
    opcode: "MatmultSparse",
    engine: EngineSpec::Fixed(Engine::Pe),
    instruction_type: None,
    doc: "Structured-sparse matrix multiply on the PE array: the moving is compressed by \
          `compress_ratio` (2 or 4) with `tags` saying which values are kept, so the dst is \
          `[M, N / compress_ratio]` (at most 512 columns).",
    source: "seed 000 §2.3 codegenMatMulSparseOp, addSparseMatmulAP; SPEC §6.1",
    fields: &[
        MATMUL_DST,
        STATIONARY,
        MOVING,
        input(
            "tags",
            Mems::SBUF,
            "operand `tags` (ins)",
            "the sparsity tags of the moving, u8 or u16 in sbuf",
        ),
        IS_TRANSPOSE,
        IS_STATIONARY_ONE_ZERO,
        IS_MOVING_ZERO,
        PE_TILE_POSITION,
        PE_TILE_SIZE,
        IS_ACCUMULATE,
        FieldSpec {
            name: "compress_ratio",
            kind: Kind::Int,
            default: Default::Required,
            bir: "compress_ratio",
            doc: "the compression of the moving's free dim: 2 or 4",
        },
        FieldSpec {
            name: "replication_resolution",
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "replication_resolution",
            doc: "replication resolution of the sparse pattern (≥ 0)",
        },
        FieldSpec {
            name: "replication_shift_amnt",
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "replication_shift_amnt",
            doc: "replication shift amount (≥ 0)",
        },
        FieldSpec {
            name: "replication_num_rows",
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "replication_num_rows",
            doc: "number of replicated rows (≥ 0)",
        },
    ],
    lower: lower_matmul_sparse,
};

/// TransposeOp → `Matmult` with `is_transpose: true` and `identity: true`.
///
/// The `src` sits in the moving slot (its argument's role is `src`, the Penguin field,
/// SPEC §8); the implied identity stationary is not an argument. BIR key order: `start_tensor_calc`, `stop_tensor_calc`,
/// `is_transpose`, `identity`, `is_fmap_onezero`, `is_weight_onezero`, `tile_size`,
/// `tile_position`, `perf_mode`, `ifmap_quant_offset`, `num_active_channels`,
/// `psum_buf_shape`, `is_accumulate` (MatMulOp's, with `identity` after `is_transpose`).
pub static TRANSPOSE_OP: OpSpec = OpSpec {
    class: "TransposeOp",
    opcode: "Matmult",
    engine: EngineSpec::Fixed(Engine::Pe),
    instruction_type: None,
    doc: "Transposes a tile on the PE array, as a matmul against an identity stationary: \
          `dst[F, P] = src[P, F]ᵀ`, both rank 2 and at most [128, 128]; the PSUM dst has the \
          src's dtype and fits one bank.",
    source: "SPEC §6.7 (decision: the public nc_transpose on PE); seed 000 §1.2 codegenTransposeOp",
    fields: &[
        dst(
            Mems::PSUM,
            "the transposed tile [F, P] in PSUM, with the src's dtype",
        ),
        src(
            Mems::SBUF,
            "the tile [P, F] to transpose, in sbuf (the matmul's moving)",
        ),
    ],
    lower: lower_transpose,
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
    let size = pair(cx, "pe_tile_size", [128, 128]);
    let position = pair(cx, "pe_tile_position", [0, 0]);
    let mut tile = PeTile {
        size: size.unwrap_or([128, 128]),
        position: position.unwrap_or([0, 0]),
        size_ok: size.is_some(),
        position_ok: position.is_some(),
    };
    if tile.size_ok && !tile.size.iter().all(|s| matches!(s, 32 | 64 | 128)) {
        let anchor = cx.anchor("pe_tile_size");
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
                let anchor = cx.anchor("pe_tile_position");
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
        let anchor = cx.anchor("pe_tile_size");
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
    let Some(start) = cx.operand("dst").map(Operand::start_partition) else {
        return;
    };
    if !start.is_const() || start.c != tile.position[1] {
        let anchor = cx.anchor("pe_tile_position");
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
    let Some((dp, df)) = cx.operand("dst").map(|d| (d.partitions(), d.free_size())) else {
        return;
    };
    if dp != m || df != n {
        let anchor = cx.anchor("dst");
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
    let Some(rank) = cx.operand("stationary").map(Operand::rank) else {
        return false;
    };
    if rank != 2 {
        let anchor = cx.anchor("stationary");
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
fn dtype_error(cx: &mut Cx<'_>, field: &str, message: String) {
    let anchor = cx.anchor(field);
    cx.error(Code::P407, anchor, message);
}

/// The dtype rules of MatMulOp / MatMulSparseOp (P407): PE input dtypes (fp8 only under
/// double_row), both f32-family or neither, dst f32 (or the moving dtype with
/// `isTranspose`).
fn check_pe_dtypes(cx: &mut Cx<'_>, double_row: bool, transpose: bool) {
    let (st, mv, ds) = (
        dtype_of(cx, "stationary"),
        dtype_of(cx, "moving"),
        dtype_of(cx, "dst"),
    );
    let mut inputs_ok = true;
    for (field, d) in [("stationary", st), ("moving", mv)] {
        let Some(d) = d else { continue };
        let allowed = is_pe_input_dtype(d) && (!double_row || d.is_fp8());
        if !allowed {
            let want = if double_row {
                "double_row takes fp8 inputs (f8e4m3, f8e5m2)"
            } else {
                "the PE takes f32, f32r, tf32, bf16, f16, f8e4m3 or f8e5m2"
            };
            dtype_error(cx, field, format!("`{field}` is {}: {want}", d.name()));
            inputs_ok = false;
        }
    }
    if let (true, Some(s), Some(m)) = (inputs_ok, st, mv)
        && is_fp32_family(s) != is_fp32_family(m)
    {
        dtype_error(
            cx,
            "moving",
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
                "dst",
                format!("dst is {} but must be {}: {why}", d.name(), want.name()),
            );
        }
    }
}

/// P304 on `dst` when its psum tensor does not fit one 2 KiB bank per partition (SPEC §4).
/// A tensor beyond the whole PSUM already has P304 on its declaration and is skipped.
pub fn check_one_bank(cx: &mut Cx<'_>) {
    // A dst already wrong (its shape, P406; its dtype, P407) is one mistake, not two.
    if cx.has_error_on("dst") {
        return;
    }
    let Some(dst) = cx.any_operand("dst") else {
        return;
    };
    let bytes = dst.tensor.partition_bytes();
    if bytes > limits::PSUM_BANK_BYTES && bytes <= limits::PSUM_PARTITION_BYTES {
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
    let (Some(s), Some(m)) = (cx.operand("stationary"), cx.operand("moving")) else {
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
        let anchor = cx.anchor("moving");
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
        let anchor = cx.anchor("moving");
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
        let anchor = cx.anchor("dst");
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
    inst.set("start_tensor_calc", !accumulate)
        .set("stop_tensor_calc", false);
}

fn lower_matmul(cx: &mut Cx<'_>) {
    let mode_known = !cx.is_bad("perf_mode");
    let double_row = cx.ident("perf_mode") == Some("double_row");
    let transpose = cx.bool("isTranspose");
    cx.mark_stationary("stationary");
    let mut tile = pe_tile(cx);

    // Layout: rank-2 weight (P400) or the double-row [P, 2, F] layout (P401).
    let mut layout_ok = mode_known;
    if !mode_known {
        // An unknown perf_mode (P207) says nothing about the layout.
    } else if double_row {
        layout_ok &= check_double_row_layout(cx, "stationary");
        layout_ok &= check_double_row_layout(cx, "moving");
        if tile.column_tiling() {
            let anchor = cx.anchor("pe_tile_position");
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
    check_natural(cx, "ifmap_quant_offset");
    if let Some(n) = cx
        .int("num_active_partitions")
        .filter(|n| !(1..=limits::PARTITIONS as i64).contains(n))
    {
        let anchor = cx.anchor("num_active_partitions");
        cx.error(
            Code::P414,
            anchor,
            format!("num_active_partitions is between 1 and 128; got {n}"),
        );
    }

    let accumulate = cx.bool("is_accumulate");
    let channels = cx
        .int("num_active_partitions")
        .or_else(|| cx.any_operand("stationary").map(|s| s.partitions() as i64));
    let psum = psum_buf_shape(cx);
    let weight_onezero = cx.bool("isStationaryOneZero");
    let fmap_onezero = cx.bool("isMovingZero");
    let quant = cx.int("ifmap_quant_offset").unwrap_or(0);
    let inst = cx.inst_with_args("Matmult");
    set_calc_flags(inst, accumulate);
    inst.set("is_transpose", transpose)
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
        inst.set("num_active_channels", c.max(0));
    }
    if let Some(p) = psum {
        inst.set("psum_buf_shape", json!(p));
    }
    inst.set("is_accumulate", accumulate);
}

// ----- MatMulMXOp --------------------------------------------------------------------

fn is_mx_dtype(d: Dtype) -> bool {
    matches!(d, Dtype::F8e5m2x4 | Dtype::F8e4m3fnx4 | Dtype::F4e2m1fnx4)
}

/// The MX dtype rules (P407): packed ×4 operands, e8m0/u8 scales, an f32 or bf16 dst, an
/// f32 `scale_ptr`.
fn check_mx_dtypes(cx: &mut Cx<'_>) {
    for field in ["stationary", "moving"] {
        if let Some(d) = dtype_of(cx, field).filter(|d| !is_mx_dtype(*d)) {
            dtype_error(
                cx,
                field,
                format!(
                    "`{field}` is {}: an MX matmul takes f8e5m2x4, f8e4m3fnx4 or f4e2m1fnx4",
                    d.name()
                ),
            );
        }
    }
    for field in ["lhs_scale", "rhs_scale"] {
        if let Some(d) = dtype_of(cx, field).filter(|d| !matches!(d, Dtype::E8m0 | Dtype::U8)) {
            dtype_error(
                cx,
                field,
                format!("`{field}` is {}: MX scales are e8m0 or u8", d.name()),
            );
        }
    }
    if let Some(d) = dtype_of(cx, "dst").filter(|d| !matches!(d, Dtype::F32 | Dtype::Bf16)) {
        dtype_error(
            cx,
            "dst",
            format!("dst is {}: an MX matmul writes f32 or bf16", d.name()),
        );
    }
    if let Some(d) = dtype_of(cx, "scale_ptr").filter(|d| *d != Dtype::F32) {
        dtype_error(
            cx,
            "scale_ptr",
            format!("`scale_ptr` is {}: it must be f32", d.name()),
        );
    }
}

/// The MX sizes: K (P405, P406: a multiple of 32), M even and ≤ 128, N by dst dtype
/// (P406), dst `[M, N]` (P406), the tile fit (P409).
fn check_mx_sizes(cx: &mut Cx<'_>, tile: &PeTile) {
    let (Some(s), Some(m)) = (cx.operand("stationary"), cx.operand("moving")) else {
        return;
    };
    let (k, mk, mdim, n) = (s.partitions(), m.partitions(), s.free_size(), m.free_size());
    if k != mk {
        let anchor = cx.anchor("moving");
        cx.error(
            Code::P405,
            anchor,
            format!("contraction mismatch: the stationary has {k} partitions and the moving {mk}"),
        );
        return;
    }
    let mut sizes_ok = true;
    if k % limits::QUADRANT != 0 || k > limits::PARTITIONS {
        let anchor = cx.anchor("moving");
        cx.error(
            Code::P406,
            anchor,
            format!(
                "an MX matmul contracts over a multiple of 32 partitions, at most 128; K = {k}"
            ),
        );
        sizes_ok = false;
    }
    let n_max = match dtype_of(cx, "dst") {
        Some(Dtype::F32) => Some(limits::MX_MAX_MOVING_FREE_F32),
        Some(Dtype::Bf16) => Some(limits::MX_MAX_MOVING_FREE_BF16),
        _ => None,
    };
    if let Some(max) = n_max.filter(|max| n > *max) {
        let anchor = cx.anchor("moving");
        cx.error(
            Code::P406,
            anchor,
            format!("moving free size N = {n} exceeds {max} for this dst dtype"),
        );
        sizes_ok = false;
    }
    if mdim % 2 != 0 || mdim > limits::MATMUL_MAX_STATIONARY_FREE {
        let anchor = cx.anchor("dst");
        cx.error(
            Code::P406,
            anchor,
            format!("the stationary free size M = {mdim} must be even and at most 128"),
        );
        sizes_ok = false;
    }
    if sizes_ok {
        check_dst_shape(cx, mdim, n);
        check_tile_fit(cx, tile, k, mdim);
    }
}

/// The scale tensors: `[K/8, F]` with F the operand's free size (P300 partitions, P305
/// free size; seed 000 §2.2 `getMxScalePartitionAp`), and `scale_ptr` `[P, 1]` (P305).
fn check_mx_scales(cx: &mut Cx<'_>) {
    for (scale, of) in [("lhs_scale", "stationary"), ("rhs_scale", "moving")] {
        let (Some(sc), Some(op)) = (cx.operand(scale), cx.operand(of)) else {
            continue;
        };
        let (sp, sf, op_p, op_f) = (
            sc.partitions(),
            sc.free_size(),
            op.partitions(),
            op.free_size(),
        );
        if op_p % 8 != 0 {
            continue;
        }
        if sp != op_p / 8 {
            let anchor = cx.anchor(scale);
            let diag = Diag::incorrect_access_pattern(
                anchor.clone(),
                anchor,
                format!(
                    "`{scale}` has {sp} partitions; one E8M0 scale per 8 partitions of the {of} ({op_p}) needs {}",
                    op_p / 8
                ),
            );
            cx.report(diag);
        } else if sf != op_f {
            let anchor = cx.anchor(scale);
            cx.error(
                Code::P305,
                anchor,
                format!("`{scale}` has {sf} elements per partition but the {of} has {op_f}"),
            );
        }
    }
    let dst_partitions = cx.operand("dst").map(Operand::partitions);
    if let (Some(p), Some(ptr)) = (dst_partitions, cx.operand("scale_ptr").cloned()) {
        let anchor = cx.anchor("scale_ptr");
        check_pointer_shape(cx, "scale_ptr", anchor, &ptr, p);
    }
}

fn lower_matmul_mx(cx: &mut Cx<'_>) {
    cx.mark_stationary("stationary");
    let mut tile = pe_tile(cx);
    // Row tiling only: tile columns 128 at column 0.
    if tile.size_ok && tile.position_ok && (tile.size[1] != 128 || tile.position[1] != 0) {
        let anchor = cx.anchor("pe_tile_position");
        cx.error(
            Code::P409,
            anchor,
            "an MX matmul tiles rows only: the tile has 128 columns at column 0",
        );
        tile.size_ok = false;
    }
    let rank_ok = check_weight_rank(cx);
    check_mx_dtypes(cx);
    if rank_ok {
        check_mx_sizes(cx, &tile);
    }
    check_mx_scales(cx);

    // P402: scale_ptr with a scale other than 1.0.
    let scale = cx.float("scale");
    if cx.written("scale_ptr")
        && !cx.is_bad("scale_ptr")
        && let Some(s) = scale.filter(|s| *s != 1.0)
    {
        let anchor = cx.anchor("scale");
        cx.report(
            Diag::new(
                Code::P402,
                anchor,
                "Scale should be 1.0 if scale_ptr is specified",
            )
            .with_related(
                cx.anchor("scale_ptr"),
                format!("`scale` is {s} and `scale_ptr` is given here"),
            ),
        );
    }
    // P403: offset_scale differs from the moving's accumulated free size.
    let offset_scale = cx.int("offset_scale");
    if let (Some(off), Some(free)) = (offset_scale, cx.operand("moving").map(Operand::free_size))
        && u64::try_from(off).ok() != Some(free)
    {
        let anchor = cx.anchor("offset_scale");
        let inst = format!("{} #{}", cx.spec.class, cx.op.op_id);
        cx.report(
            Diag::new(
                Code::P403,
                anchor,
                format!(
                    "offset scale is not equivalent to the accumulated tensor size on right of generic dim in {inst}"
                ),
            )
            .with_related(cx.anchor("moving"), format!("the moving's free size is {free}")),
        );
    }

    let accumulate = cx.bool("is_accumulate");
    let psum = psum_buf_shape(cx);
    let inst = cx.inst_with_args("MatmultMx");
    set_calc_flags(inst, accumulate);
    inst.set("tile_size", json!(tile.size))
        .set("tile_position", json!(tile.position))
        .set_float("scale", scale.unwrap_or(1.0));
    if let Some(off) = offset_scale {
        inst.set("offset_scale", off);
    }
    if let Some(p) = psum {
        inst.set("psum_buf_shape", json!(p));
    }
    inst.set("is_accumulate", accumulate);
}

// ----- MatMulSparseOp ----------------------------------------------------------------

fn lower_matmul_sparse(cx: &mut Cx<'_>) {
    let transpose = cx.bool("isTranspose");
    cx.mark_stationary("stationary");
    let tile = pe_tile(cx);
    let rank_ok = check_weight_rank(cx);
    check_pe_dtypes(cx, false, transpose);
    if let Some(d) = dtype_of(cx, "tags").filter(|d| !matches!(d, Dtype::U8 | Dtype::U16)) {
        dtype_error(
            cx,
            "tags",
            format!("`tags` is {}: sparsity tags are u8 or u16", d.name()),
        );
    }
    let ratio = cx.int("compress_ratio");
    let ratio_ok = ratio.filter(|r| matches!(r, 2 | 4));
    if let Some(r) = ratio.filter(|_| ratio_ok.is_none()) {
        let anchor = cx.anchor("compress_ratio");
        cx.error(
            Code::P414,
            anchor,
            format!("compress_ratio is 2 or 4; got {r}"),
        );
    }
    if rank_ok {
        let n_of = |cx: &mut Cx<'_>, n: u64| -> Option<u64> {
            let r = ratio_ok? as u64;
            if !n.is_multiple_of(r) {
                let anchor = cx.anchor("moving");
                cx.error(
                    Code::P305,
                    anchor,
                    format!("the moving free size {n} is not a multiple of compress_ratio {r}"),
                );
                return None;
            }
            Some(n / r)
        };
        check_sizes(cx, &tile, false, &n_of);
    }
    check_one_bank(cx);
    for field in [
        "replication_resolution",
        "replication_shift_amnt",
        "replication_num_rows",
    ] {
        check_natural(cx, field);
    }

    let accumulate = cx.bool("is_accumulate");
    let psum = psum_buf_shape(cx);
    let replication: Vec<(&str, i64)> = [
        "replication_resolution",
        "replication_shift_amnt",
        "replication_num_rows",
    ]
    .into_iter()
    .map(|f| (f, cx.int(f).unwrap_or(0).max(0)))
    .collect();
    let weight_onezero = cx.bool("isStationaryOneZero");
    let fmap_onezero = cx.bool("isMovingZero");
    let inst = cx.inst_with_args("MatmultSparse");
    set_calc_flags(inst, accumulate);
    for (field, value) in replication {
        inst.set(field, value);
    }
    inst.set("is_transpose", transpose)
        .set("is_fmap_onezero", fmap_onezero)
        .set("is_weight_onezero", weight_onezero)
        .set("tile_size", json!(tile.size))
        .set("tile_position", json!(tile.position));
    if let Some(r) = ratio {
        inst.set("compress_ratio", r);
    }
    if let Some(p) = psum {
        inst.set("psum_buf_shape", json!(p));
    }
    inst.set("is_accumulate", accumulate);
}

// ----- TransposeOp -------------------------------------------------------------------

fn lower_transpose(cx: &mut Cx<'_>) {
    let mut shapes_ok = true;
    for field in ["src", "dst"] {
        let Some(rank) = cx.operand(field).map(Operand::rank) else {
            shapes_ok = false;
            continue;
        };
        if rank != 2 {
            let anchor = cx.anchor(field);
            cx.error(
                Code::P305,
                anchor,
                format!("a transpose takes rank-2 accesses; `{field}` has rank {rank}"),
            );
            shapes_ok = false;
        }
    }
    if shapes_ok {
        let shape = |cx: &Cx<'_>, f: &str| cx.operand(f).map(Operand::shape).unwrap_or_default();
        let (s, d) = (shape(cx, "src"), shape(cx, "dst"));
        let free = s.get(1).copied().unwrap_or(1);
        if free > limits::PARTITIONS {
            let anchor = cx.anchor("src");
            cx.error(
                Code::P406,
                anchor,
                format!(
                    "a transpose is at most [128, 128]; `src` has {free} elements per partition"
                ),
            );
        } else if d.iter().rev().ne(s.iter()) {
            let reversed: Vec<u64> = s.iter().rev().copied().collect();
            let anchor = later_anchor(cx, "src", "dst");
            cx.error(
                Code::P305,
                anchor,
                format!(
                    "the dst of a transpose is the src shape reversed, {reversed:?}; it is {d:?}"
                ),
            );
        }
    }
    let (st, ds) = (dtype_of(cx, "src"), dtype_of(cx, "dst"));
    if let Some(s) = st.filter(|s| !is_pe_input_dtype(*s)) {
        dtype_error(
            cx,
            "src",
            format!(
                "`src` is {}: the PE takes f32, f32r, tf32, bf16, f16, f8e4m3 or f8e5m2",
                s.name()
            ),
        );
    } else if let (Some(s), Some(d)) = (st, ds)
        && s != d
    {
        dtype_error(
            cx,
            "dst",
            format!(
                "dst is {} but a transpose keeps the dtype: it must be {}",
                d.name(),
                s.name()
            ),
        );
    }
    check_one_bank(cx);

    let channels = cx.any_operand("src").map(|s| s.partitions());
    let psum = psum_buf_shape(cx);
    // `src` sits in the moving slot (SPEC §6.7); its role names the Penguin field (§8).
    let inst = cx.inst_with_args("Matmult");
    set_calc_flags(inst, false);
    inst.set("is_transpose", true)
        .set("identity", true)
        .set("is_fmap_onezero", false)
        .set("is_weight_onezero", false)
        .set("tile_size", json!([128, 128]))
        .set("tile_position", json!([0, 0]))
        .set("perf_mode", "None")
        .set("ifmap_quant_offset", 0);
    if let Some(c) = channels {
        inst.set("num_active_channels", c);
    }
    if let Some(p) = psum {
        inst.set("psum_buf_shape", json!(p));
    }
    inst.set("is_accumulate", false);
}
