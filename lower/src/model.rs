//! The resolved, position-free op that lowering takes as input.
//!
//! Architecture Invariant: nothing here holds a text position. Names are resolved (an
//! access carries its tensor's declared type), so the lowering of an op is a pure function
//! of this value, and two ops that read the same compare equal wherever they stand. The
//! analysis builds these from the syntax tree and keeps the ranges in a source map.

use std::sync::Arc;

pub use smol_str::SmolStr;

pub use syntax::{BinOp, CmpOp};

use crate::diag::ValuePath;
use crate::types::{Dtype, Memory};

/// An `f64` that compares and hashes by its bits, so values can be salsa keys.
#[derive(Clone, Copy, Debug)]
pub struct F64(pub f64);

impl PartialEq for F64 {
    fn eq(&self, other: &F64) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for F64 {}

impl std::hash::Hash for F64 {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

/// One op, resolved: what lowering needs and nothing positional — not even the op id
/// (SPEC §3: the written `#N`, else the ordinal in the kernel), which changes when an op is
/// inserted above; the analysis stamps it on the output ([`crate::stamp_instruction`],
/// [`crate::Diag::names_instruction`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedOp {
    /// The op class name as written (`MatMulOp`).
    pub class: SmolStr,
    /// The fields in source order, unknown and duplicate ones included.
    pub fields: Vec<Field>,
    /// The enclosing loops, outermost first.
    pub loops: Vec<LoopVar>,
    /// Client settings that change this op's lowering (only set for the ops that read
    /// them, so that a settings change re-lowers only those).
    pub settings: OpSettings,
}

/// Client settings an op may read (SPEC §10 initialization options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OpSettings {
    /// `tkgSeqlenThreshold`, for MLPKernel / NormQKV `is_tkg` (SPEC §6.8); 0 means the
    /// default, [`limits::DEFAULT_TKG_SEQLEN_THRESHOLD`](crate::types::limits).
    pub tkg_seqlen_threshold: u64,
}

/// `name = value`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field name as written.
    pub name: SmolStr,
    /// The value.
    pub value: Value,
}

/// A resolved value (SPEC §3 `value`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// An access to a tensor or register.
    Access(Access),
    /// An integer literal.
    Int(i64),
    /// An integer literal written in hex without a sign (`0x3f80`): a bit pattern where it
    /// meets an integer dtype (Memset, SPEC §6.6 [2]), a number everywhere else.
    HexInt(i64),
    /// A float literal (`inf`, `nan` included).
    Float(F64),
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Str(String),
    /// A bytes literal.
    Bytes(Vec<u8>),
    /// A bare identifier (enum value, dtype, memory space).
    Ident(SmolStr),
    /// A list.
    List(Vec<Value>),
    /// A record.
    Record(Vec<Field>),
    /// `name(args)`.
    Call {
        /// The callee.
        name: String,
        /// The arguments.
        args: Vec<Value>,
    },
    /// A predicate `lhs CMP rhs`.
    Pred(Pred),
    /// Missing or unreadable (its syntax error is reported already); never checked.
    Error,
}

impl Value {
    /// A short description of the value's kind, for P206 messages ("an integer").
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Access(a) => match a.target {
                Target::Register(_) => "a register",
                Target::LoopVar => "a loop variable",
                _ => "an access",
            },
            Value::Int(_) | Value::HexInt(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a bool",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "a bytes literal",
            Value::Ident(_) => "an identifier",
            Value::List(_) => "a list",
            Value::Record(_) => "a record",
            Value::Call { .. } => "a call",
            Value::Pred(_) => "a predicate",
            Value::Error => "an unreadable value",
        }
    }

    /// Every access in the value with its path below `path` (list elements and call
    /// arguments one level deeper each), in order.
    pub fn collect_accesses<'v>(&'v self, path: ValuePath, out: &mut Vec<(ValuePath, &'v Access)>) {
        match self {
            Value::Access(a) => out.push((path, a)),
            Value::List(items) | Value::Call { args: items, .. } => {
                for (k, item) in items.iter().enumerate() {
                    item.collect_accesses(path.element(k), out);
                }
            }
            _ => {}
        }
    }

    /// The value as an integer, if it is an integer literal (decimal or hex).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) | Value::HexInt(i) => Some(*i),
            _ => None,
        }
    }

    /// The value as a number, if it is an integer or float literal.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Int(i) | Value::HexInt(i) => Some(*i as f64),
            Value::Float(f) => Some(f.0),
            _ => None,
        }
    }
}

/// `%name[indices]`, resolved.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The name as written, without `%`.
    pub name: SmolStr,
    /// What the name refers to.
    pub target: Target,
    /// The indices, `None` without brackets (the whole tensor).
    pub indices: Option<Vec<Index>>,
}

/// What an access names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A kernel parameter or declared tensor.
    Tensor(Arc<Tensor>),
    /// A declared register.
    Register(Arc<Register>),
    /// A loop variable (not an access at all; P206 where an access is wanted).
    LoopVar,
    /// Undefined (P200 is reported by the analysis) or a declaration with a bad type:
    /// lowering skips it silently so that one mistake gives one diagnostic.
    Unresolved,
}

/// Where a tensor comes from (BIR `Allocation.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorKind {
    /// A kernel parameter before `->`: `ExternalInput`.
    Input,
    /// A kernel parameter after `->`: `ExternalOutput`.
    Output,
    /// A `tensor` declaration: `Internal`.
    Internal,
}

/// A tensor's declaration, resolved (SPEC §3–§4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tensor {
    /// Name without `%`.
    pub name: String,
    /// Memory space.
    pub memory: Memory,
    /// Element type.
    pub dtype: Dtype,
    /// Dims in elements; dim 0 is the partition dim on chip.
    pub dims: Vec<u64>,
    /// Parameter or declaration.
    pub kind: TensorKind,
}

impl Tensor {
    /// Row-major stride of dim `k` in elements: Π_{j>k} d_j.
    pub fn stride(&self, k: usize) -> u64 {
        self.dims
            .iter()
            .skip(k + 1)
            .fold(1u64, |acc, d| acc.saturating_mul(*d))
    }

    /// Bytes per partition: (Π dims 1..) × element bytes for on-chip tensors; for `hbm`
    /// the bytes of dims 1.. (SPEC §8 `dims`).
    pub fn partition_bytes(&self) -> u64 {
        self.dims
            .iter()
            .skip(1)
            .fold(self.dtype.bytes(), |acc, d| acc.saturating_mul(*d))
    }
}

/// A register declaration `reg %r : i32`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Register {
    /// Name without `%`.
    pub name: String,
    /// Declared dtype.
    pub dtype: Dtype,
}

/// An enclosing loop (SPEC §3): a BIR axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoopVar {
    /// The variable name without `%` (also the BIR `LoopAxis.name` and `addrs` axis).
    pub name: String,
    /// `(lb, ub, step)`, half-open; `None` when the bounds are invalid (P414 reported by
    /// the analysis), in which case accesses using it are not bounds-checked.
    pub bounds: Option<(i64, i64, i64)>,
}

impl LoopVar {
    /// The values the variable takes, first and last; `None` for an empty or invalid loop.
    /// Computed in `i128`: bounds near 2^63 (`0..9223372036854775807 step
    /// 9223372036854775807`) overflow `i64` on the way, never in the result (the last value
    /// is below `ub`).
    pub fn first_last(&self) -> Option<(i64, i64)> {
        let (lb, ub, step) = self.bounds?;
        let trips = Self::trips(lb, ub, step)?;
        let last = i128::from(lb) + (trips - 1) * i128::from(step);
        Some((lb, i64::try_from(last).ok()?))
    }

    /// The number of iterations (0 for an invalid loop). At most 2^64 − 1 (every `i64`
    /// value once), so it always fits.
    pub fn trip_count(&self) -> u64 {
        self.bounds
            .and_then(|(lb, ub, step)| Self::trips(lb, ub, step))
            .map_or(0, |trips| u64::try_from(trips).unwrap_or(u64::MAX))
    }

    /// `ceil((ub − lb) / step)` in `i128` (which cannot overflow for `i64` bounds); `None`
    /// for an empty loop or a step that is not positive.
    fn trips(lb: i64, ub: i64, step: i64) -> Option<i128> {
        if step <= 0 || ub <= lb {
            return None;
        }
        let (lb, ub, step) = (i128::from(lb), i128::from(ub), i128::from(step));
        Some((ub - lb + step - 1) / step)
    }
}

/// One index of an access.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    /// A single element: drops the dim, except the partition dim (SPEC §5).
    Single(Expr),
    /// `start:end:step`; missing parts default (0, the dim, 1).
    Slice {
        /// Start.
        start: Option<Expr>,
        /// End, exclusive.
        end: Option<Expr>,
        /// Step.
        step: Option<Expr>,
    },
}

/// An integer expression over loop variables and dim variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A literal.
    Int(i64),
    /// An enclosing loop variable (name without `%`).
    Var(String),
    /// `$N`.
    DimVar(u32),
    /// `-e`.
    Neg(Box<Expr>),
    /// `a op b`.
    Binary(Box<Expr>, BinOp, Box<Expr>),
    /// A `%name` that is not a loop variable: a tensor or register (P303 in lowering).
    NotLoopVar(String),
    /// Undefined name (P200 by the analysis) or unreadable: never checked further.
    Error,
}

/// `lhs CMP rhs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pred {
    /// Left side.
    pub lhs: Expr,
    /// Comparison.
    pub cmp: CmpOp,
    /// Right side.
    pub rhs: Expr,
}

#[cfg(test)]
mod tests {
    use super::LoopVar;

    fn lp(lb: i64, ub: i64, step: i64) -> LoopVar {
        LoopVar {
            name: "i".into(),
            bounds: Some((lb, ub, step)),
        }
    }

    #[test]
    fn trip_counts_of_ordinary_loops() {
        assert_eq!(lp(0, 4, 1).first_last(), Some((0, 3)));
        assert_eq!(lp(0, 4, 1).trip_count(), 4);
        assert_eq!(lp(1, 10, 3).first_last(), Some((1, 7)));
        assert_eq!(lp(1, 10, 3).trip_count(), 3);
        assert_eq!(lp(4, 4, 1).first_last(), None);
        assert_eq!(lp(4, 4, 1).trip_count(), 0);
        assert_eq!(lp(0, 4, 0).trip_count(), 0);
    }

    /// Bounds near 2^63 overflowed `i64` in `(ub - lb + step - 1) / step`: a debug build
    /// panicked, a release build wrapped to a negative count (P300 missed).
    #[test]
    fn bounds_near_two_to_the_63_do_not_overflow() {
        let max = i64::MAX;
        assert_eq!(lp(0, max, max).first_last(), Some((0, 0)));
        assert_eq!(lp(0, max, max).trip_count(), 1);
        assert_eq!(lp(0, max, 1).first_last(), Some((0, max - 1)));
        assert_eq!(lp(0, max, 1).trip_count(), max as u64);
        assert_eq!(lp(0, max, 1 << 62).first_last(), Some((0, 1 << 62)));
        assert_eq!(lp(0, max, 1 << 62).trip_count(), 2);
        assert_eq!(lp(max - 1, max, max).first_last(), Some((max - 1, max - 1)));
        assert_eq!(lp(i64::MIN, max, 1).trip_count(), u64::MAX);
        assert_eq!(lp(i64::MIN, max, 1).first_last(), Some((i64::MIN, max - 1)));
    }
}
