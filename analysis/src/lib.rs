//! The analysis of `.pir` files: a salsa database whose input is each file's text and
//! whose queries give the parse, the resolved names, every op's lowering (memoized per
//! op), the diagnostics and the BIR document.
//!
//! Positions here are UTF-8 byte offsets ([`TextRange`]); the CLI and the language server
//! convert them at their edges (see [`line_col`] and the server's `convert` module).
//!
//! Architecture Invariant: no LSP type, no async runtime, no I/O.

#![warn(clippy::indexing_slicing)]

mod bir;
mod check;
pub mod cost;
pub mod db;
pub mod diagnostic;
mod document;
mod executor;
mod host;
pub mod ide;
mod kernel;
pub mod resolve;
pub mod resources;

pub use ::line_index::{LineIndex, TextRange, TextSize, WideEncoding};
pub use bir::source_bir as file_bir;

/// Every diagnostic of `file`, a text analysed alone (one chunk, its own document), sorted
/// by range (SPEC §7): what [`Analysis::diagnostics`] answers for the same text.
pub fn diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    document::Document::of_source(db, file).diagnostics(db)
}
pub use check::for_each_op;
pub use db::{Db, RootDatabase, Settings, SourceFile, file_items, line_index, op_lowering, parse};
pub use diagnostic::{CappedDiagnostics, Diagnostic, LeftOut, MAX_COST_WARNINGS};
pub use document::CHUNK_TARGET;
pub use host::{Analysis, AnalysisHost, Cancellable, Cancelled, FileId};
pub use resources::KernelStats;

/// A 1-based line and a 1-based column counted in Unicode scalar values, as `pir check
/// --format json` and `debuginfo` report them (SPEC §8, §9); serialized as `{"line",
/// "column"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct LineCol {
    /// 1-based line.
    pub line: u32,
    /// 1-based column in Unicode scalar values.
    pub column: u32,
}

/// The [`LineCol`] of byte `offset` in `text` (clamped to the text; an offset inside a
/// multi-byte character counts from that character's start; a leading byte-order mark is
/// not counted).
pub fn line_col(index: &LineIndex, text: &str, offset: TextSize) -> LineCol {
    let mut offset = offset.min(TextSize::of(text));
    while !text.is_char_boundary(usize::from(offset)) {
        offset -= TextSize::from(1);
    }
    let utf8 = index.line_col(offset);
    let column = index
        .to_wide(WideEncoding::Utf32, utf8)
        .map_or(utf8.col, |wide| wide.col);
    // A byte-order mark is no column (editors do not show it).
    let bom = utf8.line == 0 && offset > TextSize::from(0) && text.starts_with('\u{FEFF}');
    LineCol {
        line: utf8.line + 1,
        column: column + 1 - u32::from(bom),
    }
}
