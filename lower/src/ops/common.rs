//! Checks and field specs shared by several op families.

use crate::access::{Operand, describe_iteration, first_iteration_where};
use crate::catalog::fname;
use crate::catalog::{Default, Dir, FieldSpec, Kind, Mems};
use crate::cx::Cx;
use crate::diag::{Anchor, Code, Diag};
use crate::types::{Dtype, limits};

/// `dst`: a written access in `mems`.
pub const fn dst(mems: Mems, doc: &'static str) -> FieldSpec {
    FieldSpec {
        name: fname::dst,
        kind: Kind::Acc(mems, Dir::Out),
        default: Default::Required,
        bir: "operand `dst` (outs)",
        doc,
    }
}

/// `src`: a read access in `mems`.
pub const fn src(mems: Mems, doc: &'static str) -> FieldSpec {
    FieldSpec {
        name: fname::src,
        kind: Kind::Acc(mems, Dir::In),
        default: Default::Required,
        bir: "operand `src` (ins)",
        doc,
    }
}

/// A required read access named `name`.
pub const fn input(
    name: &'static str,
    mems: Mems,
    bir: &'static str,
    doc: &'static str,
) -> FieldSpec {
    FieldSpec {
        name,
        kind: Kind::Acc(mems, Dir::In),
        default: Default::Required,
        bir,
        doc,
    }
}

/// Of two fields, the anchor of the one written later in the op (SPEC §7: P305 is
/// reported on the second of the two that disagree).
pub fn later_anchor(cx: &Cx<'_>, a_field: &str, b_field: &str) -> Anchor {
    match (cx.path(a_field), cx.path(b_field)) {
        (Some(a), Some(b)) if a.field > b.field => Anchor::Value(a),
        _ => cx.anchor(b_field),
    }
}

/// P305 unless `a` and `b` have the same partition count and free size (the src/dst
/// rule of SPEC §6.2, §6.3), on the later of the two.
pub fn check_same_partitions_and_free(cx: &mut Cx<'_>, a_field: &str, b_field: &str) {
    let (Some(a), Some(b)) = (cx.operand(a_field), cx.operand(b_field)) else {
        return;
    };
    let (pa, fa, pb, fb) = (a.partitions(), a.free_size(), b.partitions(), b.free_size());
    if pa != pb || fa != fb {
        let anchor = later_anchor(cx, a_field, b_field);
        cx.error(
            Code::P305,
            anchor,
            format!(
                "`{b_field}` has {pb} partitions × {fb} elements but `{a_field}` has {pa} × {fa}"
            ),
        );
    }
}

/// `message` led by the compiler's `DMA Copy in/out shape must match` on a DMA-engine op
/// (SPEC §7.1 [3]), as it is elsewhere.
pub fn dma_shape_lead(cx: &Cx<'_>, message: String) -> String {
    if cx.engine == crate::catalog::Engine::Dma {
        format!("{}: {message}", crate::diag::compiler::DMA_SHAPE)
    } else {
        message
    }
}

/// P305 unless `a` and `b` select the same number of elements, on the later of the two
/// (on a DMA op, led by the compiler's text, [`dma_shape_lead`]).
pub fn check_same_elements(cx: &mut Cx<'_>, a_field: &str, b_field: &str) {
    let (Some(a), Some(b)) = (cx.operand(a_field), cx.operand(b_field)) else {
        return;
    };
    if a.elements() != b.elements() {
        let (ea, eb) = (a.elements(), b.elements());
        let anchor = later_anchor(cx, a_field, b_field);
        let message = format!("`{b_field}` has {eb} elements but `{a_field}` has {ea}");
        cx.error(Code::P305, anchor, dma_shape_lead(cx, message));
    }
}

/// P306 where `dst` and `src` start at different partitions of which one is not a
/// multiple of 32 (a PSUM/SBUF bank's partitions), in any loop iteration, with the
/// compiler's whole text `{prefix} src start_partition(S) or dst start_partition(D) is not
/// multiple of partitions_per_bank (32)` (SPEC §6.2 [3]: seed 000 §2.1's fragments,
/// completed by aws-neuron-sdk#1055; `prefix` is `tensorcopy` for TensorCopyOp, else the
/// op's class). S and D are the starts in the first iteration where the rule breaks (SPEC
/// §6.2 [2]); the related note on `src` names that iteration. Reported on `dst`. The
/// starts are read even from an access that broke the quadrant rule, and an access with
/// P306 gets no P307 (SPEC §5 [3]: one mistake, one diagnostic).
pub fn check_start_partition(cx: &mut Cx<'_>, prefix: &str) {
    let (Some(dst), Some(src)) = (
        cx.operand_for_start_partition(fname::dst),
        cx.operand_for_start_partition(fname::src),
    ) else {
        return;
    };
    if !dst.on_chip() || !src.on_chip() {
        return;
    }
    let (d, s) = (dst.start_partition(), src.start_partition());
    let bank = limits::PARTITIONS_PER_BANK as i128;
    let Some(at) = first_iteration_where(&[&d, &s], &cx.op.loops, |v| {
        let [d, s] = v else { return false };
        d != s && (d % bank != 0 || s % bank != 0)
    }) else {
        return;
    };
    let (d, s) = (d.at(&at), s.at(&at));
    let message = format!(
        "{prefix} src start_partition({s}) or dst start_partition({d}) is not multiple of \
         partitions_per_bank ({bank}): starts that differ must each be a multiple of {bank}"
    );
    let note = format!("the src starts here{}", describe_iteration(&at));
    let diag = Diag::new(Code::P306, cx.anchor(fname::dst), message)
        .with_related(cx.anchor(fname::src), note);
    cx.withdraw_quadrant(fname::dst);
    cx.withdraw_quadrant(fname::src);
    cx.report(diag);
}

/// P305 unless `operand` is `[P, 1]` (one element per partition) with P = `partitions`.
pub fn check_pointer_shape(
    cx: &mut Cx<'_>,
    field: &str,
    anchor: Anchor,
    operand: &Operand,
    partitions: u64,
) {
    if operand.partitions() != partitions || operand.free_size() != 1 {
        cx.error(
            Code::P305,
            anchor,
            format!(
                "`{field}` must be [{partitions}, 1] (one element per partition); it is {:?}",
                operand.shape()
            ),
        );
    }
}

/// P305 unless the `imm` field `field`, written as an access, is `[P, 1]` with P =
/// `partitions`; with `f32`, also P407 unless it is f32.
pub fn check_imm_pointer(cx: &mut Cx<'_>, field: &str, partitions: Option<u64>, f32_only: bool) {
    let Some(operand) = cx.operand(field).cloned() else {
        return;
    };
    let anchor = cx.anchor(field);
    if let Some(p) = partitions {
        check_pointer_shape(cx, field, anchor.clone(), &operand, p);
    }
    if f32_only && operand.tensor.dtype != Dtype::F32 {
        cx.error(
            Code::P407,
            anchor,
            format!(
                "the `{field}` pointer must be f32; it is {}",
                operand.tensor.dtype.name()
            ),
        );
    }
}
