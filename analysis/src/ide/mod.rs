//! IDE features over the database, in byte offsets and plain strings (no LSP types): each
//! feature is one pure function of `(db, file, position)` with its tests beside it.

mod completion;
mod fixes;
mod format;
mod hover;
mod inlay;
mod navigation;
mod semantic_tokens;
mod show_bir;
mod structure;
mod symbols;

pub use completion::{CompletionItem, CompletionKind, completions};
pub use fixes::{Fix, fixes};
pub use format::{format, format_range};
pub use hover::{HoverResult, hover};
pub use inlay::{InlayHint, inlay_hints};
pub use navigation::{Reference, definition, is_identifier, prepare_rename, references, rename};
pub use semantic_tokens::{MODIFIERS, SemanticToken, TokenType, semantic_tokens};
pub use show_bir::show_bir;
pub use structure::{Fold, FoldKind, folding_ranges, selection_ranges};
pub use symbols::{Symbol, SymbolKind, document_symbols, workspace_symbols};

use syntax::ast::{TextRange, TextSize};

use crate::check::for_each_op;
use crate::db::{Db, SourceFile, file_items};
use crate::resolve::{KernelItems, OpItem};

/// The op whose text contains `offset` (its class name to its closing brace), with its
/// kernel.
pub fn op_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(&KernelItems, &OpItem)> {
    let items = file_items(db, file);
    for kernel in &items.kernels {
        let mut found = None;
        for_each_op(&kernel.body, &mut |op| {
            if found.is_none() && contains_inclusive(op.syntax.range, offset) {
                found = Some(op);
            }
        });
        if let Some(op) = found {
            return Some((kernel, op));
        }
    }
    None
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
