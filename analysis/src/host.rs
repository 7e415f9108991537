//! The analysis as the server and the command line see it: an [`AnalysisHost`] that takes
//! changes, and [`Analysis`] snapshots whose queries return [`Cancellable`] answers (the
//! shape of rust-analyzer's and nil's `ide` crates). Nothing outside this crate names salsa.
//!
//! Architecture Invariant: a change ([`AnalysisHost::set_file_text`]) cancels every snapshot
//! taken before it; their queries then return `Err(Cancelled)` (the server answers
//! `ContentModified`), and the change waits until they have let go of the database.
//! Positions are UTF-8 byte offsets, as everywhere in this crate.

use std::panic::{AssertUnwindSafe, UnwindSafe};

use salsa::Setter;
use serde_json::Value as Json;

use crate::db::{Db, RootDatabase, SourceFile};
use crate::ide;
use crate::{Diagnostic, LineIndex, TextRange, TextSize};

/// A change made the snapshot's answers stale: ask again on a new snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the analysis was cancelled by a change")
    }
}

impl std::error::Error for Cancelled {}

/// An answer, or [`Cancelled`] when a change came first.
pub type Cancellable<T> = Result<T, Cancelled>;

/// A file of the host (cheap to copy; valid for the host that made it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(SourceFile);

/// Takes changes: files' texts and the client settings.
#[derive(Default)]
pub struct AnalysisHost {
    db: RootDatabase,
}

impl AnalysisHost {
    /// An empty host (settings at their defaults).
    pub fn new() -> AnalysisHost {
        AnalysisHost::default()
    }

    /// A host whose database logs every query execution (tests of incrementality).
    pub fn with_execution_log() -> AnalysisHost {
        AnalysisHost {
            db: RootDatabase::new(true),
        }
    }

    /// The query executions logged since the last call (see [`RootDatabase::take_executions`]).
    pub fn take_executions(&self) -> Vec<String> {
        self.db.take_executions()
    }

    /// Sets the `tkgSeqlenThreshold` setting (SPEC §10; 0: the default, 96).
    pub fn set_tkg_seqlen_threshold(&mut self, threshold: u64) {
        let settings = self.db.settings();
        if settings.tkg_seqlen_threshold(&self.db) != threshold {
            settings
                .set_tkg_seqlen_threshold(&mut self.db)
                .to(threshold);
        }
    }

    /// Adds a file with `text` (UTF-8; LF or CRLF line ends). Not a change: snapshots
    /// taken before see the new file too and are not cancelled.
    pub fn add_file(&self, text: String) -> FileId {
        FileId(SourceFile::new(&self.db, text))
    }

    /// Replaces the text of `file` (nothing happens when it is the same). Waits for the
    /// snapshots taken before it to let go (they are cancelled).
    pub fn set_file_text(&mut self, file: FileId, text: String) {
        if file.0.text(&self.db) != &text {
            file.0.set_text(&mut self.db).to(text);
        }
    }

    /// A consistent view for queries, until the next change.
    pub fn snapshot(&self) -> Analysis {
        Analysis {
            db: self.db.clone(),
        }
    }
}

/// A snapshot: every query answers about the texts as they were when it was taken, or
/// [`Cancelled`] once a change has come.
#[derive(Clone)]
pub struct Analysis {
    db: RootDatabase,
}

impl Analysis {
    /// Runs `f` on the database; a cancellation becomes `Err(Cancelled)`.
    fn with_db<'a, T>(
        &'a self,
        f: impl FnOnce(&'a RootDatabase) -> T + UnwindSafe,
    ) -> Cancellable<T> {
        let db = AssertUnwindSafe(&self.db);
        salsa::Cancelled::catch(move || f(*db)).map_err(|_| Cancelled)
    }

    /// The text of `file`.
    pub fn file_text(&self, file: FileId) -> &str {
        file.0.text(&self.db)
    }

    /// The line index of `file` as LSP counts lines (`\n`, `\r\n`, lone `\r`; SPEC §1 [2]).
    pub fn editor_line_index(&self, file: FileId) -> Cancellable<&LineIndex> {
        self.with_db(|db| crate::db::editor_line_index(db, file.0))
    }

    /// The line index of `file` as the language counts lines (`\n`; `pir check`, SPEC §9).
    pub fn line_index(&self, file: FileId) -> Cancellable<&LineIndex> {
        self.with_db(|db| crate::db::line_index(db, file.0))
    }

    /// Every diagnostic of `file`, sorted by range (SPEC §7).
    pub fn diagnostics(&self, file: FileId) -> Cancellable<&[Diagnostic]> {
        self.with_db(|db| crate::check::diagnostics(db, file.0).as_slice())
    }

    /// The BIR document of `file` (SPEC §8).
    pub fn file_bir(&self, file: FileId) -> Cancellable<Json> {
        self.with_db(|db| crate::bir::file_bir(db, file.0))
    }

    /// The BIR document of `file` as `pir lower` writes it (SPEC §8: pretty JSON, numbers
    /// as Rust's `{:?}` prints them), written straight from the typed lowerings.
    pub fn bir_text(&self, file: FileId) -> Cancellable<String> {
        self.with_db(|db| {
            serde_json::to_string_pretty(&crate::bir::bir_document(db, file.0)).unwrap_or_default()
        })
    }

    /// `pir/showBir`: the whole file's BIR, or the op's at `offset` (see [`ide::show_bir`]).
    pub fn show_bir(&self, file: FileId, offset: Option<TextSize>) -> Cancellable<Json> {
        self.with_db(|db| ide::show_bir(db, file.0, offset))
    }

    /// Hover at `offset` (see [`ide::hover`]).
    pub fn hover(&self, file: FileId, offset: TextSize) -> Cancellable<Option<ide::HoverResult>> {
        self.with_db(|db| ide::hover(db, file.0, offset))
    }

    /// Code lenses: one per kernel with its resources (see [`ide::code_lenses`], SPEC §10.1).
    pub fn code_lenses(&self, file: FileId) -> Cancellable<Vec<ide::CodeLens>> {
        self.with_db(|db| ide::code_lenses(db, file.0))
    }

    /// Each kernel's resources, in source order (see [`crate::resources::kernel_stats`]).
    pub fn kernel_stats(&self, file: FileId) -> Cancellable<&[crate::KernelStats]> {
        self.with_db(|db| crate::resources::kernel_stats(db, file.0).as_slice())
    }

    /// Inlay hints, in `range` if given (see [`ide::inlay_hints`]).
    pub fn inlay_hints(
        &self,
        file: FileId,
        range: Option<TextRange>,
    ) -> Cancellable<Vec<ide::InlayHint>> {
        self.with_db(|db| ide::inlay_hints(db, file.0, range))
    }

    /// Completions at `offset` (see [`ide::completions`]).
    pub fn completions(
        &self,
        file: FileId,
        offset: TextSize,
    ) -> Cancellable<Vec<ide::CompletionItem>> {
        self.with_db(|db| ide::completions(db, file.0, offset))
    }

    /// Quick fixes for the diagnostics in `range` (see [`ide::fixes`]).
    pub fn fixes(&self, file: FileId, range: TextRange) -> Cancellable<Vec<ide::Fix>> {
        self.with_db(|db| ide::fixes(db, file.0, range))
    }

    /// The definition of the name at `offset` (see [`ide::definition`]).
    pub fn definition(&self, file: FileId, offset: TextSize) -> Cancellable<Option<TextRange>> {
        self.with_db(|db| ide::definition(db, file.0, offset))
    }

    /// The references to the name at `offset` (see [`ide::references`]).
    pub fn references(
        &self,
        file: FileId,
        offset: TextSize,
        include_declaration: bool,
    ) -> Cancellable<Vec<ide::Reference>> {
        self.with_db(|db| ide::references(db, file.0, offset, include_declaration))
    }

    /// The range and text a rename at `offset` would change (see [`ide::prepare_rename`]).
    pub fn prepare_rename(
        &self,
        file: FileId,
        offset: TextSize,
    ) -> Cancellable<Option<(TextRange, String)>> {
        self.with_db(|db| ide::prepare_rename(db, file.0, offset))
    }

    /// The edits of renaming the name at `offset` (see [`ide::rename`]).
    pub fn rename(
        &self,
        file: FileId,
        offset: TextSize,
        new_name: &str,
    ) -> Cancellable<Result<Vec<(TextRange, String)>, String>> {
        self.with_db(|db| ide::rename(db, file.0, offset, new_name))
    }

    /// Document symbols (see [`ide::document_symbols`]).
    pub fn document_symbols(&self, file: FileId) -> Cancellable<Vec<ide::Symbol>> {
        self.with_db(|db| ide::document_symbols(db, file.0))
    }

    /// Symbols of `files` matching `query` (see [`ide::workspace_symbols`]).
    pub fn workspace_symbols(
        &self,
        files: &[FileId],
        query: &str,
    ) -> Cancellable<Vec<(FileId, ide::Symbol)>> {
        let files: Vec<SourceFile> = files.iter().map(|f| f.0).collect();
        self.with_db(|db| {
            ide::workspace_symbols(db, &files, query)
                .into_iter()
                .map(|(f, s)| (FileId(f), s))
                .collect()
        })
    }

    /// Semantic tokens of the file, or of the lines `range` touches (see
    /// [`ide::semantic_tokens`]).
    pub fn semantic_tokens(
        &self,
        file: FileId,
        range: Option<TextRange>,
    ) -> Cancellable<Vec<ide::SemanticToken>> {
        self.with_db(|db| ide::semantic_tokens(db, file.0, range))
    }

    /// Folding ranges (see [`ide::folding_ranges`]).
    pub fn folding_ranges(&self, file: FileId) -> Cancellable<Vec<ide::Fold>> {
        self.with_db(|db| ide::folding_ranges(db, file.0))
    }

    /// Selection ranges at `offset`, innermost first (see [`ide::selection_ranges`]).
    pub fn selection_ranges(&self, file: FileId, offset: TextSize) -> Cancellable<Vec<TextRange>> {
        self.with_db(|db| ide::selection_ranges(db, file.0, offset))
    }
}
