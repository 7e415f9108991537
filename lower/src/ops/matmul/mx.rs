//! MatMulMXOp → `MatmultMx` (SPEC §6.1; seed 000 §2.2): microscaled matmul with E8M0 block
//! scales.

use super::*;

/// MatMulMXOp → `MatmultMx`.
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`. The `ins` are
/// stationary, moving, lhs_scale, rhs_scale, scale_ptr, then dst_scale (SPEC §6.1 [2]).
pub static MATMUL_MX_OP: OpSpec = OpSpec {
    class: "MatMulMXOp",
    opcode: "MatmultMx",
    engine: EngineSpec::Fixed(Engine::Pe),
    instruction_type: None,
    doc: "Microscaling (MX) matrix multiply on the PE array: packed fp8/fp4 ×4 operands with \
          E8M0 block scales (one per 8 partitions), `dst[M, N] (+)= (lhs_scale·stationary)ᵀ · \
          (rhs_scale·moving) · scale`. M and N count packed elements; the dst may span \
          several PSUM banks. Row tiling only.",
    source: "seed 000 §2.2 codegenMatMulMXOp (lhs_scale / rhs_scale / dst_scale / \
             offset_scale), getMxScalePartitionAp; SPEC §6.1",
    fields: &[
        MATMUL_DST,
        STATIONARY,
        MOVING,
        PE_TILE_POSITION,
        PE_TILE_SIZE,
        IS_ACCUMULATE,
        input(
            fname::lhs_scale,
            Mems::SBUF,
            "operand `lhs_scale` (ins)",
            "E8M0 (or u8) block scales of the stationary: [K/8, M]",
        ),
        input(
            fname::rhs_scale,
            Mems::SBUF,
            "operand `rhs_scale` (ins)",
            "E8M0 (or u8) block scales of the moving: [K/8, N]",
        ),
        FieldSpec {
            name: fname::scale,
            kind: Kind::Float,
            default: Default::Float(1.0),
            bir: "scale",
            doc: "a constant factor on the product; must be 1.0 when `scale_ptr` is given",
        },
        FieldSpec {
            name: fname::scale_ptr,
            kind: Kind::Acc(Mems::SBUF, Dir::In),
            default: Default::Absent,
            bir: "operand `scale_ptr` (ins)",
            doc: "a [P, 1] f32 per-partition factor, P the dst partitions",
        },
        FieldSpec {
            name: fname::offset_scale,
            kind: Kind::Int,
            default: Default::Absent,
            bir: "offset_scale",
            doc: "the moving's accumulated free size (the product of its free counts)",
        },
        FieldSpec {
            name: fname::dst_scale,
            kind: Kind::Acc(Mems::SBUF, Dir::In),
            default: Default::Absent,
            bir: "operand `dst_scale` (ins, the last entry)",
            doc: "E8M0 (or u8) scales of the dst, read by the matmul (seed 000 §2.2 names it \
                  among the per-operand fields); its shape is not checked",
        },
    ],
    lower: lower_matmul_mx,
};

// ----- MatMulMXOp --------------------------------------------------------------------

fn is_mx_dtype(d: Dtype) -> bool {
    matches!(d, Dtype::F8e5m2x4 | Dtype::F8e4m3fnx4 | Dtype::F4e2m1fnx4)
}

/// The MX dtype rules (P407): packed ×4 operands, e8m0/u8 scales, an f32 or bf16 dst, an
/// f32 `scale_ptr`; `dst_scale` is e8m0 or u8 too (SPEC §6.1 [2]).
fn check_mx_dtypes(cx: &mut Cx<'_>) {
    for field in [fname::stationary, fname::moving] {
        if let Some(d) = dtype_of(cx, field).filter(|d| !is_mx_dtype(*d)) {
            pe_input_dtype_error(
                cx,
                field,
                d,
                "f8e5m2x4, f8e4m3fnx4 or f4e2m1fnx4",
                "an MX matmul's packed inputs",
            );
        }
    }
    for field in [fname::lhs_scale, fname::rhs_scale, fname::dst_scale] {
        if let Some(d) = dtype_of(cx, field).filter(|d| !matches!(d, Dtype::E8m0 | Dtype::U8)) {
            dtype_error(
                cx,
                field,
                format!("`{field}` is {}: MX scales are e8m0 or u8", d.name()),
            );
        }
    }
    if let Some(d) = dtype_of(cx, fname::dst).filter(|d| !matches!(d, Dtype::F32 | Dtype::Bf16)) {
        dtype_error(
            cx,
            fname::dst,
            format!("dst is {}: an MX matmul writes f32 or bf16", d.name()),
        );
    }
    if let Some(d) = dtype_of(cx, fname::scale_ptr).filter(|d| *d != Dtype::F32) {
        dtype_error(
            cx,
            fname::scale_ptr,
            format!("`scale_ptr` is {}: it must be f32", d.name()),
        );
    }
}

/// The MX sizes: K (P405, P406: a multiple of 32), M even and ≤ 128, N by dst dtype
/// (P406), dst `[M, N]` (P406), the tile fit (P409).
fn check_mx_sizes(cx: &mut Cx<'_>, tile: &PeTile) {
    let (Some(s), Some(m)) = (cx.operand(fname::stationary), cx.operand(fname::moving)) else {
        return;
    };
    let (k, mk, mdim, n) = (s.partitions(), m.partitions(), s.free_size(), m.free_size());
    if k != mk {
        let anchor = cx.anchor(fname::moving);
        cx.error(
            Code::P405,
            anchor,
            format!("contraction mismatch: the stationary has {k} partitions and the moving {mk}"),
        );
        return;
    }
    let mut sizes_ok = true;
    if k % limits::QUADRANT != 0 || k > limits::PARTITIONS {
        let anchor = cx.anchor(fname::moving);
        cx.error(
            Code::P406,
            anchor,
            format!(
                "an MX matmul contracts over a multiple of 32 partitions, at most 128; K = {k}"
            ),
        );
        sizes_ok = false;
    }
    let n_max = match dtype_of(cx, fname::dst) {
        Some(Dtype::F32) => Some(limits::MX_MAX_MOVING_FREE_F32),
        Some(Dtype::Bf16) => Some(limits::MX_MAX_MOVING_FREE_BF16),
        _ => None,
    };
    if let Some(max) = n_max.filter(|max| n > *max) {
        let anchor = cx.anchor(fname::moving);
        cx.error(
            Code::P406,
            anchor,
            format!("moving free size N = {n} exceeds {max} for this dst dtype"),
        );
        sizes_ok = false;
    }
    if mdim % 2 != 0 || mdim > limits::MATMUL_MAX_STATIONARY_FREE {
        let anchor = cx.anchor(fname::dst);
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
    for (scale, of) in [
        (fname::lhs_scale, fname::stationary),
        (fname::rhs_scale, fname::moving),
    ] {
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
    let dst_partitions = cx.operand(fname::dst).map(Operand::partitions);
    if let (Some(p), Some(ptr)) = (dst_partitions, cx.operand(fname::scale_ptr).cloned()) {
        let anchor = cx.anchor(fname::scale_ptr);
        check_pointer_shape(cx, fname::scale_ptr, anchor, &ptr, p);
    }
}

fn lower_matmul_mx(cx: &mut Cx<'_>) {
    cx.mark_stationary(fname::stationary);
    let mut tile = pe_tile(cx);
    // Row tiling only: tile columns 128 at column 0.
    if tile.size_ok && tile.position_ok && (tile.size[1] != 128 || tile.position[1] != 0) {
        let anchor = cx.anchor(fname::pe_tile_position);
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
    let scale = cx.float(fname::scale);
    if cx.written(fname::scale_ptr)
        && !cx.is_bad(fname::scale_ptr)
        && let Some(s) = scale.filter(|s| *s != 1.0)
    {
        let anchor = cx.anchor(fname::scale);
        cx.report(
            Diag::new(
                Code::P402,
                anchor,
                "Scale should be 1.0 if scale_ptr is specified",
            )
            .with_fix(Some(FixHint::Replace { with: "1.0".into() }))
            .with_related(
                cx.anchor(fname::scale_ptr),
                format!("`scale` is {s} and `scale_ptr` is given here"),
            ),
        );
    }
    // P403: offset_scale differs from the moving's accumulated free size.
    let offset_scale = cx.int(fname::offset_scale);
    if let (Some(off), Some(free)) = (
        offset_scale,
        cx.operand(fname::moving).map(Operand::free_size),
    ) && u64::try_from(off).ok() != Some(free)
    {
        let anchor = cx.anchor(fname::offset_scale);
        let mut diag = Diag::new(
            Code::P403,
            anchor,
            "offset scale is not equivalent to the accumulated tensor size on right of generic dim in {inst}",
        )
        .with_related(cx.anchor(fname::moving), format!("the moving's free size is {free}"));
        // `{inst}` is `MatMulMXOp #id`; the id is stamped by the analysis (SPEC §6.1).
        diag.names_instruction = true;
        cx.report(diag);
    }

    let accumulate = cx.bool(fname::is_accumulate);
    let psum = psum_buf_shape(cx);
    let inst = cx.inst_with_args(Opcode::MatmultMx);
    set_calc_flags(inst, accumulate);
    inst.set(F::TileSize, tile.size)
        .set(F::TilePosition, tile.position)
        .set_float(F::Scale, scale.unwrap_or(1.0));
    if let Some(off) = offset_scale {
        inst.set(F::OffsetScale, off);
    }
    if let Some(p) = psum {
        inst.set(F::PsumBufShape, p);
    }
    inst.set(F::IsAccumulate, accumulate);
}
