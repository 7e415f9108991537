//! The lowering context of one op: the catalog's generic checks (P203–P207, P301, the
//! access checks of §5), typed field getters for the op's own rules, and the builder of
//! the BIR instructions it emits.
//!
//! Getters take a field name from [`crate::catalog::fname`] (`cx.ident(fname::op0)`), the
//! one place a field name is written; a name the op's row does not declare, or a getter
//! that does not fit the field's kind (`cx.ident` of an int field), is a bug in the
//! lowering function (a test-build panic; the op fixtures run every class).

use crate::catalog::fname;
use rustc_hash::FxHashMap as HashMap;

use serde_json::{Value as Json, json};

use crate::Lowered;
use crate::access::{self, Operand};
pub use crate::bir::Inst;
use crate::bir::{Arg, Opcode, Role};
use crate::catalog::{self, Default, Dir, Engine, EngineSpec, FieldSpec, Kind, Mems, OpSpec};
use crate::diag::{Anchor, Code, Diag, FixHint, Severity, ValuePath, did_you_mean};
use crate::model::{Access, ResolvedOp, Target, Value};
use crate::types::{Dtype, Memory};

/// The state of one spec field in the op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Not written.
    Absent,
    /// Written with an error already reported: not checked further (SPEC §7).
    Bad,
    /// Written and of the right kind: field index in the op.
    Good(usize),
}

/// A float as SPEC §8 writes it: the shortest round-trip number, or `"inf"`, `"-inf"`,
/// `"nan"` for non-finite values.
pub fn float_json(value: f64) -> Json {
    if value.is_nan() {
        json!("nan")
    } else if value.is_infinite() {
        json!(if value > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(value)
    }
}

/// The lowering context handed to an op's `lower` function.
pub struct Cx<'a> {
    /// The op.
    pub op: &'a ResolvedOp,
    /// Its catalog entry.
    pub spec: &'static OpSpec,
    /// The engine the op runs on (from the `engine` field or the catalog).
    pub engine: Engine,
    slots: Vec<Slot>,
    operands: HashMap<ValuePath, Operand>,
    diags: Vec<Diag>,
    insts: Vec<Inst>,
    reads: Vec<String>,
    writes: Vec<String>,
    registers: Vec<String>,
    stationary: Vec<String>,
    /// The accesses whose only fault is the quadrant rule (P307): their start partition
    /// is still read by the src/dst start-partition rule (P306), which is checked first
    /// (SPEC §5 [3]).
    quadrant_only: Vec<ValuePath>,
    /// The field names a misspelt field's P203 suggested: such a field is not also
    /// reported missing (P204, [`Cx::needs_field`]): one mistake, one diagnostic.
    suggested: Vec<&'static str>,
}

impl<'a> Cx<'a> {
    /// Runs the catalog's generic checks: unknown (P203), duplicate (P205), missing (P204)
    /// fields, value kinds (P206), enum values (P207), memory spaces (P301), and every
    /// access's bounds (P300), affinity (P303) and quadrant (P307) checks.
    pub(crate) fn new(op: &'a ResolvedOp, spec: &'static OpSpec) -> Cx<'a> {
        let mut cx = Cx {
            op,
            spec,
            engine: Engine::Unassigned,
            slots: vec![Slot::Absent; spec.fields.len()],
            operands: HashMap::default(),
            diags: Vec::new(),
            insts: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
            registers: Vec::new(),
            stationary: Vec::new(),
            quadrant_only: Vec::new(),
            suggested: Vec::new(),
        };
        // Unknown and repeated fields are reported up to a cap, then counted in one
        // diagnostic, so that a pathological op cannot flood the client.
        let mut rejected = 0usize;
        let mut first_unreported: Option<usize> = None;
        for (i, field) in op.fields.iter().enumerate() {
            let known = spec.field_position(&field.name);
            let repeated = known.is_some_and(|slot| cx.slots[slot] != Slot::Absent);
            if known.is_none() || repeated {
                rejected += 1;
                if rejected > MAX_FIELD_DIAGS {
                    first_unreported.get_or_insert(i);
                    continue;
                }
            }
            let Some(slot) = known else {
                let names = spec.fields.iter().map(|f| f.name);
                let suggestion = did_you_mean(&field.name, names);
                cx.suggested.extend(suggestion);
                let message = match suggestion {
                    Some(s) => format!(
                        "{} has no field `{}`; did you mean `{s}`?",
                        spec.class, field.name
                    ),
                    None => format!("{} has no field `{}`", spec.class, field.name),
                };
                cx.diags.push(
                    Diag::new(Code::P203, Anchor::FieldName(i), message)
                        .with_fix(FixHint::replace(suggestion)),
                );
                // What the unknown field names still counts as used: read or written as
                // the suggested field would be, written when there is no suggestion (an
                // unknown field says nothing of its direction), so that its one mistake
                // does not also make later reads warn (P501).
                let suggested_spec =
                    suggestion.and_then(|s| spec.fields.iter().find(|f| f.name == s));
                cx.record_named(
                    i,
                    suggested_spec.is_none_or(|f| f.kind.direction() == Dir::Out),
                );
                continue;
            };
            if repeated {
                let first = op
                    .fields
                    .iter()
                    .position(|f| spec.field_position(&f.name) == known);
                let first_name = first.and_then(|k| op.fields.get(k)).map(|f| &f.name);
                let message = match first_name {
                    Some(other) if *other != field.name => format!(
                        "field `{}` is written twice: `{other}` is another spelling of it",
                        field.name
                    ),
                    _ => format!("field `{}` is written twice", field.name),
                };
                let mut diag = Diag::new(Code::P205, Anchor::FieldName(i), message);
                if let Some(first) = first {
                    diag = diag.with_related(Anchor::FieldName(first), "first written here");
                }
                cx.diags.push(diag);
                continue;
            }
            let ok = cx.check_kind(&spec.fields[slot].kind, &field.value, &ValuePath::field(i));
            cx.slots[slot] = if ok { Slot::Good(i) } else { Slot::Bad };
        }
        if let Some(i) = first_unreported {
            cx.diags.push(Diag::new(
                Code::P203,
                Anchor::FieldName(i),
                format!(
                    "{} more unknown or repeated fields of {} are not reported",
                    rejected - MAX_FIELD_DIAGS,
                    spec.class
                ),
            ));
        }
        for (slot, field) in spec.fields.iter().enumerate() {
            if field.is_required() && cx.slots[slot] == Slot::Absent {
                cx.needs_field(
                    field.name,
                    format!("{} needs the field `{}`", spec.class, field.name),
                );
            }
        }
        cx.engine = match spec.engine {
            EngineSpec::Fixed(engine) => engine,
            EngineSpec::Field { default, allowed } => match cx.ident(fname::engine) {
                Some(name) => match Engine::from_field_name(name) {
                    Some(e) if allowed.contains(&e) => e,
                    _ => {
                        let names: Vec<&str> =
                            allowed.iter().filter_map(|e| e.field_name()).collect();
                        let anchor = cx.anchor(fname::engine);
                        cx.slot_bad(fname::engine);
                        cx.error(
                            Code::P207,
                            anchor,
                            format!(
                                "{} cannot run on `{name}`; its engines are {}",
                                spec.class,
                                names.join(", ")
                            ),
                        );
                        default
                    }
                },
                None => default,
            },
        };
        cx.evaluate_accesses();
        cx
    }

    /// Checks `value` against `kind`, reporting P206/P207/P301. Returns whether it is good.
    fn check_kind(&mut self, kind: &Kind, value: &Value, path: &ValuePath) -> bool {
        let anchor = Anchor::Value(path.clone());
        let wrong = |cx: &mut Cx<'_>| {
            cx.diags.push(Diag::new(
                Code::P206,
                anchor.clone(),
                format!("expected {}, found {}", kind.describe(), value.describe()),
            ));
            false
        };
        match (kind, value) {
            (_, Value::Error) => false,
            (
                _,
                Value::Access(Access {
                    target: Target::Unresolved,
                    ..
                }),
            ) => false,
            (Kind::Acc(mems, _) | Kind::Imm(mems), Value::Access(a)) => match &a.target {
                Target::Tensor(t) => self.check_memory(*mems, t.memory, &a.name, anchor),
                _ => wrong(self),
            },
            (Kind::Imm(_), Value::Int(_) | Value::HexInt(_) | Value::Float(_)) => true,
            (Kind::Bool, Value::Bool(_))
            | (Kind::Int, Value::Int(_) | Value::HexInt(_))
            | (Kind::Float, Value::Int(_) | Value::HexInt(_) | Value::Float(_))
            | (Kind::Str, Value::Str(_))
            | (Kind::Bytes, Value::Bytes(_))
            | (Kind::Pred, Value::Pred(_))
            | (Kind::Record, Value::Record(_)) => true,
            (
                Kind::Reg,
                Value::Access(Access {
                    target: Target::Register(_),
                    indices: None,
                    ..
                }),
            ) => true,
            (Kind::Dtype, Value::Ident(name)) => {
                if Dtype::from_name(name).is_some() {
                    return true;
                }
                let suggestion = crate::diag::did_you_mean_spelt(
                    name,
                    Dtype::ALL.iter().map(|d| (d.name(), d.bir_name())),
                );
                self.diags.push(
                    Diag::new(
                        Code::P207,
                        anchor,
                        with_suggestion(format!("unknown dtype `{name}`"), suggestion),
                    )
                    .with_fix(FixHint::replace(suggestion)),
                );
                false
            }
            (Kind::Enum(spec), Value::Ident(name)) => {
                if spec.get(name).is_some() {
                    return true;
                }
                let suggestion = crate::diag::did_you_mean_spelt(
                    name,
                    spec.values.iter().map(|v| (v.text, v.bir)),
                );
                let values: Vec<&str> = spec.values.iter().map(|v| v.text).collect();
                let (message, fix) = match suggestion {
                    Some(s) => (
                        format!("unknown {} value `{name}`; did you mean `{s}`?", spec.name),
                        FixHint::replace(suggestion),
                    ),
                    // A long list goes on a line of its own, so that a one-line view (a
                    // Problems row) still shows what is wrong; each value is a quick fix.
                    None => (
                        if values.len() > SHORT_LIST {
                            format!(
                                "unknown {} value `{name}`; expected one of these {}:\n{}",
                                spec.name,
                                values.len(),
                                values.join(", ")
                            )
                        } else {
                            format!(
                                "unknown {} value `{name}`; expected one of {}",
                                spec.name,
                                values.join(", ")
                            )
                        },
                        Some(FixHint::OneOf {
                            values: values.iter().map(|v| v.to_string()).collect(),
                        }),
                    ),
                };
                self.diags
                    .push(Diag::new(Code::P207, anchor, message).with_fix(fix));
                false
            }
            (Kind::List(inner), Value::List(items)) => {
                // SPEC §13.1.1: a P206 on a list is one per field, on the first element of
                // the wrong kind; the rest of the list is not checked.
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    let before = self.diags.len();
                    ok &= self.check_kind(inner, item, &path.element(i));
                    let added = self.diags.get(before..).unwrap_or_default();
                    if added.iter().any(|d| d.code == Code::P206) {
                        break;
                    }
                }
                ok
            }
            (Kind::IntAccReg, Value::Int(_) | Value::HexInt(_)) => true,
            (Kind::IntAccReg, Value::Access(a)) => match &a.target {
                Target::Tensor(_) | Target::Register(_) => true,
                _ => wrong(self),
            },
            (Kind::KernelOperand(_), Value::Access(a)) => match &a.target {
                Target::Tensor(_) => true,
                _ => wrong(self),
            },
            (Kind::KernelOperand(_), Value::Call { name, args }) => {
                if !ACCESS_KINDS.iter().any(|(n, _)| n == name) {
                    let names = ACCESS_KINDS.iter().map(|(n, _)| *n);
                    let suggestion = did_you_mean(name, names);
                    self.diags.push(
                        Diag::new(
                            Code::P207,
                            anchor,
                            with_suggestion(
                                format!("unknown access kind `{name}`; expected full, subtensor, tile or opaque"),
                                suggestion,
                            ),
                        )
                        .with_fix(FixHint::replace(suggestion)),
                    );
                    return false;
                }
                match args.as_slice() {
                    [Value::Access(a)] if matches!(a.target, Target::Tensor(_)) => true,
                    [
                        Value::Access(Access {
                            target: Target::Unresolved,
                            ..
                        }),
                    ]
                    | [Value::Error] => false,
                    _ => {
                        self.diags.push(Diag::new(
                            Code::P206,
                            anchor,
                            format!("`{name}(…)` takes exactly one tensor access"),
                        ));
                        false
                    }
                }
            }
            _ => wrong(self),
        }
    }

    fn check_memory(&mut self, mems: Mems, memory: Memory, name: &str, anchor: Anchor) -> bool {
        if mems.contains(memory) {
            return true;
        }
        let mut message = format!(
            "`%{name}` is in {}, but this operand must be in {}",
            memory.name(),
            mems.describe()
        );
        // SPEC §7.1 [3]: a matmul-family dst (the PE op's psum-only operand) leads with
        // the compiler's text.
        if mems == Mems::PSUM && self.spec.engine == EngineSpec::Fixed(Engine::Pe) {
            message = format!("{}: {message}", crate::diag::compiler::MATMULT_DST_NOT_PSUM);
        }
        self.diags.push(Diag::new(Code::P301, anchor, message));
        false
    }

    /// Evaluates every access of every good field (SPEC §5), applying the quadrant rule
    /// for compute engines and the Pool/PSUM rule.
    fn evaluate_accesses(&mut self) {
        for (slot, spec_field) in self.spec.fields.iter().enumerate() {
            let i = match self.slots[slot] {
                Slot::Good(i) => i,
                Slot::Bad => {
                    // Still count what a bad field names as read or written, so that one
                    // mistake does not also make later reads warn (P501).
                    self.record_bad_field(spec_field);
                    continue;
                }
                Slot::Absent => continue,
            };
            let value = &self.op.fields[i].value;
            let mut found = Vec::new();
            value.collect_accesses(ValuePath::field(i), &mut found);
            let dir = spec_field.kind.direction();
            for (path, access) in found {
                match &access.target {
                    Target::Tensor(tensor) => {
                        match dir {
                            Dir::In => push_unique(&mut self.reads, &tensor.name),
                            Dir::Out => push_unique(&mut self.writes, &tensor.name),
                        }
                        let Some(mut operand) = access::evaluate(
                            access,
                            tensor,
                            &self.op.loops,
                            &path,
                            &mut self.diags,
                        ) else {
                            continue;
                        };
                        if self.engine == Engine::Pool && tensor.memory == Memory::Psum {
                            self.diags.push(Diag::new(
                                Code::P301,
                                Anchor::Value(path.clone()),
                                format!("Pool-engine ops cannot access PSUM (`%{}`)", tensor.name),
                            ));
                            operand.faulty = true;
                        }
                        if self.engine.is_compute()
                            && !operand.faulty
                            && let Some(message) = access::check_quadrant(&operand, &self.op.loops)
                        {
                            self.diags.push(Diag::new(
                                Code::P307,
                                Anchor::Value(path.clone()),
                                message,
                            ));
                            operand.faulty = true;
                            self.quadrant_only.push(path.clone());
                        }
                        self.operands.insert(path, operand);
                    }
                    Target::Register(reg) => push_unique(&mut self.registers, &reg.name),
                    Target::LoopVar | Target::Unresolved => {}
                }
            }
        }
    }

    /// Records the tensors a bad field names as read or written (by the field's direction).
    fn record_bad_field(&mut self, spec_field: &FieldSpec) {
        let Some(i) = self
            .op
            .fields
            .iter()
            .position(|f| f.name == spec_field.name)
        else {
            return;
        };
        self.record_named(i, spec_field.kind.direction() == Dir::Out);
    }

    /// Records the tensors the value of the op's field `i` names as written (`out`) or read.
    fn record_named(&mut self, i: usize, out: bool) {
        let Some(field) = self.op.fields.get(i) else {
            return;
        };
        let mut found = Vec::new();
        field
            .value
            .collect_accesses(ValuePath::field(i), &mut found);
        for (_, access) in found {
            if let Target::Tensor(tensor) = &access.target {
                let list = if out {
                    &mut self.writes
                } else {
                    &mut self.reads
                };
                push_unique(list, &tensor.name);
            }
        }
    }

    // ----- reading fields ------------------------------------------------------------

    /// The slot of field `name`. Reading a field the op's row does not declare is a bug
    /// in its lowering function (test builds panic; see `catalog::fname`).
    fn slot_index(&self, name: &str) -> Option<usize> {
        let slot = self.spec.fields.iter().position(|f| f.name == name);
        debug_assert!(
            slot.is_some(),
            "{} reads `{name}`, which its catalog row does not declare",
            self.spec.class
        );
        slot
    }

    fn slot_bad(&mut self, name: &str) {
        if let Some(slot) = self.slot_index(name) {
            self.slots[slot] = Slot::Bad;
        }
    }

    /// The spec of field `name` (panics in tests if the op has no such field: a bug in
    /// the op's lowering function, not in the input).
    pub fn field_spec(&self, name: &str) -> &'static FieldSpec {
        match self.spec.field(name) {
            Some(f) => f,
            None => {
                debug_assert!(false, "{} has no field {name}", self.spec.class);
                &NO_FIELD
            }
        }
    }

    /// The op-field index of `name` when it is written and good.
    pub fn index(&self, name: &str) -> Option<usize> {
        match self.slots.get(self.slot_index(name)?)? {
            Slot::Good(i) => Some(*i),
            _ => None,
        }
    }

    /// Whether `name` is written (good or bad).
    pub fn written(&self, name: &str) -> bool {
        self.slot_index(name)
            .is_some_and(|s| self.slots[s] != Slot::Absent)
    }

    /// Whether `name` is written with an error.
    pub fn is_bad(&self, name: &str) -> bool {
        self.slot_index(name)
            .is_some_and(|s| self.slots[s] == Slot::Bad)
    }

    /// The good value of `name`.
    pub fn value(&self, name: &str) -> Option<&'a Value> {
        let op = self.op;
        self.index(name).map(|i| &op.fields[i].value)
    }

    /// The path of `name`'s value (written fields only).
    pub fn path(&self, name: &str) -> Option<ValuePath> {
        let slot = self.slot_index(name)?;
        let i = self.op.fields.iter().position(|f| f.name == name)?;
        (self.slots[slot] != Slot::Absent).then(|| ValuePath::field(i))
    }

    /// Where to report a problem with `name`: its value when written, else the class name.
    pub fn anchor(&self, name: &str) -> Anchor {
        self.path(name).map_or(Anchor::Class, Anchor::Value)
    }

    /// Checks (in test builds) that field `name` is of a kind `getter` reads: a getter
    /// that does not fit its field's row is a bug in the lowering function.
    fn expect_kind(&self, name: &str, getter: &str, fits: fn(&Kind) -> bool) {
        if let Some(field) = self.spec.field(name) {
            debug_assert!(
                fits(&field.kind),
                "{} reads `{name}` ({}) with `{getter}`",
                self.spec.class,
                field.kind.describe()
            );
        }
    }

    /// A bool field: its value, else its default, else false.
    pub fn bool(&self, name: &str) -> bool {
        self.expect_kind(name, "bool", |k| matches!(k, Kind::Bool));
        match self.value(name) {
            Some(Value::Bool(b)) => *b,
            _ => matches!(self.field_spec(name).default, Default::Bool(true)),
        }
    }

    /// An int field: its value, else its integer default.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.expect_kind(name, "int", |k| matches!(k, Kind::Int | Kind::IntAccReg));
        match self.value(name) {
            Some(v @ (Value::Int(_) | Value::HexInt(_))) => v.as_int(),
            Some(_) => None,
            None if self.is_bad(name) => None,
            None => match self.field_spec(name).default {
                Default::Int(i) => Some(i),
                _ => None,
            },
        }
    }

    /// A float (or int) field: its value, else its numeric default.
    pub fn float(&self, name: &str) -> Option<f64> {
        self.expect_kind(name, "float", |k| matches!(k, Kind::Float | Kind::Imm(_)));
        match self.value(name) {
            Some(v) => v.as_number(),
            None if self.is_bad(name) => None,
            None => match self.field_spec(name).default {
                Default::Float(f) => Some(f),
                Default::Int(i) => Some(i as f64),
                _ => None,
            },
        }
    }

    /// An identifier (enum or dtype) field: its value, else its default.
    pub fn ident(&self, name: &str) -> Option<&'a str> {
        self.expect_kind(name, "ident", |k| matches!(k, Kind::Enum(_) | Kind::Dtype));
        match self.value(name) {
            Some(Value::Ident(s)) => Some(s.as_str()),
            Some(_) => None,
            None if self.is_bad(name) => None,
            None => match self.field_spec(name).default {
                Default::Ident(s) => Some(s),
                _ => None,
            },
        }
    }

    /// A string field: its value, else its default.
    pub fn string(&self, name: &str) -> Option<&'a str> {
        self.expect_kind(name, "string", |k| matches!(k, Kind::Str));
        match self.value(name) {
            Some(Value::Str(s)) => Some(s.as_str()),
            Some(_) => None,
            None if self.is_bad(name) => None,
            None => match self.field_spec(name).default {
                Default::Str(s) => Some(s),
                _ => None,
            },
        }
    }

    /// A list field's items (empty when absent or bad).
    pub fn list(&self, name: &str) -> &'a [Value] {
        self.expect_kind(name, "list", |k| matches!(k, Kind::List(_)));
        match self.value(name) {
            Some(Value::List(items)) => items,
            _ => &[],
        }
    }

    /// A `list<int>` field: its values (or `None` when an item is not an int).
    pub fn int_list(&self, name: &str) -> Option<Vec<i64>> {
        self.list(name).iter().map(Value::as_int).collect()
    }

    /// The evaluated access at `path`, faulty or not (for emission).
    pub fn operand_at(&self, path: &ValuePath) -> Option<&Operand> {
        self.operands.get(path)
    }

    /// The evaluated access of field `name` when it is usable by checks (good, not faulty).
    pub fn operand(&self, name: &str) -> Option<&Operand> {
        let path = ValuePath::field(self.index(name)?);
        self.operands.get(&path).filter(|o| !o.faulty)
    }

    /// The evaluated access of field `name` for the start-partition rule (P306): usable, or
    /// faulty only by the quadrant rule (P307), which P306 comes before (SPEC §5 [3]).
    pub fn operand_for_start_partition(&self, name: &str) -> Option<&Operand> {
        let path = ValuePath::field(self.index(name)?);
        self.operands
            .get(&path)
            .filter(|o| !o.faulty || self.quadrant_only.contains(&path))
    }

    /// Withdraws the quadrant diagnostic (P307) of field `name`'s access: the
    /// start-partition rule (P306) reported the access instead (SPEC §5 [3]: one mistake,
    /// one diagnostic).
    pub fn withdraw_quadrant(&mut self, name: &str) {
        let Some(path) = self.path(name) else {
            return;
        };
        self.diags
            .retain(|d| !(d.code == Code::P307 && d.anchor == Anchor::Value(path.clone())));
    }

    /// The evaluated access of field `name`, faulty or not (for emission).
    pub fn any_operand(&self, name: &str) -> Option<&Operand> {
        self.operands.get(&ValuePath::field(self.index(name)?))
    }

    /// The usable (non-faulty) accesses of list field `name`, with their element paths.
    pub fn list_operands(&self, name: &str) -> Vec<(ValuePath, &Operand)> {
        let Some(i) = self.index(name) else {
            return Vec::new();
        };
        let field = ValuePath::field(i);
        (0..self.list(name).len())
            .filter_map(|k| {
                let path = field.element(k);
                let operand = self
                    .operands
                    .get(&path)
                    .or_else(|| self.operands.get(&path.element(0)))?;
                (!operand.faulty).then_some((path, operand))
            })
            .collect()
    }

    // ----- reporting ---------------------------------------------------------------

    /// Reports a diagnostic.
    pub fn error(&mut self, code: Code, anchor: Anchor, message: impl Into<String>) {
        self.diags.push(Diag::new(code, anchor, message));
    }

    /// P204 at the op's class, `message` saying why `field` is needed (always, or by
    /// another field or a mode), with the fix that inserts it; nothing when a misspelt
    /// field's P203 already suggested `field` (that P203 is the one diagnostic of the
    /// mistake: `reduce_dest = %sum` is not also "reduce_op needs the field `reduce_dst`").
    pub fn needs_field(&mut self, field: &'static str, message: impl Into<String>) {
        if self.suggested.contains(&field) {
            return;
        }
        self.diags
            .push(Diag::new(Code::P204, Anchor::Class, message).with_fix(Some(
                FixHint::InsertField {
                    name: field.to_string(),
                    value: None,
                },
            )));
    }

    /// Whether an error is already reported on field `name`'s value (or inside it).
    pub fn has_error_on(&self, name: &str) -> bool {
        let Some(path) = self.path(name) else {
            return false;
        };
        self.diags.iter().any(|d| {
            d.code.severity() == Severity::Error
                && match &d.anchor {
                    Anchor::Value(p) | Anchor::Index(p, _) => p.field == path.field,
                    _ => false,
                }
        })
    }

    /// Reports a prepared diagnostic.
    pub fn report(&mut self, diag: Diag) {
        self.diags.push(diag);
    }

    /// Records that the (declared, sbuf) tensor of field `name` is a matmul stationary:
    /// its allocation becomes a `NeuronWeightTensor` (SPEC §8).
    pub fn mark_stationary(&mut self, name: &str) {
        if let Some(t) = self.any_operand(name).map(|o| o.tensor.name.clone()) {
            push_unique(&mut self.stationary, &t);
        }
    }

    /// Records that the op writes tensor `name` through a field whose kind says "read"
    /// (InlineASM operands past `num_inputs`, SPEC §6.7), for P501; `still_read` keeps it
    /// among the reads (when another operand reads it).
    pub fn mark_written(&mut self, name: &str, still_read: bool) {
        if !still_read {
            self.reads.retain(|n| n != name);
        }
        push_unique(&mut self.writes, name);
    }

    // ----- emitting ----------------------------------------------------------------

    /// Starts a new instruction on the op's engine.
    pub fn inst(&mut self, opcode: Opcode) -> &mut Inst {
        self.insts.push(Inst::new(opcode, self.engine));
        self.insts.last_mut().expect("just pushed")
    }

    /// The argument of access field `name` (`role` = the field name), if it could be
    /// evaluated.
    pub fn arg(&self, name: &'static str) -> Option<Arg> {
        self.any_operand(name).map(|o| o.to_arg(Role::field(name)))
    }

    /// The evaluated operand of every access-valued field in table order (SPEC §8 "Which
    /// operands are arguments"): `acc` fields by direction, `imm` fields written as
    /// accesses (read), list elements with roles `name[i]`; each with the path of its
    /// access and its role.
    pub fn operand_fields(&self) -> Vec<(Dir, ValuePath, Role, &Operand)> {
        let mut out = Vec::new();
        for field in self.spec.fields {
            let Some(i) = self.index(field.name) else {
                continue;
            };
            let (dir, list) = match field.kind {
                Kind::Acc(_, dir) | Kind::KernelOperand(dir) => (dir, false),
                Kind::Imm(_) | Kind::IntAccReg => (Dir::In, false),
                Kind::List(Kind::Acc(_, dir)) | Kind::List(Kind::KernelOperand(dir)) => {
                    (*dir, true)
                }
                _ => continue,
            };
            let path = ValuePath::field(i);
            let found = |path: ValuePath| {
                let inner = path.element(0);
                match self.operands.get(&path) {
                    Some(o) => Some((path, o)),
                    None => self.operands.get(&inner).map(|o| (inner, o)),
                }
            };
            if list {
                for k in 0..self.list(field.name).len() {
                    if let Some((at, o)) = found(path.element(k)) {
                        out.push((dir, at, Role::element(field.name, k), o));
                    }
                }
            } else if let Some((at, o)) = found(path) {
                out.push((dir, at, Role::field(field.name), o));
            }
        }
        out
    }

    /// The arguments of every access-valued field in table order ([`Cx::operand_fields`]).
    /// Returns `(ins, outs)`.
    pub fn standard_args(&self) -> (Vec<Arg>, Vec<Arg>) {
        let mut ins = Vec::new();
        let mut outs = Vec::new();
        for (dir, _, role, operand) in self.operand_fields() {
            let arg = operand.to_arg(role);
            match dir {
                Dir::In => ins.push(arg),
                Dir::Out => outs.push(arg),
            }
        }
        (ins, outs)
    }

    /// One instruction of `opcode` with the standard arguments: the common case.
    pub fn inst_with_args(&mut self, opcode: Opcode) -> &mut Inst {
        let (ins, outs) = self.standard_args();
        let inst = self.inst(opcode);
        inst.ins = ins;
        inst.outs = outs;
        inst
    }

    /// Finishes: the instructions without what depends on where the op stands (`name`,
    /// `debuginfo`: see [`crate::stamp_instruction`]) and the diagnostics.
    ///
    /// The lowering is memoized per op for as long as the op stands in a file, so every
    /// vector is shrunk to its length (a vector grown by pushes holds room for 4 or more).
    pub(crate) fn finish(mut self) -> Lowered {
        for inst in &mut self.insts {
            inst.shrink_to_fit();
        }
        let mut lowered = Lowered {
            instructions: self.insts,
            diagnostics: self.diags,
            reads: self.reads,
            writes: self.writes,
            registers: self.registers,
            stationary: self.stationary,
            costs: Vec::new(),
            sbuf_footprint: None,
        };
        lowered.instructions.shrink_to_fit();
        lowered.diagnostics.shrink_to_fit();
        lowered.reads.shrink_to_fit();
        lowered.writes.shrink_to_fit();
        lowered.registers.shrink_to_fit();
        lowered.stationary.shrink_to_fit();
        lowered
    }
}

/// The access kinds of kernel operands (SPEC §6.9): call name → BIR `access`.
pub const ACCESS_KINDS: &[(&str, &str)] = &[
    ("full", "seq"),
    ("subtensor", "nd_subtensor"),
    ("tile", "tile"),
    ("opaque", "opaque"),
];

/// How many values an "expected one of" list of a message holds on the message's first
/// line; a longer list goes on a line of its own.
const SHORT_LIST: usize = 8;

/// How many unknown (P203) or repeated (P205) fields of one op are reported one by one.
const MAX_FIELD_DIAGS: usize = 100;

static NO_FIELD: FieldSpec = FieldSpec {
    name: "",
    kind: Kind::Bool,
    default: Default::Absent,
    bir: "",
    doc: "",
};

fn with_suggestion(message: String, suggestion: Option<&str>) -> String {
    match suggestion {
        Some(s) => format!("{message}; did you mean `{s}`?"),
        None => message,
    }
}

fn push_unique(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|n| n == name) {
        list.push(name.to_string());
    }
}

/// The catalog entry for a field kind's enum, for ops that map values to BIR spellings.
pub fn enum_bir(kind: &Kind, text: &str) -> String {
    match kind {
        Kind::Enum(spec) => spec.bir(text).to_string(),
        _ => text.to_string(),
    }
}

/// The BIR spelling of an ALU op (`multiply` → `mult`; SPEC §6.3).
pub fn alu_bir(text: &str) -> &str {
    catalog::ALU.bir(text)
}
