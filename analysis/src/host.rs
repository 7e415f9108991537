//! The analysis as the server and the command line see it: an [`AnalysisHost`] that takes
//! changes, and [`Analysis`] snapshots whose queries return [`Cancellable`] answers (the
//! shape of rust-analyzer's and nil's `ide` crates). Nothing outside this crate names salsa.
//!
//! Architecture Invariant: a change ([`AnalysisHost::set_file_text`],
//! [`AnalysisHost::edit_file`]) cancels every snapshot taken before it; their queries then
//! return `Err(Cancelled)` (the server answers `ContentModified`), and the change waits
//! until they have let go of the database.
//! Positions are UTF-8 byte offsets, as everywhere in this crate.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use salsa::{Database as _, Setter};
use serde_json::Value as Json;

use crate::db::{Db, RootDatabase};
use crate::document::{Chunk, Document};
use crate::ide;
use crate::{Diagnostic, LineCol, TextRange, TextSize};

/// How many chunks [`AnalysisHost::warm`] analyses between two garbage collections: as many
/// as the database keeps trees for (`lru = 16` on [`crate::db::parse`]).
pub const WARM_BATCH: usize = 16;

/// What [`AnalysisHost::in_batches`] runs on each chunk of a batch, on every core.
type Phase<'p> = &'p (dyn Fn(&RootDatabase, &Chunk) + Sync);

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

/// A document of the host (cheap to copy; valid for the host that made it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(u32);

/// Takes changes: documents' texts and edits, and the client settings.
#[derive(Default)]
pub struct AnalysisHost {
    db: RootDatabase,
    /// By [`FileId`]; each document a list of chunks ([`Document`]).
    documents: Vec<Arc<Document>>,
    /// The smallest chunk in bytes (0: [`crate::CHUNK_TARGET`]).
    chunk_target: usize,
    /// Whether analysing a new text also memoizes each chunk's folding ranges and document
    /// symbols ([`AnalysisHost::for_editor`]).
    for_editor: bool,
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
            ..AnalysisHost::default()
        }
    }

    /// The host for an editor: analysing a new text ([`AnalysisHost::warm`], a text with a
    /// kernel cut into chunks) also memoizes each chunk's folding ranges and document
    /// symbols while its tree is alive ([`ide::chunk_folds`], [`ide::chunk_symbol_count`]:
    /// kept), which both editors ask for after opening and after every change. Asked later,
    /// of a document whose trees were evicted, the first of each request after opening
    /// 100,000 ops re-parsed every chunk on one thread (0.67 s) and kept every tree until the
    /// next edit (RSS 169 → 356–395 MB); now each reads memos (under 10 ms), for 32 MB more
    /// after opening (RSS 212 MB; symbols' names are inline strings).
    #[must_use]
    pub fn for_editor(mut self) -> AnalysisHost {
        self.for_editor = true;
        self
    }

    /// The host, cutting documents into chunks of at least `bytes` (the default is
    /// [`crate::CHUNK_TARGET`]; tests cut small to cross chunk boundaries).
    #[must_use]
    pub fn with_chunk_target(mut self, bytes: usize) -> AnalysisHost {
        self.chunk_target = bytes;
        self
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
                .with_durability(salsa::Durability::HIGH)
                .to(threshold);
            // What each chunk reports may have changed with it.
            for doc in &mut self.documents {
                Arc::make_mut(doc).forget_digests();
            }
        }
    }

    /// Sets the target (SPEC §4 [3]): P304 and P416 compare with its capacities, the BIR
    /// names its `arch`, and the cost estimate shown is its. Not a keystroke: every chunk's
    /// diagnostics are computed again (the estimates themselves are kept with the
    /// lowerings, for every target, and are not).
    pub fn set_target(&mut self, target: lower::target::Target) {
        let settings = self.db.settings();
        if settings.target(&self.db) != target {
            settings
                .set_target(&mut self.db)
                .with_durability(salsa::Durability::HIGH)
                .to(target);
            for doc in &mut self.documents {
                Arc::make_mut(doc).forget_digests();
            }
        }
    }

    /// Adds a document with `text` (UTF-8; LF or CRLF line ends), cut into chunks of whole
    /// kernels. Not a change: snapshots taken before it are not cancelled (they do not see
    /// the new document).
    pub fn add_file(&mut self, text: &str) -> FileId {
        let id = FileId(u32::try_from(self.documents.len()).unwrap_or(u32::MAX));
        let target = match self.chunk_target {
            0 => crate::CHUNK_TARGET,
            n => n,
        };
        let doc = Document::with_target(&mut self.db, text, target, false);
        self.documents.push(Arc::new(doc));
        self.enter_kernels(id);
        id
    }

    /// Sets the entries of the chunks of `file` that continue a kernel cut into chunks
    /// (a new text's), and analyses the text as [`AnalysisHost::warm`] does: a batch at a
    /// time, each on every core, its chunks' outlines ([`crate::kernel::outline::outline`]) and
    /// mentions first, then (the entries of its chunks set from the outlines of the chunks
    /// before them) each chunk, each parsed once. A text without such a kernel is left
    /// cold (its chunks need no entry).
    fn enter_kernels(&mut self, file: FileId) {
        let doc = Arc::clone(self.document(file));
        if doc.outlined_chunks().is_empty() {
            return;
        }
        let mut entering = crate::document::Entering::default();
        let mut start = 0;
        let analyse = self.analyse(doc.chunks.len());
        self.in_batches(
            &doc.chunks,
            &[
                &|db, chunk| crate::document::outline_chunk(db, chunk),
                &analyse,
            ],
            &mut |db, phase, batch| {
                if phase == 0 {
                    doc.enter_batch(db, start..start + batch.len(), &mut entering);
                    start += batch.len();
                } else {
                    db.trigger_lru_eviction();
                }
            },
        );
        drop(doc);
        let doc = Arc::make_mut(self.document_mut(file));
        doc.entered(entering);
        doc.mark_warm();
    }

    /// Replaces the text of `file` (only the chunks whose text changed are set). Waits for
    /// the snapshots taken before it to let go (they are cancelled).
    pub fn set_file_text(&mut self, file: FileId, text: &str) {
        let Some(doc) = self.documents.get_mut(file.0 as usize) else {
            return;
        };
        Arc::make_mut(doc).set_text(&mut self.db, text);
        self.enter_kernels(file);
    }

    /// Replaces the bytes `range` of the text of `file` with `insert`: UTF-8 byte offsets
    /// into the text as it is now (several edits are several calls, each on the text the
    /// previous one left, as LSP's content changes apply). Bad input does not panic: a range
    /// reaching past the end ends at the end, an offset inside a multi-byte character moves
    /// back to that character's start. Nothing happens when those bytes already are
    /// `insert`. Only the chunk(s) the edit touches are set (see [`Document::edit`]); a
    /// change waits for the snapshots taken before it to let go (they are cancelled).
    pub fn edit_file(&mut self, file: FileId, range: TextRange, insert: &str) {
        let Some(doc) = self.documents.get_mut(file.0 as usize) else {
            return;
        };
        Arc::make_mut(doc).edit(&mut self.db, range, insert);
    }

    /// Analyses `file` if it is cold (just added, or given a new text; else returns at
    /// once): its chunks in batches of [`WARM_BATCH`], each on every core, with the syntax
    /// trees, names and lowerings beyond what the database keeps (the chunks and ops used
    /// last, [`crate::db::parse`]) evicted after each batch. So opening a big file ends with
    /// every chunk's diagnostics memoized and its peak memory that of a few batches, not of
    /// the whole file's trees. Waits for the snapshots taken before it to let go (they are
    /// cancelled), as a change does.
    pub fn warm(&mut self, file: FileId) {
        let doc = Arc::clone(self.document(file));
        if !doc.is_cold() {
            return;
        }
        let analyse = self.analyse(doc.chunks.len());
        self.in_batches(&doc.chunks, &[&analyse], &mut |db, _, _| {
            db.trigger_lru_eviction();
        });
        Arc::make_mut(self.document_mut(file)).mark_warm();
    }

    /// What analysing a chunk of a new text of `chunks` chunks computes: its diagnostics,
    /// summary and resources, and for an editor its folding ranges and symbol count
    /// ([`AnalysisHost::for_editor`]), and its symbol tree when the document's chunks all
    /// keep theirs ([`ide::KEPT_SYMBOL_TREES`]: its outline may be the whole tree).
    fn analyse(&self, chunks: usize) -> impl Fn(&RootDatabase, &Chunk) + Sync + use<> {
        let for_editor = self.for_editor;
        let trees = chunks <= ide::KEPT_SYMBOL_TREES;
        move |db, chunk| {
            crate::document::analyse_chunk(db, chunk.source);
            if for_editor {
                ide::chunk_folds(db, chunk.source);
                ide::chunk_symbol_count(db, chunk.source);
                if trees {
                    ide::chunk_symbols(db, chunk.source);
                }
            }
        }
    }

    /// Writes the BIR document of `file` (SPEC §8) to `out` as `pir lower` writes it: the
    /// text of [`Analysis::bir_text`], byte for byte. The chunks are analysed on every
    /// core, as [`AnalysisHost::warm`] does, and written a batch of [`WARM_BATCH`] at a
    /// time (serialized straight into `out`), their trees and lowerings evicted after
    /// each, so that memory does not grow with the number of chunks; the file's
    /// diagnostics are then memoized.
    ///
    /// Errors: those of `out`.
    pub fn write_bir(&mut self, file: FileId, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let doc = Arc::clone(self.document(file));
        let arch = self.db.settings().target(&self.db).arch();
        let mut bir = crate::bir::BirWriter::new(out, arch)?;
        let mut written = Ok(());
        let mut index = 0;
        self.in_batches(
            &doc.chunks,
            &[&|db, chunk| crate::document::analyse_chunk(db, chunk.source)],
            &mut |db, _, batch| {
                for _ in batch {
                    if written.is_ok() {
                        written = bir.chunk(db, &doc, index);
                    }
                    index += 1;
                }
                db.trigger_lru_eviction();
            },
        );
        Arc::make_mut(self.document_mut(file)).mark_warm();
        written?;
        bir.finish()
    }

    /// Runs each of `phases` in turn on every chunk of `chunks` on every core, a batch of
    /// [`WARM_BATCH`] chunks at a time, each phase followed by `after` on this thread with
    /// the database alone (it may set inputs, or evict), the phase's index and the
    /// batch's chunks. A chunk whose phase panicked or was cancelled is left (its next
    /// analysis meets it again, on a request, which reports it). The helper threads live
    /// for the whole run, each given a fresh handle of the database per phase (dropped
    /// before `after`): a thread per batch left the allocator tens of megabytes of pages
    /// abandoned by threads that had ended.
    fn in_batches<'c>(
        &mut self,
        chunks: &'c [Chunk],
        phases: &[Phase<'_>],
        after: &mut dyn FnMut(&mut RootDatabase, usize, &'c [Chunk]),
    ) {
        let helpers = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(chunks.len())
            .saturating_sub(1);
        // This thread's share of `batch` (every `threads`-th chunk from `first`).
        // The next chunk of the batch to take: each thread takes the next one left (chunks
        // differ in cost; a fixed share left a core idle at the end of each batch).
        let next = std::sync::atomic::AtomicUsize::new(0);
        let share = |db: &RootDatabase, batch: &[Chunk], phase: usize| {
            let _ = salsa::Cancelled::catch(AssertUnwindSafe(|| {
                while let Some(chunk) =
                    batch.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    if let Some(run) = phases.get(phase) {
                        run(db, chunk);
                    }
                }
            }));
        };
        std::thread::scope(|scope| {
            let (done, finished) = std::sync::mpsc::channel::<()>();
            let jobs: Vec<_> = (1..=helpers)
                .map(|_| {
                    let (job, next) = std::sync::mpsc::channel::<(RootDatabase, &[Chunk], usize)>();
                    let done = done.clone();
                    scope.spawn(move || {
                        for (db, batch, phase) in next {
                            // A panic here is a bug the chunk's next analysis meets again
                            // (on a request, which reports it); the batch must end anyway.
                            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                                share(&db, batch, phase);
                            }));
                            drop(db);
                            let _ = done.send(());
                        }
                    });
                    job
                })
                .collect();
            drop(done);
            for batch in chunks.chunks(WARM_BATCH) {
                for phase in 0..phases.len() {
                    next.store(0, std::sync::atomic::Ordering::Relaxed);
                    let sent = jobs
                        .iter()
                        .filter(|job| job.send((self.db.clone(), batch, phase)).is_ok())
                        .count();
                    share(&self.db, batch, phase);
                    for _ in 0..sent {
                        let _ = finished.recv();
                    }
                    after(&mut self.db, phase, batch);
                }
            }
        });
    }

    /// The document `file` (a `FileId` is handed out by `add_file` only: an index into the
    /// documents, which only grow, so it is in range by construction).
    #[allow(clippy::indexing_slicing)]
    fn document(&self, file: FileId) -> &Arc<Document> {
        &self.documents[file.0 as usize]
    }

    /// [`AnalysisHost::document`], to change.
    #[allow(clippy::indexing_slicing)]
    fn document_mut(&mut self, file: FileId) -> &mut Arc<Document> {
        &mut self.documents[file.0 as usize]
    }

    /// A consistent view for queries, until the next change.
    pub fn snapshot(&self) -> Analysis {
        Analysis {
            db: self.db.clone(),
            documents: self.documents.clone(),
        }
    }
}

/// A snapshot: every query answers about the texts as they were when it was taken, or
/// [`Cancelled`] once a change has come.
#[derive(Clone)]
pub struct Analysis {
    db: RootDatabase,
    documents: Vec<Arc<Document>>,
}

impl Analysis {
    // A `FileId` is handed out by `add_file` only, an index into the host's documents
    // (which only grow), so it is in range by construction.
    #[allow(clippy::indexing_slicing)]
    fn doc(&self, file: FileId) -> &Document {
        &self.documents[file.0 as usize]
    }

    /// Runs `f` on the database; a cancellation becomes `Err(Cancelled)`.
    fn with_db<'a, T>(&'a self, f: impl FnOnce(&'a RootDatabase) -> T) -> Cancellable<T> {
        let db = &self.db;
        salsa::Cancelled::catch(AssertUnwindSafe(move || f(db))).map_err(|_| Cancelled)
    }

    /// The target the snapshot's answers are for (SPEC §4 [3]).
    pub fn target(&self) -> lower::target::Target {
        self.db.settings().target(&self.db)
    }

    /// The whole text of `file` (a copy, O(file): for the command line, not a keystroke).
    pub fn file_text(&self, file: FileId) -> String {
        self.doc(file).text(&self.db)
    }

    /// The length of `file`'s text in bytes.
    pub fn file_len(&self, file: FileId) -> TextSize {
        self.doc(file).len()
    }

    /// The 1-based line and column (Unicode scalar values) of byte `offset` of `file`, as
    /// `pir check` reports them (SPEC §9; lines end at `\n`).
    pub fn line_col(&self, file: FileId, offset: TextSize) -> Cancellable<LineCol> {
        let doc = self.doc(file);
        self.with_db(|db| doc.line_col(db, offset))
    }

    /// Every diagnostic of `file`, sorted by range (SPEC §7): each chunk's (memoized),
    /// in the document's offsets (see [`Document::diagnostics`]). On a document the host
    /// has not warmed ([`AnalysisHost::warm`]) the chunks are analysed here, one by one.
    pub fn diagnostics(&self, file: FileId) -> Cancellable<Vec<Diagnostic>> {
        let doc = self.doc(file);
        self.with_db(|db| doc.diagnostics(db))
    }

    /// [`Analysis::diagnostics`] as an editor is given them: at most
    /// [`crate::MAX_COST_WARNINGS`] cost warnings, and how many more there are (see
    /// [`Document::capped_diagnostics`]: the chunks past them are not read).
    pub fn capped_diagnostics(&self, file: FileId) -> Cancellable<crate::CappedDiagnostics> {
        let doc = self.doc(file);
        self.with_db(|db| doc.capped_diagnostics(db))
    }

    /// The BIR document of `file` (SPEC §8).
    pub fn file_bir(&self, file: FileId) -> Cancellable<Json> {
        let doc = self.doc(file);
        self.with_db(|db| crate::bir::file_bir(db, doc))
    }

    /// The BIR document of `file` as `pir lower` writes it (SPEC §8: pretty JSON, numbers
    /// as Rust's `{:?}` prints them), written straight from the typed lowerings.
    pub fn bir_text(&self, file: FileId) -> Cancellable<String> {
        let doc = self.doc(file);
        self.with_db(|db| {
            serde_json::to_string_pretty(&crate::bir::bir_document(db, doc)).unwrap_or_default()
        })
    }

    /// `pir/showBir`: the whole file's BIR, or the op's at `offset` (see [`ide::show_bir`]).
    pub fn show_bir(&self, file: FileId, offset: Option<TextSize>) -> Cancellable<Json> {
        let doc = self.doc(file);
        self.with_db(|db| ide::show_bir(db, doc, offset))
    }

    /// Hover at `offset` (see [`ide::hover`]).
    pub fn hover(&self, file: FileId, offset: TextSize) -> Cancellable<Option<ide::HoverResult>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::hover(db, doc, offset))
    }

    /// Code lenses: one per kernel with its resources (see [`ide::code_lenses`], SPEC §10.1).
    pub fn code_lenses(&self, file: FileId) -> Cancellable<Vec<ide::CodeLens>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::code_lenses(db, doc))
    }

    /// Each kernel's resources, in source order (see [`crate::resources::kernel_stats`]; a
    /// kernel cut into chunks joined from them, [`Document::kernel_stats`]).
    pub fn kernel_stats(&self, file: FileId) -> Cancellable<Vec<crate::KernelStats>> {
        let doc = self.doc(file);
        self.with_db(|db| doc.kernel_stats(db))
    }

    /// Each kernel's SBUF and PSUM occupancy at each of its ops, in the order of
    /// [`Analysis::kernel_stats`] (bytes per partition; for the profile drawing).
    pub fn kernel_occupancy(&self, file: FileId) -> Cancellable<Vec<[Vec<u64>; 2]>> {
        let doc = self.doc(file);
        self.with_db(|db| doc.kernel_occupancy(db))
    }

    /// Inlay hints, in `range` if given (see [`ide::inlay_hints`]).
    pub fn inlay_hints(
        &self,
        file: FileId,
        range: Option<TextRange>,
    ) -> Cancellable<Vec<ide::InlayHint>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::inlay_hints(db, doc, range))
    }

    /// The signature help at `offset`, inside an op body (see [`ide::SignatureHelp`]).
    pub fn signature_help(
        &self,
        file: FileId,
        offset: TextSize,
    ) -> Cancellable<Option<ide::SignatureHelp>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::signature_help(db, doc, offset))
    }

    /// Completions at `offset` (see [`ide::completions`]).
    pub fn completions(
        &self,
        file: FileId,
        offset: TextSize,
    ) -> Cancellable<Vec<ide::CompletionItem>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::completions(db, doc, offset))
    }

    /// Quick fixes for the diagnostics in `range` (see [`ide::fixes`]).
    pub fn fixes(&self, file: FileId, range: TextRange) -> Cancellable<Vec<ide::Fix>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::fixes(db, doc, range))
    }

    /// The definition of the name at `offset` (see [`ide::definition`]).
    pub fn definition(&self, file: FileId, offset: TextSize) -> Cancellable<Option<TextRange>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::definition(db, doc, offset))
    }

    /// The references to the name at `offset` (see [`ide::references`]).
    pub fn references(
        &self,
        file: FileId,
        offset: TextSize,
        include_declaration: bool,
    ) -> Cancellable<Vec<ide::Reference>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::references(db, doc, offset, include_declaration))
    }

    /// The range and text a rename at `offset` would change (see [`ide::prepare_rename`]).
    pub fn prepare_rename(
        &self,
        file: FileId,
        offset: TextSize,
    ) -> Cancellable<Option<(TextRange, String)>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::prepare_rename(db, doc, offset))
    }

    /// The edits of renaming the name at `offset` (see [`ide::rename`]).
    pub fn rename(
        &self,
        file: FileId,
        offset: TextSize,
        new_name: &str,
    ) -> Cancellable<Result<Vec<(TextRange, String)>, String>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::rename(db, doc, offset, new_name))
    }

    /// Document symbols (see [`ide::document_symbols`]): the whole tree, or, for a document
    /// of more than [`ide::MAX_DOCUMENT_SYMBOLS`] symbols, its kernels and their parameters.
    pub fn document_symbols(&self, file: FileId) -> Cancellable<Vec<ide::Symbol>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::document_symbols(db, doc))
    }

    /// The instructions of the file that `name` names (see [`ide::find_instructions`]).
    pub fn find_instructions(
        &self,
        file: FileId,
        name: ide::InstructionName,
    ) -> Cancellable<Vec<ide::FoundInstruction>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::find_instructions(db, doc, name))
    }

    /// Symbols of `files` matching `query` (see [`ide::workspace_symbols`]).
    pub fn workspace_symbols(
        &self,
        files: &[FileId],
        query: &str,
    ) -> Cancellable<Vec<(FileId, ide::Symbol)>> {
        let docs: Vec<(FileId, &Document)> = files.iter().map(|&f| (f, self.doc(f))).collect();
        self.with_db(|db| ide::workspace_symbols(db, &docs, query))
    }

    /// Semantic tokens of the file, or of the lines `range` touches (see
    /// [`ide::semantic_tokens`]).
    pub fn semantic_tokens(
        &self,
        file: FileId,
        range: Option<TextRange>,
    ) -> Cancellable<Vec<ide::SemanticToken>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::semantic_tokens(db, doc, range))
    }

    /// The semantic tokens of the whole of `file` chunk by chunk (see
    /// [`ide::token_chunks`]): a chunk none of whose inputs changed since an earlier call
    /// gives the same list (`Arc::ptr_eq`).
    pub fn semantic_token_chunks(&self, file: FileId) -> Cancellable<Vec<ide::ChunkTokens>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::token_chunks(db, doc))
    }

    /// Folding ranges (see [`ide::folding_ranges`]).
    pub fn folding_ranges(&self, file: FileId) -> Cancellable<Vec<ide::Fold>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::folding_ranges(db, doc))
    }

    /// Selection ranges at `offset`, innermost first (see [`ide::selection_ranges`]); the
    /// last is the whole document.
    pub fn selection_ranges(&self, file: FileId, offset: TextSize) -> Cancellable<Vec<TextRange>> {
        let doc = self.doc(file);
        self.with_db(|db| ide::selection_ranges(db, doc, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: u32, end: u32) -> TextRange {
        TextRange::new(TextSize::from(start), TextSize::from(end))
    }

    #[test]
    fn edit_file_splices_bytes() {
        let mut host = AnalysisHost::new();
        let file = host.add_file("a😀b\r\ncd");
        host.edit_file(file, range(5, 6), "B");
        assert_eq!(host.snapshot().file_text(file), "a😀B\r\ncd");
        host.edit_file(file, range(8, 8), "x");
        assert_eq!(host.snapshot().file_text(file), "a😀B\r\nxcd");
        // Inside the emoji: from its start; past the end: to the end.
        host.edit_file(file, range(3, 99), "!");
        assert_eq!(host.snapshot().file_text(file), "a!");
        host.edit_file(file, range(1, 2), "!");
        assert_eq!(host.snapshot().file_text(file), "a!");
    }
}
