//! The names of a kernel cut into chunks as navigation needs them: a name's definition
//! and uses across the kernel's parts, the names in scope where a chunk starts, and the
//! whole kernel's ranges.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::{Document, Shift};
use crate::TextRange;
use crate::TextSize;
use crate::db::Db;
use crate::kernel::outline::KernelIndex;
use crate::kernel::summary;

impl Document {
    /// The range of the kernel that goes on from chunk `head` into the next chunks, from
    /// its `kernel` to its `}` (the document's offsets).
    pub(crate) fn split_kernel_range(&self, db: &dyn Db, head: usize) -> Option<TextRange> {
        let tail = self.tail(head);
        // Through the parts' places (kept), not the chunks' trees (evicted).
        let first = summary::parts(db, self.chunk(head).source)
            .last()?
            .places
            .range;
        let last = summary::parts(db, self.chunk(tail).source)
            .first()?
            .places
            .range;
        Some(TextRange::new(
            first.start() + self.chunk(head).start,
            last.end() + self.chunk(tail).start,
        ))
    }

    /// For the parts of split kernels in chunk `index` (its first kernel when it continues
    /// one, its last when it goes on): each part's range and body's range, with the whole
    /// kernel's range and body's range in its place (the document's offsets).
    pub(crate) fn split_parts_around(
        &self,
        db: &dyn Db,
        index: usize,
    ) -> Vec<(TextRange, TextRange)> {
        let chunk = self.chunk(index);
        let kernels = &crate::db::parse(db, chunk.source).file.kernels;
        let mut out = Vec::new();
        let mut add = |kernel: &syntax::ast::Kernel, head: usize| {
            let Some(whole) = self.split_kernel_range(db, head) else {
                return;
            };
            let head_kernel = crate::db::parse(db, self.chunk(head).source)
                .file
                .kernels
                .last();
            let body_start = head_kernel
                .and_then(|k| k.body_range)
                .map_or(whole.start(), |b| b.start() + self.chunk(head).start);
            let whole_body = TextRange::new(body_start, whole.end());
            out.push((kernel.range + chunk.start, whole));
            if let Some(body) = kernel.body_range {
                out.push((body + chunk.start, whole_body));
            }
        };
        if let Some(k) = kernels.first().filter(|k| k.continues) {
            add(k, self.head(index));
        }
        if let Some(k) = kernels.last().filter(|k| k.goes_on && !k.continues) {
            add(k, index);
        }
        out
    }

    /// The names in scope where chunk `index` starts, from the earlier chunks of the kernel
    /// it continues (none when it starts with whole kernels): each parameter and body-level
    /// declaration, in source order, with its kind and the tensor the kernel allocates for
    /// the name (its first definition's). From the chunks' outlines: O(the kernel's
    /// declarations), for a request (completion, a fix), not a keystroke.
    pub(crate) fn earlier_names(
        &self,
        db: &dyn Db,
        index: usize,
    ) -> Vec<(
        String,
        crate::resolve::DefKind,
        Option<Arc<lower::model::Tensor>>,
    )> {
        if !self.chunk(index).context.inside {
            return Vec::new();
        }
        let mut first: HashMap<&str, Option<Arc<lower::model::Tensor>>> = HashMap::default();
        let mut out = Vec::new();
        for chunk in self.chunks.get(self.head(index)..index).unwrap_or_default() {
            for def in &crate::kernel::outline::outline(db, chunk.source).defs {
                let tensor = first
                    .entry(def.name.as_str())
                    .or_insert_with(|| match &def.allocation {
                        Some(crate::resolve::Allocation::Tensor(t)) => Some(t.clone()),
                        _ => None,
                    })
                    .clone();
                if def.visible {
                    out.push((def.name.clone(), def.kind, tensor));
                }
            }
        }
        out
    }

    /// The references of the name at `offset` (relative to chunk `index`) when it is a
    /// parameter, tensor or register of a kernel cut into chunks, across its chunks (in the
    /// document's offsets, the definition first when `include_declaration`); `None` when the
    /// chunk's own answer is the whole answer.
    pub(crate) fn split_references(
        &self,
        db: &dyn Db,
        index: usize,
        offset: TextSize,
        include_declaration: bool,
    ) -> Option<Vec<crate::ide::Reference>> {
        use crate::resolve::DefKind;
        let chunk = self.chunk(index);
        let items = crate::db::file_items(db, chunk.source);
        let d = crate::ide::def_at(items, offset)?;
        let def = items.definitions.get(d)?;
        if !matches!(
            def.kind,
            DefKind::Param | DefKind::Tensor | DefKind::Register
        ) {
            return None;
        }
        let parts = summary::parts(db, chunk.source);
        let continuing = chunk.context.inside;
        let in_first = continuing
            && parts
                .first()
                .is_some_and(|p| def.prelude || p.places.range.contains_range(def.range));
        let in_last = chunk.context.goes_on
            && parts
                .last()
                .is_some_and(|p| p.places.range.contains_range(def.range));
        let (home, home_def) = if def.prelude {
            let head = self.head(index);
            let cached = self.indexes.get(&self.chunk(head).source)?;
            let home = head + cached.index.home(&def.name)?;
            let home_items = crate::db::file_items(db, self.chunk(home).source);
            let range = self.home_definition(db, head, &cached.index, &def.name)?;
            let start = self.chunk(home).start;
            let hd = home_items
                .definitions
                .iter()
                .position(|x| !x.prelude && x.name == def.name && x.range + start == range)?;
            (home, hd)
        } else if in_first || in_last {
            // A second definition (P201) has no use: the chunk's answer is whole.
            let defined_before = items
                .definitions
                .get(..d)
                .unwrap_or_default()
                .iter()
                .any(|x| x.name == def.name && (x.prelude || def.scope.contains_range(x.range)));
            if defined_before {
                return None;
            }
            (index, d)
        } else {
            return None;
        };
        let tail = self.tail(if in_last && !def.prelude {
            index
        } else {
            self.head(index)
        });
        let home_chunk = self.chunk(home);
        let home_items = crate::db::file_items(db, home_chunk.source);
        let home_definition = home_items.definitions.get(home_def)?;
        let name = home_definition.name.clone();
        let mut out = Vec::new();
        if include_declaration {
            out.push(crate::ide::Reference {
                range: home_definition.range + home_chunk.start,
                is_definition: true,
            });
        }
        let shifted = |mut r: crate::ide::Reference, by: TextSize| {
            r.range.shift(by);
            r
        };
        out.extend(crate::ide::uses(home_items, home_def).map(|r| shifted(r, home_chunk.start)));
        for later in self
            .chunks
            .get(home + 1..=tail.max(home))
            .unwrap_or_default()
        {
            if crate::kernel::outline::mentions(db, later.source)
                .binary_search(&name)
                .is_err()
            {
                continue;
            }
            let later_items = crate::db::file_items(db, later.source);
            if let Some(pd) = later_items
                .definitions
                .iter()
                .position(|x| x.prelude && x.name == name)
            {
                out.extend(crate::ide::uses(later_items, pd).map(|r| shifted(r, later.start)));
            }
        }
        Some(out)
    }

    /// The names `new_name` clashes with in the other chunks of the kernel that chunk
    /// `index` is a part of, for renaming the definition `renamed` (relative to the chunk)
    /// to it: a parameter or body-level declaration of an earlier chunk, and, when
    /// `renamed` is a parameter or body-level declaration itself, any definition of a
    /// later chunk (their scopes meet).
    pub(crate) fn split_names_taken(
        &self,
        db: &dyn Db,
        index: usize,
        renamed: &crate::resolve::Definition,
        new_name: &str,
    ) -> Vec<(String, crate::resolve::DefKind)> {
        use crate::resolve::DefKind;
        let chunk = self.chunk(index);
        if !chunk.context.inside && !chunk.context.goes_on {
            return Vec::new();
        }
        let head = if chunk.context.inside {
            self.head(index)
        } else {
            index
        };
        let tail = self.tail(index);
        let mut out = Vec::new();
        for k in head..index {
            let outline = crate::kernel::outline::outline(db, self.chunk(k).source);
            out.extend(
                outline
                    .defs
                    .iter()
                    .filter(|d| d.visible && d.name == new_name)
                    .map(|d| (d.name.clone(), d.kind)),
            );
        }
        let kernel_level = matches!(
            renamed.kind,
            DefKind::Param | DefKind::Tensor | DefKind::Register
        ) && renamed.scope.end() == self.chunk(index).len;
        if kernel_level {
            for later in self.chunks.get(index + 1..=tail).unwrap_or_default() {
                if crate::kernel::outline::mentions(db, later.source)
                    .binary_search_by(|m| m.as_str().cmp(new_name))
                    .is_err()
                {
                    continue;
                }
                let parts = summary::parts(db, later.source);
                let Some(part) = parts.first() else { continue };
                out.extend(
                    crate::db::file_items(db, later.source)
                        .definitions
                        .iter()
                        .filter(|d| {
                            !d.prelude
                                && d.name == new_name
                                && d.kind != DefKind::Kernel
                                && part.places.range.contains_range(d.range)
                        })
                        .map(|d| (d.name.clone(), d.kind)),
                );
            }
        }
        out
    }

    /// Where the split kernel whose first chunk is `head` first defines `name` (the
    /// defining name's range, in the document).
    pub(super) fn home_definition(
        &self,
        db: &dyn Db,
        head: usize,
        index: &KernelIndex,
        name: &str,
    ) -> Option<TextRange> {
        let home = head + index.home(name)?;
        let chunk = self.chunk(home);
        let parts = summary::parts(db, chunk.source);
        let slot = if home == head {
            crate::kernel::view::KernelSlot::Last
        } else {
            crate::kernel::view::KernelSlot::At(0)
        };
        let part = slot.of(parts)?;
        crate::db::file_items(db, chunk.source)
            .definitions
            .iter()
            .find(|d| !d.prelude && d.name == name && part.places.range.contains_range(d.range))
            .map(|d| d.range + chunk.start)
    }
}
