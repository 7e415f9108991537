//! IDE features over the database, in byte offsets and plain strings (no LSP types): each
//! feature is one function of `(db, document, position)`, positions and answers in the
//! document's offsets, with its tests beside it. A feature reads the chunk it answers in
//! through a [`Site`], which knows what the chunk needs of the chunks around it.

mod completion;
mod cost;
mod fixes;
mod format;
mod hover;
mod inlay;
mod instructions;
mod navigation;
mod resources;
mod semantic_tokens;
mod show_bir;
mod structure;
mod symbols;

pub use completion::{CompletionItem, CompletionKind, SignatureHelp};
pub(crate) use completion::{completions, signature_help};
pub use cost::{inlay_suffix, kernel_markdown as cost_markdown, op_markdown as op_cost_markdown};
pub use fixes::Fix;
pub(crate) use fixes::fixes;
pub use format::{format, format_parsed, format_range, range_edits};
pub use hover::HoverResult;
pub(crate) use hover::hover;
pub(crate) use inlay::inlay_hints;
pub use inlay::{InlayHint, MAX_INLAY_HINTS};
pub use instructions::{FoundInstruction, InstructionName};
pub(crate) use instructions::{find_instructions, instruction_definition};
pub use navigation::{Reference, is_identifier};
pub(crate) use navigation::{def_at, definition, prepare_rename, references, rename, uses};
pub(crate) use resources::code_lenses;
pub use resources::{CodeLens, LensKind, lens_title, resources_markdown, short_name};
pub use semantic_tokens::{ChunkTokens, MODIFIERS, SemanticToken, TokenType, lines_of};
pub(crate) use semantic_tokens::{semantic_tokens, token_chunks};
pub(crate) use show_bir::show_bir;
pub use structure::{Fold, FoldKind, FoldRank, MAX_FOLDS};
pub(crate) use structure::{chunk_folds, folding_ranges, selection_ranges};
pub use symbols::{ChunkOpId, MAX_DOCUMENT_SYMBOLS, Symbol, SymbolKind, matches_query};
pub(crate) use symbols::{
    KEPT_SYMBOL_TREES, chunk_symbol_count, chunk_symbols, document_symbols, workspace_symbols,
};

use std::ops::Range;

use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items, parse};
use crate::document::{Chunk, Document, Shift};
use crate::resolve::{Item, KernelItems, OpItem};

/// A chunk of a document as an IDE feature reads it: its input, where it stands, and what
/// it needs of the chunks around it (each read only when asked).
#[derive(Clone, Copy)]
pub(crate) struct Site<'a> {
    /// The document.
    pub doc: &'a Document,
    /// The chunk's index in it.
    pub index: usize,
    /// The chunk.
    pub chunk: Chunk,
}

impl<'a> Site<'a> {
    /// The chunk of `doc` holding `offset` (the document's), and `offset` relative to it
    /// (clamped to the document).
    pub fn at(doc: &'a Document, offset: TextSize) -> (Site<'a>, TextSize) {
        let index = doc.chunk_index(offset);
        let (chunk, relative) = doc.locate(offset);
        (Site { doc, index, chunk }, relative)
    }

    /// Each chunk `range` (the document's) touches, with the part of `range` in it,
    /// relative to the chunk.
    pub fn across(
        doc: &'a Document,
        range: TextRange,
    ) -> impl Iterator<Item = (Site<'a>, TextRange)> {
        doc.chunks_in(range).map(move |(chunk, part)| {
            let index = doc.chunk_index(chunk.start);
            (Site { doc, index, chunk }, part)
        })
    }

    /// The chunk's input.
    pub fn source(&self) -> SourceFile {
        self.chunk.source
    }

    /// `answer`, made of the chunk's offsets, in the document's.
    pub fn to_document<T: Shift>(self, mut answer: T) -> T {
        answer.shift(self.chunk.start);
        answer
    }

    /// The ops of the kernel the chunk starts inside, in its earlier chunks (0 when it
    /// starts with whole kernels): what its first kernel's implicit op ids count from.
    pub fn ops_before(&self, db: &dyn Db) -> u32 {
        self.doc.op_base(db, self.index)
    }

    /// The errors in the chunk (relative to it, with their codes) that another chunk of
    /// the document reports: an op's BIR `errors` count them.
    pub fn errors_from_elsewhere(&self, db: &dyn Db) -> Vec<(TextRange, lower::Code)> {
        if self.chunk.context.inside || self.chunk.context.goes_on {
            self.doc.errors_from_elsewhere(db, self.index)
        } else {
            Vec::new()
        }
    }

    /// The names in scope where the chunk starts, from the earlier chunks of the kernel it
    /// continues (see `Document::earlier_names`; none when it starts with whole kernels).
    pub fn earlier_names(&self, db: &dyn Db) -> Vec<completion::EarlierName> {
        self.doc.earlier_names(db, self.index)
    }

    /// The chunk's diagnostics as the document reports them, relative to the chunk
    /// (without the related notes, which may stand in other chunks).
    pub fn diagnostics(&self, db: &dyn Db) -> Vec<crate::Diagnostic> {
        self.doc
            .chunk_diagnostics(db, self.index)
            .into_iter()
            .filter_map(|mut d| {
                d.range = d.range.checked_sub(self.chunk.start)?;
                d.related.clear();
                Some(d)
            })
            .collect()
    }
}

/// The indices of the kernels of `kernels` (in source order, not overlapping) whose range
/// touches `range`, both ends included: a binary search, not a walk.
pub fn kernels_touching(kernels: &[syntax::ast::Kernel], range: TextRange) -> Range<usize> {
    let first = kernels.partition_point(|k| k.range.end() < range.start());
    let last = first
        + kernels
            .get(first..)
            .unwrap_or_default()
            .partition_point(|k| k.range.start() <= range.end());
    first..last
}

/// The op whose text contains `offset` (its class name to its closing brace), with its
/// kernel. A binary search over the kernels and each body's items (they are in source
/// order and do not overlap), not a walk over every op.
pub fn op_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(&KernelItems, &OpItem)> {
    let items = file_items(db, file);
    let kernels = &parse(db, file).file.kernels;
    // `resolve` makes one `KernelItems` per parsed kernel, in order.
    kernels_touching(kernels, TextRange::empty(offset)).find_map(|k| {
        let kernel = items.kernels.get(k)?;
        Some((kernel, op_in(&kernel.body, offset)?))
    })
}

/// Calls `f` on every op whose text ends inside `range` (its end included), in source order:
/// binary searches over the kernels and each body's items, so the cost is that of the ops
/// in `range`, not of the file.
pub fn for_each_op_ending_in<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    range: TextRange,
    f: &mut impl FnMut(&'db KernelItems, &'db OpItem),
) {
    let items = file_items(db, file);
    let kernels = &parse(db, file).file.kernels;
    for k in kernels_touching(kernels, range) {
        if let Some(kernel) = items.kernels.get(k) {
            ops_ending_in(&kernel.body, range, &mut |op| f(kernel, op));
        }
    }
}

fn ops_ending_in<'a>(items: &'a [Item], range: TextRange, f: &mut impl FnMut(&'a OpItem)) {
    let item_range = |item: &Item| match item {
        Item::Op(op) => op.syntax.range,
        Item::Loop(lp) => lp.range,
    };
    let first = items.partition_point(|item| item_range(item).end() < range.start());
    for item in items
        .get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(|item| item_range(item).start() <= range.end())
    {
        match item {
            Item::Op(op) if contains_inclusive(range, op.syntax.range.end()) => f(op),
            Item::Op(_) => {}
            Item::Loop(lp) => ops_ending_in(&lp.body, range, f),
        }
    }
}

/// The first op of `items` (loop bodies included) whose range contains `offset`.
fn op_in(items: &[Item], offset: TextSize) -> Option<&OpItem> {
    let range = |item: &Item| match item {
        Item::Op(op) => op.syntax.range,
        Item::Loop(lp) => lp.range,
    };
    let first = items.partition_point(|item| range(item).end() < offset);
    items
        .get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(|item| range(item).start() <= offset)
        .find_map(|item| match item {
            Item::Op(op) => contains_inclusive(op.syntax.range, offset).then_some(op),
            Item::Loop(lp) => op_in(&lp.body, offset),
        })
}

/// Whether `offset` lies in `range`, its end included (a cursor right after a token is
/// still "on" it, as editors expect).
pub fn contains_inclusive(range: TextRange, offset: TextSize) -> bool {
    range.start() <= offset && offset <= range.end()
}

#[cfg(test)]
pub(crate) mod fixture {
    use syntax::ast::TextSize;

    use crate::db::{RootDatabase, SourceFile};
    use crate::document::Document;

    /// A database holding `text` with its cursor marker (`<|>`, see [`test_utils::CURSOR`])
    /// removed, as a document of one chunk, and the marker's offset (UTF-8 bytes).
    #[track_caller]
    pub fn with_cursor(text: &str) -> (RootDatabase, Document, TextSize) {
        let (clean, offset) = test_utils::cursor(text);
        let db = RootDatabase::default();
        let doc = document(&db, &clean);
        (db, doc, offset)
    }

    /// `text` as a document of one chunk of `db`.
    pub fn document(db: &RootDatabase, text: &str) -> Document {
        let file = SourceFile::new(db, text.to_string());
        Document::of_source(db, file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::for_each_op;
    use crate::db::RootDatabase;

    /// `op_at` by binary search finds what a walk over every op finds, at every offset of
    /// every corpus file (kernels, loops, ops touching end to start).
    #[test]
    fn op_at_agrees_with_a_walk_over_every_op() {
        let mut files = test_utils::corpus_files();
        files.push((
            "adjacent".into(),
            "kernel @a() {\n  NoOp {}NoOp {}\n  for %i in 0..2 { NoOp {} for %j in 0..2 {NoOp{}} }\n}kernel @b() { NoOp {} }".into(),
        ));
        for (name, text) in files {
            let db = RootDatabase::default();
            let file = SourceFile::new(&db, text.clone());
            let walk = |offset: TextSize| {
                let mut found = None;
                for kernel in &file_items(&db, file).kernels {
                    for_each_op(&kernel.body, &mut |op| {
                        if found.is_none() && contains_inclusive(op.syntax.range, offset) {
                            found = Some(op.syntax.range);
                        }
                    });
                    if found.is_some() {
                        break;
                    }
                }
                found
            };
            for offset in 0..=text.len() {
                let offset = TextSize::from(offset as u32);
                let got = op_at(&db, file, offset).map(|(_, op)| op.syntax.range);
                assert_eq!(got, walk(offset), "{name} at {offset:?}");
            }
        }
    }
}
