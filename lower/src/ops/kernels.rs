//! Kernel nodes (SPEC §6.8; seed 004) and the access kinds of their operands (SPEC §6.9).
//!
//! Three BIR nodes, told apart only by the opcode their codegen adds (seed 004 §1): the
//! name-keyed library node `BIRKernel` (IT 54) — the generic BIRKernel and the bespoke
//! MLP / QKV / RMSNormQuant / Attention / BackwardsAttention families with their tiled
//! twins —, the user kernel `NKIKernel` (IT 55), and the registry-traced carrier
//! `NKIKLIRKernel` (IT 56). Every kernel node runs on `Unassigned` (the opaque "Cust"
//! band), so the quadrant rule does not apply to their operands.

use serde_json::{Map, Value as Json, json};

use crate::access::Operand;
use crate::catalog::{
    ACT_FUNC, Default, Dir, Engine, EngineSpec, EnumSpec, EnumValue, FieldSpec, Kind, Mems, OpSpec,
};
use crate::cx::{ACCESS_KINDS, Cx, float_json};
use crate::diag::{Anchor, Code, Diag, ValuePath, closest, did_you_mean};
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
    name: "srcs",
    kind: IN_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `srcs[i]` (ins, with `access`); their shapes are `srcs_shape`",
    doc: "the kernel's inputs: accesses, or full/subtensor/tile/opaque(access) (SPEC §6.9)",
};
const DSTS: FieldSpec = FieldSpec {
    name: "dsts",
    kind: OUT_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `dsts[i]` (outs, with `access`); their shapes are `dsts_shape`",
    doc: "the kernel's outputs: accesses, or full/subtensor/tile/opaque(access) (SPEC §6.9)",
};
const LIB_SRCS: FieldSpec = FieldSpec {
    name: "srcs",
    kind: IN_OPERANDS,
    default: Default::Required,
    bir: "operands `srcs[i]` (ins, `access` seq, or ap for the tiled twin); `srcs_shape`",
    doc: "the kernel's inputs; the first one's leading dims decide `is_tkg` where it applies",
};
const LIB_DSTS: FieldSpec = FieldSpec {
    name: "dsts",
    kind: OUT_OPERANDS,
    default: Default::Required,
    bir: "operands `dsts[i]` (outs, `access` seq, or ap for the tiled twin); `dsts_shape`",
    doc: "the kernel's outputs",
};
const REG_SRCS: FieldSpec = FieldSpec {
    name: "srcs",
    kind: IN_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `srcs[i]` (ins, `access` opaque); their tensor names are `func_args`",
    doc: "the kernel's inputs; the traced kernel owns their tiling (opaque access)",
};
const REG_DSTS: FieldSpec = FieldSpec {
    name: "dsts",
    kind: OUT_OPERANDS,
    default: Default::EmptyList,
    bir: "operands `dsts[i]` (outs, `access` opaque); their tensor names are `func_outs`",
    doc: "the kernel's outputs; the traced kernel owns their tiling (opaque access)",
};
const SB_BUF_SHAPE: FieldSpec = FieldSpec {
    name: "sb_buf_shape",
    kind: Kind::List(&Kind::Int),
    default: Default::Computed("[0, 0]"),
    bir: "sb_buf_shape `[a, b]`",
    doc: "the SBUF buffer the kernel needs: two non-negative integers",
};
const PSUM_BUF_SHAPE: FieldSpec = FieldSpec {
    name: "psum_buf_shape",
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
    name: "norm_type",
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
    name: "fused_rmsnorm",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "fused_rmsnorm (a first-class BIRKernel field)",
    doc: "fuse the RMSNorm of the input into the kernel",
};
const NORM_TYPE: FieldSpec = FieldSpec {
    name: "norm_type",
    kind: Kind::Enum(&NORM_TYPE_ENUM),
    default: Default::Ident("none"),
    bir: "norm_type as an int: none 0, rms_norm 1, layer_norm 2",
    doc: "the normalisation applied to the input: none, rms_norm or layer_norm",
};
const STORE_ADD: FieldSpec = FieldSpec {
    name: "store_add",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "store_add (a first-class BIRKernel field)",
    doc: "add the result into the output instead of overwriting it",
};
const QUANT_KERNEL: FieldSpec = FieldSpec {
    name: "quant_kernel",
    kind: Kind::Bool,
    default: Default::Bool(false),
    bir: "quant_kernel (a first-class BIRKernel field)",
    doc: "use the quantised variant of the kernel",
};
const LOWER_BOUND: FieldSpec = FieldSpec {
    name: "lower_bound",
    kind: Kind::Float,
    default: Default::Float(0.0),
    bir: "lower_bound (a first-class BIRKernel field)",
    doc: "the lower clamp bound of the kernel's (quantisation) range",
};
const SKIP_GATE: FieldSpec = FieldSpec {
    name: "skip_gate",
    kind: Kind::Bool,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"skip_gate\", \"true\" | \"false\"], when written",
    doc: "skip the gate projection (a plain up/down MLP)",
};
const ACT_FN: FieldSpec = FieldSpec {
    name: "act_fn",
    kind: Kind::Enum(&ACT_FUNC),
    default: Default::Absent,
    bir: "kernel_attrs pair [\"act_fn\", the value as written], when written",
    doc: "the activation between the gate/up and down projections",
};
const EPS: FieldSpec = FieldSpec {
    name: "eps",
    kind: Kind::Float,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"eps\", the f64 as serde_json prints it], when written",
    doc: "the epsilon of the normalisation",
};
const UP_BIAS: FieldSpec = FieldSpec {
    name: "up_bias",
    kind: Kind::Acc(Mems::ANY, Dir::In),
    default: Default::Absent,
    bir: "operand `up_bias` (ins after the srcs, same `access`); its shape joins `srcs_shape`",
    doc: "the bias of the up projection",
};
const DOWN_BIAS: FieldSpec = FieldSpec {
    name: "down_bias",
    kind: Kind::Acc(Mems::ANY, Dir::In),
    default: Default::Absent,
    bir: "operand `down_bias` (ins after the srcs, same `access`); its shape joins `srcs_shape`",
    doc: "the bias of the down projection",
};
const QUANT_DTYPE: FieldSpec = FieldSpec {
    name: "quant_dtype",
    kind: Kind::Dtype,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"quant_dtype\", the dtype as written], when written",
    doc: "the dtype the kernel quantises to",
};
const SCALE: FieldSpec = FieldSpec {
    name: "scale",
    kind: Kind::Float,
    default: Default::Absent,
    bir: "kernel_attrs pair [\"scale\", the f64 as serde_json prints it], when written",
    doc: "the softmax scale applied to Q·Kᵀ (1.0 when Q is pre-divided by √d)",
};
const IS_CAUSAL: FieldSpec = FieldSpec {
    name: "is_causal",
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
          Each operand's `access` follows SPEC §6.9.",
    source: "seed 004 §2 codegenBIRKernel, §6 codegenBIRKernelAccess; SPEC §6.8, §6.9",
    fields: &[
        FieldSpec {
            name: "kernel_name",
            kind: Kind::Str,
            default: Default::Required,
            bir: "kernel_name",
            doc: "the library kernel's name, which selects its precompiled BIR",
        },
        FieldSpec {
            name: "kernel_attrs",
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
            name: "auto_cast",
            kind: Kind::Str,
            default: Default::Str("none"),
            bir: "auto_cast",
            doc: "the kernel's automatic cast mode",
        },
        FieldSpec {
            name: "auto_cast_type",
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
    check_non_empty(cx, "kernel_name");
    let kernel_name = cx.string("kernel_name");
    let kernel_attrs = record_attrs(cx, "kernel_attrs");
    let mut srcs_shape = Vec::new();
    let mut dsts_shape = Vec::new();
    let ins = operand_args(cx, "srcs", AccessMode::Written, &mut srcs_shape);
    let outs = operand_args(cx, "dsts", AccessMode::Written, &mut dsts_shape);
    let sb = sb_buf_json(buf_shape(cx, "sb_buf_shape", 2).as_deref());
    let psum = psum_buf_json(buf_shape(cx, "psum_buf_shape", 3).as_deref());
    let auto_cast = cx.string("auto_cast");
    let auto_cast_type = cx
        .ident("auto_cast_type")
        .and_then(Dtype::from_name)
        .map_or("", |d| d.bir_name());
    let inst = cx.inst("BIRKernel");
    inst.ins = ins;
    inst.outs = outs;
    if let Some(name) = kernel_name {
        inst.set("kernel_name", name);
    }
    inst.set("srcs_shape", srcs_shape)
        .set("dsts_shape", dsts_shape)
        .set("kernel_attrs", kernel_attrs)
        .set("sb_buf_shape", sb)
        .set("psum_buf_shape", psum);
    if let Some(auto_cast) = auto_cast {
        inst.set("auto_cast", auto_cast);
    }
    inst.set("auto_cast_type", auto_cast_type);
}

// ----- the bespoke library kernels -------------------------------------------------------

/// What distinguishes one bespoke library kernel from another (seed 004 §3).
struct Library {
    /// The fixed `kernel_name`.
    kernel_name: &'static str,
    /// A tiled twin: operands are pre-tiled access patterns (`addAP`, `"access": "ap"`)
    /// instead of whole-tensor sequential ones (`addSeqAccess`, `"access": "seq"`).
    tiled: bool,
    /// The named fields that become `kernel_attrs` pairs, in the op's row order.
    attrs: &'static [&'static str],
    /// Whether the op decides `is_tkg` (MLP and QKV, seed 004 §3).
    tkg: bool,
}

const MLP_FIELDS: &[FieldSpec] = &[
    LIB_SRCS,
    LIB_DSTS,
    FUSED_RMSNORM,
    NORM_TYPE,
    STORE_ADD,
    QUANT_KERNEL,
    LOWER_BOUND,
    SKIP_GATE,
    ACT_FN,
    EPS,
    UP_BIAS,
    DOWN_BIAS,
];
const QKV_FIELDS: &[FieldSpec] = &[
    LIB_SRCS,
    LIB_DSTS,
    FUSED_RMSNORM,
    NORM_TYPE,
    LOWER_BOUND,
    EPS,
];
const RMSNORM_QUANT_FIELDS: &[FieldSpec] = &[LIB_SRCS, LIB_DSTS, LOWER_BOUND, QUANT_DTYPE, EPS];
const ATTENTION_FIELDS: &[FieldSpec] = &[LIB_SRCS, LIB_DSTS, SCALE, IS_CAUSAL];

const MLP: Library = Library {
    kernel_name: "MLP",
    tiled: false,
    attrs: &["skip_gate", "act_fn", "eps"],
    tkg: true,
};
const QKV: Library = Library {
    kernel_name: "QKV",
    tiled: false,
    attrs: &["eps"],
    tkg: true,
};
const RMSNORM_QUANT: Library = Library {
    kernel_name: "RMSNormQuant",
    tiled: false,
    attrs: &["quant_dtype", "eps"],
    tkg: false,
};
const ATTENTION: Library = Library {
    kernel_name: "Attention",
    tiled: false,
    attrs: &["scale"],
    tkg: false,
};
const BACKWARDS_ATTENTION: Library = Library {
    kernel_name: "BackwardsAttention",
    tiled: false,
    attrs: &[],
    tkg: false,
};

/// The BIR keys of every bespoke op, for the docs below.
macro_rules! bespoke_doc {
    ($what:literal) => {
        concat!(
            $what,
            " BIR keys, in this order: `kernel_name`, `srcs_shape`, `dsts_shape`, \
             `kernel_attrs`, `sb_buf_shape` [0, 0], `psum_buf_shape` [0, [0, 0]], \
             `auto_cast` \"none\", `auto_cast_type` \"\", then the public first-class fields \
             `is_causal`, `fused_rmsnorm`, `norm_type` (int), `lower_bound`, `store_add`, \
             `quant_kernel`, each with its value or default."
        )
    };
}

/// MLPKernel → `BIRKernel` (IT 54) `MLP` (seed 004 §3 codegenMLPKernel).
pub static MLP_KERNEL: OpSpec = OpSpec {
    class: "MLPKernel",
    opcode: "BIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(54),
    doc: bespoke_doc!(
        "The fused MLP library kernel (optional RMSNorm, gate/up projection, activation, \
         down projection), spliced in by the name `MLP`. Operands are whole-tensor \
         sequential accesses (`\"access\": \"seq\"`). `kernel_attrs` holds `skip_gate`, \
         `act_fn`, `eps` when written, then `is_tkg`: the product of the first src's dims \
         but the last is below the token-generation threshold (96, or the client's \
         `tkgSeqlenThreshold`)."
    ),
    source: "seed 004 §3 codegenMLPKernel, _commonNativeKernelCodegen; SPEC §6.8",
    fields: MLP_FIELDS,
    lower: lower_mlp,
};

/// TiledMLPKernel → `BIRKernel` (IT 54) `MLP`, pre-tiled operands (seed 004 §3).
pub static TILED_MLP_KERNEL: OpSpec = OpSpec {
    class: "TiledMLPKernel",
    doc: bespoke_doc!(
        "The tiled twin of MLPKernel: the same fields and attributes, operands as pre-tiled \
         access patterns (`\"access\": \"ap\"`)."
    ),
    source: "seed 004 §3 codegenTiledNativeKernel* (addAP); SPEC §6.8",
    lower: lower_tiled_mlp,
    ..MLP_KERNEL
};

/// NormQKV → `BIRKernel` (IT 54) `QKV` (seed 004 §3 codegenNormQKV).
pub static NORM_QKV: OpSpec = OpSpec {
    class: "NormQKV",
    opcode: "BIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(54),
    doc: bespoke_doc!(
        "The fused normalisation + QKV projection library kernel, spliced in by the name \
         `QKV`. Operands are `\"access\": \"seq\"`. `kernel_attrs` holds `eps` when \
         written, then `is_tkg` (as for MLPKernel)."
    ),
    source: "seed 004 §3 codegenNormQKV (useTkgQKVKernel), _commonNativeKernelCodegen; SPEC §6.8",
    fields: QKV_FIELDS,
    lower: lower_qkv,
};

/// TiledNormQKV → `BIRKernel` (IT 54) `QKV`, pre-tiled operands.
pub static TILED_NORM_QKV: OpSpec = OpSpec {
    class: "TiledNormQKV",
    doc: bespoke_doc!(
        "The tiled twin of NormQKV: the same fields and attributes, operands \
         `\"access\": \"ap\"`."
    ),
    source: "seed 004 §3 codegenTiledNativeKernel* (addAP); SPEC §6.8",
    lower: lower_tiled_qkv,
    ..NORM_QKV
};

/// RMSNormQuantKernel → `BIRKernel` (IT 54) `RMSNormQuant`.
pub static RMS_NORM_QUANT_KERNEL: OpSpec = OpSpec {
    class: "RMSNormQuantKernel",
    opcode: "BIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(54),
    doc: bespoke_doc!(
        "The fused RMSNorm + quantisation library kernel, spliced in by the name \
         `RMSNormQuant`. Operands are `\"access\": \"seq\"`. `kernel_attrs` holds \
         `quant_dtype` (as written) and `eps` when written."
    ),
    source: "seed 004 §3 codegenRMSNormQuantKernel, _commonNativeKernelCodegen; SPEC §6.8",
    fields: RMSNORM_QUANT_FIELDS,
    lower: lower_rmsnorm_quant,
};

/// TiledRMSNormQuantKernel → `BIRKernel` (IT 54) `RMSNormQuant`, pre-tiled operands.
pub static TILED_RMS_NORM_QUANT_KERNEL: OpSpec = OpSpec {
    class: "TiledRMSNormQuantKernel",
    doc: bespoke_doc!(
        "The tiled twin of RMSNormQuantKernel: the same fields and attributes, operands \
         `\"access\": \"ap\"`."
    ),
    source: "seed 004 §3 codegenTiledNativeKernel* (addAP); SPEC §6.8",
    lower: lower_tiled_rmsnorm_quant,
    ..RMS_NORM_QUANT_KERNEL
};

/// AttentionMMSoftmaxMM → `BIRKernel` (IT 54) `Attention`.
pub static ATTENTION_MM_SOFTMAX_MM: OpSpec = OpSpec {
    class: "AttentionMMSoftmaxMM",
    opcode: "BIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(54),
    doc: bespoke_doc!(
        "Flash attention (Q·Kᵀ, softmax, ·V) as a library kernel spliced in by the name \
         `Attention`. Operands are `\"access\": \"seq\"`. `kernel_attrs` holds `scale` when \
         written; `is_causal` is a first-class field."
    ),
    source: "seed 004 §2 _commonAttentionKernelCodegen, codegenAttentionMMSoftmaxMM; SPEC §6.8",
    fields: ATTENTION_FIELDS,
    lower: lower_attention,
};

/// TiledAttentionMMSoftmaxMM → `BIRKernel` (IT 54) `Attention`, pre-tiled operands.
pub static TILED_ATTENTION_MM_SOFTMAX_MM: OpSpec = OpSpec {
    class: "TiledAttentionMMSoftmaxMM",
    doc: bespoke_doc!(
        "The tiled twin of AttentionMMSoftmaxMM: the same fields and attributes, operands \
         `\"access\": \"ap\"`."
    ),
    source: "seed 004 §3 codegenTiledNativeKernel* (addAP); SPEC §6.8",
    lower: lower_tiled_attention,
    ..ATTENTION_MM_SOFTMAX_MM
};

/// BackwardsAttention → `BIRKernel` (IT 54) `BackwardsAttention`.
pub static BACKWARDS_ATTENTION_OP: OpSpec = OpSpec {
    class: "BackwardsAttention",
    opcode: "BIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(54),
    doc: bespoke_doc!(
        "The flash-attention backward pass as a library kernel spliced in by the name \
         `BackwardsAttention`; it sets `is_causal` as a first-class field (its codegen adds \
         the node itself). Operands are `\"access\": \"seq\"`; `kernel_attrs` is empty."
    ),
    source: "seed 004 §2 codegenBackwardsAttention (set_is_causal); SPEC §6.8",
    fields: &[LIB_SRCS, LIB_DSTS, IS_CAUSAL],
    lower: lower_backwards_attention,
};

fn lower_mlp(cx: &mut Cx<'_>) {
    lower_library(cx, &MLP);
}

fn lower_tiled_mlp(cx: &mut Cx<'_>) {
    lower_library(cx, &Library { tiled: true, ..MLP });
}

fn lower_qkv(cx: &mut Cx<'_>) {
    lower_library(cx, &QKV);
}

fn lower_tiled_qkv(cx: &mut Cx<'_>) {
    lower_library(cx, &Library { tiled: true, ..QKV });
}

fn lower_rmsnorm_quant(cx: &mut Cx<'_>) {
    lower_library(cx, &RMSNORM_QUANT);
}

fn lower_tiled_rmsnorm_quant(cx: &mut Cx<'_>) {
    lower_library(
        cx,
        &Library {
            tiled: true,
            ..RMSNORM_QUANT
        },
    );
}

fn lower_attention(cx: &mut Cx<'_>) {
    lower_library(cx, &ATTENTION);
}

fn lower_tiled_attention(cx: &mut Cx<'_>) {
    lower_library(
        cx,
        &Library {
            tiled: true,
            ..ATTENTION
        },
    );
}

fn lower_backwards_attention(cx: &mut Cx<'_>) {
    lower_library(cx, &BACKWARDS_ATTENTION);
}

/// The shared IT 54 builder of the bespoke kernels (seed 004 §3
/// `_commonNativeKernelCodegen` / `_commonAttentionKernelCodegen`).
fn lower_library(cx: &mut Cx<'_>, library: &Library) {
    let mode = if library.tiled {
        AccessMode::Fixed {
            access: "ap",
            call: "tile",
            what: "a pre-tiled access pattern",
        }
    } else {
        AccessMode::Fixed {
            access: "seq",
            call: "full",
            what: "a whole-tensor sequential access",
        }
    };
    let mut srcs_shape = Vec::new();
    let mut dsts_shape = Vec::new();
    let first_src = first_operand_shape(cx, "srcs");
    let mut ins = operand_args(cx, "srcs", mode, &mut srcs_shape);
    let outs = operand_args(cx, "dsts", mode, &mut dsts_shape);
    for bias in ["up_bias", "down_bias"] {
        if cx.spec.field(bias).is_none() {
            continue;
        }
        if let Some(operand) = cx.any_operand(bias) {
            ins.push(with_access(operand.to_json(bias), mode.access()));
            srcs_shape.push(json!(operand.shape()));
        }
    }

    let mut attrs = Vec::new();
    for &name in library.attrs {
        let Some(value) = cx.value(name) else {
            continue;
        };
        let text = match cx.field_spec(name).kind {
            Kind::Float => value.as_number().map(float_string),
            _ => attr_string(value),
        };
        if let Some(text) = text {
            attrs.push(json!([name, text]));
        }
    }
    if let Some(shape) = first_src.filter(|_| library.tkg) {
        let tokens = shape.split_last().map_or(1, |(_, rest)| {
            rest.iter().fold(1u64, |acc, d| acc.saturating_mul(*d))
        });
        let threshold = match cx.op.settings.tkg_seqlen_threshold {
            0 => limits::DEFAULT_TKG_SEQLEN_THRESHOLD,
            t => t,
        };
        attrs.push(json!(["is_tkg", (tokens < threshold).to_string()]));
    }

    let has = |cx: &Cx<'_>, name: &str| cx.spec.field(name).is_some();
    let flag = |cx: &Cx<'_>, name: &str| has(cx, name) && cx.bool(name);
    let is_causal = flag(cx, "is_causal");
    let fused_rmsnorm = flag(cx, "fused_rmsnorm");
    let store_add = flag(cx, "store_add");
    let quant_kernel = flag(cx, "quant_kernel");
    let norm_type = if has(cx, "norm_type") {
        cx.ident("norm_type")
            .and_then(|text| NORM_TYPE_ENUM.values.iter().position(|v| v.text == text))
            .unwrap_or(0)
    } else {
        0
    };
    let lower_bound = if has(cx, "lower_bound") {
        cx.float("lower_bound").unwrap_or(0.0)
    } else {
        0.0
    };

    let inst = cx.inst("BIRKernel");
    inst.ins = ins;
    inst.outs = outs;
    inst.set("kernel_name", library.kernel_name)
        .set("srcs_shape", srcs_shape)
        .set("dsts_shape", dsts_shape)
        .set("kernel_attrs", attrs)
        .set("sb_buf_shape", sb_buf_json(None))
        .set("psum_buf_shape", psum_buf_json(None))
        .set("auto_cast", "none")
        .set("auto_cast_type", "")
        .set("is_causal", is_causal)
        .set("fused_rmsnorm", fused_rmsnorm)
        .set("norm_type", norm_type)
        .set_float("lower_bound", lower_bound)
        .set("store_add", store_add)
        .set("quant_kernel", quant_kernel);
}

// ----- the NKI kernel nodes --------------------------------------------------------------

static NKI_FRONTEND: EnumSpec = EnumSpec {
    name: "nki_frontend",
    values: &[
        EnumValue {
            text: "beta2",
            bir: "klir",
            doc: "trace to a serialized KLR-AST binary (the default): kernel_format \"klir\", klir_binary <func_name>.klir",
        },
        EnumValue {
            text: "beta3",
            bir: "bir",
            doc: "trace to BIR JSON: kernel_format \"bir\", klir_binary <func_name>.json",
        },
    ],
};

/// InternalNativeNkiKernel → `NKIKLIRKernel` (IT 56), the registry-traced carrier (seed
/// 004 §4 codegenInternalNativeNkiKernel). BIR keys, in the seed's setter order:
/// `klir_binary`, `kernel_format`, `nki_binary_version_identifier`, `func_args`,
/// `func_outs`, then `sb_buf_shape` and `psum_buf_shape` when given.
pub static INTERNAL_NATIVE_NKI_KERNEL: OpSpec = OpSpec {
    class: "InternalNativeNkiKernel",
    opcode: "NKIKLIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(56),
    doc: "A kernel of the internal registry (convolution, resize, blockwise matmul, \
          transpose, select-and-scatter) traced through the new NKI front end at codegen \
          time and embedded as a binary. Library kernels (MLP, QKV, Attention, RMSNorm…) \
          are never registry-traced: they are BIRKernel (IT 54) nodes. Operands are \
          `\"access\": \"opaque\"` (the kernel owns its tiling).",
    source: "seed 004 §4 codegenInternalNativeNkiKernel, _INTERNAL_KERNEL_REGISTRY; SPEC §6.8",
    fields: &[
        FieldSpec {
            name: "func_name",
            kind: Kind::Str,
            default: Default::Required,
            bir: "names the traced kernel; the default klir_binary is derived from it",
            doc: "a key of the internal kernel registry (blockwise_mm, ResizeNearest, …)",
        },
        REG_SRCS,
        REG_DSTS,
        FieldSpec {
            name: "nki_frontend",
            kind: Kind::Enum(&NKI_FRONTEND),
            default: Default::Ident("beta2"),
            bir: "kernel_format: \"klir\" (beta2) or \"bir\" (beta3)",
            doc: "the NKI front end that traces the kernel (NKI_FRONTEND): beta2 or beta3",
        },
        FieldSpec {
            name: "klir_binary",
            kind: Kind::Str,
            default: Default::Computed(
                "\"<func_name>.klir\" (beta2) or \"<func_name>.json\" (beta3)",
            ),
            bir: "klir_binary",
            doc: "the traced binary: a KLR-AST file (beta2) or BIR JSON (beta3)",
        },
        FieldSpec {
            name: "nki_binary_version_identifier",
            kind: Kind::Str,
            default: Default::Str("0"),
            bir: "nki_binary_version_identifier",
            doc: "the version of the traced binary",
        },
        OPT_SB_BUF_SHAPE,
        OPT_PSUM_BUF_SHAPE,
    ],
    lower: lower_internal_nki,
};

fn lower_internal_nki(cx: &mut Cx<'_>) {
    let func_name = cx.string("func_name");
    if let Some(name) = func_name {
        check_registry(cx, name);
    }
    let beta3 = cx.ident("nki_frontend") == Some("beta3");
    let klir_binary = if cx.written("klir_binary") {
        cx.string("klir_binary").map(str::to_string)
    } else {
        func_name.map(|name| format!("{name}.{}", if beta3 { "json" } else { "klir" }))
    };
    let version = cx.string("nki_binary_version_identifier");
    let mode = AccessMode::Fixed {
        access: "opaque",
        call: "opaque",
        what: "the traced kernel owns its tiling",
    };
    let ins = operand_args(cx, "srcs", mode, &mut Vec::new());
    let outs = operand_args(cx, "dsts", mode, &mut Vec::new());
    let func_args = operand_names(cx, "srcs");
    let func_outs = operand_names(cx, "dsts");
    let sb = buf_shape(cx, "sb_buf_shape", 2);
    let psum = buf_shape(cx, "psum_buf_shape", 3);

    let inst = cx.inst("NKIKLIRKernel");
    inst.ins = ins;
    inst.outs = outs;
    if let Some(binary) = klir_binary {
        inst.set("klir_binary", binary);
    }
    inst.set("kernel_format", if beta3 { "bir" } else { "klir" });
    if let Some(version) = version {
        inst.set("nki_binary_version_identifier", version);
    }
    inst.set("func_args", func_args).set("func_outs", func_outs);
    if let Some(sb) = sb {
        inst.set("sb_buf_shape", sb_buf_json(Some(&sb)));
    }
    if let Some(psum) = psum {
        inst.set("psum_buf_shape", psum_buf_json(Some(&psum)));
    }
}

/// P408 unless `name` is a registry key (seed 004 §4), naming the closest key; a library
/// kernel's name gets a note that it is a BIRKernel (IT 54) node.
fn check_registry(cx: &mut Cx<'_>, name: &str) {
    if INTERNAL_KERNEL_REGISTRY.contains(&name) {
        return;
    }
    let keys = INTERNAL_KERNEL_REGISTRY.iter().copied();
    let mut message = format!("`{name}` is not in the internal kernel registry");
    if let Some(key) = did_you_mean(name, keys.clone()) {
        message.push_str(&format!("; did you mean `{key}`?"));
    } else if let Some(key) = closest(name, keys) {
        message.push_str(&format!(" (the closest key is `{key}`)"));
    }
    let anchor = cx.anchor("func_name");
    let mut diag = Diag::new(Code::P408, anchor.clone(), message);
    let library = LIBRARY_KERNELS
        .iter()
        .find(|(kernel, _)| kernel.eq_ignore_ascii_case(name));
    if let Some((_, op)) = library {
        let write = if op.is_empty() {
            format!("BIRKernel {{ kernel_name = \"{name}\" }}")
        } else {
            format!("{op} {{ … }}")
        };
        diag = diag.with_related(
            anchor,
            format!(
                "`{name}` is a library kernel: a BIRKernel (IT 54) node spliced in by name, \
                 never registry-traced; write it as {write}"
            ),
        );
    }
    cx.report(diag);
}

/// ExternalNativeNkiKernel → `NKIKernel` (IT 55), a user `@nki.jit` kernel (seed 004 §5).
/// BIR keys, in this order: `func`, `func_args`, `func_outs` (tensor names),
/// `sb_buf_shape`, `psum_buf_shape` (both required by the public structure, so their
/// defaults `[0, 0]` and `[0, [0, 0]]` are written when absent).
pub static EXTERNAL_NATIVE_NKI_KERNEL: OpSpec = OpSpec {
    class: "ExternalNativeNkiKernel",
    opcode: "NKIKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(55),
    doc: "A user kernel (`@nki.jit`) the front end already compiled, called by its function \
          name with its argument and output tensors.",
    source: "seed 004 §5 codegenExternalNativeNkiKernel; SPEC §6.8",
    fields: &[
        FieldSpec {
            name: "func",
            kind: Kind::Str,
            default: Default::Required,
            bir: "func",
            doc: "the user kernel's function name",
        },
        FieldSpec {
            name: "func_args",
            kind: Kind::List(&Kind::Acc(Mems::ANY, Dir::In)),
            default: Default::EmptyList,
            bir: "operands `func_args[i]` (ins); func_args: their tensor names",
            doc: "the kernel's input tensors, in parameter order",
        },
        FieldSpec {
            name: "func_outs",
            kind: Kind::List(&Kind::Acc(Mems::ANY, Dir::Out)),
            default: Default::EmptyList,
            bir: "operands `func_outs[i]` (outs); func_outs: their tensor names",
            doc: "the kernel's output tensors",
        },
        SB_BUF_SHAPE,
        PSUM_BUF_SHAPE,
    ],
    lower: lower_external_nki,
};

fn lower_external_nki(cx: &mut Cx<'_>) {
    check_non_empty(cx, "func");
    let func = cx.string("func");
    let (ins, outs) = cx.standard_args();
    let func_args = operand_names(cx, "func_args");
    let func_outs = operand_names(cx, "func_outs");
    let sb = sb_buf_json(buf_shape(cx, "sb_buf_shape", 2).as_deref());
    let psum = psum_buf_json(buf_shape(cx, "psum_buf_shape", 3).as_deref());
    let inst = cx.inst("NKIKernel");
    inst.ins = ins;
    inst.outs = outs;
    if let Some(func) = func {
        inst.set("func", func);
    }
    inst.set("func_args", func_args)
        .set("func_outs", func_outs)
        .set("sb_buf_shape", sb)
        .set("psum_buf_shape", psum);
}

/// ExternalNativeNkiKlirKernel → `NKIKLIRKernel` (IT 56), the external KLIR-path twin
/// (seed 004 §5). BIR keys, in this order: `func`, `klir_binary`, `kernel_format`
/// (`"klir"`), `klir_input_names`.
pub static EXTERNAL_NATIVE_NKI_KLIR_KERNEL: OpSpec = OpSpec {
    class: "ExternalNativeNkiKlirKernel",
    opcode: "NKIKLIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(56),
    doc: "A user kernel already traced to a KLR-AST binary, carried as it is. Each operand's \
          `access` follows SPEC §6.9.",
    source: "seed 004 §5 codegenExternalNativeNkiKlirKernel; SPEC §6.8, §6.9",
    fields: &[
        FieldSpec {
            name: "func",
            kind: Kind::Str,
            default: Default::Required,
            bir: "func",
            doc: "the kernel's function name",
        },
        FieldSpec {
            name: "klir_binary",
            kind: Kind::Str,
            default: Default::Required,
            bir: "klir_binary",
            doc: "the path of the serialized KLR-AST binary",
        },
        FieldSpec {
            name: "klir_input_names",
            kind: Kind::List(&Kind::Str),
            default: Default::EmptyList,
            bir: "klir_input_names",
            doc: "the kernel's input names, as the binary declares them",
        },
        SRCS,
        DSTS,
    ],
    lower: lower_external_klir,
};

fn lower_external_klir(cx: &mut Cx<'_>) {
    check_non_empty(cx, "func");
    let func = cx.string("func");
    let klir_binary = cx.string("klir_binary");
    let input_names: Vec<&str> = cx
        .list("klir_input_names")
        .iter()
        .filter_map(|v| match v {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    let ins = operand_args(cx, "srcs", AccessMode::Written, &mut Vec::new());
    let outs = operand_args(cx, "dsts", AccessMode::Written, &mut Vec::new());
    let inst = cx.inst("NKIKLIRKernel");
    inst.ins = ins;
    inst.outs = outs;
    if let Some(func) = func {
        inst.set("func", func);
    }
    if let Some(binary) = klir_binary {
        inst.set("klir_binary", binary);
    }
    inst.set("kernel_format", "klir")
        .set("klir_input_names", input_names);
}

// ----- operands (SPEC §6.9) --------------------------------------------------------------

/// How a kernel node marks its operands' `access`.
#[derive(Clone, Copy)]
enum AccessMode {
    /// As written (SPEC §6.9): a call's kind; a bare access is `seq` when it selects the
    /// whole tensor, else `nd_subtensor`.
    Written,
    /// One kind for every operand (seed 004: the bespoke codegens use `addSeqAccess` or
    /// `addAP`, the registry carrier `addOpaqueAP`). A call naming a kind other than `call`
    /// is ignored (P413).
    Fixed {
        /// The BIR `access`.
        access: &'static str,
        /// The access-kind call that agrees with it.
        call: &'static str,
        /// What `access` means, for the P413 message.
        what: &'static str,
    },
}

impl AccessMode {
    fn access(self) -> &'static str {
        match self {
            AccessMode::Written => "seq",
            AccessMode::Fixed { access, .. } => access,
        }
    }
}

/// The arguments of kernel-operand list `field` (role `field[k]`, plus `access`), pushing
/// each one's access shape onto `shapes`. An operand whose pattern could not be computed
/// is left out (its error is reported already).
fn operand_args(
    cx: &mut Cx<'_>,
    field: &str,
    mode: AccessMode,
    shapes: &mut Vec<Json>,
) -> Vec<Json> {
    let Some(index) = cx.index(field) else {
        return Vec::new();
    };
    let path = ValuePath::field(index);
    let mut args = Vec::new();
    let mut ignored = Vec::new();
    for (k, item) in cx.list(field).iter().enumerate() {
        let element = path.element(k);
        let (operand_path, call) = match item {
            Value::Call { name, .. } => (element.element(0), Some(name.as_str())),
            _ => (element.clone(), None),
        };
        let Some(operand) = cx.operand_at(&operand_path) else {
            continue;
        };
        let access = match (mode, call) {
            (AccessMode::Written, Some(name)) => ACCESS_KINDS
                .iter()
                .find(|(kind, _)| *kind == name)
                .map_or("opaque", |(_, access)| access),
            (AccessMode::Written, None) if is_whole(operand) => "seq",
            (AccessMode::Written, None) => "nd_subtensor",
            (
                AccessMode::Fixed {
                    access,
                    call: agrees,
                    what,
                },
                Some(name),
            ) => {
                if name != agrees {
                    ignored.push((element.clone(), name, access, what));
                }
                access
            }
            (AccessMode::Fixed { access, .. }, None) => access,
        };
        args.push(with_access(
            operand.to_json(&format!("{field}[{k}]")),
            access,
        ));
        shapes.push(json!(operand.shape()));
    }
    for (element, name, access, what) in ignored {
        let class = cx.spec.class;
        cx.error(
            Code::P413,
            Anchor::Value(element),
            format!("{class} passes every operand as `{access}` ({what}); `{name}(…)` is ignored"),
        );
    }
    args
}

/// The access shape of the first element of kernel-operand list `field`.
fn first_operand_shape(cx: &Cx<'_>, field: &str) -> Option<Vec<u64>> {
    let element = ValuePath::field(cx.index(field)?).element(0);
    let operand = match cx.list(field).first()? {
        Value::Call { .. } => cx.operand_at(&element.element(0)),
        _ => cx.operand_at(&element),
    }?;
    Some(operand.shape())
}

/// Whether an access selects its whole tensor, every dim kept, in order (SPEC §6.9 `full`).
fn is_whole(operand: &Operand) -> bool {
    operand.dims.len() == operand.tensor.dims.len()
        && operand
            .dims
            .iter()
            .zip(&operand.tensor.dims)
            .all(|(d, &size)| {
                d.kept && d.step == 1 && d.count == size && d.start.is_const() && d.start.c == 0
            })
}

fn with_access(mut arg: Json, access: &str) -> Json {
    if let Some(obj) = arg.as_object_mut() {
        obj.insert("access".into(), json!(access));
    }
    arg
}

/// The tensor names of kernel-operand (or access) list `field`, as written.
fn operand_names(cx: &Cx<'_>, field: &str) -> Vec<String> {
    let name = |value: &Value| match value {
        Value::Access(Access {
            name,
            target: Target::Tensor(_),
            ..
        }) => Some(name.clone()),
        _ => None,
    };
    cx.list(field)
        .iter()
        .filter_map(|value| match value {
            Value::Call { args, .. } => args.first().and_then(name),
            other => name(other),
        })
        .collect()
}

// ----- attributes and buffer shapes ------------------------------------------------------

/// The `[key, value]` string pairs of record field `field` in source order (SPEC §6.8),
/// reporting P206 for a value that is not a literal, list or record and P205 for a key
/// written twice (both left out of the pairs).
fn record_attrs(cx: &mut Cx<'_>, field: &str) -> Vec<Json> {
    let (Some(Value::Record(fields)), Some(index)) = (cx.value(field), cx.index(field)) else {
        return Vec::new();
    };
    let path = ValuePath::field(index);
    let mut diags = Vec::new();
    let mut pairs = Vec::new();
    for (k, attr) in fields.iter().enumerate() {
        let element = path.element(k);
        if let Some(first) = fields[..k].iter().position(|f| f.name == attr.name) {
            diags.push(
                Diag::new(
                    Code::P205,
                    Anchor::Value(element),
                    format!("the attribute `{}` is written twice", attr.name),
                )
                .with_related(Anchor::Value(path.element(first)), "first written here"),
            );
            continue;
        }
        if !check_attr(&attr.value, &element, &mut diags) {
            continue;
        }
        if let Some(text) = attr_string(&attr.value) {
            pairs.push(json!([attr.name, text]));
        }
    }
    for diag in diags {
        cx.report(diag);
    }
    pairs
}

/// Checks a kernel attribute value (recursively): P206 for accesses, calls, predicates and
/// bytes, P205 for a nested record key written twice. Values already in error stay silent.
fn check_attr(value: &Value, path: &ValuePath, diags: &mut Vec<Diag>) -> bool {
    match value {
        Value::Str(_) | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Ident(_) => true,
        Value::List(items) => {
            let mut ok = true;
            for (k, item) in items.iter().enumerate() {
                ok &= check_attr(item, &path.element(k), diags);
            }
            ok
        }
        Value::Record(fields) => {
            let mut ok = true;
            for (k, field) in fields.iter().enumerate() {
                let element = path.element(k);
                if let Some(first) = fields[..k].iter().position(|f| f.name == field.name) {
                    diags.push(
                        Diag::new(
                            Code::P205,
                            Anchor::Value(element),
                            format!("the key `{}` is written twice", field.name),
                        )
                        .with_related(Anchor::Value(path.element(first)), "first written here"),
                    );
                    ok = false;
                    continue;
                }
                ok &= check_attr(&field.value, &element, diags);
            }
            ok
        }
        Value::Error
        | Value::Access(Access {
            target: Target::Unresolved,
            ..
        }) => false,
        other => {
            diags.push(Diag::new(
                Code::P206,
                Anchor::Value(path.clone()),
                format!(
                    "a kernel attribute is a string, bool, number, identifier, list or record; found {}",
                    other.describe()
                ),
            ));
            false
        }
    }
}

/// A kernel attribute as BIR's string (SPEC §6.8): strings as they are, bools
/// `true`/`false`, integers in decimal, floats as serde_json prints an f64, identifiers as
/// written, lists and records as compact JSON.
fn attr_string(value: &Value) -> Option<String> {
    Some(match value {
        Value::Str(s) | Value::Ident(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float_string(f.0),
        Value::List(_) | Value::Record(_) => attr_json(value)?.to_string(),
        _ => return None,
    })
}

/// An attribute value inside a list or record, as JSON.
fn attr_json(value: &Value) -> Option<Json> {
    Some(match value {
        Value::Str(s) | Value::Ident(s) => json!(s),
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Float(f) => float_json(f.0),
        Value::List(items) => Json::Array(items.iter().map(attr_json).collect::<Option<_>>()?),
        Value::Record(fields) => {
            let mut object = Map::new();
            for field in fields {
                object
                    .entry(field.name.clone())
                    .or_insert(attr_json(&field.value)?);
            }
            Json::Object(object)
        }
        _ => return None,
    })
}

/// An f64 in its shortest round-trip form as SPEC §6.8's examples spell it (`1e-5`,
/// `1.0`, `0.125`: Rust's `{:?}`, which switches to an exponent below 1e-4 and from 1e16),
/// non-finite as `inf`, `-inf`, `nan` (SPEC §8). serde_json 1.0.154 itself would print
/// `0.00001`; see docs/decisions.md.
fn float_string(value: f64) -> String {
    match float_json(value) {
        Json::String(s) => s,
        _ => format!("{value:?}"),
    }
}

/// P414 when string field `name` is written empty.
fn check_non_empty(cx: &mut Cx<'_>, name: &str) {
    if cx.value(name) == Some(&Value::Str(String::new())) {
        let anchor = cx.anchor(name);
        cx.error(
            Code::P414,
            anchor,
            format!("`{name}` must name a kernel; it is empty"),
        );
    }
}

/// `sb_buf_shape` (`len` 2) or `psum_buf_shape` (`len` 3) when written and valid; P414 for
/// the wrong number of entries (on the list) or a negative one (on the entry).
fn buf_shape(cx: &mut Cx<'_>, name: &str, len: usize) -> Option<Vec<u64>> {
    let path = ValuePath::field(cx.index(name)?);
    let values = cx.int_list(name)?;
    if values.len() != len {
        cx.error(
            Code::P414,
            Anchor::Value(path),
            format!(
                "`{name}` takes {len} non-negative integers; it has {}",
                values.len()
            ),
        );
        return None;
    }
    let mut shape = Vec::with_capacity(len);
    for (k, value) in values.into_iter().enumerate() {
        match u64::try_from(value) {
            Ok(v) => shape.push(v),
            Err(_) => {
                cx.error(
                    Code::P414,
                    Anchor::Value(path.element(k)),
                    format!("`{name}` entries are sizes; {value} is negative"),
                );
                return None;
            }
        }
    }
    Some(shape)
}

/// `sb_buf_shape` as BIR writes it: `[a, b]`, `[0, 0]` by default.
fn sb_buf_json(shape: Option<&[u64]>) -> Json {
    match shape {
        Some(&[a, b]) => json!([a, b]),
        _ => json!([0, 0]),
    }
}

/// `psum_buf_shape` in the public `Nat × Nat × Nat` encoding `[a, [b, c]]`, `[0, [0, 0]]`
/// by default.
fn psum_buf_json(shape: Option<&[u64]>) -> Json {
    match shape {
        Some(&[a, b, c]) => json!([a, [b, c]]),
        _ => json!([0, [0, 0]]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::F64;

    #[test]
    fn attribute_strings() {
        let s = |v: Value| attr_string(&v).unwrap_or_default();
        // SPEC §6.8's own examples: `1e-5`, `1.0`, `0.125`.
        assert_eq!(s(Value::Float(F64(1e-5))), "1e-5");
        assert_eq!(s(Value::Float(F64(0.125))), "0.125");
        assert_eq!(s(Value::Float(F64(1e-6))), "1e-6");
        assert_eq!(s(Value::Float(F64(1e22))), "1e22");
        assert_eq!(s(Value::Float(F64(1.0))), "1.0");
        assert_eq!(s(Value::Float(F64(0.125))), "0.125");
        assert_eq!(s(Value::Float(F64(f64::NEG_INFINITY))), "-inf");
        assert_eq!(s(Value::Int(-8)), "-8");
        assert_eq!(s(Value::Bool(true)), "true");
        assert_eq!(s(Value::Ident("silu".into())), "silu");
        assert_eq!(s(Value::Str("a \"b\"".into())), "a \"b\"");
        let list = Value::List(vec![
            Value::Int(1),
            Value::Str("x".into()),
            Value::Float(F64(2.5)),
        ]);
        assert_eq!(s(list), r#"[1,"x",2.5]"#);
        let record = Value::Record(vec![
            crate::model::Field {
                name: "b".into(),
                value: Value::Bool(false),
            },
            crate::model::Field {
                name: "a".into(),
                value: Value::Ident("bf16".into()),
            },
        ]);
        assert_eq!(s(record), r#"{"b":false,"a":"bf16"}"#);
        assert_eq!(attr_string(&Value::Bytes(vec![1])), None);
    }

    #[test]
    fn buffer_shapes() {
        assert_eq!(psum_buf_json(Some(&[1, 2, 3])), json!([1, [2, 3]]));
        assert_eq!(psum_buf_json(None), json!([0, [0, 0]]));
        assert_eq!(sb_buf_json(Some(&[4, 5])), json!([4, 5]));
    }

    use std::sync::Arc;

    use crate::model::{Field, OpSettings, ResolvedOp, Tensor, TensorKind};
    use crate::types::Memory;

    fn hbm(name: &str, dims: &[u64]) -> Value {
        Value::Access(Access {
            name: name.into(),
            target: Target::Tensor(Arc::new(Tensor {
                name: name.into(),
                memory: Memory::Hbm,
                dtype: Dtype::Bf16,
                dims: dims.to_vec(),
                kind: TensorKind::Input,
            })),
            indices: None,
        })
    }

    fn op(class: &str, fields: Vec<(&str, Value)>) -> ResolvedOp {
        ResolvedOp {
            class: class.into(),
            op_id: 1,
            fields: fields
                .into_iter()
                .map(|(name, value)| Field {
                    name: name.into(),
                    value,
                })
                .collect(),
            loops: Vec::new(),
            settings: OpSettings::default(),
        }
    }

    #[test]
    fn mlp_is_tkg_below_the_threshold() {
        let mlp = |x: Value, threshold: u64| {
            let mut op = op(
                "MLPKernel",
                vec![
                    ("srcs", Value::List(vec![x])),
                    ("dsts", Value::List(vec![hbm("out", &[4, 1, 64])])),
                    ("eps", Value::Float(F64(1e-6))),
                ],
            );
            op.settings.tkg_seqlen_threshold = threshold;
            let lowered = crate::lower_op(&op);
            assert!(lowered.diagnostics.is_empty(), "{:?}", lowered.diagnostics);
            lowered.instructions[0]["kernel_attrs"].clone()
        };
        assert_eq!(
            mlp(hbm("x", &[4, 1, 64]), 0),
            json!([["eps", "1e-6"], ["is_tkg", "true"]])
        );
        assert_eq!(
            mlp(hbm("x", &[1, 2048, 64]), 0),
            json!([["eps", "1e-6"], ["is_tkg", "false"]])
        );
        assert_eq!(
            mlp(hbm("x", &[1, 2048, 64]), 4096),
            json!([["eps", "1e-6"], ["is_tkg", "true"]])
        );
    }

    #[test]
    fn registry_has_thirteen_keys() {
        assert_eq!(INTERNAL_KERNEL_REGISTRY.len(), 13);
        assert!(closest("MLP", INTERNAL_KERNEL_REGISTRY.iter().copied()).is_some());
    }
}
