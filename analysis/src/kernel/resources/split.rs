//! The resources of a kernel cut into chunks, joined over its parts through a two-level
//! tree: the parts in groups of [`GROUP_PARTS`] ([`PartGroup`], each group's counts and
//! peaks memoized), the groups joined in order. An edit in one part re-joins its group's
//! [`GROUP_PARTS`] parts and the kernel's groups: at 100,000 ops (about 1,100 parts of
//! 16 KiB chunks) some 70 memo reads instead of some 4,000, and a salsa memo whose
//! dependencies are bounded the same way.

use crate::cost::CostSums;
use crate::db::{Db, SourceFile};
use crate::kernel::SplitKernel;
use crate::kernel::view::KernelSlot;
use crate::resources::{EngineCount, Occupancy, Resources};
use lower::types::Memory;

use super::{
    KernelPeak, PartPeak, PeakAt, Side, Spans, join_engines, occupancy, part_live, part_names,
    part_peak, part_resources, part_series, peaks, sides, spans,
};

/// Parts per [`PartGroup`]: a group re-joins this many parts' memos after an edit in one
/// of them, the kernel's join one memo per group.
pub const GROUP_PARTS: u32 = 32;

/// The occupancy at each op of a kernel cut into chunks: its parts' series in order.
pub fn split_series<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> [Vec<u64>; 2] {
    let spans = split_spans(db, kernel);
    let mut out: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    for (p, live) in kernel.each(db, part_live).into_iter().enumerate() {
        let through = spans
            .through
            .each_ref()
            .map(|t| t.get(p).copied().unwrap_or(0));
        let part = part_series(
            live,
            split_sides(db, PartKey::new(db, kernel, p as u32)),
            through,
        );
        for (all, part) in out.iter_mut().zip(part) {
            all.extend(part);
        }
    }
    out
}

/// The resources of a kernel cut into chunks, joined from its groups' ([`group_counts`]):
/// the engine counts and cost sums added, the occupancy from [`split_peaks`] (memoized
/// apart: an edit that changes an op's instructions but no live range adds the counts
/// again, nothing more).
#[salsa::tracked(returns(ref))]
pub fn split_resources<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> Resources {
    let groups: Vec<&GroupCounts> = PartGroup::all(db, kernel)
        .map(|group| group_counts(db, group))
        .collect();
    let engines = join_engines(groups.iter().map(|g| g.engines.as_slice()));
    let mut cost = CostSums::default();
    for group in &groups {
        cost.join(&group.cost);
    }
    let (sbuf, psum) = split_occupancy(db, kernel).clone();
    Resources {
        engines,
        cost,
        sbuf,
        psum,
    }
}

/// The engine counts and cost sums of a group of parts (see [`split_resources`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupCounts {
    /// Every engine of [`crate::resources::ENGINES`], in that order, summed over the
    /// group's parts.
    pub engines: Vec<EngineCount>,
    /// The group's parts' cost estimates, joined in part order.
    pub cost: CostSums,
}

/// The counts of `group`'s parts joined.
#[salsa::tracked(returns(ref))]
pub fn group_counts<'db>(db: &'db dyn Db, group: PartGroup<'db>) -> GroupCounts {
    let kernel = *group.kernel(db);
    let parts: Vec<_> = group
        .parts(db)
        .filter_map(|p| part_of(db, kernel, p, part_resources))
        .collect();
    let mut cost = CostSums::default();
    for part in &parts {
        cost.join(&part.cost);
    }
    GroupCounts {
        engines: join_engines(parts.iter().map(|p| p.engines.as_slice())),
        cost,
    }
}

/// The [`Spans`] of a kernel cut into chunks.
#[salsa::tracked(returns(ref))]
pub fn split_spans<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> Spans {
    spans(&kernel.each(db, part_names))
}

/// The SBUF and PSUM peaks of a kernel cut into chunks ([`peaks`]), joined from its
/// groups' ([`group_peaks`]): the first of the highest. What P416 reads first: the tensors
/// live at the peak ([`split_occupancy`]) only when a peak is over its memory's capacity.
#[salsa::tracked(returns(ref))]
pub fn split_peaks<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> [KernelPeak; 2] {
    let mut best = [KernelPeak::default(); 2];
    let mut base = 0u32;
    for group in PartGroup::all(db, kernel) {
        let group = group_peaks(db, group);
        for (best, peak) in best.iter_mut().zip(group.peaks) {
            if let Some(at) = peak.at
                && peak.bytes > best.bytes
            {
                *best = KernelPeak {
                    bytes: peak.bytes,
                    at: Some(PeakAt {
                        op: base.saturating_add(at.op),
                        ..at
                    }),
                };
            }
        }
        base = base.saturating_add(group.ops);
    }
    best
}

/// The peaks of a group of parts, and its ops (see [`group_peaks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupPeaks {
    /// The group's ops.
    pub ops: u32,
    /// Its SBUF and PSUM peaks: the part where each is first reached by its index in the
    /// kernel, the op by its index in the group's ops.
    pub peaks: [KernelPeak; 2],
}

/// The peaks of `group`'s parts: each part's own peak ([`split_part_peak`]) plus the bytes
/// live through it ([`Spans::through`]), the first of the highest.
#[salsa::tracked(returns(ref))]
pub fn group_peaks<'db>(db: &'db dyn Db, group: PartGroup<'db>) -> GroupPeaks {
    let kernel = *group.kernel(db);
    let parts = group.parts(db);
    let first = parts.start;
    let ops: Vec<u32> = parts
        .clone()
        .map(|p| part_of(db, kernel, p, part_live).map_or(0, |live| live.ops))
        .collect();
    let through = split_spans(db, kernel)
        .through
        .each_ref()
        .map(|t| t.get(parts.clone()).unwrap_or_default().to_vec());
    let mut peaks = peaks(&ops, &through, |i| {
        *split_part_peak(db, PartKey::new(db, kernel, (first + i) as u32))
    });
    for peak in &mut peaks {
        if let Some(at) = &mut peak.at {
            at.part += first;
        }
    }
    GroupPeaks {
        ops: ops.iter().fold(0u32, |sum, &n| sum.saturating_add(n)),
        peaks,
    }
}

/// The SBUF and PSUM occupancy of a kernel cut into chunks: its [`split_peaks`], and the
/// largest tensors live at each (O(the kernel's tensors)).
#[salsa::tracked(returns(ref))]
pub fn split_occupancy<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> (Occupancy, Occupancy) {
    let spans = split_spans(db, kernel);
    let [sbuf, psum] = *split_peaks(db, kernel);
    let live = |peak: KernelPeak| {
        peak.at
            .and_then(|at| part_of(db, kernel, at.part, part_live))
    };
    (
        occupancy(sbuf, spans, live(sbuf), Memory::Sbuf),
        occupancy(psum, spans, live(psum), Memory::Psum),
    )
}

/// Part `p` of a kernel cut into chunks, as `query` summarizes it.
fn part_of<'db, T>(
    db: &'db dyn Db,
    kernel: SplitKernel<'db>,
    p: usize,
    query: fn(&'db dyn Db, SourceFile) -> &'db Vec<T>,
) -> Option<&'db T> {
    let chunk = *kernel.chunks(db).get(p)?;
    let slot = if p == 0 {
        KernelSlot::Last
    } else {
        KernelSlot::At(0)
    };
    slot.of(query(db, chunk))
}

pub use keys::{PartGroup, PartKey};

mod keys {
    // salsa's macros generate constructors and getters without doc comments.
    #![allow(missing_docs)]

    use crate::kernel::SplitKernel;

    /// One part of a kernel cut into chunks: the kernel and the part's index.
    #[salsa::interned(debug)]
    pub struct PartKey<'db> {
        pub kernel: SplitKernel<'db>,
        pub part: u32,
    }

    /// The `group`-th run of [`super::GROUP_PARTS`] parts of a kernel cut into chunks
    /// (the last may be shorter).
    #[salsa::interned(debug)]
    pub struct PartGroup<'db> {
        pub kernel: SplitKernel<'db>,
        pub group: u32,
    }
}

impl<'db> PartGroup<'db> {
    /// The groups of `kernel`'s parts, in order.
    pub fn all(
        db: &'db dyn Db,
        kernel: SplitKernel<'db>,
    ) -> impl Iterator<Item = PartGroup<'db>> + 'db {
        let parts = u32::try_from(kernel.chunks(db).len()).unwrap_or(u32::MAX);
        (0..parts.div_ceil(GROUP_PARTS)).map(move |g| PartGroup::new(db, kernel, g))
    }

    /// Its parts' indices in the kernel.
    pub fn parts(self, db: &'db dyn Db) -> std::ops::Range<usize> {
        let count = self.kernel(db).chunks(db).len();
        let start = (*self.group(db) as usize).saturating_mul(GROUP_PARTS as usize);
        start.min(count)..start.saturating_add(GROUP_PARTS as usize).min(count)
    }
}

/// A part's own peak ([`part_peak`]) in a kernel cut into chunks.
#[salsa::tracked(returns(ref))]
pub fn split_part_peak<'db>(db: &'db dyn Db, key: PartKey<'db>) -> [PartPeak; 2] {
    let kernel = *key.kernel(db);
    let p = *key.part(db) as usize;
    let Some(live) = part_of(db, kernel, p, part_live) else {
        return [PartPeak::default(); 2];
    };
    part_peak(live, split_sides(db, key))
}

/// A part's [`sides`] in a kernel cut into chunks.
#[salsa::tracked(returns(ref))]
pub fn split_sides<'db>(db: &'db dyn Db, key: PartKey<'db>) -> Vec<Option<Side>> {
    let kernel = *key.kernel(db);
    let p = *key.part(db) as usize;
    let Some(live) = part_of(db, kernel, p, part_live) else {
        return Vec::new();
    };
    sides(live, split_spans(db, kernel), p)
}
