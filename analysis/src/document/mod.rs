//! A document as chunks (issue 9): the text cut at kernel lines (`kernel @name` first on
//! its line, [`syntax::starts_kernel_line`]) into chunks of at least [`CHUNK_TARGET`]
//! bytes, and a kernel of [`crate::document::SPLIT_FACTOR`] targets or more also at the
//! statement lines of its body; each chunk a [`SourceFile`] salsa input with its own
//! parse, names, lowering and findings, in offsets relative to its start.
//!
//! Architecture Invariant: a kernel line ends whatever is open before it, and a statement
//! line starts a statement whatever precedes it, so each chunk parses alone as in the
//! whole file (`syntax/tests/pieces.rs`). Everything the analysis knows is chunk-local but
//! what the kernel-wide rules join over a kernel's parts (`crate::kernel`), what an
//! [`Entry`](crate::resolve::Entry) tells a chunk of its kernel's earlier parts, and the
//! cap on syntax errors. An edit re-cuts only the chunks it touches ([`edit`]), the
//! entries of the chunks it changed are set anew ([`entries`]), and the diagnostics are
//! gathered by passing over the other chunks by a digest ([`gather`]).
//!
//! Offsets are UTF-8 bytes; "lines" here are the language's (SPEC §1: a `\n` ends a line).
//! A chunk starts at a line start, or inside a line of a chunk target or more, at a
//! statement directly in a kernel's body after a `}` ([`cut`]): a chunk's lines are the
//! document's, shifted, and its first line's columns too when it starts inside a line
//! ([`Origin`]).

mod cut;
mod edit;
mod entries;
mod gather;
mod names;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap as HashMap;
use salsa::{Durability, Setter};

use crate::db::{Db, RootDatabase, SourceFile};
use crate::kernel::rules::{p200, p501};
use crate::kernel::view::KernelView;
use crate::{LineCol, TextRange, TextSize};

use cut::look_ahead;
use edit::cut_parts;
use entries::{CachedIndex, set_entry};
pub(crate) use entries::{Entering, outline_chunk};
use gather::Digest;
pub(crate) use gather::{analyse_chunk, lone_carriage_returns};

/// The smallest chunk a document is cut into, in bytes (a chunk holds whole kernels, so it
/// may be larger; only the last may be smaller). About 80 ops of typical kernel text: an
/// edit re-parses and re-resolves about that much.
pub const CHUNK_TARGET: usize = 16 * 1024;

/// A kernel this many chunk targets long or longer is cut inside (at statement lines of its
/// body); shorter kernels stay whole in their chunk.
pub const SPLIT_FACTOR: usize = 8;

/// One chunk of a document.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    /// Its text and look-ahead.
    pub source: SourceFile,
    /// Its first byte in the document.
    pub start: TextSize,
    /// Its length in bytes.
    pub len: TextSize,
    /// Where it starts: line, and column when it starts inside a line.
    pub origin: Origin,
    /// The `\n`s in it.
    pub newlines: u32,
    /// The Unicode scalar values after its last `\n` (all of them when it holds none):
    /// where the chunk after it starts on its line.
    pub tail_chars: u32,
    /// Whether it starts inside a kernel, and whether its last kernel goes on into the
    /// next chunk (its input's [`SourceFile::context`]).
    pub context: syntax::Context,
    /// It starts inside a kernel that goes on past its end: a middle part of a kernel cut
    /// into chunks, holding neither its start nor its end (`cut::Cuts::through`).
    pub through: bool,
}

impl Chunk {
    /// The chunk's range in the document.
    pub fn range(&self) -> TextRange {
        TextRange::at(self.start, self.len)
    }

    /// Where the chunk after it starts.
    fn origin_after(&self) -> Origin {
        let column = if self.newlines == 0 {
            self.origin.column
        } else {
            0
        };
        Origin {
            line: self.origin.line.saturating_add(self.newlines),
            column: column.saturating_add(self.tail_chars),
        }
    }
}

/// Where a chunk starts in its document, in the language's lines (SPEC §1: a `\n` ends a
/// line): a chunk starts at a line start, or inside a long line after a `}`
/// ([`cut::PartStart::line_indent`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The 0-based line it starts on (the `\n`s before it).
    pub line: u32,
    /// The Unicode scalar values before it on that line (0 at a line start).
    pub column: u32,
}

impl Origin {
    /// `at`, a 1-based line and column (Unicode scalar values) in the chunk's text, as the
    /// document's.
    pub fn place(self, at: LineCol) -> LineCol {
        LineCol {
            line: at.line.saturating_add(self.line),
            column: if at.line == 1 {
                at.column.saturating_add(self.column)
            } else {
                at.column
            },
        }
    }
}
/// A document: its chunks in order, covering the text without gaps (at least one chunk,
/// empty for an empty text).
#[derive(Clone, Debug)]
pub(crate) struct Document {
    /// The chunks in order.
    pub chunks: Vec<Chunk>,
    /// Each chunk's [`Digest`], at the chunk's index; empty until a gathering computes it.
    digests: Vec<OnceLock<Digest>>,
    /// Whether its chunks were ever analysed together (see [`crate::AnalysisHost::warm`]);
    /// a new text ([`Document::set_text`]) is cold again.
    warmed: bool,
    /// The smallest chunk, in bytes ([`CHUNK_TARGET`] but in tests).
    target: usize,
    /// The index of each kernel cut into chunks, by the kernel's first chunk, with the
    /// chunks it was made from and the hashes of their outlines ([`Document::refresh_run`]).
    indexes: HashMap<SourceFile, CachedIndex>,
    /// Each chunk's generation, at the chunk's index: new whenever one of its inputs is set
    /// (where its digest is emptied), so that what is kept of a chunk outside the database
    /// knows when it is stale ([`Document::reads_before_writes`]).
    generations: Vec<u64>,
    /// P501's index of each kernel cut into chunks (the rule's private cache,
    /// [`p501::Cache`]): shared by the document's copies, each bringing it up to date from
    /// its own chunks and generations when it gathers diagnostics.
    read_cache: Arc<p501::Cache>,
    /// P200's closest earlier names in kernels cut into chunks (the rule's private cache,
    /// [`p200::Cache`]): shared by the document's copies.
    suggestions: Arc<p200::Cache>,
}

/// A generation never given before ([`Document::generations`]).
fn new_generation() -> u64 {
    static STAMPS: AtomicU64 = AtomicU64::new(0);
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

fn newlines(text: &str) -> u32 {
    u32::try_from(bytecount(text)).unwrap_or(u32::MAX)
}

/// The Unicode scalar values of `text` after its last `\n` ([`Chunk::tail_chars`]).
fn tail_chars(text: &str) -> u32 {
    let tail = text
        .rfind('\n')
        .map_or(text, |i| text.get(i + 1..).unwrap_or_default());
    u32::try_from(tail.chars().count()).unwrap_or(u32::MAX)
}

fn bytecount(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

fn size(n: usize) -> TextSize {
    TextSize::try_from(n).unwrap_or(TextSize::from(u32::MAX))
}

impl Document {
    /// A document holding `text`, cut into chunks.
    #[cfg(test)]
    pub fn new(db: &mut RootDatabase, text: &str) -> Document {
        Document::with_target(db, text, CHUNK_TARGET, true)
    }

    /// A document holding `text`, cut into chunks of at least `target` bytes (tests cut
    /// small, to cross chunk boundaries).
    ///
    /// `enter`: set the entries of the chunks that continue a kernel cut into chunks now,
    /// one chunk after another (else the caller does, [`Document::refresh_entries`]).
    pub fn with_target(db: &mut RootDatabase, text: &str, target: usize, enter: bool) -> Document {
        let mut doc = Document {
            chunks: Vec::new(),
            digests: Vec::new(),
            warmed: false,
            target,
            indexes: HashMap::default(),
            generations: Vec::new(),
            read_cache: Arc::default(),
            suggestions: Arc::default(),
        };
        let (pieces, _) = cut_parts(text, "", syntax::Context::default(), target, None);
        for (i, piece) in pieces.iter().enumerate() {
            let next = pieces.get(i + 1);
            let look_ahead = next.map_or(String::new(), |next| look_ahead(next.text));
            let context = piece.context(next.is_some_and(|n| n.inside));
            let (piece, through) = (piece.text, piece.through);
            let source = new_source(db, piece, &look_ahead, context, true);
            doc.chunks.push(Chunk {
                source,
                start: TextSize::from(0),
                len: size(piece.len()),
                origin: Origin::default(),
                newlines: newlines(piece),
                tail_chars: tail_chars(piece),
                context,
                through,
            });
            doc.digests.push(OnceLock::new());
            doc.generations.push(new_generation());
        }
        doc.place_from(0);
        if enter {
            doc.refresh_entries(db, 0, doc.chunks.len(), Durability::MEDIUM);
        }
        doc
    }

    /// The chunks whose last kernel goes on into the next ones: those whose outlines the
    /// entries are made from ([`crate::kernel::outline::outline`]; a host computes them on every core
    /// before a new text's entries, [`crate::AnalysisHost::add_file`]).
    pub fn outlined_chunks(&self) -> Vec<Chunk> {
        self.chunks
            .iter()
            .filter(|c| c.context.goes_on)
            .copied()
            .collect()
    }

    /// `source` alone as a document of one chunk (for the per-text functions of this crate:
    /// [`crate::file_bir`]).
    pub fn of_source(db: &dyn Db, source: SourceFile) -> Document {
        let text = source.text(db);
        Document {
            target: CHUNK_TARGET,
            warmed: false,
            chunks: vec![Chunk {
                source,
                start: TextSize::from(0),
                len: size(text.len()),
                origin: Origin::default(),
                newlines: newlines(text),
                tail_chars: tail_chars(text),
                context: *source.context(db),
                through: false,
            }],
            digests: vec![OnceLock::new()],
            indexes: HashMap::default(),
            generations: vec![new_generation()],
            read_cache: Arc::default(),
            suggestions: Arc::default(),
        }
    }

    /// The chunk at `index`: a chunk index the document handed out (by [`Document::chunk_index`],
    /// [`Document::head`], [`Document::tail`], a walk over its chunks) or past the end, which
    /// gives the last chunk. A document has at least one chunk (an empty text, one empty
    /// chunk: `replace_chunks` keeps it so).
    #[allow(clippy::indexing_slicing)]
    pub(crate) fn chunk(&self, index: usize) -> &Chunk {
        &self.chunks[index.min(self.chunks.len().saturating_sub(1))]
    }

    /// The document's length in bytes.
    pub fn len(&self) -> TextSize {
        self.chunks
            .last()
            .map_or(TextSize::from(0), |c| c.range().end())
    }

    /// The whole text (a copy: O(document)).
    pub fn text(&self, db: &dyn Db) -> String {
        let mut out = String::with_capacity(usize::from(self.len()));
        for chunk in &self.chunks {
            out.push_str(chunk.source.text(db));
        }
        out
    }

    /// The index of the chunk holding byte `offset` (the last chunk for the end of the
    /// document; a chunk's start belongs to it).
    pub fn chunk_index(&self, offset: TextSize) -> usize {
        self.chunks
            .partition_point(|c| c.start <= offset)
            .saturating_sub(1)
    }

    /// The chunk holding `offset` and `offset` relative to it (clamped to the document).
    pub fn locate(&self, offset: TextSize) -> (Chunk, TextSize) {
        let chunk = self.chunk(self.chunk_index(offset));
        let relative = offset.min(chunk.range().end()) - chunk.start;
        (*chunk, relative)
    }

    /// The chunks `range` touches (its ends included), each with the part of `range` in it,
    /// relative to the chunk.
    pub fn chunks_in(&self, range: TextRange) -> impl Iterator<Item = (Chunk, TextRange)> + '_ {
        let first = self.chunk_index(range.start());
        let last = self.chunk_index(range.end());
        let chunks = self.chunks.get(first..=last.max(first)).unwrap_or_default();
        chunks.iter().map(move |c| {
            let start = range.start().max(c.start).min(c.range().end());
            let end = range.end().min(c.range().end()).max(start);
            (*c, TextRange::new(start - c.start, end - c.start))
        })
    }

    /// Recomputes the starts and origins of the chunks from index `from` on.
    fn place_from(&mut self, from: usize) {
        let (mut start, mut origin) = match from.checked_sub(1).and_then(|i| self.chunks.get(i)) {
            Some(c) => (c.range().end(), c.origin_after()),
            None => (TextSize::from(0), Origin::default()),
        };
        for chunk in self.chunks.get_mut(from..).unwrap_or_default() {
            chunk.start = start;
            chunk.origin = origin;
            start += chunk.len;
            origin = chunk.origin_after();
        }
    }

    /// Replaces the whole text (reusing the chunks' inputs in order, setting only those
    /// whose text changed). The caller then sets the entries ([`Document::refresh_entries`]).
    pub fn set_text(&mut self, db: &mut RootDatabase, text: &str) {
        self.warmed = false;
        let all = 0..self.chunks.len();
        let (pieces, _) = cut_parts(text, "", syntax::Context::default(), self.target, None);
        self.replace_chunks(db, all, &pieces, false);
        self.indexes.clear();
        self.read_cache = Arc::default();
        self.suggestions = Arc::default();
    }

    /// The first chunk of the kernel chunk `i` starts inside (`i` itself when it starts
    /// with whole kernels): back over the middle parts ([`Chunk::through`]).
    pub(crate) fn head(&self, i: usize) -> usize {
        if i == 0 || !self.chunk(i).context.inside {
            return i;
        }
        let mut j = i - 1;
        while j > 0 && self.chunk(j).through {
            j -= 1;
        }
        j
    }

    /// The last chunk of the kernel that goes on from chunk `i` into the next ones (`i`
    /// itself when its last kernel does not go on): on over the middle parts.
    pub(crate) fn tail(&self, i: usize) -> usize {
        if !self.chunk(i).context.goes_on || i + 1 >= self.chunks.len() {
            return i;
        }
        let mut j = i + 1;
        while j + 1 < self.chunks.len() && self.chunk(j).through {
            j += 1;
        }
        j
    }

    /// The ops of the kernel chunk `index` starts inside, in its chunks before `index`
    /// (0 when the chunk starts with whole kernels): what its ops' implicit ids count from.
    /// From the parts' position-free summaries ([`KernelView::ops_before`]): O(parts).
    pub(crate) fn op_base(&self, db: &dyn Db, index: usize) -> u32 {
        if !self.chunks.get(index).is_some_and(|c| c.context.inside) {
            return 0;
        }
        let view = KernelView::of(self, index, 0, false);
        view.part_in(index)
            .map_or(0, |at| view.ops_before(db, self, at.part))
    }

    /// The indentation (its spaces and tabs) of the line chunk `index` starts inside, when
    /// it starts inside a line ([`syntax::Context::line_indent`]); else `None`. Read from the
    /// chunk that holds the line's start, back over the chunks of the line: O(the line).
    pub(crate) fn first_line_indent(&self, db: &dyn Db, index: usize) -> Option<String> {
        self.chunks.get(index)?.context.line_indent?;
        let indent = |line: &str| syntax::indentation(line).to_string();
        let mut j = index;
        while j > 0 {
            j -= 1;
            let chunk = self.chunk(j);
            let text = chunk.source.text(db);
            if let Some(i) = text.rfind('\n') {
                return Some(indent(text.get(i + 1..).unwrap_or_default()));
            }
            if chunk.context.line_indent.is_none() {
                return Some(indent(text));
            }
        }
        Some(indent(self.chunk(0).source.text(db)))
    }

    /// The text of the chunks `range`.
    fn text_of(&self, db: &dyn Db, range: std::ops::Range<usize>) -> String {
        let chunks = self.chunks.get(range).unwrap_or_default();
        let mut out = String::with_capacity(chunks.iter().map(|c| usize::from(c.len)).sum());
        for chunk in chunks {
            out.push_str(chunk.source.text(db));
        }
        out
    }

    /// Empties every chunk's [`Digest`] (the settings changed: what any chunk reports may
    /// have).
    pub fn forget_digests(&mut self) {
        self.digests.fill_with(OnceLock::new);
        self.generations.fill_with(new_generation);
    }

    /// Empties the digest of chunk `i` and gives it a new generation (one of its inputs was set).
    fn forget(&mut self, i: usize) {
        if let Some(digest) = self.digests.get_mut(i) {
            *digest = OnceLock::new();
        }
        if let Some(generation) = self.generations.get_mut(i) {
            *generation = new_generation();
        }
    }

    /// Whether its chunks were never analysed together since its text was set (see
    /// [`crate::AnalysisHost::warm`]).
    pub fn is_cold(&self) -> bool {
        !self.warmed
    }

    /// Marks the document analysed (its chunks' diagnostics are memoized).
    pub fn mark_warm(&mut self) {
        self.warmed = true;
    }

    /// The 1-based line and column (Unicode scalar values) of `offset`, as `pir check`
    /// reports them (see [`crate::line_col`]).
    pub fn line_col(&self, db: &dyn Db, offset: TextSize) -> LineCol {
        let (chunk, relative) = self.locate(offset);
        let index = crate::db::line_index(db, chunk.source);
        chunk
            .origin
            .place(crate::line_col(index, chunk.source.text(db), relative))
    }
}

/// A chunk's input. New chunks are of medium durability and an edited chunk's text is set
/// at low durability: when a keystroke changes one chunk, salsa knows the queries of every
/// chunk not edited since they ran are still valid without walking their dependencies (one
/// per op), so gathering the document's diagnostics costs O(chunks), not O(ops). `coarse`
/// for the chunks of a new text (see [`SourceFile::coarse`]), not for those an edit makes.
///
/// A spare input (one a document let go of, [`retire_source`]) is taken first, its inputs
/// set at low durability (as an edit's: a medium one would make every chunk's queries be
/// verified again), so that the inputs of a session are as many as its most chunks.
fn new_source(
    db: &mut RootDatabase,
    text: &str,
    look_ahead: &str,
    context: syntax::Context,
    coarse: bool,
) -> SourceFile {
    if let Some(source) = db.take_spare() {
        let low = Durability::LOW;
        source
            .set_text(db)
            .with_durability(low)
            .to(text.to_string());
        if source.look_ahead(db) != look_ahead {
            source
                .set_look_ahead(db)
                .with_durability(low)
                .to(look_ahead.to_string());
        }
        if *source.coarse(db) != coarse {
            source.set_coarse(db).with_durability(low).to(coarse);
        }
        if *source.context(db) != context {
            source.set_context(db).with_durability(low).to(context);
        }
        set_entry(db, source, None, low);
        return source;
    }
    SourceFile::builder(text.to_string())
        .text_durability(Durability::MEDIUM)
        .look_ahead(look_ahead.to_string())
        .look_ahead_durability(Durability::MEDIUM)
        .coarse(coarse)
        .coarse_durability(Durability::MEDIUM)
        .context(context)
        .context_durability(Durability::MEDIUM)
        .entry_durability(Durability::MEDIUM)
        .new(db)
}

/// Lets go of `source`, a chunk's input no document holds any more: its inputs emptied (its
/// memos then hold what an empty text gives once asked again) and kept for the next
/// [`new_source`].
fn retire_source(db: &mut RootDatabase, source: SourceFile) {
    let low = Durability::LOW;
    if !source.text(db).is_empty() {
        source.set_text(db).with_durability(low).to(String::new());
    }
    if !source.look_ahead(db).is_empty() {
        source
            .set_look_ahead(db)
            .with_durability(low)
            .to(String::new());
    }
    set_entry(db, source, None, low);
    db.put_spare(source);
}

/// Values with byte offsets that move with their chunk: `shift(by)` adds `by` to every
/// offset (a chunk's answer made the document's). The trait of the syntax trees' pieces,
/// implemented here for the analysis' answers.
pub use syntax::Shift;
