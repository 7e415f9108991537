//! A kernel's resources placed in the text ([`KernelStats`], SPEC §10.1): its name, its
//! range, the op where each peak is first reached and the declarations of the largest
//! tensors live there, found through its parts' places. One placement for every kernel:
//! [`kernel_stats`] places a chunk's whole kernels in the chunk, the document places a
//! kernel cut into chunks across them.

use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items};
use crate::kernel::resources::{PeakAt, part_resources, whole_resources};
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
/// `resources` and which has `parts` parts (at least one), each found by `part` (its index
/// among the kernel's parts, head first): only the head, the tail and the parts where the
/// peaks are and the largest tensors are declared are looked up.
pub fn stats<'a>(
    name: String,
    resources: &Resources,
    parts: u32,
    part: impl Fn(u32) -> Option<PlacedPart<'a>>,
    target: Target,
) -> KernelStats {
    let head = part(0);
    let tail = parts.checked_sub(1).and_then(&part);
    let (name_range, range) = match (head, tail) {
        (Some(head), Some(tail)) => {
            let start = head.places.range.start() + head.start;
            let end = (tail.places.range.end() + tail.start).max(start);
            (head.places.name + head.start, TextRange::new(start, end))
        }
        _ => (TextRange::default(), TextRange::default()),
    };
    KernelStats {
        name,
        name_range,
        range,
        engines: resources.engines.clone(),
        sbuf: peak(Memory::Sbuf, &resources.sbuf, &part, target),
        psum: peak(Memory::Psum, &resources.psum, &part, target),
        cost: resources.cost.on(target),
    }
}

/// The placed peak of `memory`.
fn peak<'a>(
    memory: Memory,
    occupancy: &Occupancy,
    part: &impl Fn(u32) -> Option<PlacedPart<'a>>,
    target: Target,
) -> Peak {
    Peak {
        memory,
        bytes: occupancy.peak,
        capacity: target.capacity(memory).unwrap_or(u64::MAX),
        op: occupancy
            .at
            .and_then(|at| peak_op(at, part(u32::try_from(at.part).ok()?)?)),
        largest: occupancy
            .largest
            .iter()
            .map(|t| LiveTensor {
                name: t.name.clone(),
                bytes: t.bytes,
                declaration: part(t.declared_in).and_then(|part| {
                    let declaration = part.places.declaration(&t.name)?;
                    Some(declaration.range + part.start)
                }),
            })
            .collect(),
    }
}

/// The op at `at`, in `part`, as a peak's op: its id (written, else its 1-based ordinal
/// in the kernel) and class name.
fn peak_op(at: PeakAt, part: PlacedPart<'_>) -> Option<PeakOp> {
    let written = part.ids.written.iter().find(|w| w.op == at.op_in_part);
    let class = part.places.classes.get(at.op_in_part as usize)?;
    Some(PeakOp {
        op_id: written.map_or(at.op.saturating_add(1), |w| w.id),
        class: class.text.to_string(),
        range: class.range + part.start,
    })
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
                1,
                |p| (p == 0).then_some(placed),
                target,
            ))
        })
        .collect()
}
