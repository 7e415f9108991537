//! IDE features over the database, in byte offsets and plain strings (no LSP types): each
//! feature is one pure function of `(db, file, position)` with its tests beside it.

mod completion;
mod fixes;
mod format;
mod hover;
mod inlay;
mod navigation;
mod resources;
mod semantic_tokens;
mod show_bir;
mod structure;
mod symbols;

pub use completion::{CompletionItem, CompletionKind, Earlier, completions, completions_in};
pub(crate) use fixes::fixes_in;
pub use fixes::{Fix, fixes};
pub use format::{format, format_range};
pub(crate) use hover::whole_kernel_hover;
pub use hover::{HoverResult, Place, hover, hover_in};
pub use inlay::{InlayHint, inlay_hints};
pub use navigation::{Reference, definition, is_identifier, prepare_rename, references, rename};
pub(crate) use navigation::{def_at, rename_references, uses};
pub use resources::{CodeLens, code_lenses, lens_title, resources_markdown, short_name};
pub use semantic_tokens::{
    ChunkTokens, MODIFIERS, SemanticToken, TokenType, chunk_semantic_tokens, lines_of,
    semantic_tokens,
};
pub(crate) use show_bir::show_bir;
pub use structure::{Fold, FoldKind, folding_ranges, selection_ranges, selection_ranges_within};
pub use symbols::{
    ChunkOpId, MAX_DOCUMENT_SYMBOLS, Symbol, SymbolKind, document_symbols, matches_query,
    workspace_symbols,
};

use std::ops::Range;

use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items, parse};
use crate::resolve::{Item, KernelItems, OpItem};

/// The indices of the kernels of `kernels` (in source order, not overlapping) whose range
/// touches `range`, both ends included: a binary search, not a walk.
pub fn kernels_touching(kernels: &[syntax::ast::Kernel], range: TextRange) -> Range<usize> {
    let first = kernels.partition_point(|k| k.range.end() < range.start());
    let last = first + kernels[first..].partition_point(|k| k.range.start() <= range.end());
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
    for item in items[first..]
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
    items[first..]
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

    /// A database holding `text` with its cursor marker (`<|>`, see [`test_utils::CURSOR`])
    /// removed, and the marker's offset (UTF-8 bytes).
    #[track_caller]
    pub fn with_cursor(text: &str) -> (RootDatabase, SourceFile, TextSize) {
        let (clean, offset) = test_utils::cursor(text);
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, clean);
        (db, file, offset)
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
