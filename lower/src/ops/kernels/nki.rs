//! The NKI kernel nodes (SPEC §6.8; seed 004 §4–§5): the registry-traced
//! `NKIKLIRKernel` (IT 56) of InternalNativeNkiKernel and ExternalNativeNkiKlirKernel, and
//! the user kernel `NKIKernel` (IT 55).

use super::*;

// ----- the NKI kernel nodes --------------------------------------------------------------

static NKI_FRONTEND: EnumSpec = EnumSpec {
    name: fname::nki_frontend,
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

/// `nki_binary_version_identifier`, which every IT 56 node carries (seed 004 §1, §4).
const NKI_BINARY_VERSION_IDENTIFIER: FieldSpec = FieldSpec {
    name: fname::nki_binary_version_identifier,
    kind: Kind::Str,
    default: Default::Str("0"),
    bir: "nki_binary_version_identifier",
    doc: "the version of the traced binary",
};

/// How every IT 56 node binds its operands: `addOpaqueAP`, "the kernel owns its internal
/// tiling" (seed 004 §4; SPEC §6.8 [3]); `opaque(…)` agrees, another call is P413.
const OPAQUE: AccessMode = AccessMode::Fixed {
    access: "opaque",
    call: "opaque",
    what: "the traced kernel owns its tiling",
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
            name: fname::func_name,
            kind: Kind::Str,
            default: Default::Required,
            bir: "names the traced kernel; the default klir_binary is derived from it",
            doc: "a key of the internal kernel registry (blockwise_mm, ResizeNearest, …)",
        },
        REG_SRCS,
        REG_DSTS,
        FieldSpec {
            name: fname::nki_frontend,
            kind: Kind::Enum(&NKI_FRONTEND),
            default: Default::Ident("beta2"),
            bir: "kernel_format: \"klir\" (beta2) or \"bir\" (beta3)",
            doc: "the NKI front end that traces the kernel (NKI_FRONTEND): beta2 or beta3",
        },
        FieldSpec {
            name: fname::klir_binary,
            kind: Kind::Str,
            default: Default::Computed(
                "\"<func_name>.klir\" (beta2) or \"<func_name>.json\" (beta3)",
            ),
            bir: "klir_binary",
            doc: "the traced binary: a KLR-AST file (beta2) or BIR JSON (beta3)",
        },
        NKI_BINARY_VERSION_IDENTIFIER,
        OPT_SB_BUF_SHAPE,
        OPT_PSUM_BUF_SHAPE,
    ],
    lower: lower_internal_nki,
};

fn lower_internal_nki(cx: &mut Cx<'_>) {
    let func_name = cx.string(fname::func_name);
    if let Some(name) = func_name {
        check_registry(cx, name);
    }
    let beta3 = cx.ident(fname::nki_frontend) == Some("beta3");
    let klir_binary = if cx.written(fname::klir_binary) {
        cx.string(fname::klir_binary).map(str::to_string)
    } else {
        func_name.map(|name| format!("{name}.{}", if beta3 { "json" } else { "klir" }))
    };
    let version = cx.string(fname::nki_binary_version_identifier);
    let ins = operand_args(cx, fname::srcs, OPAQUE, &mut Vec::new());
    let outs = operand_args(cx, fname::dsts, OPAQUE, &mut Vec::new());
    let func_args = operand_names(cx, fname::srcs);
    let func_outs = operand_names(cx, fname::dsts);
    let sb = buf_shape(cx, fname::sb_buf_shape, 2);
    let psum = buf_shape(cx, fname::psum_buf_shape, 3);

    let inst = cx.inst(Opcode::NkiKlirKernel);
    inst.ins = ins;
    inst.outs = outs;
    if let Some(binary) = klir_binary {
        inst.set(F::KlirBinary, binary);
    }
    inst.set(F::KernelFormat, if beta3 { "bir" } else { "klir" });
    if let Some(version) = version {
        inst.set(F::NkiBinaryVersionIdentifier, version);
    }
    inst.set(F::FuncArgs, func_args).set(F::FuncOuts, func_outs);
    if let Some(sb) = sb {
        inst.set(F::SbBufShape, sb_buf_json(Some(&sb)));
    }
    if let Some(psum) = psum {
        inst.set(F::PsumBufShape, psum_buf_json(Some(&psum)));
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
    let suggestion = did_you_mean(name, keys.clone());
    if let Some(key) = suggestion {
        message.push_str(&format!("; did you mean `{key}`?"));
    } else if let Some(key) = closest(name, keys) {
        message.push_str(&format!(" (the closest key is `{key}`)"));
    }
    let anchor = cx.anchor(fname::func_name);
    let mut diag =
        Diag::new(Code::P408, anchor.clone(), message).with_fix(FixHint::replace(suggestion));
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
            name: fname::func,
            kind: Kind::Str,
            default: Default::Required,
            bir: "func",
            doc: "the user kernel's function name",
        },
        FieldSpec {
            name: fname::func_args,
            kind: Kind::List(&Kind::Acc(Mems::ANY, Dir::In)),
            default: Default::EmptyList,
            bir: "operands `func_args[i]` (ins); func_args: their tensor names",
            doc: "the kernel's input tensors, in parameter order",
        },
        FieldSpec {
            name: fname::func_outs,
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
    check_non_empty(cx, fname::func);
    let func = cx.string(fname::func);
    let (ins, outs) = cx.standard_args();
    let func_args = operand_names(cx, fname::func_args);
    let func_outs = operand_names(cx, fname::func_outs);
    let sb = sb_buf_json(buf_shape(cx, fname::sb_buf_shape, 2).as_deref());
    let psum = psum_buf_json(buf_shape(cx, fname::psum_buf_shape, 3).as_deref());
    let inst = cx.inst(Opcode::NkiKernel);
    inst.ins = ins;
    inst.outs = outs;
    if let Some(func) = func {
        inst.set(F::Func, func);
    }
    inst.set(F::FuncArgs, func_args)
        .set(F::FuncOuts, func_outs)
        .set(F::SbBufShape, sb)
        .set(F::PsumBufShape, psum);
}

/// ExternalNativeNkiKlirKernel → `NKIKLIRKernel` (IT 56), the external KLIR-path twin
/// (seed 004 §5). BIR keys, in this order: `func`, `klir_binary`, `kernel_format`
/// (`"klir"`), `nki_binary_version_identifier`, `klir_input_names`, `func_args`,
/// `func_outs` (the operands' tensor names); operands `"access": "opaque"` (SPEC §6.8 [3]).
pub static EXTERNAL_NATIVE_NKI_KLIR_KERNEL: OpSpec = OpSpec {
    class: "ExternalNativeNkiKlirKernel",
    opcode: "NKIKLIRKernel",
    engine: EngineSpec::Fixed(Engine::Unassigned),
    instruction_type: Some(56),
    doc: "A user kernel already traced to a KLR-AST binary, carried as it is. Operands are \
          `\"access\": \"opaque\"` (the kernel owns its tiling; another access-kind call is \
          ignored, P413).",
    source: "seed 004 §5 codegenExternalNativeNkiKlirKernel; seed 004 §1, §4 (IT 56 fields, \
             addOpaqueAP); SPEC §6.8",
    fields: &[
        FieldSpec {
            name: fname::func,
            kind: Kind::Str,
            default: Default::Required,
            bir: "func",
            doc: "the kernel's function name",
        },
        FieldSpec {
            name: fname::klir_binary,
            kind: Kind::Str,
            default: Default::Required,
            bir: "klir_binary",
            doc: "the path of the serialized KLR-AST binary",
        },
        FieldSpec {
            name: fname::klir_input_names,
            kind: Kind::List(&Kind::Str),
            default: Default::EmptyList,
            bir: "klir_input_names",
            doc: "the kernel's input names, as the binary declares them",
        },
        REG_SRCS,
        REG_DSTS,
        NKI_BINARY_VERSION_IDENTIFIER,
    ],
    lower: lower_external_klir,
};

fn lower_external_klir(cx: &mut Cx<'_>) {
    check_non_empty(cx, fname::func);
    let func = cx.string(fname::func);
    let klir_binary = cx.string(fname::klir_binary);
    let input_names: Vec<&str> = cx
        .list(fname::klir_input_names)
        .iter()
        .filter_map(|v| match v {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    let version = cx.string(fname::nki_binary_version_identifier);
    let ins = operand_args(cx, fname::srcs, OPAQUE, &mut Vec::new());
    let outs = operand_args(cx, fname::dsts, OPAQUE, &mut Vec::new());
    let func_args = operand_names(cx, fname::srcs);
    let func_outs = operand_names(cx, fname::dsts);
    let inst = cx.inst(Opcode::NkiKlirKernel);
    inst.ins = ins;
    inst.outs = outs;
    if let Some(func) = func {
        inst.set(F::Func, func);
    }
    if let Some(binary) = klir_binary {
        inst.set(F::KlirBinary, binary);
    }
    inst.set(F::KernelFormat, "klir");
    if let Some(version) = version {
        inst.set(F::NkiBinaryVersionIdentifier, version);
    }
    inst.set(F::KlirInputNames, input_names)
        .set(F::FuncArgs, func_args)
        .set(F::FuncOuts, func_outs);
}
