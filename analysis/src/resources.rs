//! A kernel's resources at a glance (SPEC §10.1 [2]): per engine, the static and executed
//! BIR instruction counts; per on-chip memory (SBUF, PSUM), the peak occupancy over the
//! tensors' live ranges and the op where it is first reached; and warning P416 when a peak
//! exceeds the memory's per-partition capacity (SPEC §4).
//!
//! Incremental per kernel: [`kernel_resources`] is a tracked query keyed by an interned,
//! position-free [`KernelKey`] (the kernel's on-chip tensors, its ops as interned
//! [`OpKey`]s and its loops as spans of op indices). An edit inside one op changes that
//! kernel's key only: every other kernel interns to the key it had and its table is reused
//! (`analysis/tests/incremental.rs`). [`kernel_stats`] puts the file's tables together with
//! their text ranges (UTF-8 byte offsets relative to the [`SourceFile`]'s text).
//!
//! Nothing here looks across kernels.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use lower::Lowered;
use lower::catalog::Engine;
use lower::diag::{Code, ValuePath};
use lower::model::{ResolvedOp, Target, Tensor, TensorKind};
use lower::types::Memory;
use syntax::ast::{self, TextRange, TextSize};

use crate::db::{Db, OpKey, SourceFile, file_items, lower_op, lowering, parse};
use crate::diagnostic::Diagnostic;
use crate::resolve::{Allocation, Item, KernelItems, OpItem};

/// The engines of SPEC §10.1, in its order (BIR names `PE`, `Activation`, `DVE`, `Pool`,
/// `SP`, `DMA`, `ALL`, `Unassigned`): the catalog's [`Engine::ALL`].
pub const ENGINES: [Engine; 8] = Engine::ALL;

/// The on-chip memories whose occupancy SPEC §10.1 reports, in its order.
pub const MEMORIES: [Memory; 2] = [Memory::Sbuf, Memory::Psum];

pub use key::KernelKey;

mod key {
    // salsa's macros generate constructors and getters without doc comments.
    #![allow(missing_docs)]

    use std::sync::Arc;

    use lower::model::Tensor;

    use crate::db::OpKey;

    /// A kernel as the resource query sees it: position-free, so that moving text or editing
    /// another kernel gives the same key.
    #[salsa::interned(debug)]
    pub struct KernelKey<'db> {
        /// The kernel's `sbuf`/`psum` tensors (parameters and declarations) in BIR order.
        #[returns(ref)]
        pub tensors: Vec<Arc<Tensor>>,
        /// Its ops in source order (loop bodies in place).
        #[returns(ref)]
        pub ops: Vec<OpKey<'db>>,
        /// Its loops that hold at least one op, as half-open spans of op indices (0-based into
        /// `ops`), in source order of their headers (an enclosing loop before its inner loops).
        #[returns(ref)]
        pub loops: Vec<(u32, u32)>,
    }
}

/// One engine's counts (SPEC §10.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineCount {
    /// The engine.
    pub engine: Engine,
    /// BIR instructions of the kernel on it.
    pub static_count: u64,
    /// Each of them times the trip counts of its enclosing loops (an invalid loop, P414,
    /// counts 0 trips), saturating.
    pub executed: u64,
}

/// The peak occupancy of one memory, position-free (see [`Peak`] for the positioned one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Occupancy {
    /// The peak: the largest sum of the per-partition footprints (bytes, SPEC §4) of the
    /// tensors live at one op; 0 when no tensor of this memory is live at any op.
    pub peak: u64,
    /// The 0-based index (ops of the kernel in source order) of the first op where the
    /// peak is reached; `None` when the peak is 0.
    pub op: Option<u32>,
    /// The (up to three) largest tensors live there, largest first (ties in BIR order):
    /// `(name without %, bytes per partition)`.
    pub largest: Vec<(String, u64)>,
}

/// A kernel's resources, position-free: what [`kernel_resources`] memoizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resources {
    /// The counts of every engine of [`ENGINES`], in that order (zeros included).
    pub engines: Vec<EngineCount>,
    /// SBUF occupancy.
    pub sbuf: Occupancy,
    /// PSUM occupancy.
    pub psum: Occupancy,
}

/// The resources of one kernel (SPEC §10.1): a pure function of its [`KernelKey`], so one
/// computation per distinct kernel content.
///
/// Live ranges, over the ops in source order: a tensor lives from the first to the last op
/// that names it in any field, widened to each loop that encloses such an op but not every
/// such op (its values cross that loop's iterations); a parameter in `sbuf`/`psum` lives at
/// every op. A tensor no op names is live nowhere.
#[salsa::tracked(returns(ref))]
pub fn kernel_resources<'db>(db: &'db dyn Db, key: KernelKey<'db>) -> Resources {
    let ops: Vec<(&ResolvedOp, &Lowered)> = key
        .ops(db)
        .iter()
        .map(|&op| (&**op.op(db), lower_op(db, op)))
        .collect();
    resources(key.tensors(db), &ops, key.loops(db))
}

/// What [`kernel_resources`] computes, from the kernel's on-chip `tensors`, its `ops` with
/// their lowerings in source order, and its `loops` (see [`KernelKey`]).
fn resources(
    tensors: &[Arc<Tensor>],
    ops: &[(&ResolvedOp, &Lowered)],
    loops: &[(u32, u32)],
) -> Resources {
    let n = ops.len();
    let (engines, accesses) = counts_and_accesses(ops);
    let tree = LoopTree::new(loops, n);
    // Live ranges, inclusive op indices.
    let live: Vec<Option<(u32, u32)>> = tensors
        .iter()
        .map(|tensor| {
            if n == 0 {
                return None;
            }
            if tensor.kind != TensorKind::Internal {
                return Some((0, n as u32 - 1));
            }
            tree.live(accesses.get(tensor.name.as_str())?, false)
        })
        .collect();
    Resources {
        engines,
        sbuf: occupancy(tensors, &live, Memory::Sbuf),
        psum: occupancy(tensors, &live, Memory::Psum),
    }
}

/// The engine counts of `ops`, and for each on-chip tensor they name, the indices of the
/// ops that name it (ascending, each once).
fn counts_and_accesses<'o>(
    ops: &[(&'o ResolvedOp, &Lowered)],
) -> (Vec<EngineCount>, HashMap<&'o str, Vec<u32>>) {
    let mut engines = zero_counts();
    let mut accesses: HashMap<&str, Vec<u32>> = HashMap::default();
    for (index, &(resolved, lowered)) in ops.iter().enumerate() {
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
                if at.last() != Some(&(index as u32)) {
                    at.push(index as u32);
                }
            }
        }
    }
    (engines, accesses)
}

/// A kernel's (or a part's) loops as a tree over its ops: each op's innermost loop, each
/// loop's parent (spans nest; preorder).
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
            while open.last().is_some_and(|&top| loops[top].1 <= start) {
                open.pop();
            }
            parent[l] = open.last().copied();
            open.push(l);
            for slot in &mut innermost[start as usize..(end as usize).min(n)] {
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
    /// ops (in another chunk of a split kernel), so every loop enclosing one is widened to.
    fn live(&self, at: &[u32], elsewhere: bool) -> Option<(u32, u32)> {
        let (&first, &last) = (at.first()?, at.last()?);
        let (mut lo, mut hi) = (first, last);
        for &a in at {
            let mut l = self.innermost[a as usize];
            while let Some(lp) = l {
                let (start, end) = self.loops[lp];
                if elsewhere || !(start <= first && last < end) {
                    lo = lo.min(start);
                    hi = hi.max(end - 1);
                }
                l = self.parent[lp];
            }
        }
        Some((lo, hi))
    }
}

/// The peak occupancy of `memory` over `tensors` live at `live` (inclusive op ranges, at
/// the same index; `None`: live nowhere): the largest sum of footprints at one op, the
/// first op where it is reached, and the largest tensors live there. Swept over the
/// ranges' ends, not the ops: a kernel of many ops and few tensors costs its tensors.
fn occupancy(tensors: &[Arc<Tensor>], live: &[Option<(u32, u32)>], memory: Memory) -> Occupancy {
    let mut events: Vec<(u32, i128)> = Vec::new();
    for (tensor, range) in tensors.iter().zip(live) {
        if let (true, Some((lo, hi))) = (tensor.memory == memory, range) {
            let bytes = i128::from(tensor.partition_bytes());
            events.push((*lo, bytes));
            events.push((hi + 1, -bytes));
        }
    }
    let (peak, at) = sweep_events(&mut events);
    let largest = match at {
        Some(op) => largest_at(
            tensors,
            |_, (lo, hi)| lo as u32 <= op && op <= hi as u32,
            &live
                .iter()
                .map(|r| r.map(|(lo, hi)| (lo as usize, hi as usize)))
                .collect::<Vec<_>>(),
            memory,
        ),
        None => Vec::new(),
    };
    Occupancy {
        peak: u64::try_from(peak).unwrap_or(u64::MAX),
        op: at,
        largest,
    }
}

/// The highest sum of `events` (`(op index, +bytes where a range starts or −bytes after it
/// ends)`), applied in op order, and the first op where it is reached (`None` when no sum
/// is above 0).
fn sweep_events(events: &mut [(u32, i128)]) -> (i128, Option<u32>) {
    events.sort_unstable_by_key(|e| e.0);
    let (mut current, mut peak, mut at) = (0i128, 0i128, None);
    let mut i = 0;
    while i < events.len() {
        let index = events[i].0;
        while i < events.len() && events[i].0 == index {
            current += events[i].1;
            i += 1;
        }
        if current > peak {
            peak = current;
            at = Some(index);
        }
    }
    (peak, at)
}

/// [`sweep_events`] of a part: the peak (0 when nothing is live) and its first op (0 when
/// nothing is live).
pub(crate) fn sweep(events: &mut [(u32, i128)]) -> (u64, u32) {
    let (peak, at) = sweep_events(events);
    (u64::try_from(peak).unwrap_or(u64::MAX), at.unwrap_or(0))
}

/// The (up to three) largest of `tensors` of `memory` that `live_at` says are live there
/// (given each tensor's index and its `spans` entry, when it has one), largest first, ties
/// in BIR order: `(name, bytes per partition)`.
pub(crate) fn largest_at(
    tensors: &[Arc<Tensor>],
    live_at: impl Fn(usize, (usize, usize)) -> bool,
    spans: &[Option<(usize, usize)>],
    memory: Memory,
) -> Vec<(String, u64)> {
    let mut largest: Vec<(String, u64)> = tensors
        .iter()
        .zip(spans)
        .enumerate()
        .filter(|(i, (t, span))| t.memory == memory && span.is_some_and(|s| live_at(*i, s)))
        .map(|(_, (t, _))| (t.name.clone(), t.partition_bytes()))
        .collect();
    // Stable: ties stay in BIR order.
    largest.sort_by_key(|(_, bytes)| std::cmp::Reverse(*bytes));
    largest.truncate(3);
    largest
}

/// A chunk's part of a split kernel as its resources are joined (`split::split_resources`):
/// position-free, its counts apart from what its live ranges are made of, so that an edit
/// changing an op's instructions only joins the counts again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartResources {
    /// The part's engine counts.
    pub engines: Vec<EngineCount>,
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
    /// The tensor's name.
    pub name: String,
    /// Its range when only this part names it.
    pub alone: (u32, u32),
    /// Its range when other parts name it too.
    pub shared: (u32, u32),
}

/// The [`PartResources`] of `kernel`, a part of a split kernel, whose ops are lowered to
/// `lowered` (in source order).
pub(crate) fn part_resources(kernel: &KernelItems, lowered: &[&Lowered]) -> PartResources {
    let shape = shape(kernel);
    let ops = shape.lowered(|i, _| lowered.get(i).copied());
    let Shape { tensors, loops, .. } = shape;
    let (engines, accesses) = counts_and_accesses(&ops);
    let tree = LoopTree::new(&loops, ops.len());
    let mut touches: Vec<Touch> = accesses
        .iter()
        .filter_map(|(name, at)| {
            Some(Touch {
                name: name.to_string(),
                alone: tree.live(at, false)?,
                shared: tree.live(at, true)?,
            })
        })
        .collect();
    touches.sort_unstable();
    PartResources {
        engines,
        live: PartLive {
            ops: ops.len() as u32,
            tensors,
            touches,
        },
    }
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

/// The engine counts of a split kernel from its parts'.
pub(crate) fn join_engines<'a>(
    parts: impl IntoIterator<Item = &'a [EngineCount]>,
) -> Vec<EngineCount> {
    let mut engines = zero_counts();
    for part in parts {
        for (sum, count) in engines.iter_mut().zip(part) {
            sum.static_count += count.static_count;
            sum.executed = sum.executed.saturating_add(count.executed);
        }
    }
    engines
}

/// The position-free key of `kernel`: its on-chip tensors, ops and loops.
pub fn kernel_key<'db>(db: &'db dyn Db, kernel: &KernelItems) -> KernelKey<'db> {
    let Shape {
        tensors,
        ops,
        loops,
    } = shape(kernel);
    let ops: Vec<OpKey<'db>> = ops
        .iter()
        .map(|op| OpKey::new(db, op.resolved.clone()))
        .collect();
    KernelKey::new(db, tensors, ops, loops)
}

/// What the resources of a kernel are computed from (see [`KernelKey`]).
struct Shape<'a> {
    /// The on-chip tensors, in BIR order.
    tensors: Vec<Arc<Tensor>>,
    /// The ops in source order, loop bodies in place.
    ops: Vec<&'a OpItem>,
    /// The loops holding ops, as spans of op indices (see [`KernelKey::loops`]).
    loops: Vec<(u32, u32)>,
}

impl<'a> Shape<'a> {
    /// Each op with its lowering, `lowering` given the op's place and item; the first op
    /// it has none for ends the list.
    fn lowered<'l>(
        &self,
        mut lowering: impl FnMut(usize, &'a OpItem) -> Option<&'l Lowered>,
    ) -> Vec<(&'a ResolvedOp, &'l Lowered)> {
        self.ops
            .iter()
            .enumerate()
            .map_while(|(i, op)| Some((&*op.resolved, lowering(i, op)?)))
            .collect()
    }
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
                        // A loop without ops holds nothing live: left out, so that spans
                        // nest unambiguously.
                        loops.truncate(slot);
                    } else {
                        loops[slot].1 = end;
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

/// The op where a peak is reached, in the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PeakOp {
    /// Its op id (`#N` as written, else its ordinal, SPEC §3).
    pub op_id: u32,
    /// Its class as written.
    pub class: String,
    /// The range of its class name (UTF-8 bytes).
    pub range: TextRange,
}

/// A tensor live at a peak.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LiveTensor {
    /// Its name without `%`.
    pub name: String,
    /// Its per-partition footprint in bytes (SPEC §4).
    pub bytes: u64,
    /// Its declaration (the parameter or `tensor` statement, UTF-8 bytes).
    pub declaration: Option<TextRange>,
}

/// The peak occupancy of one memory of a kernel, in the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Peak {
    /// `sbuf` or `psum`.
    pub memory: Memory,
    /// Bytes per partition (see [`Occupancy::peak`]).
    pub bytes: u64,
    /// The memory's per-partition capacity in bytes (SPEC §4: 212,984 SBUF, 16,384 PSUM).
    pub capacity: u64,
    /// The first op where the peak is reached; `None` when the peak is 0.
    pub op: Option<PeakOp>,
    /// The (up to three) largest tensors live there, largest first.
    pub largest: Vec<LiveTensor>,
}

impl Peak {
    /// Whether the peak exceeds the capacity (P416).
    pub fn exceeds(&self) -> bool {
        self.bytes > self.capacity
    }
}

/// One kernel's resources with their places in the text (SPEC §10.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelStats {
    /// The kernel name without `@` (empty when missing).
    pub name: String,
    /// The `@name` (UTF-8 bytes); when the name is missing, the `kernel` keyword's place.
    pub name_range: TextRange,
    /// The kernel, from `kernel` to its `}`.
    pub range: TextRange,
    /// Per engine of [`ENGINES`], in that order, zeros included.
    pub engines: Vec<EngineCount>,
    /// SBUF peak.
    pub sbuf: Peak,
    /// PSUM peak.
    pub psum: Peak,
}

impl KernelStats {
    /// The peaks, SBUF first.
    pub fn peaks(&self) -> [&Peak; 2] {
        [&self.sbuf, &self.psum]
    }
}

/// The resources of every kernel of `file`, in source order (one per parsed kernel), with
/// ranges relative to the file's text. Each kernel's numbers come from the memoized
/// [`kernel_resources`] of its key; this query only places them.
#[salsa::tracked(returns(ref))]
pub fn kernel_stats(db: &dyn Db, file: SourceFile) -> Vec<KernelStats> {
    let items = file_items(db, file);
    let parsed = &parse(db, file).file;
    items
        .kernels
        .iter()
        .zip(&parsed.kernels)
        .map(|(kernel, syntax)| place(db, file, kernel, syntax))
        .collect()
}

fn place(db: &dyn Db, file: SourceFile, kernel: &KernelItems, syntax: &ast::Kernel) -> KernelStats {
    // A coarse file keeps no per-op memo: its kernels are computed here, from the file's
    // lowerings (see `SourceFile::coarse`); an edited one's come from their interned keys.
    let computed;
    let resources = if *file.coarse(db) {
        let shape = shape(kernel);
        let ops = shape.lowered(|_, op| Some(lowering(db, file, op)));
        computed = resources(&shape.tensors, &ops, &shape.loops);
        &computed
    } else {
        kernel_resources(db, kernel_key(db, kernel))
    };
    let mut ops: Vec<&OpItem> = Vec::new();
    crate::check::for_each_op(&kernel.body, &mut |op| ops.push(op));
    let tensors: HashMap<&str, u64> = kernel
        .allocations
        .iter()
        .filter_map(|a| match a {
            Allocation::Tensor(t) => Some((t.name.as_str(), t.partition_bytes())),
            Allocation::Register(_) => None,
        })
        .collect();
    let peak = |memory: Memory, occupancy: &Occupancy| Peak {
        memory,
        bytes: occupancy.peak,
        capacity: memory.partition_capacity().unwrap_or(u64::MAX),
        op: occupancy
            .op
            .and_then(|i| ops.get(i as usize))
            .map(|op| PeakOp {
                op_id: op.op_id,
                class: op.resolved.class.to_string(),
                range: op.syntax.class.range,
            }),
        largest: occupancy
            .largest
            .iter()
            .map(|(name, bytes)| LiveTensor {
                name: name.clone(),
                bytes: tensors.get(name.as_str()).copied().unwrap_or(*bytes),
                declaration: declaration(syntax, name),
            })
            .collect(),
    };
    let keyword = TextRange::at(syntax.range.start(), TextSize::from(6)).intersect(syntax.range);
    KernelStats {
        name: kernel.name.clone(),
        name_range: syntax
            .name
            .as_ref()
            .map(|n| n.range)
            .or(keyword)
            .unwrap_or(syntax.range),
        range: syntax.range,
        engines: resources.engines.clone(),
        sbuf: peak(Memory::Sbuf, &resources.sbuf),
        psum: peak(Memory::Psum, &resources.psum),
    }
}

/// The declaration of tensor `name` in `kernel`: the parameter (name to type) or the
/// `tensor` statement (loop bodies included); the first one, as resolution keeps it.
pub(crate) fn declaration(kernel: &ast::Kernel, name: &str) -> Option<TextRange> {
    fn in_stmts(stmts: &[ast::Stmt], name: &str) -> Option<TextRange> {
        stmts.iter().find_map(|s| match s {
            ast::Stmt::Tensor(t) if t.name.as_ref().is_some_and(|n| n.text == name) => {
                Some(t.range)
            }
            ast::Stmt::Loop(l) => in_stmts(&l.body, name),
            _ => None,
        })
    }
    kernel
        .params
        .iter()
        .chain(&kernel.outputs)
        .find(|p| p.name.text == name)
        .map(|p| p.range)
        .or_else(|| in_stmts(&kernel.body, name))
}

/// P416 (SPEC §10.1 [2]) of one kernel: a warning on its name for each memory whose peak
/// exceeds the capacity, giving the peak and capacity in bytes and the op where it is
/// reached; related: that op's class name and the declarations of the (up to three)
/// largest tensors live there. Not when a tensor live there exceeds the capacity alone:
/// that is its declaration's P304, and one mistake gives one diagnostic (SPEC §7;
/// docs/decisions.md).
pub fn p416(stats: &KernelStats) -> Vec<Diagnostic> {
    stats
        .peaks()
        .into_iter()
        .filter(|peak| peak.exceeds())
        .filter(|peak| peak.largest.first().is_none_or(|t| t.bytes <= peak.capacity))
        .map(|peak| {
            let memory = peak.memory.name().to_uppercase();
            let at = peak
                .op
                .as_ref()
                .map(|op| format!(" at op #{} `{}`", op.op_id, op.class))
                .unwrap_or_default();
            let mut diagnostic = Diagnostic::new(
                Code::P416,
                stats.name_range,
                format!(
                    "peak {memory} occupancy {} bytes per partition exceeds the capacity of {} bytes{at}",
                    group(peak.bytes),
                    group(peak.capacity)
                ),
            );
            if let Some(op) = &peak.op {
                diagnostic = diagnostic.with_related(
                    op.range,
                    format!("{memory} peak of {} bytes reached here", group(peak.bytes)),
                );
            }
            for tensor in &peak.largest {
                if let Some(declaration) = tensor.declaration {
                    diagnostic = diagnostic.with_related(
                        declaration,
                        format!(
                            "`%{}` is live there: {} bytes per partition",
                            tensor.name,
                            group(tensor.bytes)
                        ),
                    );
                }
            }
            diagnostic
        })
        .collect()
}

/// An executed count as shown: with thousands separators, and `≥ ` before it when it
/// reached `u64::MAX` (executed counts saturate there: loop trip counts multiply).
pub fn group_executed(n: u64) -> String {
    if n == u64::MAX {
        format!("≥ {}", group(n))
    } else {
        group(n)
    }
}

/// `n` with a comma every three digits (`212,984`).
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
