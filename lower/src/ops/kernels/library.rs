//! The bespoke library kernels (SPEC §6.8; seed 004 §3): MLP, QKV, RMSNormQuant, Attention
//! and BackwardsAttention, with their tiled twins, all `BIRKernel` (IT 54) nodes with a fixed
//! `kernel_name` and named attributes.

use super::*;

// ----- the bespoke library kernels -------------------------------------------------------

/// What distinguishes one bespoke library kernel from another (seed 004 §3).
struct Library {
    /// The fixed `kernel_name`.
    kernel_name: &'static str,
    /// A tiled twin: every operand is a pre-tiled access pattern (`addAP`, `"access": "ap"`;
    /// an access-kind call is P413, ignored), instead of whole-tensor sequential operands
    /// (`addSeqAccess`, `"access": "seq"`; SPEC §6.8 [3], seed 004 §3 "twin attr rosters
    /// identical modulo addAP↔addSeqAccess").
    tiled: bool,
    /// The untiled op binds each operand through the per-operand dispatcher
    /// `codegenBIRKernelAccess`, as BIRKernel does (SPEC §6.9; seed 004 §6: the dispatcher
    /// nested in `codegenAttentionMMSoftmaxMM`), not as a whole tensor.
    per_operand: bool,
    /// The named fields that become `kernel_attrs` pairs, in the op's row order.
    attrs: &'static [&'static str],
    /// The `kernel_attrs` key of the token-generation flag, for the ops that decide it
    /// (seed 004 §3: MLP's `is_tkg`, QKV's `useTkgQKVKernel`).
    tkg: Option<&'static str>,
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
    per_operand: false,
    attrs: &[fname::skip_gate, fname::act_fn, fname::eps],
    tkg: Some("is_tkg"),
};
const QKV: Library = Library {
    kernel_name: "QKV",
    tiled: false,
    per_operand: false,
    attrs: &[fname::eps],
    tkg: Some("useTkgQKVKernel"),
};
const RMSNORM_QUANT: Library = Library {
    kernel_name: "RMSNormQuant",
    tiled: false,
    per_operand: false,
    attrs: &[fname::quant_dtype, fname::eps],
    tkg: None,
};
const ATTENTION: Library = Library {
    kernel_name: "Attention",
    tiled: false,
    per_operand: true,
    attrs: &[fname::scale],
    tkg: None,
};
const BACKWARDS_ATTENTION: Library = Library {
    kernel_name: "BackwardsAttention",
    tiled: false,
    per_operand: false,
    attrs: &[],
    tkg: None,
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
         down projection), spliced in by the name `MLP`. Operands are whole tensors, passed as \
         sequential accesses (`\"access\": \"seq\"`; a part of a tensor is P300: use \
         TiledMLPKernel). `kernel_attrs` holds `skip_gate`, \
         `act_fn`, `eps` when written, then `is_tkg`: the product of the first src access \
         shape's dims but the last is below the token-generation threshold (96, or the client's \
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
        "The tiled twin of MLPKernel: the same fields and attributes; a bare operand is a \
         pre-tiled access pattern (`\"access\": \"ap\"`), an access-kind call keeps its \
         own kind."
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
         `QKV`. Operands are whole tensors, `\"access\": \"seq\"`. `kernel_attrs` holds \
         `eps` when written, then the token-generation flag `useTkgQKVKernel` (decided as \
         MLPKernel's `is_tkg`)."
    ),
    source: "seed 004 §3 codegenNormQKV (useTkgQKVKernel), _commonNativeKernelCodegen; SPEC §6.8",
    fields: QKV_FIELDS,
    lower: lower_qkv,
};

/// TiledNormQKV → `BIRKernel` (IT 54) `QKV`, pre-tiled operands.
pub static TILED_NORM_QKV: OpSpec = OpSpec {
    class: "TiledNormQKV",
    doc: bespoke_doc!(
        "The tiled twin of NormQKV: the same fields and attributes, a bare \
         operand is `\"access\": \"ap\"`, an access-kind call keeps its own kind."
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
         `RMSNormQuant`. Operands are whole tensors, `\"access\": \"seq\"`. `kernel_attrs` holds \
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
        "The tiled twin of RMSNormQuantKernel: the same fields and attributes, a bare \
         operand is `\"access\": \"ap\"`, an access-kind call keeps its own kind."
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
         `Attention`. Each operand is bound as BIRKernel's are: a bare whole tensor `\"seq\"`, a \
         bare part of one `\"nd_subtensor\"`, an access-kind call its own kind. \
         `kernel_attrs` holds `scale` when written; `is_causal` is a first-class field."
    ),
    source: "seed 004 §2 _commonAttentionKernelCodegen, codegenAttentionMMSoftmaxMM; SPEC §6.8",
    fields: ATTENTION_FIELDS,
    lower: lower_attention,
};

/// TiledAttentionMMSoftmaxMM → `BIRKernel` (IT 54) `Attention`, pre-tiled operands.
pub static TILED_ATTENTION_MM_SOFTMAX_MM: OpSpec = OpSpec {
    class: "TiledAttentionMMSoftmaxMM",
    doc: bespoke_doc!(
        "The tiled twin of AttentionMMSoftmaxMM: the same fields and attributes, every \
         operand `\"access\": \"ap\"` (an access-kind call is ignored, P413)."
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
            call: "",
            what: "a pre-tiled access pattern, `addAP`",
        }
    } else if library.per_operand {
        AccessMode::Written
    } else {
        check_whole_operands(cx);
        AccessMode::Fixed {
            access: "seq",
            call: "full",
            what: "a whole-tensor sequential access",
        }
    };
    let mut srcs_shape = Vec::new();
    let mut dsts_shape = Vec::new();
    let first_src = first_operand_shape(cx, fname::srcs);
    let mut ins = operand_args(cx, fname::srcs, mode, &mut srcs_shape);
    let outs = operand_args(cx, fname::dsts, mode, &mut dsts_shape);
    for bias in [fname::up_bias, fname::down_bias] {
        if cx.spec.field(bias).is_none() {
            continue;
        }
        if let Some(operand) = cx.any_operand(bias) {
            ins.push(operand.to_arg(Role::field(bias)).with_access(mode.access()));
            srcs_shape.push(operand.shape().into());
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
            attrs.push(BirValue::from(vec![name.to_string(), text]));
        }
    }
    if let (Some(shape), Some(key)) = (first_src, library.tkg) {
        let tokens = shape.split_last().map_or(1, |(_, rest)| {
            rest.iter().fold(1u64, |acc, d| acc.saturating_mul(*d))
        });
        let threshold = match cx.op.settings.tkg_seqlen_threshold {
            0 => limits::DEFAULT_TKG_SEQLEN_THRESHOLD,
            t => t,
        };
        attrs.push(BirValue::from(vec![
            key.to_string(),
            (tokens < threshold).to_string(),
        ]));
    }

    let has = |cx: &Cx<'_>, name: &str| cx.spec.field(name).is_some();
    let flag = |cx: &Cx<'_>, name: &str| has(cx, name) && cx.bool(name);
    let is_causal = flag(cx, fname::is_causal);
    let fused_rmsnorm = flag(cx, fname::fused_rmsnorm);
    let store_add = flag(cx, fname::store_add);
    let quant_kernel = flag(cx, fname::quant_kernel);
    let norm_type = if has(cx, fname::norm_type) {
        cx.ident(fname::norm_type)
            .and_then(|text| NORM_TYPE_ENUM.values.iter().position(|v| v.text == text))
            .unwrap_or(0)
    } else {
        0
    };
    let lower_bound = if has(cx, fname::lower_bound) {
        cx.float(fname::lower_bound).unwrap_or(0.0)
    } else {
        0.0
    };

    let inst = cx.inst(Opcode::BirKernel);
    inst.ins = ins;
    inst.outs = outs;
    inst.set(F::KernelName, library.kernel_name)
        .set(F::SrcsShape, srcs_shape)
        .set(F::DstsShape, dsts_shape)
        .set(F::KernelAttrs, attrs)
        .set(F::SbBufShape, sb_buf_json(None))
        .set(F::PsumBufShape, psum_buf_json(None))
        .set(F::AutoCast, "none")
        .set(F::AutoCastType, "")
        .set(F::IsCausal, is_causal)
        .set(F::FusedRmsnorm, fused_rmsnorm)
        .set(F::NormType, norm_type)
        .set_float(F::LowerBound, lower_bound)
        .set(F::StoreAdd, store_add)
        .set(F::QuantKernel, quant_kernel);
}

/// P300 on each operand of an untiled bespoke op that is not a whole tensor (SPEC §6.8
/// [2]): they pass operands with `addSeqAccess`, whole-tensor sequential, so a part of a
/// tensor is written with the tiled twin. The access inside `full(…)` is checked too; one
/// inside another call is not (SPEC §13.1.7: the call's P413 is that operand's one
/// diagnostic of its kind).
fn check_whole_operands(cx: &mut Cx<'_>) {
    let class = cx.spec.class;
    let twin = format!("Tiled{class}");
    let use_twin = match crate::catalog::lookup(&twin) {
        Some(_) => format!("; write {twin} for a part of a tensor"),
        None => String::new(),
    };
    let mut partial = Vec::new();
    for field in [fname::srcs, fname::dsts, fname::up_bias, fname::down_bias] {
        if cx.spec.field(field).is_none() {
            continue;
        }
        let Some(index) = cx.index(field) else {
            continue;
        };
        let mut found = Vec::new();
        let value = &cx.op.fields[index].value;
        let ignored_call = |path: &ValuePath| match (value, path.elements.first()) {
            (Value::List(items), Some(&k)) => matches!(
                items.get(k),
                Some(Value::Call { name, .. }) if name != "full"
            ),
            _ => false,
        };
        value.collect_accesses(ValuePath::field(index), &mut found);
        found.retain(|(path, _)| !ignored_call(path));
        for (path, _) in found {
            if let Some(operand) = cx
                .operand_at(&path)
                .filter(|o| !o.faulty && !selects_all(o))
            {
                partial.push((path, operand.tensor.name.clone()));
            }
        }
    }
    for (path, name) in partial {
        let note = format!(
            "{class} passes each operand as a whole tensor (`addSeqAccess`), but this access \
             selects part of `%{name}`{use_twin}"
        );
        let diag =
            Diag::incorrect_access_pattern(Anchor::Value(path.clone()), Anchor::Value(path), note);
        cx.report(diag);
    }
}

/// Whether op class `class` reads the `tkgSeqlenThreshold` setting (it decides `is_tkg`:
/// MLPKernel, NormQKV and their tiled twins, seed 004 §3). The analysis copies the setting
/// into these ops only, so that changing it re-lowers nothing else.
pub fn reads_tkg_threshold(class: &str) -> bool {
    [&MLP_KERNEL, &TILED_MLP_KERNEL, &NORM_QKV, &TILED_NORM_QKV]
        .iter()
        .any(|spec| spec.class == class)
}
