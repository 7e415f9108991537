//! Kernels cut into chunks (issue 9, `docs/scale.md`): what a chunk that starts inside a
//! kernel must know of the kernel's earlier chunks ([`Entry`]), made from small,
//! position-free per-chunk queries ([`outline`], [`mentions`]) so that editing an op changes
//! no other chunk's entry.
//!
//! A kernel of at least [`SPLIT_FACTOR`] chunk targets is cut at statement lines directly in
//! its body (`syntax::cuts`): its first chunk holds the header and [`syntax::Kernel::goes_on`],
//! the others [`syntax::Kernel::continues`]. Each chunk is resolved alone with its entry: the
//! first definition, in the kernel before it, of each name its text mentions.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use lower::model::OpSettings;
use syntax::ast;

use crate::db::{Db, SourceFile, parse};
use crate::kernel::SplitKernel;
use crate::resolve::{self, Entry, PreludeDef};

/// The item of a split kernel's part among a chunk's per-kernel `items` (one per kernel of
/// the chunk, or per split part, in order): the last of the kernel's first chunk (`head`:
/// the kernel starts there and goes on), the first of the others (the kernel continues
/// there).
pub fn kernel_part<T>(items: &[T], head: bool) -> Option<&T> {
    if head { items.last() } else { items.first() }
}

/// A kernel this many chunk targets long or longer is cut inside (at statement lines of its
/// body); shorter kernels stay whole in their chunk.
pub const SPLIT_FACTOR: usize = 8;

/// What a chunk defines for the chunks after it that continue its last kernel: nothing
/// unless that kernel goes on ([`syntax::Kernel::goes_on`]). Position-free: an edit that
/// changes no declaration leaves it equal, and no entry after it changes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Outline {
    /// The kernel's name, when this chunk holds its header (else empty).
    pub kernel: String,
    /// Its parameters and declarations in this chunk, in source order (every one, also
    /// a name defined twice: the kernel's first definition is the first in chunk order).
    pub defs: Vec<PreludeDef>,
    /// Its loops in this chunk: each variable name with how many loops use it, by name.
    pub loops: Vec<(String, u32)>,
}

/// The [`Outline`] of `file`'s last kernel, if it goes on into the next chunk.
#[salsa::tracked(returns(ref))]
pub fn outline(db: &dyn Db, file: SourceFile) -> Outline {
    let parse = parse(db, file);
    let Some(kernel) = parse.file.kernels.last().filter(|k| k.goes_on) else {
        return Outline::default();
    };
    let mut out = Outline {
        kernel: kernel
            .name
            .as_ref()
            .map(|n| n.text.to_string())
            .unwrap_or_default(),
        defs: resolve::declarations(kernel, settings(db)),
        loops: Vec::new(),
    };
    let mut loops: HashMap<String, u32> = HashMap::default();
    count_loops(&kernel.body, &mut loops);
    out.loops = loops.into_iter().collect();
    out.loops.sort_unstable();
    out
}

fn settings(db: &dyn Db) -> OpSettings {
    OpSettings {
        tkg_seqlen_threshold: db.settings().tkg_seqlen_threshold(db),
    }
}

fn count_loops(body: &[ast::Stmt], out: &mut HashMap<String, u32>) {
    for stmt in body {
        if let ast::Stmt::Loop(lp) = stmt {
            let name = lp
                .var
                .as_ref()
                .map(|v| v.text.to_string())
                .unwrap_or_default();
            *out.entry(name).or_default() += 1;
            count_loops(&lp.body, out);
        }
    }
}

/// The names (`%name`, without `%`) that `file`'s text mentions, sorted, each once.
#[salsa::tracked(returns(ref))]
pub fn mentions(db: &dyn Db, file: SourceFile) -> Arc<[String]> {
    let text = file.text(db);
    let (tokens, _) = syntax::lex(text);
    let mut names: Vec<String> = tokens
        .iter()
        .filter(|(kind, _)| *kind == syntax::Token::Local)
        .map(|(_, range)| text[*range].trim_start_matches('%').to_string())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.into()
}

/// The definitions of a split kernel's chunks, joined: for each name, the chunk (index
/// among the kernel's chunks) and the definition that defines it first; for each loop
/// variable name, the running count of its loops after each chunk that has some.
#[derive(Debug, Default)]
pub struct KernelIndex {
    /// The kernel's name.
    pub kernel: String,
    defs: HashMap<String, (usize, PreludeDef)>,
    loops: HashMap<String, Vec<(usize, u32)>>,
    /// The first definitions in scope after their chunk (see [`PreludeDef::visible`]), in
    /// source order, each with its chunk (index among the kernel's).
    visible: Vec<(String, usize)>,
    /// The outlines pushed.
    chunks: usize,
}

impl KernelIndex {
    /// The index of a kernel's chunks (their outlines, in order, the first with the
    /// header).
    pub fn new<'a>(outlines: impl IntoIterator<Item = &'a Outline>) -> KernelIndex {
        let mut index = KernelIndex::default();
        for outline in outlines {
            index.push(outline);
        }
        index
    }

    /// Adds the outline of the kernel's next chunk (the first: the one with the header).
    /// The entry of a chunk reads the outlines before it only: an index of the first `n`
    /// chunks gives the entries of the first `n + 1`.
    pub fn push(&mut self, outline: &Outline) {
        let i = self.chunks;
        self.chunks += 1;
        if i == 0 {
            self.kernel = outline.kernel.clone();
        }
        for def in &outline.defs {
            if let std::collections::hash_map::Entry::Vacant(slot) =
                self.defs.entry(def.name.clone())
            {
                slot.insert((i, def.clone()));
                if def.visible {
                    self.visible.push((def.name.clone(), i));
                }
            }
        }
        for (name, count) in &outline.loops {
            let counts = self.loops.entry(name.clone()).or_default();
            let before = counts.last().map_or(0, |c| c.1);
            counts.push((i, before + count));
        }
    }

    /// The names in scope where the kernel's `i`-th chunk starts, in source order (the
    /// candidates of its P200 "did you mean").
    pub fn visible_before(&self, i: usize) -> impl Iterator<Item = &str> {
        self.visible
            .iter()
            .take_while(move |(_, at)| *at < i)
            .map(|(name, _)| name.as_str())
    }

    /// The chunk (index among the kernel's) that first defines `name`.
    pub fn home(&self, name: &str) -> Option<usize> {
        self.defs.get(name).map(|(at, _)| *at)
    }

    /// The entry of the kernel's `i`-th chunk (0-based; `i > 0`), which mentions `mentions`.
    pub fn entry(&self, i: usize, mentions: &[String]) -> Entry {
        let mut entry = Entry {
            kernel: self.kernel.clone(),
            ..Entry::default()
        };
        for name in mentions {
            if let Some((at, def)) = self.defs.get(name)
                && *at < i
            {
                entry.prelude.push(def.clone());
            }
            if let Some(counts) = self.loops.get(name) {
                let before = counts.partition_point(|c| c.0 < i);
                if before > 0 {
                    entry.loops.push((name.clone(), counts[before - 1].1));
                }
            }
        }
        entry
    }
}

/// The kernel's part in the `i`-th of its `chunks`, as `query` summarizes it: the last
/// kernel of its first chunk, the first kernel of the others.
fn part_of<'a, T>(
    db: &'a dyn Db,
    chunks: &[SourceFile],
    i: usize,
    query: fn(&'a dyn Db, SourceFile) -> &'a Vec<T>,
) -> Option<&'a T> {
    let flows = query(db, chunks[i]);
    crate::split::kernel_part(flows, i == 0)
}

/// The kernel's parts, one per chunk (first to last), as `query` summarizes them
/// ([`part_of`]).
fn kernel_parts<'a, T>(
    db: &'a dyn Db,
    kernel: SplitKernel<'a>,
    query: fn(&'a dyn Db, SourceFile) -> &'a Vec<T>,
) -> Vec<&'a T> {
    let chunks = kernel.chunks(db);
    (0..chunks.len())
        .filter_map(|i| part_of(db, chunks, i, query))
        .collect()
}

/// The [`crate::resources::PartResources`] of each split kernel's part in `file`, as
/// [`parts`] lists them.
#[salsa::tracked(returns(ref))]
pub fn part_resources(db: &dyn Db, file: SourceFile) -> Vec<crate::resources::PartResources> {
    let items = crate::db::file_items(db, file);
    items
        .kernels
        .iter()
        .filter(|k| k.is_split())
        .map(|kernel| {
            let mut lowered = Vec::new();
            crate::check::for_each_op(&kernel.body, &mut |op| {
                lowered.push(crate::db::lowering(db, file, op));
            });
            crate::resources::part_resources(kernel, &lowered)
        })
        .collect()
}

/// The resources of a split kernel (SPEC §10.1), joined from its parts': the engine counts
/// summed, the occupancy from [`split_occupancy`] (memoized apart: an edit that changes an
/// op's instructions but no live range sums the counts again, nothing more).
#[salsa::tracked(returns(ref))]
pub fn split_resources<'db>(
    db: &'db dyn Db,
    kernel: SplitKernel<'db>,
) -> crate::resources::Resources {
    let engines = crate::resources::join_engines(
        kernel_parts(db, kernel, part_resources)
            .into_iter()
            .map(|p| p.engines.as_slice()),
    );
    let (sbuf, psum) = split_occupancy(db, kernel).clone();
    crate::resources::Resources {
        engines,
        sbuf,
        psum,
    }
}

/// The parts' live-range summaries of `file` ([`crate::resources::PartLive`], as
/// [`part_resources`] lists them): what [`split_occupancy`] depends on.
#[salsa::tracked(returns(ref))]
pub fn part_live(db: &dyn Db, file: SourceFile) -> Vec<crate::resources::PartLive> {
    part_resources(db, file)
        .iter()
        .map(|p| p.live.clone())
        .collect()
}

/// Where a split kernel's occupancy of one memory peaks ([`split_peaks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SplitPeak {
    /// The peak, in bytes per partition (0: nothing is ever live).
    pub bytes: u64,
    /// The first op (0-based in the kernel) where it is reached, with the part (index
    /// among the kernel's chunks) and the op's place in it; `None` when `bytes` is 0.
    pub at: Option<(u32, usize, u32)>,
}

/// The SBUF and PSUM peaks of a split kernel, from its parts': the peak of each part
/// ([`part_peak`], with the bytes of the tensors live through it), the first of the
/// highest. An edit in one part recomputes that part's peak and this O(parts) join, not
/// the kernel's live ranges; what P416 reads (the tensors live at the peak,
/// [`split_occupancy`], only when a peak is over its memory's capacity).
#[salsa::tracked(returns(ref))]
pub fn split_peaks<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> [SplitPeak; 2] {
    let ops: Vec<u32> = kernel_parts(db, kernel, part_live)
        .into_iter()
        .map(|live| live.ops)
        .collect();
    let through = &tensor_spans(db, kernel).through;
    let peak = |m: usize| {
        let mut base = 0u32;
        let mut best = SplitPeak::default();
        for (p, &ops) in ops.iter().enumerate() {
            let key = PartKey::new(db, kernel, p as u32);
            let (local, at) = part_peak(db, key)[m];
            if ops > 0 {
                let bytes = through[m].get(p).copied().unwrap_or(0) + local;
                if bytes > best.bytes {
                    best = SplitPeak {
                        bytes,
                        at: Some((base + at, p, at)),
                    };
                }
            }
            base += ops;
        }
        best
    };
    [peak(0), peak(1)]
}

/// The SBUF and PSUM occupancy of a split kernel: its [`split_peaks`], and the largest
/// tensors live at each (O(the kernel's tensors)).
#[salsa::tracked(returns(ref))]
pub fn split_occupancy<'db>(
    db: &'db dyn Db,
    kernel: SplitKernel<'db>,
) -> (crate::resources::Occupancy, crate::resources::Occupancy) {
    use lower::types::Memory;
    let chunks = kernel.chunks(db);
    let spans = tensor_spans(db, kernel);
    let peaks = split_peaks(db, kernel);
    let occupancy = |memory: Memory, m: usize| {
        let SplitPeak {
            bytes: peak,
            at: Some((op, p, at)),
        } = peaks[m]
        else {
            return crate::resources::Occupancy {
                peak: 0,
                op: None,
                largest: Vec::new(),
            };
        };
        let Some(live) = part_of(db, chunks, p, part_live) else {
            return crate::resources::Occupancy {
                peak,
                op: Some(op),
                largest: Vec::new(),
            };
        };
        let touches: HashMap<&str, &crate::resources::Touch> =
            live.touches.iter().map(|t| (t.name.as_str(), t)).collect();
        let largest = crate::resources::largest_at(
            &spans.tensors,
            |t, (first, last)| match (first, last) {
                _ if first == usize::MAX => true,
                (f, l) if f < p && p < l => true,
                (f, l) if f == p || l == p => touches
                    .get(spans.tensors[t].name.as_str())
                    .is_some_and(|x| {
                        let (lo, hi) = local_range(x, f, l, p, live.ops);
                        lo <= at && at <= hi
                    }),
                _ => false,
            },
            &spans.spans,
            memory,
        );
        crate::resources::Occupancy {
            peak,
            op: Some(op),
            largest,
        }
    };
    (occupancy(Memory::Sbuf, 0), occupancy(Memory::Psum, 1))
}

/// The range (0-based op indices of part `p`, inclusive) where `touch` is live in that
/// part, the tensor being named from part `first` to part `last`: its range alone when no
/// other part names it; else from the part's start when an earlier part names it, to its
/// end when a later one does, widened as a tensor named elsewhere is.
fn local_range(
    touch: &crate::resources::Touch,
    first: usize,
    last: usize,
    p: usize,
    ops: u32,
) -> (u32, u32) {
    if first == last {
        return touch.alone;
    }
    let lo = if first < p { 0 } else { touch.shared.0 };
    let hi = if last > p {
        ops.saturating_sub(1)
    } else {
        touch.shared.1
    };
    (lo, hi)
}

pub use part_key::PartKey;

mod part_key {
    // salsa's macros generate constructors and getters without doc comments.
    #![allow(missing_docs)]

    use super::SplitKernel;

    /// One part of a split kernel: the kernel and the index of the chunk among its chunks.
    #[salsa::interned(debug)]
    pub struct PartKey<'db> {
        pub kernel: SplitKernel<'db>,
        pub part: u32,
    }
}

/// Where a split kernel's on-chip tensors are named, position-free: a function of its
/// parts' declarations and of the names their ops name, not of where ops stand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    /// The kernel's on-chip tensors, in BIR order.
    pub tensors: Vec<std::sync::Arc<lower::model::Tensor>>,
    /// At each tensor's place: the first and last part that name it (`(usize::MAX, _)`
    /// for a parameter, live everywhere; `None`: named nowhere).
    pub spans: Vec<Option<(usize, usize)>>,
    /// For SBUF then PSUM, at each part's place: the bytes per partition of the tensors
    /// live through the whole part (parameters, and tensors named before and after it).
    pub through: [Vec<u64>; 2],
    /// Each tensor's place in `tensors`, by name.
    pub index: HashMap<String, usize>,
}

/// The [`Spans`] of a split kernel.
#[salsa::tracked(returns(ref))]
pub fn tensor_spans<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> Spans {
    use lower::model::TensorKind;
    use lower::types::Memory;
    let names = kernel_parts(db, kernel, part_touched);
    let tensors: Vec<std::sync::Arc<lower::model::Tensor>> = names
        .iter()
        .flat_map(|p| p.tensors.iter().cloned())
        .collect();
    let mut named: HashMap<&str, (usize, usize)> = HashMap::default();
    for (p, part) in names.iter().enumerate() {
        for name in &part.touched {
            named
                .entry(name.as_str())
                .and_modify(|span| span.1 = p)
                .or_insert((p, p));
        }
    }
    let parts = names.len();
    let spans: Vec<Option<(usize, usize)>> = tensors
        .iter()
        .map(|t| {
            if t.kind != TensorKind::Internal {
                Some((usize::MAX, usize::MAX))
            } else {
                named.get(t.name.as_str()).copied()
            }
        })
        .collect();
    let through = [Memory::Sbuf, Memory::Psum].map(|memory| {
        // A difference array over the parts.
        let mut delta = vec![0i128; parts + 1];
        for (t, span) in tensors.iter().zip(&spans) {
            if t.memory != memory {
                continue;
            }
            let bytes = i128::from(t.partition_bytes());
            match *span {
                Some((usize::MAX, _)) => {
                    delta[0] += bytes;
                    delta[parts] -= bytes;
                }
                Some((first, last)) if last > first + 1 => {
                    delta[first + 1] += bytes;
                    delta[last] -= bytes;
                }
                _ => {}
            }
        }
        let mut sum = 0i128;
        delta[..parts]
            .iter()
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
    }
}

/// A part's on-chip tensors and the names its ops name: what [`tensor_spans`] reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartNames {
    /// The on-chip tensors it allocates, in BIR order.
    pub tensors: Vec<std::sync::Arc<lower::model::Tensor>>,
    /// The on-chip tensors its ops name, by name.
    pub touched: Vec<String>,
}

/// The [`PartNames`] of each split kernel's part in `file`.
#[salsa::tracked(returns(ref))]
pub fn part_touched(db: &dyn Db, file: SourceFile) -> Vec<PartNames> {
    part_live(db, file)
        .iter()
        .map(|p| PartNames {
            tensors: p.tensors.clone(),
            touched: p.touches.iter().map(|t| t.name.clone()).collect(),
        })
        .collect()
}

/// The peak of a part of a split kernel, for SBUF then PSUM, without the tensors live
/// through it ([`Spans::through`]): the largest sum of the bytes of the tensors named in
/// the part and live at one of its ops (ranges per [`local_range`]), and the first op
/// (0-based in the part) where it is reached (0 when nothing is).
#[salsa::tracked(returns(ref))]
pub fn part_peak<'db>(db: &'db dyn Db, key: PartKey<'db>) -> [(u64, u32); 2] {
    use lower::types::Memory;
    let kernel = *key.kernel(db);
    let p = *key.part(db) as usize;
    let Some(live) = part_of(db, kernel.chunks(db), p, part_live) else {
        return [(0, 0); 2];
    };
    let sides = touch_sides(db, key);
    [Memory::Sbuf, Memory::Psum].map(|memory| {
        let mut events: Vec<(u32, i128)> = Vec::new();
        for (touch, side) in live.touches.iter().zip(sides) {
            let Some((tensor, before, after)) = side else {
                continue;
            };
            if tensor.memory != memory || (*before && *after) {
                continue;
            }
            // As `local_range` reads them: this part is 1, an earlier 0, a later 2.
            let (first, last) = (usize::from(!*before), 1 + usize::from(*after));
            let (lo, hi) = local_range(touch, first, last, 1, live.ops);
            let bytes = i128::from(tensor.partition_bytes());
            events.push((lo, bytes));
            events.push((hi + 1, -bytes));
        }
        crate::resources::sweep(&mut events)
    })
}

/// Of each tensor a part's ops name ([`crate::resources::PartLive::touches`], in order):
/// the tensor, and whether an earlier part and a later part of the kernel name it too
/// (`None`: not an on-chip tensor of the kernel, or a parameter, live everywhere). What
/// [`part_peak`] reads of the whole kernel's [`Spans`]: it changes for few parts when a
/// tensor's first or last part changes.
#[salsa::tracked(returns(ref))]
#[allow(clippy::type_complexity)]
fn touch_sides<'db>(
    db: &'db dyn Db,
    key: PartKey<'db>,
) -> Vec<Option<(std::sync::Arc<lower::model::Tensor>, bool, bool)>> {
    let kernel = *key.kernel(db);
    let p = *key.part(db) as usize;
    let Some(live) = part_of(db, kernel.chunks(db), p, part_live) else {
        return Vec::new();
    };
    let spans = tensor_spans(db, kernel);
    live.touches
        .iter()
        .map(|touch| {
            let t = *spans.index.get(touch.name.as_str())?;
            let (first, last) = spans.spans[t]?;
            (first != usize::MAX).then(|| (spans.tensors[t].clone(), first < p, last > p))
        })
        .collect()
}
