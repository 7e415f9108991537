//! MatMulSparseOp → `MatmultSparse` (SPEC §6.1; seed 000 §2.3): structured-sparse matmul.

use super::*;

/// MatMulSparseOp → `MatmultSparse`.
///
/// BIR keys: the opcode's row of `crate::bir::OPCODES`.
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
            fname::tags,
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
            name: fname::compress_ratio,
            kind: Kind::Int,
            default: Default::Required,
            bir: "compress_ratio",
            doc: "the compression of the moving's free dim: 2 or 4",
        },
        FieldSpec {
            name: fname::replication_resolution,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "replication_resolution",
            doc: "replication resolution of the sparse pattern (≥ 0)",
        },
        FieldSpec {
            name: fname::replication_shift_amnt,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "replication_shift_amnt",
            doc: "replication shift amount (≥ 0)",
        },
        FieldSpec {
            name: fname::replication_num_rows,
            kind: Kind::Int,
            default: Default::Int(0),
            bir: "replication_num_rows",
            doc: "number of replicated rows (≥ 0)",
        },
    ],
    lower: lower_matmul_sparse,
};

// ----- MatMulSparseOp ----------------------------------------------------------------

fn lower_matmul_sparse(cx: &mut Cx<'_>) {
    let transpose = cx.bool(fname::isTranspose);
    cx.mark_stationary(fname::stationary);
    let tile = pe_tile(cx);
    let rank_ok = check_weight_rank(cx);
    check_pe_dtypes(cx, false, transpose);
    if let Some(d) = dtype_of(cx, fname::tags).filter(|d| !matches!(d, Dtype::U8 | Dtype::U16)) {
        dtype_error(
            cx,
            fname::tags,
            format!("`tags` is {}: sparsity tags are u8 or u16", d.name()),
        );
    }
    let ratio = cx.int(fname::compress_ratio);
    let ratio_ok = ratio.filter(|r| matches!(r, 2 | 4));
    if let Some(r) = ratio.filter(|_| ratio_ok.is_none()) {
        let anchor = cx.anchor(fname::compress_ratio);
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
                let anchor = cx.anchor(fname::moving);
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
        fname::replication_resolution,
        fname::replication_shift_amnt,
        fname::replication_num_rows,
    ] {
        check_natural(cx, field);
    }

    let accumulate = cx.bool(fname::is_accumulate);
    let replication: Vec<(F, i64)> = [
        (fname::replication_resolution, F::ReplicationResolution),
        (fname::replication_shift_amnt, F::ReplicationShiftAmnt),
        (fname::replication_num_rows, F::ReplicationNumRows),
    ]
    .into_iter()
    .map(|(f, key)| (key, cx.int(f).unwrap_or(0).max(0)))
    .collect();
    let weight_onezero = cx.bool(fname::isStationaryOneZero);
    let fmap_onezero = cx.bool(fname::isMovingZero);
    let inst = cx.inst_with_args(Opcode::MatmultSparse);
    set_calc_flags(inst, accumulate);
    for (field, value) in replication {
        inst.set(field, value);
    }
    inst.set(F::IsTranspose, transpose)
        .set(F::IsFmapOnezero, fmap_onezero)
        .set(F::IsWeightOnezero, weight_onezero)
        .set(F::TileSize, tile.size)
        .set(F::TilePosition, tile.position);
    if let Some(r) = ratio {
        inst.set(F::CompressRatio, r);
    }
    inst.set(F::IsAccumulate, accumulate);
}
