//! One kernel of a document as the list of its parts ([`KernelView`]): the only place that
//! knows where a kernel's head and tail are and what its op ids count from.
//!
//! A kernel that fits its chunk is one part; a kernel cut into chunks has one part per
//! chunk it spans, in a run of consecutive chunks: the last kernel of its first chunk (the
//! head, with the kernel's header), then the first kernel of each chunk after it, the last
//! of which (the tail) holds the kernel's `}`.

use crate::db::{Db, SourceFile};
use crate::document::Document;
use crate::kernel::summary::part_ids;

/// One kernel of a document: its parts, a run of chunks (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelView {
    /// The chunk holding the kernel's header (its first part), by index in the document.
    pub head: usize,
    /// The kernel's place among the kernels of its head chunk.
    pub head_kernel: KernelSlot,
    /// The chunk holding its last part (`head` when it is one part).
    pub tail: usize,
}

/// Where a part stands among the kernels of its chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelSlot {
    /// The chunk's `n`-th kernel (0-based).
    At(usize),
    /// The chunk's last kernel (the head of a kernel that goes on into the next chunks).
    Last,
}

impl KernelSlot {
    /// The entry at this slot of a chunk's per-kernel list.
    pub fn of<T>(self, items: &[T]) -> Option<&T> {
        match self {
            KernelSlot::At(n) => items.get(n),
            KernelSlot::Last => items.last(),
        }
    }
}

/// One part of a kernel (see [`KernelView::parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PartAt {
    /// Its place among the kernel's parts (0: the head).
    pub part: u32,
    /// The chunk holding it, by index in the document.
    pub chunk: usize,
    /// Its place among the kernels of that chunk (the per-kernel lists of a chunk, such as
    /// [`crate::kernel::summary::parts`], hold it there).
    pub kernel: KernelSlot,
}

impl KernelView {
    /// The kernel that holds the `kernel`-th kernel of chunk `chunk` of `doc` (that kernel
    /// is one of its parts). Walks over the middle parts of a kernel cut into chunks:
    /// O(its parts).
    /// `last`: that kernel is the chunk's last.
    pub fn of(doc: &Document, chunk: usize, kernel: usize, last: bool) -> KernelView {
        let Some(c) = doc.chunks.get(chunk) else {
            return KernelView::whole(chunk, kernel);
        };
        if kernel == 0 && c.context.inside {
            // It continues the kernel of an earlier chunk.
            let head = doc.head(chunk);
            return KernelView {
                head,
                head_kernel: KernelSlot::Last,
                tail: doc.tail(head),
            };
        }
        if last && c.context.goes_on {
            return KernelView {
                head: chunk,
                head_kernel: KernelSlot::Last,
                tail: doc.tail(chunk),
            };
        }
        KernelView::whole(chunk, kernel)
    }

    /// The `kernel`-th kernel of chunk `chunk`, whole in it (one part).
    pub fn whole(chunk: usize, kernel: usize) -> KernelView {
        KernelView {
            head: chunk,
            head_kernel: KernelSlot::At(kernel),
            tail: chunk,
        }
    }

    /// The kernel cut into chunks whose first chunk is `head` (the chunk's last kernel
    /// goes on).
    pub fn split_from(doc: &Document, head: usize) -> KernelView {
        KernelView {
            head,
            head_kernel: KernelSlot::Last,
            tail: doc.tail(head),
        }
    }

    /// Its parts, head first.
    pub fn parts(&self) -> impl Iterator<Item = PartAt> + '_ {
        (0..self.part_count()).filter_map(|p| self.part(p))
    }

    /// Its part `part` (0: the head), if it has that many.
    pub fn part(&self, part: u32) -> Option<PartAt> {
        let chunk = self.head.checked_add(part as usize)?;
        (chunk <= self.tail).then_some(PartAt {
            part,
            chunk,
            kernel: if part == 0 {
                self.head_kernel
            } else {
                KernelSlot::At(0)
            },
        })
    }

    /// How many parts it has.
    pub fn part_count(&self) -> u32 {
        u32::try_from(self.tail.saturating_sub(self.head) + 1).unwrap_or(u32::MAX)
    }

    /// Its part in chunk `chunk`, if it has one there.
    pub fn part_in(&self, chunk: usize) -> Option<PartAt> {
        self.part(u32::try_from(chunk.checked_sub(self.head)?).ok()?)
    }

    /// The chunks of its parts' inputs, head first.
    pub fn sources(&self, doc: &Document) -> Vec<SourceFile> {
        doc.chunks
            .get(self.head..=self.tail)
            .unwrap_or_default()
            .iter()
            .map(|c| c.source)
            .collect()
    }

    /// The ops of the kernel before its part `part`: what the implicit op ids of that part
    /// count from (SPEC §3: the 1-based ordinal among all ops of the kernel). O(parts).
    pub fn ops_before(&self, db: &dyn Db, doc: &Document, part: u32) -> u32 {
        self.parts()
            .take(part as usize)
            .filter_map(|at| {
                let chunk = doc.chunks.get(at.chunk)?;
                at.kernel.of(part_ids(db, chunk.source)).map(|ids| ids.ops)
            })
            .sum()
    }
}
