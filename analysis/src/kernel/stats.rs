//! A kernel's resources placed in the text ([`KernelStats`], SPEC §10.1): its name, its
//! range, the op where each peak is first reached and the declarations of the largest
//! tensors live there, found through its parts' places. One placement for every kernel:
//! [`kernel_stats`] places a chunk's whole kernels in the chunk, the document places a
//! kernel cut into chunks across them.

use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items};
use crate::kernel::resources::{part_resources, whole_resources};
use crate::kernel::summary::{PartIds, PartPlaces, part_ids, parts};
use crate::resources::{KernelStats, LiveTensor, Occupancy, Peak, PeakOp, Resources};
use lower::target::Target;
use lower::types::Memory;

/// A part of a kernel as its stats are placed: its places and op ids, and the offset its
/// places are shifted by (its chunk's start in the document, or 0 within the chunk).
#[derive(Clone, Copy, Debug)]
pub struct PlacedPart<'a> {
    /// Its places (relative to its chunk).
    pub places: &'a PartPlaces,
    /// Its ops and written ids.
    pub ids: &'a PartIds,
    /// Added to its places.
    pub start: TextSize,
}

/// The stats on `target` of the kernel named `name` (without `@`) whose resources are
/// `resources` and whose parts are `parts` (head first; at least one).
pub fn stats(
    name: String,
    resources: &Resources,
    parts: &[PlacedPart<'_>],
    target: Target,
) -> KernelStats {
    let (Some(head), Some(tail)) = (parts.first(), parts.last()) else {
        return KernelStats {
            name,
            name_range: TextRange::default(),
            range: TextRange::default(),
            engines: resources.engines.clone(),
            sbuf: peak(Memory::Sbuf, &resources.sbuf, parts, target),
            psum: peak(Memory::Psum, &resources.psum, parts, target),
            cost: resources.cost.on(target),
        };
    };
    let start = head.places.range.start() + head.start;
    let end = (tail.places.range.end() + tail.start).max(start);
    KernelStats {
        name,
        name_range: head.places.name + head.start,
        range: TextRange::new(start, end),
        engines: resources.engines.clone(),
        sbuf: peak(Memory::Sbuf, &resources.sbuf, parts, target),
        psum: peak(Memory::Psum, &resources.psum, parts, target),
        cost: resources.cost.on(target),
    }
}

/// The placed peak of `memory`.
fn peak(memory: Memory, occupancy: &Occupancy, parts: &[PlacedPart<'_>], target: Target) -> Peak {
    Peak {
        memory,
        bytes: occupancy.peak,
        capacity: target.capacity(memory).unwrap_or(u64::MAX),
        op: occupancy.op.and_then(|op| peak_op(op, parts)),
        largest: occupancy
            .largest
            .iter()
            .map(|(name, bytes)| LiveTensor {
                name: name.clone(),
                bytes: *bytes,
                declaration: parts.iter().find_map(|part| {
                    let declaration = part.places.declaration(name)?;
                    Some(declaration.range + part.start)
                }),
            })
            .collect(),
    }
}

/// The kernel's `index`-th op (0-based) as a peak's op: its id (written, else its
/// 1-based ordinal in the kernel) and class name.
fn peak_op(index: u32, parts: &[PlacedPart<'_>]) -> Option<PeakOp> {
    let mut local = index;
    for part in parts {
        if local < part.ids.ops {
            let written = part.ids.written.iter().find(|w| w.op == local);
            let class = part.places.classes.get(local as usize)?;
            return Some(PeakOp {
                op_id: written.map_or(index + 1, |w| w.id),
                class: class.text.to_string(),
                range: class.range + part.start,
            });
        }
        local -= part.ids.ops;
    }
    None
}

/// The stats of each kernel whole in `file` (one part), in source order, placed relative
/// to the file; `None` at the place of a part of a kernel cut into chunks (the document
/// joins those).
#[salsa::tracked(returns(ref))]
pub fn kernel_stats(db: &dyn Db, file: SourceFile) -> Vec<Option<KernelStats>> {
    let items = file_items(db, file);
    let parts = parts(db, file);
    let ids = part_ids(db, file);
    let resources = part_resources(db, file);
    let target = db.settings().target(db);
    items
        .kernels
        .iter()
        .zip(parts.iter().zip(ids))
        .zip(resources)
        .map(|((kernel, (part, ids)), resources)| {
            if kernel.is_split() {
                return None;
            }
            let placed = PlacedPart {
                places: &part.places,
                ids,
                start: TextSize::from(0),
            };
            Some(stats(
                kernel.name.clone(),
                &whole_resources(resources),
                &[placed],
                target,
            ))
        })
        .collect()
}
