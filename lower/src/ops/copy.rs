//! Plain copies: DmaCopyOp → `DMACopy` (SPEC §6.6 decision) and TensorCopyOp →
//! `TensorCopy`, or an identity `Activation` on `engine = act` (SPEC §6.7).

use super::common::{check_same_elements, check_start_partition, dst, src};
use crate::bir::{Field as F, Opcode};
use crate::catalog::fname;
use crate::catalog::{Default, ENGINE, Engine, EngineSpec, FieldSpec, Kind, Mems, OpSpec};
use crate::cx::Cx;

/// DmaCopyOp: a DMA-queue copy between any memories, element counts equal.
pub static DMA_COPY_OP: OpSpec = OpSpec {
    class: "DmaCopyOp",
    opcode: "DMACopy",
    engine: EngineSpec::Fixed(Engine::Dma),
    instruction_type: None,
    doc: "Copies `src` to `dst` on a DMA queue (BIR `DMACopy`, `mode: \"Copy\"`). Any memory \
          to any memory; both accesses select the same number of elements, copied in \
          row-major order. DMA may address any partition range (no quadrant rule).",
    source: "SPEC §6.6 (decision, needed by real kernels); seed 000 §7.2 DMACopy",
    fields: &[
        dst(Mems::ANY, "the destination access, in any memory"),
        src(
            Mems::ANY,
            "the source access, in any memory; same element count as `dst`",
        ),
    ],
    lower: lower_dma_copy,
};

fn lower_dma_copy(cx: &mut Cx<'_>) {
    check_same_elements(cx, fname::dst, fname::src);
    cx.inst_with_args(Opcode::DmaCopy).set(F::Mode, "Copy");
}

/// TensorCopyOp: an on-chip copy on a compute engine.
pub static TENSOR_COPY_OP: OpSpec = OpSpec {
    class: "TensorCopyOp",
    opcode: "TensorCopy | Activation",
    engine: EngineSpec::Field {
        default: Engine::Dve,
        allowed: &[Engine::Dve, Engine::Act, Engine::Pool],
    },
    instruction_type: None,
    doc: "Copies `src` to `dst` on a compute engine (BIR `TensorCopy`), casting to the dst \
          dtype (e.g. PSUM f32 → SBUF bf16). Equal element counts; src and dst start at the \
          same partition, or each at a multiple of 32. On `engine = act` the copy is an identity activation (BIR \
          `Activation` with `func: \"Copy\"`).",
    source: "SPEC §6.7; seed 000 §2.1 (the `tensorcopy src start_partition(` literal), \
             §3 generateCopyAct",
    fields: &[
        dst(Mems::ON_CHIP, "the destination access (sbuf or psum)"),
        src(
            Mems::ON_CHIP,
            "the source access (sbuf or psum); same element count as `dst`",
        ),
        FieldSpec {
            name: fname::engine,
            kind: Kind::Enum(&ENGINE),
            default: Default::Ident("dve"),
            bir: "the instruction's `engine`",
            doc: "the engine that copies: dve, act or pool",
        },
    ],
    lower: lower_tensor_copy,
};

fn lower_tensor_copy(cx: &mut Cx<'_>) {
    check_same_elements(cx, fname::dst, fname::src);
    check_start_partition(cx, "tensorcopy");
    if cx.ident(fname::engine) == Some("act") {
        // Seed 000 §3 `generateCopyAct`: a copy on the Activation engine is an identity
        // activation, with the Activation key order (SPEC §6.7 [2]).
        cx.inst_with_args(Opcode::Activation)
            .set(F::Func, "Copy")
            .set_float(F::Scale, 1.0)
            .set(F::Acc, "Idle")
            .set(F::IsAccumulate, false);
    } else {
        cx.inst_with_args(Opcode::TensorCopy);
    }
}
