//! TransposeOp → `Matmult` with `is_transpose` against an implied identity (SPEC §6.7).

use super::*;

/// TransposeOp → `Matmult` with `is_transpose: true` and `identity: true`.
///
/// The `src` sits in the moving slot (its argument's role is `src`, the Penguin field,
/// SPEC §8); the implied identity stationary is not an argument. BIR keys: the opcode's row of `crate::bir::OPCODES`.
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

// ----- TransposeOp -------------------------------------------------------------------

fn lower_transpose(cx: &mut Cx<'_>) {
    let mut shapes_ok = true;
    for field in [fname::src, fname::dst] {
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
        let (s, d) = (shape(cx, fname::src), shape(cx, fname::dst));
        let free = s.get(1).copied().unwrap_or(1);
        if free > limits::PARTITIONS {
            let anchor = cx.anchor(fname::src);
            cx.error(
                Code::P406,
                anchor,
                format!(
                    "a transpose is at most [128, 128]; `src` has {free} elements per partition"
                ),
            );
        } else if d.iter().rev().ne(s.iter()) {
            let reversed: Vec<u64> = s.iter().rev().copied().collect();
            let anchor = later_anchor(cx, fname::src, fname::dst);
            cx.error(
                Code::P305,
                anchor,
                format!(
                    "the dst of a transpose is the src shape reversed, {reversed:?}; it is {d:?}"
                ),
            );
        }
    }
    let (st, ds) = (dtype_of(cx, fname::src), dtype_of(cx, fname::dst));
    if let Some(s) = st.filter(|s| !is_pe_input_dtype(*s)) {
        pe_input_dtype_error(cx, fname::src, s, PE_INPUT_DTYPES, "the PE's input dtypes");
    } else if let (Some(s), Some(d)) = (st, ds)
        && s != d
    {
        dtype_error(
            cx,
            fname::dst,
            format!(
                "dst is {} but a transpose keeps the dtype: it must be {}",
                d.name(),
                s.name()
            ),
        );
    }
    check_one_bank(cx);

    let channels = cx.any_operand(fname::src).map(|s| s.partitions());
    let psum = psum_buf_shape(cx);
    // `src` sits in the moving slot (SPEC §6.7); its role names the Penguin field (§8).
    let inst = cx.inst_with_args(Opcode::Matmult);
    set_calc_flags(inst, false);
    inst.set(F::IsTranspose, true)
        .set(F::Identity, true)
        .set(F::IsFmapOnezero, false)
        .set(F::IsWeightOnezero, false)
        .set(F::TileSize, [128i64, 128])
        .set(F::TilePosition, [0i64, 0])
        .set(F::PerfMode, "None")
        .set(F::IfmapQuantOffset, 0);
    if let Some(c) = channels {
        inst.set(F::NumActiveChannels, c);
    }
    if let Some(p) = psum {
        inst.set(F::PsumBufShape, p);
    }
    inst.set(F::IsAccumulate, false);
}
