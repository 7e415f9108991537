//! A kernel's resources (SPEC §10.1 [2]) joined over its parts: one implementation for a
//! kernel of one part and for one cut into chunks.
//!
//! Each part is summarized position-free ([`part_resources`], per chunk, one per kernel):
//! its engine counts, and what its tensors' live ranges are made of ([`PartLive`]). The
//! join sums the counts, and finds the occupancy peak from each part's own peak plus the
//! bytes of the tensors live through the whole part ([`Spans`]): an edit in one part of a
//! kernel cut into chunks recomputes that part's peak and an O(parts) join, not the
//! kernel's live ranges ([`split_resources`] memoizes the steps per part; a one-part
//! kernel is joined directly, [`whole_resources`]).
//!
//! Live ranges, over the kernel's ops in source order: a tensor lives from the first to
//! the last op that names it in any field, widened to each loop that encloses such an op
//! but not every such op (its values cross that loop's iterations); a parameter in
//! `sbuf`/`psum` lives at every op. A tensor no op names is live nowhere.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use lower::Lowered;
use lower::diag::ValuePath;
use lower::model::{ResolvedOp, Target, Tensor, TensorKind};
use lower::types::Memory;

use crate::cost::CostSums;
use crate::db::{Db, Lowerings, SourceFile, file_items};
use crate::resolve::{Allocation, Item, KernelItems, OpItem};
use crate::resources::{ENGINES, EngineCount, LiveAtPeak, Occupancy, Resources};

mod split;

pub use split::{split_peaks, split_resources, split_series};

/// A part's resources, position-free: its counts apart from what its live ranges are made
/// of, so that an edit changing an op's instructions only joins the counts again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartResources {
    /// The part's engine counts, every engine of [`ENGINES`] in that order.
    pub engines: Vec<EngineCount>,
    /// Its instructions' cost estimates summed (SPEC §10.2), for every target.
    pub cost: CostSums,
    /// What its tensors' live ranges are made of.
    pub live: PartLive,
}

/// What a part's tensors' live ranges are made of (see [`PartResources`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartLive {
    /// Its ops.
    pub ops: u32,
    /// The on-chip tensors it allocates, in BIR order.
    pub tensors: Vec<Arc<Tensor>>,
    /// Each on-chip tensor its ops name, by name.
    pub touches: Vec<Touch>,
}

/// An on-chip tensor a part's ops name: its live range in the part's ops (0-based,
/// inclusive) when no other part names it, and when another does (every loop enclosing a
/// use then widens it, see [`LoopTree::live`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Touch {
    /// The tensor's name (inline up to 23 bytes: a part keeps thousands).
    pub name: smol_str::SmolStr,
    /// Its range when only this part names it.
    pub alone: (u32, u32),
    /// Its range when other parts name it too.
    pub shared: (u32, u32),
}

/// The [`PartResources`] of every part of `file` (one per kernel, in order).
#[salsa::tracked(returns(ref))]
pub fn part_resources(db: &dyn Db, file: SourceFile) -> Vec<PartResources> {
    let lowerings = Lowerings::of(db, file);
    file_items(db, file)
        .kernels
        .iter()
        .map(|kernel| {
            let shape = shape(kernel);
            let ops: Vec<(&ResolvedOp, &Lowered)> = shape
                .ops
                .iter()
                .map(|op| (&*op.resolved, lowerings.get(op)))
                .collect();
            summarize(shape.tensors, &ops, &shape.loops)
        })
        .collect()
}

/// The part of `ops` (with their lowerings, in source order), allocating the on-chip
/// `tensors`, with its `loops` as spans of op indices.
fn summarize(
    tensors: Vec<Arc<Tensor>>,
    ops: &[(&ResolvedOp, &Lowered)],
    loops: &[(u32, u32)],
) -> PartResources {
    let (engines, cost, accesses) = counts_and_accesses(ops);
    let tree = LoopTree::new(loops, ops.len());
    let mut touches: Vec<Touch> = accesses
        .iter()
        .filter_map(|(name, at)| {
            Some(Touch {
                name: smol_str::SmolStr::new(name),
                alone: tree.live(at, false)?,
                shared: tree.live(at, true)?,
            })
        })
        .collect();
    touches.sort_unstable();
    // Kept for the life of the part's memo: no room left over from the filter.
    touches.shrink_to_fit();
    PartResources {
        engines,
        cost,
        live: PartLive {
            ops: u32::try_from(ops.len()).unwrap_or(u32::MAX),
            tensors,
            touches,
        },
    }
}

/// The parts' live-range summaries of `file` ([`PartLive`], one per kernel).
#[salsa::tracked(returns(ref))]
pub fn part_live(db: &dyn Db, file: SourceFile) -> Vec<PartLive> {
    part_resources(db, file)
        .iter()
        .map(|p| p.live.clone())
        .collect()
}

/// A part's on-chip tensors and the names its ops name: what [`Spans`] are made of.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartNames {
    /// The on-chip tensors it allocates, in BIR order.
    pub tensors: Vec<Arc<Tensor>>,
    /// The on-chip tensors its ops name, by name.
    pub touched: Vec<smol_str::SmolStr>,
}

impl PartNames {
    fn of(live: &PartLive) -> PartNames {
        PartNames {
            tensors: live.tensors.clone(),
            touched: live.touches.iter().map(|t| t.name.clone()).collect(),
        }
    }
}

/// The [`PartNames`] of each part of `file`.
#[salsa::tracked(returns(ref))]
pub fn part_names(db: &dyn Db, file: SourceFile) -> Vec<PartNames> {
    part_live(db, file).iter().map(PartNames::of).collect()
}

/// Where a kernel's on-chip tensors are named, by part, position-free: a function of its
/// parts' declarations and of the names their ops name, not of where ops stand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    /// The kernel's on-chip tensors, in BIR order.
    pub tensors: Vec<Arc<Tensor>>,
    /// At each tensor's place: where it is named ([`Span`]; `None`: named nowhere).
    pub spans: Vec<Option<Span>>,
    /// For SBUF then PSUM, at each part's place: the bytes per partition of the tensors
    /// live through the whole part (parameters, and tensors named before and after it).
    pub through: [Vec<u64>; 2],
    /// Each tensor's place in `tensors`, by name.
    pub index: HashMap<String, usize>,
    /// At each tensor's place: the first part (index among the kernel's parts) that
    /// allocates a tensor of its name, where its declaration is looked up.
    pub declared_in: Vec<u32>,
}

/// Where a tensor of a kernel is named (see [`Spans::spans`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Span {
    /// A parameter: live at every op.
    Everywhere,
    /// Named from part `first` to part `last` (indices among the kernel's parts).
    Parts {
        /// The first part naming it.
        first: usize,
        /// The last part naming it.
        last: usize,
    },
}

/// The [`Spans`] of a kernel whose parts' names are `parts` (head first).
pub fn spans(parts: &[&PartNames]) -> Spans {
    let tensors: Vec<Arc<Tensor>> = parts
        .iter()
        .flat_map(|p| p.tensors.iter().cloned())
        .collect();
    let mut first_part: HashMap<&str, u32> = HashMap::default();
    for (p, part) in (0u32..).zip(parts) {
        for t in &part.tensors {
            first_part.entry(t.name.as_str()).or_insert(p);
        }
    }
    let declared_in = tensors
        .iter()
        .map(|t| first_part.get(t.name.as_str()).copied().unwrap_or(0))
        .collect();
    let mut named: HashMap<&str, (usize, usize)> = HashMap::default();
    for (p, part) in parts.iter().enumerate() {
        for name in &part.touched {
            named
                .entry(name.as_str())
                .and_modify(|span| span.1 = p)
                .or_insert((p, p));
        }
    }
    let count = parts.len();
    let spans: Vec<Option<Span>> = tensors
        .iter()
        .map(|t| {
            if t.kind != TensorKind::Internal {
                Some(Span::Everywhere)
            } else {
                named
                    .get(t.name.as_str())
                    .map(|&(first, last)| Span::Parts { first, last })
            }
        })
        .collect();
    let through = [Memory::Sbuf, Memory::Psum].map(|memory| {
        // A difference array over the parts.
        let mut delta = vec![0i128; count + 1];
        let mut add = |from: usize, to: usize, bytes: i128| {
            if let Some(d) = delta.get_mut(from) {
                *d += bytes;
            }
            if let Some(d) = delta.get_mut(to) {
                *d -= bytes;
            }
        };
        for (t, span) in tensors.iter().zip(&spans) {
            if t.memory != memory {
                continue;
            }
            let bytes = i128::from(t.partition_bytes());
            match *span {
                Some(Span::Everywhere) => add(0, count, bytes),
                Some(Span::Parts { first, last }) if last > first + 1 => {
                    add(first + 1, last, bytes);
                }
                _ => {}
            }
        }
        let mut sum = 0i128;
        delta
            .iter()
            .take(count)
            .map(|d| {
                sum += d;
                u64::try_from(sum).unwrap_or(0)
            })
            .collect()
    });
    let index = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    Spans {
        tensors,
        spans,
        through,
        index,
        declared_in,
    }
}

/// Of a tensor a part's ops name: the tensor, and whether an earlier and a later part of
/// the kernel name it too (see [`sides`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Side {
    /// The tensor.
    pub tensor: Arc<Tensor>,
    /// An earlier part names it.
    pub before: bool,
    /// A later part names it.
    pub after: bool,
}

/// Of each tensor the part `p` of a kernel names (its [`PartLive::touches`], in order):
/// its [`Side`] (`None`: not an on-chip tensor of the kernel, or a parameter, live
/// everywhere). What a part's peak reads of the whole kernel's [`Spans`]: it changes for
/// few parts when a tensor's first or last part changes.
pub fn sides(live: &PartLive, spans: &Spans, p: usize) -> Vec<Option<Side>> {
    live.touches
        .iter()
        .map(|touch| {
            let t = *spans.index.get(touch.name.as_str())?;
            match (*spans.spans.get(t)?)? {
                Span::Everywhere => None,
                Span::Parts { first, last } => Some(Side {
                    tensor: spans.tensors.get(t)?.clone(),
                    before: first < p,
                    after: last > p,
                }),
            }
        })
        .collect()
}

/// The range (0-based op indices of a part of `ops` ops, inclusive) where `touch` is live
/// in that part: its range alone when no other part names the tensor; else from the
/// part's start when an earlier part names it, to its end when a later one does, widened
/// as a tensor named elsewhere is.
fn local_range(touch: &Touch, before: bool, after: bool, ops: u32) -> (u32, u32) {
    if !before && !after {
        return touch.alone;
    }
    let lo = if before { 0 } else { touch.shared.0 };
    let hi = if after {
        ops.saturating_sub(1)
    } else {
        touch.shared.1
    };
    (lo, hi)
}

/// A part's own occupancy peak of one memory (see [`part_peak`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartPeak {
    /// The bytes per partition.
    pub bytes: u64,
    /// The first op (0-based in the part) where it is reached (0 when nothing is live).
    pub op: u32,
}

/// The peak of a part, for SBUF then PSUM, without the tensors live through it
/// ([`Spans::through`]): the largest sum of the bytes of the tensors named in the part
/// and live at one of its ops, and the first op where it is reached. `sides`: as
/// [`sides`] gives them.
pub fn part_peak(live: &PartLive, sides: &[Option<Side>]) -> [PartPeak; 2] {
    [Memory::Sbuf, Memory::Psum].map(|memory| {
        let mut events: Vec<(u32, i128)> = Vec::new();
        for (touch, side) in live.touches.iter().zip(sides) {
            let Some(side) = side else {
                continue;
            };
            if side.tensor.memory != memory || (side.before && side.after) {
                continue;
            }
            let (lo, hi) = local_range(touch, side.before, side.after, live.ops);
            let bytes = i128::from(side.tensor.partition_bytes());
            events.push((lo, bytes));
            events.push((hi + 1, -bytes));
        }
        let (bytes, op) = sweep(&mut events);
        PartPeak {
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            op: op.unwrap_or(0),
        }
    })
}

/// A kernel's occupancy peak of one memory, position-free (see [`peaks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelPeak {
    /// The peak, in bytes per partition (0: nothing is ever live).
    pub bytes: u64,
    /// Where it is first reached; `None` when `bytes` is 0.
    pub at: Option<PeakAt>,
}

/// Where a kernel's peak is first reached (see [`KernelPeak::at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeakAt {
    /// The op, 0-based among the kernel's ops.
    pub op: u32,
    /// The part holding it.
    pub part: usize,
    /// The op, 0-based among the part's.
    pub op_in_part: u32,
}

/// The SBUF and PSUM peaks of a kernel from its parts': each part's ops, and its own peak
/// plus the bytes live through it; the first of the highest.
pub fn peaks(
    ops: &[u32],
    through: &[Vec<u64>; 2],
    part_peak: impl Fn(usize) -> [PartPeak; 2],
) -> [KernelPeak; 2] {
    let mut best = [KernelPeak::default(); 2];
    let mut base = 0u32;
    for (p, &count) in ops.iter().enumerate() {
        if count > 0 {
            let own = part_peak(p);
            for ((best, own), through) in best.iter_mut().zip(own).zip(through) {
                let bytes = through.get(p).copied().unwrap_or(0) + own.bytes;
                if bytes > best.bytes {
                    *best = KernelPeak {
                        bytes,
                        at: Some(PeakAt {
                            op: base + own.op,
                            part: p,
                            op_in_part: own.op,
                        }),
                    };
                }
            }
        }
        base += count;
    }
    best
}

/// The occupancy of `memory` at a kernel's `peak`: the peak, where, and the (up to three)
/// largest tensors live there (`live`: the part holding the peak; O(the kernel's tensors)).
pub fn occupancy(
    peak: KernelPeak,
    spans: &Spans,
    live: Option<&PartLive>,
    memory: Memory,
) -> Occupancy {
    let Some(at) = peak.at else {
        return Occupancy {
            peak: 0,
            at: None,
            largest: Vec::new(),
        };
    };
    let Some(live) = live else {
        return Occupancy {
            peak: peak.bytes,
            at: Some(at),
            largest: Vec::new(),
        };
    };
    let p = at.part;
    let touches: HashMap<&str, &Touch> =
        live.touches.iter().map(|t| (t.name.as_str(), t)).collect();
    let live_at = |t: usize, span: Span| match span {
        Span::Everywhere => true,
        Span::Parts { first, last } if first < p && p < last => true,
        Span::Parts { first, last } if first == p || last == p => spans
            .tensors
            .get(t)
            .and_then(|tensor| touches.get(tensor.name.as_str()))
            .is_some_and(|touch| {
                let (lo, hi) = local_range(touch, first < p, last > p, live.ops);
                lo <= at.op_in_part && at.op_in_part <= hi
            }),
        Span::Parts { .. } => false,
    };
    let mut largest: Vec<LiveAtPeak> = spans
        .tensors
        .iter()
        .zip(&spans.spans)
        .enumerate()
        .filter(|(i, (t, span))| t.memory == memory && span.is_some_and(|s| live_at(*i, s)))
        .map(|(i, (t, _))| LiveAtPeak {
            name: t.name.clone(),
            bytes: t.partition_bytes(),
            declared_in: spans.declared_in.get(i).copied().unwrap_or(0),
        })
        .collect();
    // Stable: ties stay in BIR order.
    largest.sort_by_key(|t| std::cmp::Reverse(t.bytes));
    largest.truncate(3);
    Occupancy {
        peak: peak.bytes,
        at: Some(at),
        largest,
    }
}

/// The SBUF and PSUM occupancy (bytes per partition, SPEC §10.1) at each op of a part:
/// the tensors named in it and live at the op (`sides` as [`sides`] gives them), plus
/// `through`, the bytes live through the whole part ([`Spans::through`]). What the profile
/// drawing plots; its maximum is [`part_peak`]'s plus `through`.
pub fn part_series(live: &PartLive, sides: &[Option<Side>], through: [u64; 2]) -> [Vec<u64>; 2] {
    let memories = [Memory::Sbuf, Memory::Psum];
    let mut out: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    for ((memory, series), through) in memories.into_iter().zip(&mut out).zip(through) {
        let n = live.ops as usize;
        let mut delta = vec![0i128; n + 1];
        for (touch, side) in live.touches.iter().zip(sides) {
            let Some(side) = side else {
                continue;
            };
            if side.tensor.memory != memory || (side.before && side.after) {
                continue;
            }
            let (lo, hi) = local_range(touch, side.before, side.after, live.ops);
            let bytes = i128::from(side.tensor.partition_bytes());
            if let Some(d) = delta.get_mut(lo as usize) {
                *d += bytes;
            }
            if let Some(d) = delta.get_mut(hi as usize + 1) {
                *d -= bytes;
            }
        }
        let mut sum = i128::from(through);
        *series = delta
            .iter()
            .take(n)
            .map(|d| {
                sum += d;
                u64::try_from(sum).unwrap_or(0)
            })
            .collect();
    }
    out
}

/// The occupancy at each op of a kernel that is one part (see [`part_series`]).
pub fn whole_series(part: &PartResources) -> [Vec<u64>; 2] {
    let names = PartNames::of(&part.live);
    let spans = spans(&[&names]);
    let through = spans
        .through
        .each_ref()
        .map(|t| t.first().copied().unwrap_or(0));
    part_series(&part.live, &sides(&part.live, &spans, 0), through)
}

/// The engine counts of a kernel from its parts'.
pub fn join_engines<'a>(parts: impl IntoIterator<Item = &'a [EngineCount]>) -> Vec<EngineCount> {
    let mut engines = zero_counts();
    for part in parts {
        for (sum, count) in engines.iter_mut().zip(part) {
            sum.static_count += count.static_count;
            sum.executed = sum.executed.saturating_add(count.executed);
        }
    }
    engines
}

/// The resources of a kernel that is one part, `part`: the join of one.
pub fn whole_resources(part: &PartResources) -> Resources {
    let names = PartNames::of(&part.live);
    let spans = spans(&[&names]);
    let own = part_peak(&part.live, &sides(&part.live, &spans, 0));
    let [sbuf, psum] = peaks(&[part.live.ops], &spans.through, |_| own);
    Resources {
        engines: part.engines.clone(),
        cost: part.cost.clone(),
        sbuf: occupancy(sbuf, &spans, Some(&part.live), Memory::Sbuf),
        psum: occupancy(psum, &spans, Some(&part.live), Memory::Psum),
    }
}

/// The engine counts of `ops`, their cost estimates summed, and for each on-chip tensor
/// they name, the indices of the ops that name it (ascending, each once).
fn counts_and_accesses<'o>(
    ops: &[(&'o ResolvedOp, &Lowered)],
) -> (Vec<EngineCount>, CostSums, HashMap<&'o str, Vec<u32>>) {
    let mut engines = zero_counts();
    let mut cost = CostSums::default();
    let mut accesses: HashMap<&str, Vec<u32>> = HashMap::default();
    for (index, &(resolved, lowered)) in (0u32..).zip(ops) {
        let trips = resolved
            .loops
            .iter()
            .fold(1u64, |acc, l| acc.saturating_mul(l.trip_count()));
        for inst in &lowered.instructions {
            if let Some(count) = engines.iter_mut().find(|c| c.engine == inst.engine) {
                count.static_count += 1;
                count.executed = count.executed.saturating_add(trips);
            }
        }
        cost.add_op(lowered, trips);
        let mut named = Vec::new();
        for (i, field) in resolved.fields.iter().enumerate() {
            field
                .value
                .collect_accesses(ValuePath::field(i), &mut named);
        }
        for (_, access) in named {
            if let Target::Tensor(t) = &access.target
                && t.memory.is_on_chip()
            {
                let at = accesses.entry(t.name.as_str()).or_default();
                if at.last() != Some(&index) {
                    at.push(index);
                }
            }
        }
    }
    (engines, cost, accesses)
}

/// A count of 0 for every engine of [`ENGINES`], in that order.
fn zero_counts() -> Vec<EngineCount> {
    ENGINES
        .iter()
        .map(|&engine| EngineCount {
            engine,
            static_count: 0,
            executed: 0,
        })
        .collect()
}

/// A part's loops as a tree over its ops: each op's innermost loop, each loop's parent
/// (spans nest; preorder).
struct LoopTree<'l> {
    loops: &'l [(u32, u32)],
    innermost: Vec<Option<usize>>,
    parent: Vec<Option<usize>>,
}

impl<'l> LoopTree<'l> {
    fn new(loops: &'l [(u32, u32)], n: usize) -> LoopTree<'l> {
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        let mut parent: Vec<Option<usize>> = vec![None; loops.len()];
        let mut open: Vec<usize> = Vec::new();
        for (l, &(start, end)) in loops.iter().enumerate() {
            while open
                .last()
                .is_some_and(|&top| loops.get(top).is_some_and(|t| t.1 <= start))
            {
                open.pop();
            }
            if let Some(slot) = parent.get_mut(l) {
                *slot = open.last().copied();
            }
            open.push(l);
            let (start, end) = (start as usize, (end as usize).min(n));
            for slot in innermost.get_mut(start..end).unwrap_or_default() {
                *slot = Some(l);
            }
        }
        LoopTree {
            loops,
            innermost,
            parent,
        }
    }

    /// The live range of a tensor named by the ops `at` (ascending): from the first to the
    /// last, widened to each loop that encloses one of them but not every one (its values
    /// cross that loop's iterations). `elsewhere`: the tensor is also named outside these
    /// ops (in another part of the kernel), so every loop enclosing one is widened to.
    fn live(&self, at: &[u32], elsewhere: bool) -> Option<(u32, u32)> {
        let (&first, &last) = (at.first()?, at.last()?);
        let (mut lo, mut hi) = (first, last);
        for &a in at {
            let mut l = self.innermost.get(a as usize).copied().flatten();
            while let Some(lp) = l {
                let &(start, end) = self.loops.get(lp)?;
                if elsewhere || !(start <= first && last < end) {
                    lo = lo.min(start);
                    hi = hi.max(end - 1);
                }
                l = self.parent.get(lp).copied().flatten();
            }
        }
        Some((lo, hi))
    }
}

/// The highest sum of `events` (`(op index, +bytes where a range starts or −bytes after it
/// ends)`), applied in op order, and the first op where it is reached (`None` when no sum
/// is above 0).
fn sweep(events: &mut [(u32, i128)]) -> (i128, Option<u32>) {
    events.sort_unstable_by_key(|e| e.0);
    let (mut current, mut peak, mut at) = (0i128, 0i128, None);
    let mut i = 0;
    while let Some(&(index, _)) = events.get(i) {
        while let Some(&(_, delta)) = events.get(i).filter(|e| e.0 == index) {
            current += delta;
            i += 1;
        }
        if current > peak {
            peak = current;
            at = Some(index);
        }
    }
    (peak, at)
}

/// What a part's resources are computed from: its on-chip tensors, its ops in source
/// order (loop bodies in place), and its loops that hold ops as half-open spans of op
/// indices (an enclosing loop before its inner loops; a loop without ops holds nothing
/// live and is left out, so that spans nest unambiguously).
struct Shape<'a> {
    tensors: Vec<Arc<Tensor>>,
    ops: Vec<&'a OpItem>,
    loops: Vec<(u32, u32)>,
}

fn shape(kernel: &KernelItems) -> Shape<'_> {
    fn walk<'a>(items: &'a [Item], ops: &mut Vec<&'a OpItem>, loops: &mut Vec<(u32, u32)>) {
        for item in items {
            match item {
                Item::Op(op) => ops.push(op),
                Item::Loop(lp) => {
                    let (slot, start) = (loops.len(), ops.len() as u32);
                    loops.push((start, start));
                    walk(&lp.body, ops, loops);
                    let end = ops.len() as u32;
                    if end == start {
                        loops.truncate(slot);
                    } else if let Some(span) = loops.get_mut(slot) {
                        span.1 = end;
                    }
                }
            }
        }
    }
    let tensors: Vec<Arc<Tensor>> = kernel
        .allocations
        .iter()
        .filter_map(|a| match a {
            Allocation::Tensor(t) if t.memory.is_on_chip() => Some(t.clone()),
            _ => None,
        })
        .collect();
    let (mut ops, mut loops) = (Vec::new(), Vec::new());
    walk(&kernel.body, &mut ops, &mut loops);
    Shape {
        tensors,
        ops,
        loops,
    }
}
