//! Access patterns: affine index expressions, bounds over the loop box, shapes, the
//! quadrant rule, and the BIR argument an access becomes (SPEC §5).
//!
//! Units: every count, step, stride and offset here is in **elements**, row-major.

use std::sync::Arc;

use crate::bir::{Addressing, Arg, ArgKind, Role, Symbolic};
use crate::diag::{Anchor, Code, Diag, ValuePath};
use crate::model::{Access, BinOp, Expr, Index, LoopVar, Tensor};
use crate::types::limits;

/// `c + Σ coeff·var`, an affine expression over loop variables (or `$N` dim variables,
/// named `"$N"`). Terms keep the order in which their variables first appear and never
/// have a zero coefficient.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Affine {
    /// The constant part.
    pub c: i64,
    /// `(variable, coefficient)` pairs.
    pub terms: Vec<(String, i64)>,
}

/// Why an expression has no affine value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprError {
    /// A product of two non-constant factors (P303).
    NotAffine,
    /// `%name` is a tensor or register, not a loop variable (P303).
    NotLoopVar(String),
    /// A `$N` outside a predicate (P303).
    DimVarOutsidePredicate,
    /// Arithmetic overflow of i64 (P300).
    Overflow,
    /// Undefined or unreadable, already reported: stay silent.
    Reported,
}

impl ExprError {
    /// The diagnostic for this error at `anchor`, or `None` when already reported.
    pub fn diag(&self, anchor: Anchor) -> Option<Diag> {
        let (code, message) = match self {
            ExprError::NotAffine => (
                Code::P303,
                "expression is not affine: a product may have at most one non-constant factor"
                    .to_string(),
            ),
            ExprError::NotLoopVar(name) => (
                Code::P303,
                format!(
                    "`%{name}` is not a loop variable, so it cannot appear in an index expression"
                ),
            ),
            ExprError::DimVarOutsidePredicate => (
                Code::P303,
                "dim variables `$N` are only allowed inside predicates".to_string(),
            ),
            ExprError::Overflow => (
                Code::P300,
                "Incorrect access pattern! (integer overflow)".to_string(),
            ),
            ExprError::Reported => return None,
        };
        Some(Diag::new(code, anchor, message))
    }
}

impl Affine {
    /// A constant.
    pub fn constant(c: i64) -> Affine {
        Affine {
            c,
            terms: Vec::new(),
        }
    }

    /// Whether there are no variable terms.
    pub fn is_const(&self) -> bool {
        self.terms.is_empty()
    }

    /// `self + other`.
    pub fn add(&self, other: &Affine) -> Result<Affine, ExprError> {
        let mut out = self.clone();
        out.c = out.c.checked_add(other.c).ok_or(ExprError::Overflow)?;
        for (var, coeff) in &other.terms {
            match out.terms.iter_mut().find(|(v, _)| v == var) {
                Some((_, c)) => *c = c.checked_add(*coeff).ok_or(ExprError::Overflow)?,
                None => out.terms.push((var.clone(), *coeff)),
            }
        }
        out.terms.retain(|(_, c)| *c != 0);
        Ok(out)
    }

    /// `k · self`.
    pub fn scale(&self, k: i64) -> Result<Affine, ExprError> {
        let mut terms = Vec::with_capacity(self.terms.len());
        for (var, coeff) in &self.terms {
            let c = coeff.checked_mul(k).ok_or(ExprError::Overflow)?;
            if c != 0 {
                terms.push((var.clone(), c));
            }
        }
        Ok(Affine {
            c: self.c.checked_mul(k).ok_or(ExprError::Overflow)?,
            terms,
        })
    }

    /// `self − other`.
    pub fn sub(&self, other: &Affine) -> Result<Affine, ExprError> {
        self.add(&other.scale(-1)?)
    }

    /// Evaluates `expr`; `dim_vars` says whether `$N` is allowed (predicates only).
    pub fn of(expr: &Expr, dim_vars: bool) -> Result<Affine, ExprError> {
        Ok(match expr {
            Expr::Int(i) => Affine::constant(*i),
            Expr::Var(name) => Affine {
                c: 0,
                terms: vec![(name.clone(), 1)],
            },
            Expr::DimVar(n) if dim_vars => Affine {
                c: 0,
                terms: vec![(format!("${n}"), 1)],
            },
            Expr::DimVar(_) => return Err(ExprError::DimVarOutsidePredicate),
            Expr::Neg(inner) => Affine::of(inner, dim_vars)?.scale(-1)?,
            Expr::Binary(a, op, b) => {
                let a = Affine::of(a, dim_vars)?;
                let b = Affine::of(b, dim_vars)?;
                match op {
                    BinOp::Add => a.add(&b)?,
                    BinOp::Sub => a.sub(&b)?,
                    BinOp::Mul if a.is_const() => b.scale(a.c)?,
                    BinOp::Mul if b.is_const() => a.scale(b.c)?,
                    BinOp::Mul => return Err(ExprError::NotAffine),
                }
            }
            Expr::NotLoopVar(name) => return Err(ExprError::NotLoopVar(name.clone())),
            Expr::Error => return Err(ExprError::Reported),
        })
    }

    /// The smallest and largest value over every iteration of `loops`, each with the loop
    /// values that reach it. `None` when a variable's loop is invalid or never runs (the
    /// access is then not checked).
    pub fn range(&self, loops: &[LoopVar]) -> Option<(Extreme, Extreme)> {
        let mut min = Extreme {
            value: self.c as i128,
            at: Vec::new(),
        };
        let mut max = min.clone();
        for (var, coeff) in &self.terms {
            let lp = loops.iter().rev().find(|l| &l.name == var)?;
            let (first, last) = lp.first_last()?;
            let (lo, hi) = if *coeff >= 0 {
                (first, last)
            } else {
                (last, first)
            };
            min.value += *coeff as i128 * lo as i128;
            max.value += *coeff as i128 * hi as i128;
            min.at.push((var.clone(), lo));
            max.at.push((var.clone(), hi));
        }
        Some((min, max))
    }

    /// Every value over the loop box, with the loop values, as long as there are at most
    /// `limit` iterations; `None` otherwise (or for invalid loops).
    pub fn values(&self, loops: &[LoopVar], limit: u64) -> Option<Vec<(i128, Iteration)>> {
        let mut out = vec![(self.c as i128, Vec::new())];
        for (var, coeff) in &self.terms {
            let lp = loops.iter().rev().find(|l| &l.name == var)?;
            let (lb, _, step) = lp.bounds?;
            let trips = lp.trip_count();
            if trips == 0 || (out.len() as u64).saturating_mul(trips) > limit {
                return None;
            }
            let mut next = Vec::with_capacity(out.len() * trips as usize);
            for (value, at) in &out {
                for t in 0..trips as i64 {
                    let v = lb + t * step;
                    let mut at = at.clone();
                    at.push((var.clone(), v));
                    next.push((value + *coeff as i128 * v as i128, at));
                }
            }
            out = next;
        }
        Some(out)
    }

    /// The value at one iteration (`(loop variable, value)` pairs; a variable missing from
    /// `at` counts as 0).
    pub fn at(&self, at: &[(String, i64)]) -> i128 {
        self.terms.iter().fold(self.c as i128, |acc, (var, coeff)| {
            let v = at
                .iter()
                .rev()
                .find(|(n, _)| n == var)
                .map_or(0, |(_, v)| *v);
            acc + *coeff as i128 * v as i128
        })
    }
}

/// The first iteration (outermost first, innermost fastest) of the loops that `exprs`
/// depend on at which `holds` is true of their values (in the order of `exprs`), or
/// `None` when it holds in no iteration (or a loop is invalid or empty). Only the loops
/// whose variables the expressions name are enumerated, and the iteration names only
/// those. Used for "in every loop iteration" checks that report real numbers (SPEC §6.2
/// [2] P306). Past [`ITERATION_SEARCH_LIMIT`] iterations, only the first iteration and
/// each expression's extremes are tried.
pub fn first_iteration_where(
    exprs: &[&Affine],
    loops: &[LoopVar],
    holds: impl Fn(&[i128]) -> bool,
) -> Option<Iteration> {
    // The innermost loop of each name the expressions use (an inner loop shadows).
    let mut relevant: Vec<&LoopVar> = Vec::new();
    for (i, lp) in loops.iter().enumerate() {
        let shadowed = loops
            .get(i + 1..)
            .is_some_and(|inner| inner.iter().any(|l| l.name == lp.name));
        let used = exprs
            .iter()
            .any(|e| e.terms.iter().any(|(v, _)| v == &lp.name));
        if used && !shadowed {
            relevant.push(lp);
        }
    }
    let test = |at: &Iteration| {
        let values: Vec<i128> = exprs.iter().map(|e| e.at(at)).collect();
        holds(&values)
    };
    let trips: Vec<u64> = relevant.iter().map(|l| l.trip_count()).collect();
    if trips.contains(&0) {
        return None;
    }
    let total = trips.iter().try_fold(1u64, |acc, t| acc.checked_mul(*t));
    if total.is_none_or(|n| n > ITERATION_SEARCH_LIMIT) {
        let first: Iteration = relevant
            .iter()
            .map(|l| Some((l.name.clone(), l.first_last()?.0)))
            .collect::<Option<_>>()?;
        let mut candidates = vec![first];
        for e in exprs {
            if let Some((min, max)) = e.range(loops) {
                candidates.push(min.at);
                candidates.push(max.at);
            }
        }
        return candidates.into_iter().find(|at| test(at));
    }
    let mut counters = vec![0u64; relevant.len()];
    loop {
        let at: Iteration = relevant
            .iter()
            .zip(&counters)
            .map(|(l, t)| {
                let (lb, _, step) = l.bounds.unwrap_or((0, 0, 1));
                (
                    l.name.clone(),
                    lb.saturating_add((*t as i64).saturating_mul(step)),
                )
            })
            .collect();
        if test(&at) {
            return Some(at);
        }
        // Advance the odometer, innermost fastest.
        let mut k = counters.len();
        loop {
            if k == 0 {
                return None;
            }
            k -= 1;
            counters[k] += 1;
            if counters[k] < trips[k] {
                break;
            }
            counters[k] = 0;
        }
    }
}

/// How many iterations [`first_iteration_where`] enumerates before it falls back to the
/// first iteration and the extremes.
pub const ITERATION_SEARCH_LIMIT: u64 = 1 << 16;

/// The loop values of one iteration: `(loop variable, value)` pairs.
pub type Iteration = Vec<(String, i64)>;

/// An extreme value of an affine expression and the loop values where it is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extreme {
    /// The value (wide, so that extreme loops cannot overflow).
    pub value: i128,
    /// `(loop variable, value)` pairs.
    pub at: Vec<(String, i64)>,
}

/// The first iteration of `loops`: every loop variable at its first value (outermost
/// first). `None` when a loop is invalid or never runs.
pub fn first_iteration(loops: &[LoopVar]) -> Option<Iteration> {
    loops
        .iter()
        .map(|l| Some((l.name.clone(), l.first_last()?.0)))
        .collect()
}

/// "when %i = 3, %j = 0", or "" when no loop variable is involved.
pub fn describe_iteration(at: &[(String, i64)]) -> String {
    if at.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = at.iter().map(|(v, x)| format!("%{v} = {x}")).collect();
    format!(" when {}", parts.join(", "))
}

/// How one dim of a tensor is accessed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimAccess {
    /// First element (affine in the loop variables).
    pub start: Affine,
    /// Number of elements selected.
    pub count: u64,
    /// Step between them (> 0).
    pub step: i64,
    /// Whether the dim is kept (a single index drops it, except the partition dim).
    pub kept: bool,
}

/// An access evaluated against its tensor: what the checks and the emitter use.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The accessed tensor.
    pub tensor: Arc<Tensor>,
    /// One entry per tensor dim.
    pub dims: Vec<DimAccess>,
    /// Whether the access had an error (P300/P303/P307): still emitted, but not used by
    /// further shape, count or start-partition checks (SPEC §5).
    pub faulty: bool,
    /// The first iteration of the enclosing loops (empty outside loops or when a loop is
    /// invalid): where a loop-dependent `start_partition` is read (SPEC §8 [2]).
    pub first: Iteration,
}

impl Operand {
    /// The kept counts (the access shape).
    pub fn shape(&self) -> Vec<u64> {
        self.dims
            .iter()
            .filter(|d| d.kept)
            .map(|d| d.count)
            .collect()
    }

    /// The number of kept dims.
    pub fn rank(&self) -> usize {
        self.dims.iter().filter(|d| d.kept).count()
    }

    /// Whether the tensor is in SBUF or PSUM.
    pub fn on_chip(&self) -> bool {
        self.tensor.memory.is_on_chip()
    }

    /// The partition count: dim 0's count on chip; for `hbm`, the first kept count (1 when
    /// every dim is dropped), so `[P, …]` shapes compare across memories.
    pub fn partitions(&self) -> u64 {
        if self.on_chip() {
            self.dims.first().map_or(1, |d| d.count)
        } else {
            self.shape().first().copied().unwrap_or(1)
        }
    }

    /// Elements per partition: the product of the kept counts after the partition dim.
    pub fn free_size(&self) -> u64 {
        let shape = self.shape();
        shape
            .iter()
            .skip(1)
            .fold(1, |acc, n| acc.saturating_mul(*n))
    }

    /// Every selected element.
    pub fn elements(&self) -> u64 {
        self.dims
            .iter()
            .fold(1, |acc, d| acc.saturating_mul(d.count))
    }

    /// The kept counts after the partition dim.
    pub fn free_shape(&self) -> Vec<u64> {
        self.shape().into_iter().skip(1).collect()
    }

    /// The start partition (on chip), affine in the loop variables.
    pub fn start_partition(&self) -> Affine {
        if self.on_chip() {
            self.dims
                .first()
                .map(|d| d.start.clone())
                .unwrap_or_default()
        } else {
            Affine::default()
        }
    }

    /// The start partition when it does not depend on a loop variable.
    pub fn const_start_partition(&self) -> Option<i64> {
        let sp = self.start_partition();
        sp.is_const().then_some(sp.c)
    }

    /// The element offset `Σ start_k · stride_k` (over dims ≥ 1 on chip, all dims in hbm).
    pub fn offset(&self) -> Affine {
        let first = usize::from(self.on_chip());
        let mut offset = Affine::default();
        for (k, d) in self.dims.iter().enumerate().skip(first) {
            let stride = self.tensor.stride(k).min(i64::MAX as u64) as i64;
            if let Ok(term) = d.start.scale(stride).and_then(|t| offset.add(&t)) {
                offset = term;
            }
        }
        offset
    }

    /// The BIR access pattern `[[step, num], …]` (SPEC §5): on chip the partition pair
    /// first, then every kept dim ≥ 1; in hbm every kept dim; `[[1, 1]]` when nothing is
    /// kept.
    pub fn ap(&self) -> Vec<[i64; 2]> {
        let mut pairs = Vec::new();
        for (k, d) in self.dims.iter().enumerate() {
            let partition = k == 0 && self.on_chip();
            if d.kept || partition {
                let stride = self.tensor.stride(k).min(i64::MAX as u64) as i64;
                pairs.push([d.step.saturating_mul(stride), d.count as i64]);
            }
        }
        if pairs.is_empty() {
            pairs.push([1, 1]);
        }
        pairs
    }

    /// The BIR argument (SPEC §8 "Arguments"): a `physical_ap`, or a `symbolic_ap` when a
    /// loop variable appears in the offset or start partition. `role` is the Penguin field.
    pub fn to_arg(&self, role: Role) -> Arg {
        let offset = self.offset();
        let start_partition = self.start_partition();
        let addressing = if offset.is_const() && start_partition.is_const() {
            Addressing::Physical { offset: offset.c }
        } else {
            Addressing::Symbolic(Box::new(Symbolic {
                offset,
                partition: (!start_partition.is_const()).then(|| start_partition.clone()),
                access_shape: self.shape(),
            }))
        };
        // The start in the first iteration of the loop box, a natural number; the
        // `partition` addrs entry carries the loop terms (SPEC §8 [2]).
        let first = self
            .on_chip()
            .then(|| start_partition.at(&self.first).clamp(0, i64::MAX as i128) as i64);
        Arg::new(
            ArgKind::Tensor {
                tensor: self.tensor.clone(),
                dtype: self.tensor.dtype,
                ap: self.ap(),
                addressing,
                start_partition: first,
            },
            role,
        )
    }
}

/// Evaluates `access` of `tensor` under `loops`, reporting P300/P303 into `diags`
/// (anchored at the access at `path` or at its offending index).
///
/// Returns `None` only when no pattern can be computed at all (a non-affine index or a
/// non-constant slice extent); an out-of-bounds access is returned with `faulty` set.
pub fn evaluate(
    access: &Access,
    tensor: &Arc<Tensor>,
    loops: &[LoopVar],
    path: &ValuePath,
    diags: &mut Vec<Diag>,
) -> Option<Operand> {
    let indices: &[Index] = access.indices.as_deref().unwrap_or(&[]);
    let value_anchor = Anchor::Value(path.clone());
    if indices.len() > tensor.dims.len() {
        diags.push(Diag::incorrect_access_pattern(
            value_anchor,
            Anchor::Value(path.clone()),
            format!(
                "`%{}` has {} dims but the access has {} indices",
                tensor.name,
                tensor.dims.len(),
                indices.len()
            ),
        ));
        return None;
    }
    let mut faulty = false;
    let mut dims = Vec::with_capacity(tensor.dims.len());
    for (k, &size) in tensor.dims.iter().enumerate() {
        let anchor = Anchor::Index(path.clone(), k);
        let fail = |diags: &mut Vec<Diag>, note: String| {
            diags.push(Diag::incorrect_access_pattern(
                anchor.clone(),
                anchor.clone(),
                note,
            ));
        };
        let partition = k == 0 && tensor.memory.is_on_chip();
        let dim = match indices.get(k) {
            None => DimAccess {
                start: Affine::constant(0),
                count: size,
                step: 1,
                kept: true,
            },
            Some(Index::Single(e)) => {
                let start = match Affine::of(e, false) {
                    Ok(a) => a,
                    Err(err) => {
                        diags.extend(err.diag(anchor.clone()));
                        return None;
                    }
                };
                DimAccess {
                    start,
                    count: 1,
                    step: 1,
                    kept: partition,
                }
            }
            Some(Index::Slice { start, end, step }) => {
                let eval = |e: &Option<Expr>, default: i64| match e {
                    None => Ok(Affine::constant(default)),
                    Some(e) => Affine::of(e, false),
                };
                let (start, end, step) = match (
                    eval(start, 0),
                    eval(end, size.min(i64::MAX as u64) as i64),
                    eval(step, 1),
                ) {
                    (Ok(a), Ok(b), Ok(s)) => (a, b, s),
                    (Err(err), _, _) | (_, Err(err), _) | (_, _, Err(err)) => {
                        diags.extend(err.diag(anchor.clone()));
                        return None;
                    }
                };
                if !step.is_const() {
                    diags.push(Diag::new(
                        Code::P303,
                        anchor.clone(),
                        "a slice step must be a constant",
                    ));
                    return None;
                }
                let Ok(extent) = end.sub(&start) else {
                    fail(diags, format!("dim {k}: the slice bounds overflow"));
                    return None;
                };
                if !extent.is_const() {
                    fail(
                        diags,
                        format!("dim {k}: the slice length must not depend on a loop variable"),
                    );
                    return None;
                }
                if step.c <= 0 {
                    fail(
                        diags,
                        format!("dim {k}: the step {} is not positive", step.c),
                    );
                    faulty = true;
                    dims.push(DimAccess {
                        start,
                        count: 0,
                        step: 1,
                        kept: true,
                    });
                    continue;
                }
                // Counted as written, never clamped (SPEC §5).
                // ⌈extent / step⌉ without overflow (`extent + step - 1` overflows near
                // i64::MAX).
                let count = if extent.c <= 0 {
                    0
                } else {
                    ((extent.c - 1) / step.c + 1) as u64
                };
                DimAccess {
                    start,
                    count,
                    step: step.c,
                    kept: true,
                }
            }
        };
        if dim.count == 0 {
            fail(diags, format!("dim {k}: the slice selects no element"));
            faulty = true;
        } else if let Some((min, max)) = dim.start.range(loops) {
            let last = max.value + (dim.count as i128 - 1) * dim.step as i128;
            if min.value < 0 {
                fail(
                    diags,
                    format!(
                        "dim {k} of `%{}` starts at {}{}",
                        tensor.name,
                        min.value,
                        describe_iteration(&min.at)
                    ),
                );
                faulty = true;
            } else if last >= size as i128 {
                fail(
                    diags,
                    format!(
                        "dim {k} of `%{}` has {size} elements; the access reaches element {last}{}",
                        tensor.name,
                        describe_iteration(&max.at)
                    ),
                );
                faulty = true;
            }
        }
        dims.push(dim);
    }
    Some(Operand {
        tensor: tensor.clone(),
        dims,
        faulty,
        first: first_iteration(loops).unwrap_or_default(),
    })
}

/// The quadrant rule (SPEC §5; the BIR verifier's "Pattern accesses 64 (> 32) partitions
/// starting at partition 32"), for every loop iteration. Returns the P307 message, which
/// leads with the compiler's text (SPEC §7.1 [3]): `Invalid access of {n} partitions
/// starting at partition {s}` for a start that is not 0/32/64/96, else `Pattern accesses
/// {n} (> {m}) partitions starting at partition {s}`.
pub fn check_quadrant(operand: &Operand, loops: &[LoopVar]) -> Option<String> {
    if !operand.on_chip() {
        return None;
    }
    let d0 = operand.dims.first()?;
    if d0.count == 0 {
        return None;
    }
    let span = (d0.count as i128 - 1) * d0.step as i128 + 1;
    let starts = d0.start.values(loops, 1 << 16).or_else(|| {
        // Too many iterations to list: check the extremes only.
        let (min, max) = d0.start.range(loops)?;
        Some(vec![(min.value, min.at), (max.value, max.at)])
    })?;
    for (start, at) in starts {
        let limit: i128 = match start {
            0 => limits::PARTITIONS as i128,
            32 | 96 => limits::QUADRANT as i128,
            64 => 2 * limits::QUADRANT as i128,
            _ => {
                return Some(format!(
                    "Invalid access of {span} partitions starting at partition {start}{}: an \
                     access starts at partition 0, 32, 64 or 96",
                    describe_iteration(&at)
                ));
            }
        };
        if span > limit {
            return Some(format!(
                "Pattern accesses {span} (> {limit}) partitions starting at partition {start}{}: \
                 an access from partition {start} spans at most {limit}",
                describe_iteration(&at)
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TensorKind;
    use crate::types::{Dtype, Memory};

    fn tensor(memory: Memory, dims: &[u64]) -> Arc<Tensor> {
        Arc::new(Tensor {
            name: "t".into(),
            memory,
            dtype: Dtype::Bf16,
            dims: dims.to_vec(),
            kind: TensorKind::Internal,
        })
    }

    fn var(name: &str) -> Expr {
        Expr::Var(name.into())
    }

    fn mul(a: Expr, b: Expr) -> Expr {
        Expr::Binary(Box::new(a), BinOp::Mul, Box::new(b))
    }

    fn add(a: Expr, b: Expr) -> Expr {
        Expr::Binary(Box::new(a), BinOp::Add, Box::new(b))
    }

    #[test]
    fn whole_tile_pattern() {
        let t = tensor(Memory::Sbuf, &[128, 512]);
        let access = Access {
            name: "t".into(),
            target: crate::model::Target::Tensor(t.clone()),
            indices: None,
        };
        let mut diags = Vec::new();
        let op = evaluate(&access, &t, &[], &ValuePath::field(0), &mut diags).unwrap();
        assert!(diags.is_empty());
        assert_eq!(op.ap(), vec![[512, 128], [1, 512]]);
        let arg = serde_json::to_value(op.to_arg(Role::field("dst"))).unwrap();
        assert_eq!(arg["kind"], "physical_ap");
    }

    #[test]
    fn last_iteration_out_of_bounds() {
        let t = tensor(Memory::Hbm, &[128, 1920]);
        let i = mul(var("i"), Expr::Int(512));
        let access = Access {
            name: "t".into(),
            target: crate::model::Target::Tensor(t.clone()),
            indices: Some(vec![
                Index::Slice {
                    start: None,
                    end: None,
                    step: None,
                },
                Index::Slice {
                    start: Some(i.clone()),
                    end: Some(add(i, Expr::Int(512))),
                    step: None,
                },
            ]),
        };
        let loops = [LoopVar {
            name: "i".into(),
            bounds: Some((0, 4, 1)),
        }];
        let mut diags = Vec::new();
        let op = evaluate(&access, &t, &loops, &ValuePath::field(1), &mut diags).unwrap();
        assert!(op.faulty);
        assert_eq!(diags.len(), 1);
        assert!(
            diags[0]
                .message
                .starts_with("Incorrect access pattern! dim 1"),
            "{:?}",
            diags[0]
        );
        assert!(
            diags[0].related[0].message.contains("%i = 3"),
            "{:?}",
            diags[0]
        );
        let arg = serde_json::to_value(op.to_arg(Role::field("src"))).unwrap();
        assert_eq!(arg["kind"], "symbolic_ap");
        assert_eq!(arg["addrs"][0]["terms"][0]["coeff"], 512);
    }

    #[test]
    fn quadrant_rule() {
        let t = tensor(Memory::Sbuf, &[128, 512]);
        let slice = |a: i64, b: i64| Index::Slice {
            start: Some(Expr::Int(a)),
            end: Some(Expr::Int(b)),
            step: None,
        };
        let eval = |a, b| {
            let access = Access {
                name: "t".into(),
                target: crate::model::Target::Tensor(t.clone()),
                indices: Some(vec![slice(a, b)]),
            };
            evaluate(&access, &t, &[], &ValuePath::field(0), &mut Vec::new()).unwrap()
        };
        assert_eq!(
            check_quadrant(&eval(32, 128), &[]).as_deref(),
            Some(
                "Pattern accesses 96 (> 32) partitions starting at partition 32: an access \
                 from partition 32 spans at most 32"
            )
        );
        assert_eq!(check_quadrant(&eval(64, 128), &[]), None);
        assert!(check_quadrant(&eval(16, 32), &[]).is_some());
    }

    #[test]
    fn not_affine() {
        let e = mul(var("i"), var("j"));
        assert_eq!(Affine::of(&e, false), Err(ExprError::NotAffine));
    }

    fn lp(name: &str, lb: i64, ub: i64, step: i64) -> LoopVar {
        LoopVar {
            name: name.into(),
            bounds: Some((lb, ub, step)),
        }
    }

    #[test]
    fn first_iteration_where_searches_innermost_fastest() {
        let loops = [lp("i", 0, 4, 1), lp("j", 0, 3, 1), lp("k", 0, 2, 1)];
        // 8i + 3j, ignoring k: the first iteration where it is 11 is i = 1, j = 1.
        let e = Affine::of(
            &add(mul(var("i"), Expr::Int(8)), mul(var("j"), Expr::Int(3))),
            false,
        )
        .unwrap();
        let at = first_iteration_where(&[&e], &loops, |v| v == [11]);
        assert_eq!(at, Some(vec![("i".into(), 1), ("j".into(), 1)]));
        assert_eq!(first_iteration_where(&[&e], &loops, |v| v == [2]), None);
        // A constant holds or not with no loop values.
        let c = Affine {
            c: 5,
            terms: vec![],
        };
        assert_eq!(
            first_iteration_where(&[&c], &loops, |v| v == [5]),
            Some(vec![])
        );
    }

    #[test]
    fn first_iteration_where_past_the_limit_tries_the_extremes() {
        let loops = [lp("i", 0, 1 << 20, 1), lp("j", 0, 1 << 20, 1)];
        let e = Affine::of(&add(var("i"), var("j")), false).unwrap();
        // The largest value is at the last iteration of both loops.
        let last = (1 << 20) - 1;
        let at = first_iteration_where(&[&e], &loops, |v| v == [2 * last as i128]);
        assert_eq!(at, Some(vec![("i".into(), last), ("j".into(), last)]));
    }
}
