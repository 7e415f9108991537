//! The entries of the chunks that continue a kernel cut into chunks (what each knows of
//! the kernel's earlier parts, [`crate::resolve::Entry`]): made from the chunks' outlines
//! and mentions ([`crate::split`]), set when a text is new ([`Document::enter_batch`]) and
//! for the chunks an edit changed ([`Document::refresh_entries`]).

use std::hash::BuildHasher;
use std::sync::Arc;

use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};
use salsa::{Durability, Setter};

use super::{Chunk, Document, new_generation};
use crate::db::{Db, RootDatabase, SourceFile};
use crate::kernel::outline::KernelIndex;

/// A split kernel's [`KernelIndex`] and what it was made from.
#[derive(Clone, Debug)]
pub(super) struct CachedIndex {
    /// The kernel's chunks, first to last.
    pub(super) chunks: Vec<SourceFile>,
    /// The hash of each chunk's outline but the last's.
    pub(super) outlines: Vec<u64>,
    pub(super) index: Arc<KernelIndex>,
    /// A generation of its own ([`new_generation`]): what P200's earlier suggestions are kept by ([`crate::kernel::rules::p200::Cache`]).
    pub(super) generation: u64,
}

impl Document {
    /// Sets the [`Entry`] of every chunk that continues a split kernel whose chunks
    /// overlap `from..to` (chunk indices): the kernels starting there and the one chunk
    /// `from` continues (see [`Document::refresh_run`]). `durability`: of the entries set,
    /// low for an edit's, medium for a new text's (as [`new_source`]'s inputs: a low one
    /// makes salsa walk the dependencies of every query of its chunk after any keystroke).
    pub(crate) fn refresh_entries(
        &mut self,
        db: &mut RootDatabase,
        from: usize,
        to: usize,
        durability: Durability,
    ) {
        let mut i = if self.chunks.get(from).is_some_and(|c| c.context.inside) {
            self.head(from)
        } else {
            from
        };
        while i < to.min(self.chunks.len()) {
            if self.chunk(i).context.goes_on {
                i = self.refresh_run(db, i, from..to, durability).max(i + 1);
            } else {
                i += 1;
            }
        }
    }

    /// Sets the entries of the chunks that continue the kernel whose first chunk is
    /// `head`, `edited` the chunks whose text was set: when the kernel's chunks and their
    /// outlines are as when its index was made, only the edited chunks' entries (their
    /// mentions may have changed); else the index is made again and every entry checked.
    /// Returns the kernel's last chunk.
    fn refresh_run(
        &mut self,
        db: &mut RootDatabase,
        head: usize,
        edited: std::ops::Range<usize>,
        durability: Durability,
    ) -> usize {
        let tail = self.tail(head);
        let chunks: Vec<SourceFile> = self
            .chunks
            .get(head..=tail)
            .unwrap_or_default()
            .iter()
            .map(|c| c.source)
            .collect();
        let Some(&first) = chunks.first() else {
            return tail;
        };
        let hash = |db: &dyn Db, source: SourceFile| {
            FxBuildHasher.hash_one(crate::kernel::outline::outline(db, source))
        };
        let cached = self.indexes.get(&first).filter(|cached| {
            cached.chunks == chunks
                && (edited.start.max(head)..edited.end.min(tail))
                    .all(|i| cached.outlines.get(i - head) == Some(&hash(db, self.chunk(i).source)))
        });
        let (index, all) = match cached {
            Some(cached) => (cached.index.clone(), false),
            None => {
                let outlines: Vec<&crate::kernel::outline::Outline> = chunks
                    .get(..chunks.len() - 1)
                    .unwrap_or_default()
                    .iter()
                    .map(|&source| crate::kernel::outline::outline(db, source))
                    .collect();
                let index = Arc::new(KernelIndex::new(outlines.iter().copied()));
                let hashes = outlines.iter().map(|o| FxBuildHasher.hash_one(o)).collect();
                self.indexes.insert(
                    first,
                    CachedIndex {
                        chunks: chunks.clone(),
                        outlines: hashes,
                        index: index.clone(),
                        generation: new_generation(),
                    },
                );
                (index, true)
            }
        };
        for (k, &source) in chunks.iter().enumerate().skip(1) {
            let at = head + k;
            if !all && !edited.contains(&at) {
                continue;
            }
            let entry = index.entry(k, crate::kernel::outline::mentions(db, source));
            if set_entry(db, source, Some(entry), durability) {
                self.forget(at);
            }
        }
        tail
    }

    /// Sets the entries of the chunks `range` of a new text (a batch, after the batches
    /// before it; their outlines and mentions computed, [`outline_chunk`]): each from the
    /// outlines of its kernel's chunks before it, then indexes the outlines of those whose
    /// last kernel goes on. At medium durability, as a new text's inputs.
    pub(crate) fn enter_batch(
        &self,
        db: &mut RootDatabase,
        range: std::ops::Range<usize>,
        entering: &mut Entering,
    ) {
        for i in range {
            let chunk = self.chunk(i);
            // The first chunk of the kernel it continues (as `Document::head`).
            let head = entering.head;
            if chunk.context.inside
                && let Some((index, _)) = entering.kernels.get(&head)
            {
                let entry =
                    index.entry(i - head, crate::kernel::outline::mentions(db, chunk.source));
                set_entry(db, chunk.source, Some(entry), Durability::MEDIUM);
            }
            if chunk.context.goes_on {
                // A middle part goes on with the kernel it continues; else its last kernel
                // starts here.
                let head = if chunk.context.inside && chunk.through {
                    head
                } else {
                    i
                };
                entering.head = head;
                let outline = crate::kernel::outline::outline(db, chunk.source);
                let hash = FxBuildHasher.hash_one(outline);
                let (index, hashes) = entering.kernels.entry(head).or_default();
                index.push(outline);
                hashes.push(hash);
            }
        }
    }

    /// Keeps the indexes [`Document::enter_batch`] made, each with the kernel's chunks (as
    /// [`Document::refresh_run`] keeps its own).
    pub(crate) fn entered(&mut self, entering: Entering) {
        for (head, (index, outlines)) in entering.kernels {
            let tail = self.tail(head);
            let chunks = self
                .chunks
                .get(head..=tail)
                .unwrap_or_default()
                .iter()
                .map(|c| c.source)
                .collect();
            self.indexes.insert(
                self.chunk(head).source,
                CachedIndex {
                    chunks,
                    outlines,
                    index: Arc::new(index),
                    generation: new_generation(),
                },
            );
        }
    }
}

/// The kernels cut into chunks of a new text as [`Document::enter_batch`] reaches them, by
/// their first chunk (index): the index of their chunks' outlines so far, and the outlines'
/// hashes.
#[derive(Debug, Default)]
pub(crate) struct Entering {
    kernels: HashMap<usize, (KernelIndex, Vec<u64>)>,
    /// The first chunk of the kernel that goes on past the last chunk reached.
    head: usize,
}

/// What [`Document::enter_batch`] reads of `chunk`, computed beforehand (on every core):
/// its outline when its last kernel goes on, its mentions when it starts inside one.
pub(crate) fn outline_chunk(db: &dyn Db, chunk: &Chunk) {
    if chunk.context.goes_on {
        crate::kernel::outline::outline(db, chunk.source);
    }
    if chunk.context.inside {
        crate::kernel::outline::mentions(db, chunk.source);
    }
}

/// Sets the entry of `source` to `entry` at `durability`, unless it is that already (an
/// input set to its own value still starts a revision). Returns whether it was set.
pub(super) fn set_entry(
    db: &mut RootDatabase,
    source: SourceFile,
    entry: Option<crate::resolve::Entry>,
    durability: Durability,
) -> bool {
    if source.entry(db).as_deref() == entry.as_ref() {
        return false;
    }
    source
        .set_entry(db)
        .with_durability(durability)
        .to(entry.map(Arc::new));
    true
}
