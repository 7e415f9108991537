//! Kernel nodes (SPEC §6.8; seed 004) and the access kinds of their operands (SPEC §6.9).
//!
//! Three BIR nodes, told apart only by the opcode their codegen adds (seed 004 §1): the
//! name-keyed library node `BIRKernel` (IT 54) — the generic BIRKernel and the bespoke
//! MLP / QKV / RMSNormQuant / Attention / BackwardsAttention families with their tiled
//! twins —, the user kernel `NKIKernel` (IT 55), and the registry-traced carrier
//! `NKIKLIRKernel` (IT 56). Every kernel node runs on `Unassigned` (the opaque "Cust"
//! band), so the quadrant rule does not apply to their operands.

use crate::bir::{Arg, Field as F, Opcode, Role, Value as BirValue};
use crate::catalog::fname;
use serde_json::{Map, Value as Json, json};

use crate::access::Operand;
use crate::catalog::{
    ACT_FUNC, Default, Dir, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec,
};
use crate::cx::{ACCESS_KINDS, Cx, float_json};
use crate::diag::{Anchor, Code, Diag, FixHint, ValuePath, closest, did_you_mean};
use crate::model::{Access, Target, Value};
use crate::types::{Dtype, limits};

/// The keys of `_INTERNAL_KERNEL_REGISTRY`, the only kernels InternalNativeNkiKernel may
/// trace (seed 004 §4; the seed's `conv2d_column_packing[_io10][_1]` is three keys, SPEC
/// §6.8 decision).
pub const INTERNAL_KERNEL_REGISTRY: &[&str] = &[
    "ResizeNearest",
    "SelectAndScatter",
    "Conv1d_depthwise_bf01_oi01_bf01",
    "conv2d_depthwise_f01b_o01i_bf01",
    "Conv2d_dw_fb01_io01_01bf_rep_nhwc_Pcinh",
    "conv2d_column_packing",
    "conv2d_column_packing_io10",
    "conv2d_column_packing_io10_1",
    "Conv2d_pbp_0f1b_0i1o_01fb_experimental_1",
    "Conv2d_pbp_fb01_io01_01bf_experimental_1",
    "blockwise_mm",
    "tiled_pf_transpose",
    "tiled_dve_transpose_10",
];

/// Library-kernel names (matched case-insensitively) that people route through the
/// registry by mistake, with how to write them: seed 004 §2–§4 lists the model-fusion
/// macros and the generic library kernels, all IT 54 nodes spliced in by name.
const LIBRARY_KERNELS: &[(&str, &str)] = &[
    ("MLP", "MLPKernel"),
    ("MLPKernel", "MLPKernel"),
    ("TiledMLPKernel", "TiledMLPKernel"),
    ("mlp_isa_kernel", "MLPKernel"),
    ("fused_mlp_isa_kernel", "MLPKernel"),
    ("QKV", "NormQKV"),
    ("NormQKV", "NormQKV"),
    ("TiledNormQKV", "TiledNormQKV"),
    ("RMSNormQuant", "RMSNormQuantKernel"),
    ("RMSNormQuantKernel", "RMSNormQuantKernel"),
    ("TiledRMSNormQuantKernel", "TiledRMSNormQuantKernel"),
    ("Attention", "AttentionMMSoftmaxMM"),
    ("AttentionMMSoftmaxMM", "AttentionMMSoftmaxMM"),
    ("TiledAttentionMMSoftmaxMM", "TiledAttentionMMSoftmaxMM"),
    (
        "CausalAttentionMMSoftmaxMMWithoutSwap",
        "AttentionMMSoftmaxMM",
    ),
    ("BackwardsAttention", "BackwardsAttention"),
    ("RMSNorm", ""),
    ("RouterTopK", ""),
    ("ExpertMLPs", ""),
    ("RowTiledMM", ""),
    ("ColumnTiledMM", ""),
    ("CaymanPackedPETranspose", ""),
    ("AttentionTkgFwd", ""),
];

// ----- field specs ---------------------------------------------------------------------

const IN_OPERANDS: Kind = Kind::List(&Kind::KernelOperand(Dir::In));
const OUT_OPERANDS: Kind = Kind::List(&Kind::KernelOperand(Dir::Out));

const SRCS: FieldSpec = FieldSpec {
    name: fname::srcs,
    kind: IN_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `srcs[i]` (ins, with `access`); their shapes are `srcs_shape`",
    doc: "the kernel's inputs: accesses, or full/subtensor/tile/opaque(access)",
};
const DSTS: FieldSpec = FieldSpec {
    name: fname::dsts,
    kind: OUT_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `dsts[i]` (outs, with `access`); their shapes are `dsts_shape`",
    doc: "the kernel's outputs: accesses, or full/subtensor/tile/opaque(access)",
};
const LIB_SRCS: FieldSpec = FieldSpec {
    name: fname::srcs,
    kind: IN_OPERANDS,
    default: Default::Required,
    bir: "operands `srcs[i]` (ins, `access` seq, or ap for the tiled twin); `srcs_shape`",
    doc: "the kernel's inputs; the first one's leading dims decide `is_tkg` where it applies",
};
const LIB_DSTS: FieldSpec = FieldSpec {
    name: fname::dsts,
    kind: OUT_OPERANDS,
    default: Default::Required,
    bir: "operands `dsts[i]` (outs, `access` seq, or ap for the tiled twin); `dsts_shape`",
    doc: "the kernel's outputs",
};
const REG_SRCS: FieldSpec = FieldSpec {
    name: fname::srcs,
    kind: IN_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `srcs[i]` (ins, `access` opaque); their tensor names are `func_args`",
    doc: "the kernel's inputs; the traced kernel owns their tiling (opaque access)",
};
const REG_DSTS: FieldSpec = FieldSpec {
    name: fname::dsts,
    kind: OUT_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `dsts[i]` (outs, `access` opaque); their tensor names are `func_outs`",
    doc: "the kernel's outputs; the traced kernel owns their tiling (opaque access)",
};
const SB_BUF_SHAPE: FieldSpec = FieldSpec {
    name: fname::sb_buf_shape,
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[0, 0]"),
    bir: "sb_buf_shape `[a, b]`",
    doc: "the SBUF buffer the kernel needs: two non-negative integers",
};
const PSUM_BUF_SHAPE: FieldSpec = FieldSpec {
    name: fname::psum_buf_shape,
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[0, 0, 0]"),
    bir: "psum_buf_shape `[a, [b, c]]` (the public Nat × Nat × Nat)",
    doc: "the PSUM buffer the kernel needs: three non-negative integers",
};
const OPT_SB_BUF_SHAPE: FieldSpec = FieldSpec {
    default: Default::Absent,
    bir: "sb_buf_shape `[a, b]`, when given",
    ..SB_BUF_SHAPE
};
const OPT_PSUM_BUF_SHAPE: FieldSpec = FieldSpec {
    default: Default::Absent,
    bir: "psum_buf_shape `[a, [b, c]]`, when given",
    ..PSUM_BUF_SHAPE
};

static NORM_TYPE_ENUM: EnumSpec = EnumSpec {
    name: fname::norm_type,
    values: &[
        EnumValue {
            text: "none",
            bir: "0",
            doc: "no normalisation",
        },
        EnumValue {
            text: "rms_norm",
            bir: "1",
            doc: "RMSNorm before the projection",
        },
        EnumValue {
            text: "layer_norm",
            bir: "2",
            doc: "LayerNorm before the projection",
        },
    ],
};

const FUSED_RMSNORM: FieldSpec = FieldSpec {
    name: fname::fused_rmsnorm,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "fused_rmsnorm (a first-class BIRKernel field)",
    doc: "fuse the RMSNorm of the input into the kernel",
};
const NORM_TYPE: FieldSpec = FieldSpec {
    name: fname::norm_type,
    kind: Kind::Enum(&NORM_TYPE_ENUM),
    default: Default::Ident("none"),
    bir: "norm_type as an int: none 0, rms_norm 1, layer_norm 2",
    doc: "the normalisation applied to the input: none, rms_norm or layer_norm",
};
const STORE_ADD: FieldSpec = FieldSpec {
    name: fname::store_add,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "store_add (a first-class BIRKernel field)",
    doc: "add the result into the output instead of overwriting it",
};
const QUANT_KERNEL: FieldSpec = FieldSpec {
    name: fname::quant_kernel,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "quant_kernel (a first-class BIRKernel field)",
    doc: "use the quantised variant of the kernel",
};
const LOWER_BOUND: FieldSpec = FieldSpec {
    name: fname::lower_bound,
    kind: Kind::Float,
    default: Default::Float(0.0),
    bir: "lower_bound (a first-class BIRKernel field)",
    doc: "the lower clamp bound of the kernel's (quantisation) range",
};
const SKIP_GATE: FieldSpec = FieldSpec {
    name: fname::skip_gate,
    kind: Kind::Bool,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"skip_gate\", \"true\" | \"false\"], when written",
    doc: "skip the gate projection (a plain up/down MLP)",
};
const ACT_FN: FieldSpec = FieldSpec {
    name: fname::act_fn,
    kind: Kind::Enum(&ACT_FUNC),
    default: Default::Absent,
    bir: "kernel_attrs pair [\"act_fn\", the value as written], when written",
    doc: "the activation between the gate/up and down projections",
};
const EPS: FieldSpec = FieldSpec {
    name: fname::eps,
    kind: Kind::Float,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"eps\", the f64 as Rust's `{:?}` prints it], when written",
    doc: "the epsilon of the normalisation",
};
const UP_BIAS: FieldSpec = FieldSpec {
    name: fname::up_bias,
    kind: Kind::Acc(Mems::ANY, Dir::In),
    default: Default::Absent,
    bir: "operand `up_bias` (ins after the srcs, same `access`); its shape joins `srcs_shape`",
    doc: "the bias of the up projection",
};
const DOWN_BIAS: FieldSpec = FieldSpec {
    name: fname::down_bias,
    kind: Kind::Acc(Mems::ANY, Dir::In),
    default: Default::Absent,
    bir: "operand `down_bias` (ins after the srcs, same `access`); its shape joins `srcs_shape`",
    doc: "the bias of the down projection",
};
const QUANT_DTYPE: FieldSpec = FieldSpec {
    name: fname::quant_dtype,
    kind: Kind::Dtype,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"quant_dtype\", the dtype as written], when written",
    doc: "the dtype the kernel quantises to",
};
const SCALE: FieldSpec = FieldSpec {
    name: fname::scale,
    kind: Kind::Float,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"scale\", the f64 as Rust's `{:?}` prints it], when written",
    doc: "the softmax scale applied to Q·Kᵀ (1.0 when Q is pre-divided by √d)",
};
const IS_CAUSAL: FieldSpec = FieldSpec {
    name: fname::is_causal,
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "is_causal (a first-class BIRKernel field)",
    doc: "apply a causal mask",
};

// ----- the generic library node ----------------------------------------------------------

/// BIRKernel → `BIRKernel` (IT 54), the generic library node (seed 004 §2
/// `codegenBIRKernel`). BIR keys, in this order (the public structure's):
/// `kernel_name`, `srcs_shape`, `dsts_shape`, `kernel_attrs`, `sb_buf_shape`,
/// `psum_buf_shape`, `auto_cast`, `auto_cast_type`.
pub static BIR_KERNEL: OpSpec = OpSpec {
    class: "BIRKernel",
    opcode: "BIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(54),
    doc: "A library kernel spliced in by name downstream (RouterTopK, ExpertMLPs, RowTiledMM, \
          …): the node carries the name, the attributes passed through verbatim as \
          `[key, value]` strings, and the operand shapes; no binary, no version, no trace. \
          A bare whole-tensor operand is `\"access\": \"seq\"`, a bare part of a tensor \
          `\"nd_subtensor\"`; `full(…)`, `subtensor(…)`, `tile(…)`, `opaque(…)` name the kind.",
    source: "seed 004 §2 codegenBIRKernel, §6 codegenBIRKernelAccess; SPEC §6.8, §6.9",
    fields: &[
        FieldSpec {
            name: fname::kernel_name,
            kind: Kind::Str,
            default: Default::Required,
            bir: "kernel_name",
            doc: "the library kernel's name, which selects its precompiled BIR; a registry \
                  kernel's name is P408 (it is an InternalNativeNkiKernel)",
        },
        FieldSpec {
            name: fname::kernel_attrs,
            kind: Kind::Record,
            default: Default::Computed("{} (no attributes)"),
            bir: "kernel_attrs: [key, value] string pairs in source order",
            doc: "the kernel's configuration, passed through verbatim; each value becomes a \
                  string (strings as they are, numbers in decimal, lists and records as \
                  compact JSON)",
        },
        SRCS,
        DSTS,
        FieldSpec {
            name: fname::auto_cast,
            kind: Kind::Str,
            default: Default::Str("none"),
            bir: "auto_cast",
            doc: "the kernel's automatic cast mode",
        },
        FieldSpec {
            name: fname::auto_cast_type,
            kind: Kind::Dtype,
            default: Default::Absent,
            bir: "auto_cast_type: the BIR dtype name, \"\" when absent",
            doc: "the dtype of the automatic cast",
        },
        SB_BUF_SHAPE,
        PSUM_BUF_SHAPE,
    ],
    lower: lower_bir_kernel,
};

fn lower_bir_kernel(cx: &mut Cx<'_>) {
    check_non_empty(cx, fname::kernel_name);
    let kernel_name = cx.string(fname::kernel_name);
    if let Some(name) = kernel_name.filter(|n| INTERNAL_KERNEL_REGISTRY.contains(n)) {
        // SPEC §6.8 [2]: IT 56 if and only if registry (seed 004 §2, §4).
        let anchor = cx.anchor(fname::kernel_name);
        cx.error(
            Code::P408,
            anchor,
            format!(
                "`{name}` is a registry kernel: it has no precompiled leaf to splice in by \
                 name, so it is traced at codegen time; write it as InternalNativeNkiKernel \
                 {{ func_name = \"{name}\" }} (NKIKLIRKernel, IT 56)"
            ),
        );
    }
    let kernel_attrs = record_attrs(cx, fname::kernel_attrs);
    let mut srcs_shape = Vec::new();
    let mut dsts_shape = Vec::new();
    let ins = operand_args(cx, fname::srcs, AccessMode::Written, &mut srcs_shape);
    let outs = operand_args(cx, fname::dsts, AccessMode::Written, &mut dsts_shape);
    let sb = sb_buf_json(buf_shape(cx, fname::sb_buf_shape, 2).as_deref());
    let psum = psum_buf_json(buf_shape(cx, fname::psum_buf_shape, 3).as_deref());
    let auto_cast = cx.string(fname::auto_cast);
    let auto_cast_type = cx
        .ident(fname::auto_cast_type)
        .and_then(Dtype::from_name)
        .map_or("", |d| d.bir_name());
    let inst = cx.inst(Opcode::BirKernel);
    inst.ins = ins;
    inst.outs = outs;
    if let Some(name) = kernel_name {
        inst.set(F::KernelName, name);
    }
    inst.set(F::SrcsShape, srcs_shape)
        .set(F::DstsShape, dsts_shape)
        .set(F::KernelAttrs, kernel_attrs)
        .set(F::SbBufShape, sb)
        .set(F::PsumBufShape, psum);
    if let Some(auto_cast) = auto_cast {
        inst.set(F::AutoCast, auto_cast);
    }
    inst.set(F::AutoCastType, auto_cast_type);
}

mod library;
mod nki;
mod operands;

pub use library::{
    ATTENTION_MM_SOFTMAX_MM, BACKWARDS_ATTENTION_OP, MLP_KERNEL, NORM_QKV, RMS_NORM_QUANT_KERNEL,
    TILED_ATTENTION_MM_SOFTMAX_MM, TILED_MLP_KERNEL, TILED_NORM_QKV, TILED_RMS_NORM_QUANT_KERNEL,
    reads_tkg_threshold,
};
pub use nki::{
    EXTERNAL_NATIVE_NKI_KERNEL, EXTERNAL_NATIVE_NKI_KLIR_KERNEL, INTERNAL_NATIVE_NKI_KERNEL,
};
use operands::*;
