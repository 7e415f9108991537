//! Kernel operands (SPEC §6.9), attributes and buffer shapes, shared by every kernel node.

use super::*;

// ----- operands (SPEC §6.9) --------------------------------------------------------------

/// How a kernel node marks its operands' `access`.
#[derive(Clone, Copy)]
pub(super) enum AccessMode {
    /// As written (SPEC §6.9): a call's kind; a bare access is `seq` when it selects the
    /// whole tensor, else `nd_subtensor`.
    Written,
    /// One kind for every operand (seed 004: the bespoke codegens use `addSeqAccess` or
    /// `addAP`, the IT 56 carriers `addOpaqueAP`). A call naming a kind other than `call`
    /// is ignored (P413); `call` is empty where no call agrees (`ap`, SPEC §13.1.7).
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
    pub(super) fn access(self) -> &'static str {
        match self {
            AccessMode::Written => "seq",
            AccessMode::Fixed { access, .. } => access,
        }
    }
}

/// The arguments of kernel-operand list `field` (role `field[k]`, plus `access`), pushing
/// each one's access shape onto `shapes`. An operand whose pattern could not be computed
/// is left out (its error is reported already).
pub(super) fn operand_args(
    cx: &mut Cx<'_>,
    field: &'static str,
    mode: AccessMode,
    shapes: &mut Vec<BirValue>,
) -> Vec<Arg> {
    let Some(index) = cx.index(field) else {
        return Vec::new();
    };
    let path = ValuePath::field(index);
    let mut args = Vec::new();
    let mut ignored = Vec::new();
    let mut partial_full = Vec::new();
    for (k, item) in cx.list(field).iter().enumerate() {
        let element = path.element(k);
        let (operand_path, call) = match item {
            Value::Call { name, .. } => (element.element(0), Some(name.as_str())),
            _ => (element.clone(), None),
        };
        let Some(operand) = cx.operand_at(&operand_path) else {
            continue;
        };
        if call == Some("full")
            && !matches!(mode, AccessMode::Fixed { .. })
            && !selects_all(operand)
        {
            // SPEC §6.9 [2]: whole-tensor sequential access would read other elements than
            // the ones written.
            partial_full.push(operand_path.clone());
        }
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
        args.push(operand.to_arg(Role::element(field, k)).with_access(access));
        shapes.push(operand.shape().into());
    }
    for path in partial_full {
        let diag = Diag::incorrect_access_pattern(
            Anchor::Value(path.clone()),
            Anchor::Value(path),
            "`full(…)` is a whole-tensor sequential access, but this access selects part of \
             its tensor; write the access bare (`nd_subtensor`) or `subtensor(…)`"
                .to_string(),
        );
        cx.report(diag);
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
pub(super) fn first_operand_shape(cx: &Cx<'_>, field: &str) -> Option<Vec<u64>> {
    let element = ValuePath::field(cx.index(field)?).element(0);
    let operand = match cx.list(field).first()? {
        Value::Call { .. } => cx.operand_at(&element.element(0)),
        _ => cx.operand_at(&element),
    }?;
    Some(operand.shape())
}

/// Whether an access selects its whole tensor, every dim kept, in order (SPEC §6.9 `full`).
pub(super) fn is_whole(operand: &Operand) -> bool {
    selects_all(operand) && operand.dims.iter().all(|d| d.kept && d.step == 1)
}

/// Whether an access selects every element of its tensor, in order (a dropped dim of size
/// 1 included): what a whole-tensor sequential access (`addSeqAccess`) reads, so what
/// `full(…)` and the untiled bespoke kernels need (SPEC §6.8, §6.9 [2]).
pub(super) fn selects_all(operand: &Operand) -> bool {
    operand.dims.len() == operand.tensor.dims.len()
        && operand
            .dims
            .iter()
            .zip(&operand.tensor.dims)
            .all(|(d, &size)| {
                d.count == size
                    && (d.step == 1 || size == 1)
                    && d.start.is_const()
                    && d.start.c == 0
            })
}

/// The tensor names of kernel-operand (or access) list `field`, as written.
pub(super) fn operand_names(cx: &Cx<'_>, field: &str) -> Vec<String> {
    let name = |value: &Value| match value {
        Value::Access(Access {
            name,
            target: Target::Tensor(_),
            ..
        }) => Some(name.to_string()),
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
pub(super) fn record_attrs(cx: &mut Cx<'_>, field: &str) -> Vec<BirValue> {
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
            pairs.push(BirValue::from(vec![attr.name.to_string(), text]));
        }
    }
    for diag in diags {
        cx.report(diag);
    }
    pairs
}

/// Checks a kernel attribute value (recursively): P206 for accesses, calls, predicates and
/// bytes, P205 for a nested record key written twice. Values already in error stay silent.
pub(super) fn check_attr(value: &Value, path: &ValuePath, diags: &mut Vec<Diag>) -> bool {
    match value {
        Value::Str(_)
        | Value::Bool(_)
        | Value::Int(_)
        | Value::HexInt(_)
        | Value::Float(_)
        | Value::Ident(_) => true,
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
/// `true`/`false`, integers in decimal, floats as Rust's `{:?}` prints an f64 (SPEC §6.8 [2]), identifiers as
/// written, lists and records as compact JSON.
pub(super) fn attr_string(value: &Value) -> Option<String> {
    Some(match value {
        Value::Str(s) => s.clone(),
        Value::Ident(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::HexInt(i) => i.to_string(),
        Value::Float(f) => float_string(f.0),
        Value::List(_) | Value::Record(_) => attr_json(value)?.to_string(),
        _ => return None,
    })
}

/// An attribute value inside a list or record, as JSON.
pub(super) fn attr_json(value: &Value) -> Option<Json> {
    Some(match value {
        Value::Str(s) => json!(s),
        Value::Ident(s) => json!(s.as_str()),
        Value::Bool(b) => json!(b),
        Value::Int(i) | Value::HexInt(i) => json!(i),
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
pub(super) fn float_string(value: f64) -> String {
    match float_json(value) {
        Json::String(s) => s,
        _ => format!("{value:?}"),
    }
}

/// P414 when string field `name` is written empty.
pub(super) fn check_non_empty(cx: &mut Cx<'_>, name: &str) {
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
pub(super) fn buf_shape(cx: &mut Cx<'_>, name: &str, len: usize) -> Option<Vec<u64>> {
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
pub(super) fn sb_buf_json(shape: Option<&[u64]>) -> BirValue {
    match shape {
        Some(&[a, b]) => [a, b].into(),
        _ => [0u64, 0].into(),
    }
}

/// `psum_buf_shape` in the public `Nat × Nat × Nat` encoding `[a, [b, c]]`, `[0, [0, 0]]`
/// by default.
pub(super) fn psum_buf_json(shape: Option<&[u64]>) -> BirValue {
    let (a, b, c) = match shape {
        Some(&[a, b, c]) => (a, b, c),
        _ => (0, 0, 0),
    };
    BirValue::List(vec![a.into(), [b, c].into()])
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
        let json = |v: BirValue| serde_json::to_value(v).unwrap();
        assert_eq!(json(psum_buf_json(Some(&[1, 2, 3]))), json!([1, [2, 3]]));
        assert_eq!(json(psum_buf_json(None)), json!([0, [0, 0]]));
        assert_eq!(json(sb_buf_json(Some(&[4, 5]))), json!([4, 5]));
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
                    (fname::srcs, Value::List(vec![x])),
                    (fname::dsts, Value::List(vec![hbm("out", &[4, 1, 64])])),
                    (fname::eps, Value::Float(F64(1e-6))),
                ],
            );
            op.settings.tkg_seqlen_threshold = threshold;
            let lowered = crate::lower_op(&op);
            assert!(lowered.diagnostics.is_empty(), "{:?}", lowered.diagnostics);
            let attrs = lowered.instructions[0].get(crate::bir::Field::KernelAttrs);
            serde_json::to_value(attrs).unwrap()
        };
        assert_eq!(
            mlp(hbm("x", &[4, 1, 64]), 0),
            json!([[fname::eps, "1e-6"], ["is_tkg", "true"]])
        );
        assert_eq!(
            mlp(hbm("x", &[1, 2048, 64]), 0),
            json!([[fname::eps, "1e-6"], ["is_tkg", "false"]])
        );
        assert_eq!(
            mlp(hbm("x", &[1, 2048, 64]), 4096),
            json!([[fname::eps, "1e-6"], ["is_tkg", "true"]])
        );
    }

    #[test]
    fn registry_has_thirteen_keys() {
        assert_eq!(INTERNAL_KERNEL_REGISTRY.len(), 13);
        assert!(closest("MLP", INTERNAL_KERNEL_REGISTRY.iter().copied()).is_some());
    }
}
