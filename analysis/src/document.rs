//! A document as chunks of whole kernels (issue 9): the text cut at kernel lines
//! (`kernel @name` first on its line, [`syntax::starts_kernel_line`]) into chunks of at
//! least [`CHUNK_TARGET`] bytes, each a [`SourceFile`] salsa input with its own parse,
//! names, lowering and diagnostics, in offsets relative to its start.
//!
//! Architecture Invariant: a kernel line ends whatever is open before it, so the kernels of
//! a chunk parse alone as in the whole file (`syntax/tests/pieces.rs`), and everything the
//! analysis knows is kernel-local but for kernel names (P201) and the cap on syntax errors,
//! which [`Document::diagnostics`] applies across chunks. An edit re-cuts only the chunks
//! it touches ([`Document::edit`]): nothing on the keystroke path reads the other chunks'
//! text, and their queries stay memoized (their inputs are not set). Gathering the
//! document's diagnostics reads the other chunks' memos only when they have something to
//! report: it passes over the rest by a small digest kept beside each chunk ([`Digest`]).
//!
//! Offsets are UTF-8 bytes; "lines" here are the language's (SPEC §1: a `\n` ends a line).
//! A chunk starts at a line start, so a chunk's lines are the document's, shifted.

use rustc_hash::{FxBuildHasher, FxHashMap as HashMap, FxHashSet as HashSet};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use lower::diag::Code;
use salsa::{Durability, Setter};

use crate::db::{Db, RootDatabase, SourceFile};
use crate::diagnostic::Diagnostic;
use crate::kernel::rules::{self, p208, p416, p500, p501};
use crate::kernel::view::KernelView;
use crate::kernel::{SplitKernel, summary};
use crate::split::KernelIndex;
use crate::{LineCol, TextRange, TextSize};

/// The smallest chunk a document is cut into, in bytes (a chunk holds whole kernels, so it
/// may be larger; only the last may be smaller). About 80 ops of typical kernel text: an
/// edit re-parses and re-resolves about that much.
pub const CHUNK_TARGET: usize = 16 * 1024;

/// One chunk of a document.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    /// Its text and look-ahead.
    pub source: SourceFile,
    /// Its first byte in the document.
    pub start: TextSize,
    /// Its length in bytes.
    pub len: TextSize,
    /// The 0-based line it starts on (the `\n`s before it).
    pub first_line: u32,
    /// The `\n`s in it.
    pub newlines: u32,
    /// Whether it starts inside a kernel, and whether its last kernel goes on into the
    /// next chunk (its input's [`SourceFile::context`]).
    pub context: syntax::Context,
    /// It starts inside a kernel that goes on past its end: a middle part of a kernel cut
    /// into chunks, holding neither its start nor its end (`syntax::Cuts::through`).
    pub through: bool,
}

impl Chunk {
    /// The chunk's range in the document.
    pub fn range(&self) -> TextRange {
        TextRange::at(self.start, self.len)
    }
}

/// What [`Document::diagnostics`] must know of a chunk to pass over it: whether it has
/// anything to report, and its kernel names (hashed, for P201 across chunks).
///
/// Kept in the document, beside its chunk, and not only in the database: a keystroke's
/// diagnostics then read one small array for the chunks it did not touch, instead of two
/// memos per chunk scattered over the heap. Those reads cost little in a loop of
/// keystrokes but one or more cache misses each after the editor has been idle, which at
/// 100,000 ops (about 400 chunks) was a third of a keystroke through the server.
/// A chunk's digest stays valid while its inputs and the settings do (everything a chunk
/// reports is a function of them, see the module's invariant): [`Document::replace_chunks`]
/// gives every chunk whose input it sets a new, empty one, and so does
/// [`Document::forget_digests`] to every chunk when the settings change.
#[derive(Clone, Debug)]
struct Digest {
    /// The chunk has diagnostics, or syntax errors past the parser's cap.
    reports: bool,
    /// The hashes of its kernel names ([`ChunkSummary::kernels`]), in order.
    kernels: KernelHashes,
}

/// The hashes of a chunk's kernel names: most chunks hold one kernel, stored inline.
#[derive(Clone, Debug)]
enum KernelHashes {
    One(u64),
    Other(Arc<[u64]>),
}

impl KernelHashes {
    fn as_slice(&self) -> &[u64] {
        match self {
            KernelHashes::One(hash) => std::slice::from_ref(hash),
            KernelHashes::Other(hashes) => hashes,
        }
    }
}

impl Digest {
    /// The digest of `source`, from its memoized diagnostics and [`ChunkSummary`].
    fn of(db: &dyn Db, source: SourceFile) -> Digest {
        let summary = chunk_summary(db, source);
        let reports = summary.left_out > 0 || !crate::check::diagnostics(db, source).is_empty();
        let hashes: Vec<u64> = summary
            .kernels
            .iter()
            .map(|(name, _)| FxBuildHasher.hash_one(name.as_str()))
            .collect();
        let kernels = match hashes[..] {
            [hash] => KernelHashes::One(hash),
            _ => KernelHashes::Other(hashes.into()),
        };
        Digest { reports, kernels }
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
    /// Each chunk's stamp, at the chunk's index: new whenever one of its inputs is set
    /// (where its digest is emptied), so that what is kept of a chunk outside the database
    /// knows when it is stale ([`Document::reads_before_writes`]).
    stamps: Vec<u64>,
    /// P501's index of each kernel cut into chunks (the rule's private cache,
    /// [`p501::Cache`]): shared by the document's copies, each bringing it up to date from
    /// its own chunks and stamps when it gathers diagnostics.
    read_cache: Arc<p501::Cache>,
    /// P200's "did you mean" among a split kernel's earlier names, by the kernel index's
    /// stamp, the chunk (index among the kernel's) and the name: each gathering patches
    /// the diagnostics of the chunks that continue a kernel ([`Document::patch`]), and a
    /// suggestion compares the name with every earlier name (tens of thousands in an
    /// unrolled kernel). Shared by the document's copies; emptied when it grows past
    /// [`SUGGESTIONS_KEPT`].
    suggestions: Arc<Mutex<Suggestions>>,
}

/// [`Document::suggestions`]: by (the kernel index's stamp, the chunk among the kernel's,
/// the name), the earlier name suggested, if any.
type Suggestions = HashMap<(u64, usize, String), Option<String>>;

/// How many suggestions [`Document::suggestions`] keeps at most.
const SUGGESTIONS_KEPT: usize = 4096;

/// A stamp never given before ([`Document::stamps`]).
fn new_stamp() -> u64 {
    static STAMPS: AtomicU64 = AtomicU64::new(0);
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

/// A split kernel's [`KernelIndex`] and what it was made from.
#[derive(Clone, Debug)]
struct CachedIndex {
    /// The kernel's chunks, first to last.
    chunks: Vec<SourceFile>,
    /// The hash of each chunk's outline but the last's.
    outlines: Vec<u64>,
    index: Arc<KernelIndex>,
    /// A stamp of its own ([`new_stamp`]): what [`Document::suggestions`] are keyed by.
    stamp: u64,
}

/// The longest run of chunks [`cut_parts`] reads through the database's memoized pieces
/// (bytes); a longer one (a whole kernel re-cut) is read on every core.
const MEMOIZED_CUT: usize = 1 << 20;

/// The parts of `text` (a document, or a run of its chunks read in `context`, with
/// `look_ahead` the first line of the chunk after them): each piece with whether it starts
/// inside a kernel, and the cut's verdict on the ends ([`syntax::cuts`]). `db`: for an
/// edit's run, the database it is read through (its chunks' memoized pieces); such a run
/// is cut into parts of at least twice `target`.
fn cut_parts<'t>(
    text: &'t str,
    look_ahead: &str,
    context: syntax::Context,
    target: usize,
    db: Option<&dyn Db>,
) -> (Vec<Piece<'t>>, syntax::Cuts) {
    let split = target.saturating_mul(crate::split::SPLIT_FACTOR);
    // An edit's run is cut into parts of twice the target: a chunk an edit grew is cut
    // again when it has doubled, not as soon as its last statement passes the target (an
    // op line typed in a chunk cut there would split off a chunk of one line, and a new
    // list of chunks makes a cut kernel's indexes anew).
    let target = if db.is_some() {
        target.saturating_mul(2)
    } else {
        target
    };
    let whole;
    let all = if look_ahead.is_empty() {
        text
    } else {
        whole = format!("{text}{look_ahead}");
        whole.as_str()
    };
    // An edit's run of chunks (not a whole kernel re-cut) is read in the pieces its chunk's
    // parse memoizes ([`crate::db::parse`]): only the piece the edit touched is read, and
    // the parse after it reads none.
    let cuts = match db {
        Some(db) if text.len() < MEMOIZED_CUT => {
            let mut read = |piece: &str, end: usize| {
                crate::db::piece_statements(
                    db,
                    crate::db::Piece::new(db, piece.to_string(), end as u32),
                )
            };
            let mut reader = syntax::StatementReader::Pieces(&mut read);
            syntax::cuts_read(all, text.len(), context, target, split, &mut reader)
        }
        _ => syntax::cuts(all, text.len(), context, target, split),
    };
    let parts = cuts
        .parts
        .iter()
        .enumerate()
        .map(|(i, &(start, inside))| {
            let end = cuts.parts.get(i + 1).map_or(text.len(), |p| p.0);
            Piece {
                text: &text[start..end],
                inside,
                through: cuts.through.get(i).copied().unwrap_or(false),
            }
        })
        .collect();
    (parts, cuts)
}

/// A chunk's text as [`cut_parts`] cuts it, with where it stands ([`Chunk::context`]'s
/// `inside`, [`Chunk::through`]).
#[derive(Clone, Copy, Debug)]
struct Piece<'t> {
    text: &'t str,
    inside: bool,
    through: bool,
}

/// The first line of `text` with its `\n` (a chunk's look-ahead for the chunk before it).
///
/// Only up to the end of the line's second significant token (`kernel @name`, `Op {`,
/// `tensor %t`, which tell the line starts a kernel or a statement), then a line break: all
/// the chunk before reads of it (where its last statement ends, and the token an error
/// there quotes). So editing the rest of a chunk's first line leaves the chunk before as it
/// was.
fn first_line(text: &str) -> String {
    let line = &text[..syntax::line_end(text, 0)];
    let (tokens, _) = syntax::lex(line);
    let second = tokens
        .iter()
        .filter(|(kind, _)| !matches!(kind, syntax::Token::Comment | syntax::Token::Newline))
        .nth(1);
    match second {
        Some((_, range))
            if usize::from(range.end()) < line.trim_end_matches(['\n', '\r']).len() =>
        {
            format!("{}\n", &line[..usize::from(range.end())])
        }
        _ => line.to_string(),
    }
}

fn newlines(text: &str) -> u32 {
    u32::try_from(bytecount(text)).unwrap_or(u32::MAX)
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
            stamps: Vec::new(),
            read_cache: Arc::default(),
            suggestions: Arc::default(),
        };
        let (pieces, _) = cut_parts(text, "", syntax::Context::default(), target, None);
        for (i, piece) in pieces.iter().enumerate() {
            let next = pieces.get(i + 1);
            let look_ahead = next.map_or(String::new(), |next| first_line(next.text));
            let context = syntax::Context {
                inside: piece.inside,
                goes_on: next.is_some_and(|n| n.inside),
            };
            let (piece, through) = (piece.text, piece.through);
            let source = new_source(db, piece, &look_ahead, context, true);
            doc.chunks.push(Chunk {
                source,
                start: TextSize::from(0),
                len: size(piece.len()),
                first_line: 0,
                newlines: newlines(piece),
                context,
                through,
            });
            doc.digests.push(OnceLock::new());
            doc.stamps.push(new_stamp());
        }
        doc.renumber(0);
        if enter {
            doc.refresh_entries(db, 0, doc.chunks.len(), Durability::MEDIUM);
        }
        doc
    }

    /// The chunks whose last kernel goes on into the next ones: those whose outlines the
    /// entries are made from ([`crate::split::outline`]; a host computes them on every core
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
                first_line: 0,
                newlines: newlines(text),
                context: *source.context(db),
                through: false,
            }],
            digests: vec![OnceLock::new()],
            indexes: HashMap::default(),
            stamps: vec![new_stamp()],
            read_cache: Arc::default(),
            suggestions: Arc::default(),
        }
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
        let chunk = self.chunks[self.chunk_index(offset)];
        let relative = offset.min(chunk.range().end()) - chunk.start;
        (chunk, relative)
    }

    /// The chunks `range` touches (its ends included), each with the part of `range` in it,
    /// relative to the chunk.
    pub fn chunks_in(&self, range: TextRange) -> impl Iterator<Item = (Chunk, TextRange)> + '_ {
        let first = self.chunk_index(range.start());
        let last = self.chunk_index(range.end());
        self.chunks[first..=last.max(first)].iter().map(move |c| {
            let start = range.start().max(c.start).min(c.range().end());
            let end = range.end().min(c.range().end()).max(start);
            (*c, TextRange::new(start - c.start, end - c.start))
        })
    }

    /// Recomputes the starts and first lines of the chunks from index `from` on.
    fn renumber(&mut self, from: usize) {
        let (mut start, mut line) = match from.checked_sub(1).and_then(|i| self.chunks.get(i)) {
            Some(c) => (c.range().end(), c.first_line + c.newlines),
            None => (TextSize::from(0), 0),
        };
        for chunk in &mut self.chunks[from..] {
            chunk.start = start;
            chunk.first_line = line;
            start += chunk.len;
            line += chunk.newlines;
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

    /// Replaces the bytes `range` of the document with `insert` (`range` is clamped to the
    /// document; an offset inside a character moves back to its start). Only the chunks the edit touches are
    /// re-cut and set; a chunk whose first line no longer starts a kernel joins the one
    /// before it, a chunk whose last line lost its `\n` joins the one after it.
    pub fn edit(&mut self, db: &mut RootDatabase, range: TextRange, insert: &str) {
        let end_of_doc = self.len();
        let range = TextRange::new(range.start().min(end_of_doc), range.end().min(end_of_doc));
        let mut first = self.chunk_index(range.start());
        // A deletion ending at a chunk's start does not touch that chunk.
        let mut last = if range.is_empty() {
            first
        } else {
            self.chunk_index(range.end() - TextSize::from(1)).max(first)
        };
        let mut merged = String::new();
        for chunk in &self.chunks[first..=last] {
            merged.push_str(chunk.source.text(db));
        }
        let base = self.chunks[first].start;
        let back_to_char = |offset: TextSize| {
            let mut at = usize::from(offset - base);
            while !merged.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let from = back_to_char(range.start());
        let to = back_to_char(range.end()).max(from);
        if merged[from..to] == *insert {
            return;
        }
        merged.replace_range(from..to, insert);
        // Grow the run of chunks re-cut until its ends fit the chunks around it: a chunk
        // starts at a kernel line (or, inside a split kernel, at a statement line directly
        // in its body) and ends with a `\n`, and a kernel cut inside is closed by its `}`.
        let pieces: Vec<(String, bool, bool)> = loop {
            let inside = self.chunks[first].context.inside;
            let starts_ok = first == 0
                || if inside {
                    syntax::starts_statement_line(&merged, 0)
                        && !syntax::starts_kernel_line(&merged, 0)
                } else {
                    syntax::starts_kernel_line(&merged, 0)
                };
            if !starts_ok {
                first -= 1;
                merged.insert_str(0, self.chunks[first].source.text(db));
                continue;
            }
            if last + 1 < self.chunks.len() && !merged.is_empty() && !merged.ends_with('\n') {
                last += 1;
                merged.push_str(self.chunks[last].source.text(db));
                continue;
            }
            if merged.is_empty() && self.chunks.len() > 1 {
                if inside || self.chunks.get(last + 1).is_some_and(|c| c.context.inside) {
                    // A split kernel lost a chunk: re-cut it whole.
                    first = self.head(first);
                    last = self.tail(last);
                    merged = self.text_of(db, first..last + 1);
                    continue;
                }
                break Vec::new();
            }
            let goes_on = self.chunks[last].context.goes_on;
            let look_ahead = self
                .chunks
                .get(last + 1)
                .map_or(String::new(), |c| first_line(c.source.text(db)));
            let context = syntax::Context { inside, goes_on };
            let (parts, cuts) = cut_parts(&merged, &look_ahead, context, self.target, Some(db));
            if (inside && !cuts.entry_kept) || (goes_on && !cuts.ends_inside) {
                // The run's ends no longer fit: re-cut the whole kernels it touches.
                let (head, tail) = (self.head(first), self.tail(last));
                if (head, tail) == (first, last) {
                    break owned(&parts);
                }
                let mut text = self.text_of(db, head..first);
                text.push_str(&merged);
                text.push_str(&self.text_of(db, last + 1..tail + 1));
                (first, last, merged) = (head, tail, text);
                continue;
            }
            break owned(&parts);
        };
        let pieces: Vec<Piece<'_>> = pieces
            .iter()
            .map(|(text, inside, through)| Piece {
                text,
                inside: *inside,
                through: *through,
            })
            .collect();
        self.replace_chunks(db, first..last + 1, &pieces, true);
        self.refresh_entries(db, first, first + pieces.len().max(1), Durability::LOW);
    }

    /// The first chunk of the kernel chunk `i` starts inside (`i` itself when it starts
    /// with whole kernels): back over the middle parts ([`Chunk::through`]).
    pub(crate) fn head(&self, i: usize) -> usize {
        if i == 0 || !self.chunks[i].context.inside {
            return i;
        }
        let mut j = i - 1;
        while j > 0 && self.chunks[j].through {
            j -= 1;
        }
        j
    }

    /// The last chunk of the kernel that goes on from chunk `i` into the next ones (`i`
    /// itself when its last kernel does not go on): on over the middle parts.
    pub(crate) fn tail(&self, i: usize) -> usize {
        if !self.chunks[i].context.goes_on || i + 1 >= self.chunks.len() {
            return i;
        }
        let mut j = i + 1;
        while j + 1 < self.chunks.len() && self.chunks[j].through {
            j += 1;
        }
        j
    }

    /// The ops of the kernel chunk `index` starts inside, in its chunks before `index`
    /// (0 when the chunk starts with whole kernels): what its ops' implicit ids count from.
    /// From the chunks' position-free summaries ([`crate::split::part_ids`]): O(chunks).
    pub(crate) fn op_base(&self, db: &dyn Db, index: usize) -> u32 {
        if !self.chunks[index].context.inside {
            return 0;
        }
        let head = self.head(index);
        (head..index)
            .map(|k| {
                let flows = summary::part_ids(db, self.chunks[k].source);
                let flow = crate::split::kernel_part(flows, k == head);
                flow.map_or(0, |f| f.ops)
            })
            .sum()
    }

    /// The range of the kernel that goes on from chunk `head` into the next chunks, from
    /// its `kernel` to its `}` (the document's offsets).
    pub(crate) fn split_kernel_range(&self, db: &dyn Db, head: usize) -> Option<TextRange> {
        let tail = self.tail(head);
        let first = crate::db::parse(db, self.chunks[head].source)
            .file
            .kernels
            .last()?
            .range;
        let last = crate::db::parse(db, self.chunks[tail].source)
            .file
            .kernels
            .first()?
            .range;
        Some(TextRange::new(
            first.start() + self.chunks[head].start,
            last.end() + self.chunks[tail].start,
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
        let chunk = &self.chunks[index];
        let kernels = &crate::db::parse(db, chunk.source).file.kernels;
        let mut out = Vec::new();
        let mut add = |kernel: &syntax::ast::Kernel, head: usize| {
            let Some(whole) = self.split_kernel_range(db, head) else {
                return;
            };
            let head_kernel = crate::db::parse(db, self.chunks[head].source)
                .file
                .kernels
                .last();
            let body_start = head_kernel
                .and_then(|k| k.body_range)
                .map_or(whole.start(), |b| b.start() + self.chunks[head].start);
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
        if !self.chunks[index].context.inside {
            return Vec::new();
        }
        let mut first: HashMap<&str, Option<Arc<lower::model::Tensor>>> = HashMap::default();
        let mut out = Vec::new();
        for chunk in &self.chunks[self.head(index)..index] {
            for def in &crate::split::outline(db, chunk.source).defs {
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
        let chunk = &self.chunks[index];
        let items = crate::db::file_items(db, chunk.source);
        let d = crate::ide::def_at(items, offset)?;
        let def = &items.definitions[d];
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
            let cached = self.indexes.get(&self.chunks[head].source)?;
            let home = head + cached.index.home(&def.name)?;
            let home_items = crate::db::file_items(db, self.chunks[home].source);
            let range = self.home_definition(db, head, &cached.index, &def.name)?;
            let start = self.chunks[home].start;
            let hd = home_items
                .definitions
                .iter()
                .position(|x| !x.prelude && x.name == def.name && x.range + start == range)?;
            (home, hd)
        } else if in_first || in_last {
            // A second definition (P201) has no use: the chunk's answer is whole.
            let defined_before = items.definitions[..d]
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
        let home_chunk = &self.chunks[home];
        let home_items = crate::db::file_items(db, home_chunk.source);
        let name = home_items.definitions[home_def].name.clone();
        let mut out = Vec::new();
        if include_declaration {
            out.push(crate::ide::Reference {
                range: home_items.definitions[home_def].range + home_chunk.start,
                is_definition: true,
            });
        }
        let shifted = |mut r: crate::ide::Reference, by: TextSize| {
            r.range.shift(by);
            r
        };
        out.extend(crate::ide::uses(home_items, home_def).map(|r| shifted(r, home_chunk.start)));
        for later in &self.chunks[home + 1..=tail.max(home)] {
            if crate::split::mentions(db, later.source)
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
        let chunk = &self.chunks[index];
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
            let outline = crate::split::outline(db, self.chunks[k].source);
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
        ) && renamed.scope.end() == self.chunks[index].len;
        if kernel_level {
            for later in &self.chunks[index + 1..=tail] {
                if crate::split::mentions(db, later.source)
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

    /// The errors in chunk `index` (relative to it, with their codes) that another chunk
    /// reports: the chunk before's at its look-ahead (an error at the first token of the
    /// statement this chunk starts with is the previous statement's: "expected `]`, found
    /// `Op`"), and P208 of the kernel it is a part of. An op's BIR `errors` count them.
    pub(crate) fn errors_from_elsewhere(
        &self,
        db: &dyn Db,
        index: usize,
    ) -> Vec<(TextRange, Code)> {
        let mut out = Vec::new();
        let chunk = &self.chunks[index];
        if index > 0 && chunk.context.inside {
            let before = &self.chunks[index - 1];
            for d in self.chunk_diagnostics(db, index - 1).iter() {
                if d.severity == lower::diag::Severity::Error && d.range.start() >= before.len {
                    let range =
                        TextRange::new(d.range.start() - before.len, d.range.end() - before.len);
                    out.push((range, d.code));
                }
            }
        }
        let mut runs = Vec::new();
        if chunk.context.inside {
            runs.push(self.head(index));
        }
        if chunk.context.goes_on {
            runs.push(index);
        }
        for head in runs {
            let view = KernelView::split_from(self, head);
            let kernel = SplitKernel::new(db, view.sources(self));
            let Some(at) = view.part_in(index) else {
                continue;
            };
            let Some(part) = at.kernel.of(summary::parts(db, chunk.source)) else {
                continue;
            };
            for finding in p208::of_split(db, kernel) {
                if finding.part == at.part
                    && let Some(range) = finding.at.range(&part.places)
                {
                    out.push((range, Code::P208));
                }
            }
        }
        out
    }

    /// The text of the chunks `range`.
    fn text_of(&self, db: &dyn Db, range: std::ops::Range<usize>) -> String {
        let chunks = &self.chunks[range];
        let mut out = String::with_capacity(chunks.iter().map(|c| usize::from(c.len)).sum());
        for chunk in chunks {
            out.push_str(chunk.source.text(db));
        }
        out
    }

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
            if self.chunks[i].context.goes_on {
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
        let chunks: Vec<SourceFile> = self.chunks[head..=tail].iter().map(|c| c.source).collect();
        let hash = |db: &dyn Db, source: SourceFile| {
            FxBuildHasher.hash_one(crate::split::outline(db, source))
        };
        let cached = self.indexes.get(&chunks[0]).filter(|cached| {
            cached.chunks == chunks
                && (edited.start.max(head)..edited.end.min(tail))
                    .all(|i| cached.outlines[i - head] == hash(db, self.chunks[i].source))
        });
        let (index, all) = match cached {
            Some(cached) => (cached.index.clone(), false),
            None => {
                let outlines: Vec<&crate::split::Outline> = chunks[..chunks.len() - 1]
                    .iter()
                    .map(|&source| crate::split::outline(db, source))
                    .collect();
                let index = Arc::new(KernelIndex::new(outlines.iter().copied()));
                let hashes = outlines.iter().map(|o| FxBuildHasher.hash_one(o)).collect();
                self.indexes.insert(
                    chunks[0],
                    CachedIndex {
                        chunks: chunks.clone(),
                        outlines: hashes,
                        index: index.clone(),
                        stamp: new_stamp(),
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
            let entry = index.entry(k, crate::split::mentions(db, source));
            if set_entry(db, source, Some(entry), durability) {
                self.forget(at);
            }
        }
        tail
    }

    /// Replaces the chunks `old` with chunks of `pieces` (reusing their inputs in order),
    /// and sets the look-aheads around them. `edited`: an edit, not a new text, made them
    /// (their ops are then lowered one memo each, see [`SourceFile::coarse`]).
    fn replace_chunks(
        &mut self,
        db: &mut RootDatabase,
        old: std::ops::Range<usize>,
        pieces: &[Piece<'_>],
        edited: bool,
    ) {
        let reused: Vec<SourceFile> = self.chunks[old.clone()].iter().map(|c| c.source).collect();
        // Inputs no piece reuses leave the document: their texts are let go of (salsa keeps
        // an input for good, so an emptied one is a few bytes).
        for &source in reused.iter().skip(pieces.len()) {
            if !source.text(db).is_empty() {
                source
                    .set_text(db)
                    .with_durability(Durability::LOW)
                    .to(String::new());
            }
            if !source.look_ahead(db).is_empty() {
                source
                    .set_look_ahead(db)
                    .with_durability(Durability::LOW)
                    .to(String::new());
            }
            set_entry(db, source, None, Durability::LOW);
        }
        let after = self
            .chunks
            .get(old.end)
            .map(|c| (c.source, c.context.inside));
        let after_line = after.map(|(s, _)| first_line(s.text(db)));
        let after_inside = after.is_some_and(|a| a.1);
        let mut new = Vec::with_capacity(pieces.len());
        for (
            i,
            &Piece {
                text: piece,
                inside,
                through,
            },
        ) in pieces.iter().enumerate()
        {
            let look_ahead = match pieces.get(i + 1) {
                Some(next) => first_line(next.text),
                None => after_line.clone().unwrap_or_default(),
            };
            let look_ahead = look_ahead.as_str();
            let context = syntax::Context {
                inside,
                goes_on: pieces.get(i + 1).map_or(after_inside, |next| next.inside),
            };
            let source = match reused.get(i) {
                Some(&source) => {
                    if source.text(db) != piece {
                        source
                            .set_text(db)
                            .with_durability(Durability::LOW)
                            .to(piece.to_string());
                        if edited && *source.coarse(db) {
                            source
                                .set_coarse(db)
                                .with_durability(Durability::LOW)
                                .to(false);
                        }
                    }
                    if source.look_ahead(db) != look_ahead {
                        source
                            .set_look_ahead(db)
                            .with_durability(Durability::LOW)
                            .to(look_ahead.to_string());
                    }
                    if *source.context(db) != context {
                        source
                            .set_context(db)
                            .with_durability(Durability::LOW)
                            .to(context);
                    }
                    if !inside {
                        set_entry(db, source, None, Durability::LOW);
                    }
                    source
                }
                None => new_source(db, piece, look_ahead, context, !edited),
            };
            new.push(Chunk {
                source,
                start: TextSize::from(0),
                len: size(piece.len()),
                first_line: 0,
                newlines: newlines(piece),
                context,
                through,
            });
        }
        // The chunk before: its look-ahead is the first line after it, and its last kernel
        // goes on when the first chunk after it starts inside one.
        if let Some(i) = old.start.checked_sub(1) {
            let before = self.chunks[i].source;
            let (line, inside) = match pieces.first() {
                Some(piece) => (first_line(piece.text), piece.inside),
                None => (after_line.unwrap_or_default(), after_inside),
            };
            if *before.look_ahead(db) != line {
                before
                    .set_look_ahead(db)
                    .with_durability(Durability::LOW)
                    .to(line);
                self.forget(i);
            }
            let context = syntax::Context {
                goes_on: inside,
                ..self.chunks[i].context
            };
            if context != self.chunks[i].context {
                before
                    .set_context(db)
                    .with_durability(Durability::LOW)
                    .to(context);
                self.chunks[i].context = context;
                self.forget(i);
            }
        }
        let start = old.start;
        let fresh = std::iter::repeat_with(OnceLock::new).take(new.len());
        self.digests.splice(old.clone(), fresh);
        let stamps = std::iter::repeat_with(new_stamp).take(new.len());
        self.stamps.splice(old.clone(), stamps);
        self.chunks.splice(old, new);
        if self.chunks.is_empty() {
            let context = syntax::Context::default();
            self.chunks.push(Chunk {
                source: new_source(db, "", "", context, !edited),
                start: TextSize::from(0),
                len: TextSize::from(0),
                first_line: 0,
                newlines: 0,
                context,
                through: false,
            });
            self.digests.push(OnceLock::new());
            self.stamps.push(new_stamp());
        }
        self.renumber(start);
    }

    /// Empties every chunk's [`Digest`] (the settings changed: what any chunk reports may
    /// have).
    pub fn forget_digests(&mut self) {
        self.digests.fill_with(OnceLock::new);
        self.stamps.fill_with(new_stamp);
    }

    /// Empties the digest of chunk `i` and gives it a new stamp (one of its inputs was set).
    fn forget(&mut self, i: usize) {
        self.digests[i] = OnceLock::new();
        self.stamps[i] = new_stamp();
    }

    /// Whether its chunks were never analysed together since its text was set (see
    /// [`crate::AnalysisHost::warm`]).
    pub fn is_cold(&self) -> bool {
        !self.warmed
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
            let chunk = &self.chunks[i];
            // The first chunk of the kernel it continues (as `Document::head`).
            let head = entering.head;
            if chunk.context.inside
                && let Some((index, _)) = entering.kernels.get(&head)
            {
                let entry = index.entry(i - head, crate::split::mentions(db, chunk.source));
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
                let outline = crate::split::outline(db, chunk.source);
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
            let chunks = self.chunks[head..=tail].iter().map(|c| c.source).collect();
            self.indexes.insert(
                self.chunks[head].source,
                CachedIndex {
                    chunks,
                    outlines,
                    index: Arc::new(index),
                    stamp: new_stamp(),
                },
            );
        }
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
        let mut at = crate::line_col(index, chunk.source.text(db), relative);
        at.line += chunk.first_line;
        at
    }

    /// Every diagnostic of the document, sorted by range (then code), in its offsets: each
    /// chunk's (memoized per chunk), shifted, plus P201 on a kernel named as one in an
    /// earlier chunk, with at most [`syntax::MAX_ERRORS`] syntax errors in all (then one
    /// P100 saying how many more there were).
    ///
    /// The chunks are passed over by their [`Digest`]s: only those with something to
    /// report are read from the database, and kernel names only when two chunks' hashes
    /// meet (a name defined twice, or a collision).
    pub fn diagnostics(&self, db: &dyn Db) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut syntax_errors = 0;
        let mut left_out: Option<(TextRange, usize)> = None;
        // Lone carriage returns: one P103 for the document, at the first, counting all
        // (each chunk's parse reports its own, as if it were a file): where it is in
        // `out` (`None`: left out by a cap) and the count so far. A chunk with some
        // reports them, so its digest has it read.
        let mut lone: Option<(Option<usize>, usize)> = None;
        let mut hashes: HashSet<u64> =
            HashSet::with_capacity_and_hasher(self.chunks.len(), FxBuildHasher);
        let mut names_meet = false;
        for (chunk_index, (chunk, digest)) in self.chunks.iter().zip(&self.digests).enumerate() {
            let computed;
            let digest = match digest.get() {
                Some(digest) => digest,
                // Computed on a snapshot, and kept without waiting: two snapshots may both
                // compute it (the same value, memoized), and a computation cancelled by an
                // edit leaves it empty.
                None => {
                    computed = Digest::of(db, chunk.source);
                    let _ = digest.set(computed.clone());
                    &computed
                }
            };
            for &hash in digest.kernels.as_slice() {
                names_meet |= !hashes.insert(hash);
            }
            if !digest.reports {
                continue;
            }
            let source = chunk.source;
            let summary = chunk_summary(db, source);
            let crs = lone_carriage_returns(db, source);
            let index = chunk_index;
            for d in self.chunk_diagnostics(db, index).iter() {
                if let Some((first, count)) = crs
                    && d.code == Code::P103
                    && d.range == first
                {
                    match &mut lone {
                        Some((_, total)) => {
                            *total += count;
                            continue;
                        }
                        None => lone = Some((Some(out.len()), count)),
                    }
                }
                let mut d = d.clone();
                d.shift(chunk.start);
                if d.code == Code::P201 && chunk.context.inside {
                    self.first_defined_here(db, index, &mut d);
                }
                if is_syntax(d.code) {
                    if summary.left_out > 0 && d.message.starts_with("too many syntax errors") {
                        left_out.get_or_insert((d.range, 0)).1 += summary.left_out;
                        continue;
                    }
                    if syntax_errors >= syntax::MAX_ERRORS {
                        left_out.get_or_insert((d.range, 0)).1 += 1;
                        if let Some((shown @ Some(_), _)) = &mut lone
                            && *shown == Some(out.len())
                        {
                            *shown = None;
                        }
                        continue;
                    }
                    syntax_errors += 1;
                }
                out.push(d);
            }
            // A chunk's lone carriage returns whose P103 its own cap left out still count.
            if let (Some((_, count)), None) = (crs, &lone) {
                lone = Some((None, count));
            }
        }
        if let Some((Some(i), total)) = lone {
            out[i].message = syntax::lone_carriage_return_error(out[i].range, total).message;
        }
        if names_meet {
            self.kernels_defined_twice(db, &mut out);
        }
        self.split_kernel_checks(db, &mut out);
        if let Some((at, n)) = left_out {
            let e = syntax::too_many_errors(at, n);
            out.push(Diagnostic::new(Code::P100, e.range, e.message));
        }
        out.sort_by(|a, b| {
            (a.range.start(), a.range.end(), a.code).cmp(&(b.range.start(), b.range.end(), b.code))
        });
        out.dedup();
        out
    }

    /// The diagnostics of the chunk `index` (relative to it) as the document reports them:
    /// those of a chunk that continues a kernel made the whole kernel's ([`Document::patch`]).
    pub(crate) fn chunk_diagnostics<'d>(
        &self,
        db: &'d dyn Db,
        index: usize,
    ) -> std::borrow::Cow<'d, [Diagnostic]> {
        let diagnostics = crate::check::diagnostics(db, self.chunks[index].source);
        if !self.chunks[index].context.inside {
            return std::borrow::Cow::Borrowed(diagnostics);
        }
        let mut base = None;
        std::borrow::Cow::Owned(
            diagnostics
                .iter()
                .map(|d| {
                    let mut d = d.clone();
                    self.patch(db, index, &mut d, &mut base);
                    d
                })
                .collect(),
        )
    }

    /// `d`, a diagnostic of the chunk `index` (which continues a kernel; relative to it),
    /// as the whole kernel reports it: implicit op ids in its message counted from the
    /// kernel's first op (`base` caches [`Document::op_base`]); P200's "did you mean" among
    /// the names of the kernel's earlier chunks too. (P201's "first defined here", in an
    /// earlier chunk, is set once shifted: [`Document::first_defined_here`].)
    fn patch(&self, db: &dyn Db, index: usize, d: &mut Diagnostic, base: &mut Option<u32>) {
        if d.message.contains(crate::diagnostic::OP_ID_MARK) {
            let base = *base.get_or_insert_with(|| self.op_base(db, index));
            d.message = crate::diagnostic::renumber(&d.message, base);
        }
        let chunk = &self.chunks[index];
        let Some(part) = summary::parts(db, chunk.source).first() else {
            return;
        };
        if !part.places.range.contains_range(d.range) {
            return;
        }
        let head = self.head(index);
        let Some(cached) = self.indexes.get(&self.chunks[head].source) else {
            return;
        };
        let text = chunk.source.text(db);
        let name = text
            .get(usize::from(d.range.start())..usize::from(d.range.end()))
            .unwrap_or_default()
            .trim_start_matches('%');
        if d.code != Code::P200 {
            return;
        }
        let local = match &d.fix {
            Some(lower::diag::FixHint::Replace { with }) => {
                Some(with.trim_start_matches('%').to_string())
            }
            _ => None,
        };
        let key = (cached.stamp, index - head, name.to_string());
        let kept = self
            .suggestions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        let before = kept.unwrap_or_else(|| {
            let before = lower::diag::did_you_mean(name, cached.index.visible_before(index - head))
                .map(str::to_string);
            let mut kept = self
                .suggestions
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if kept.len() >= SUGGESTIONS_KEPT {
                kept.clear();
            }
            kept.insert(key, before.clone());
            before
        });
        let candidates = before.iter().map(String::as_str).chain(local.as_deref());
        let best = lower::diag::did_you_mean(name, candidates).map(str::to_string);
        if best != local {
            d.message = match &best {
                Some(s) => format!("`%{name}` is not defined here; did you mean `%{s}`?"),
                None => format!("`%{name}` is not defined here"),
            };
            d.fix = best.map(|s| lower::diag::FixHint::Replace {
                with: format!("%{s}"),
            });
        }
    }

    /// `d`, a P201 of the chunk `index` (which continues a kernel) in the document's
    /// offsets, with its "first defined here" where the kernel first defines the name (an
    /// earlier chunk; the chunk's own answer says the chunk's start).
    fn first_defined_here(&self, db: &dyn Db, index: usize, d: &mut Diagnostic) {
        let chunk = &self.chunks[index];
        let Some(part) = summary::parts(db, chunk.source).first() else {
            return;
        };
        let prelude = TextRange::empty(part.places.range.start() + chunk.start);
        let head = self.head(index);
        let Some(cached) = self.indexes.get(&self.chunks[head].source) else {
            return;
        };
        let Some(name) = chunk
            .source
            .text(db)
            .get(
                usize::from(d.range.start() - chunk.start)
                    ..usize::from(d.range.end() - chunk.start),
            )
            .map(|n| n.trim_start_matches('%').to_string())
        else {
            return;
        };
        if let Some(related) = d.related.iter_mut().find(|(r, _)| *r == prelude)
            && let Some(at) = self.home_definition(db, head, &cached.index, &name)
        {
            related.0 = at;
        }
    }

    /// Where the split kernel whose first chunk is `head` first defines `name` (the
    /// defining name's range, in the document).
    fn home_definition(
        &self,
        db: &dyn Db,
        head: usize,
        index: &KernelIndex,
        name: &str,
    ) -> Option<TextRange> {
        let home = head + index.home(name)?;
        let chunk = &self.chunks[home];
        let parts = summary::parts(db, chunk.source);
        let part = crate::split::kernel_part(parts, home == head)?;
        crate::db::file_items(db, chunk.source)
            .definitions
            .iter()
            .find(|d| !d.prelude && d.name == name && part.places.range.contains_range(d.range))
            .map(|d| d.range + chunk.start)
    }

    /// The kernel-wide rules of each kernel cut into chunks ([`crate::kernel::rules`]: each
    /// memoized on its parts' position-free summaries, P501 kept in its index), placed by
    /// the places their parts keep ([`summary::parts`]).
    fn split_kernel_checks(&self, db: &dyn Db, out: &mut Vec<Diagnostic>) {
        let mut head = 0;
        // The split kernels' first chunks: the P501 indexes of the others are let go of.
        let mut seen = Vec::new();
        while head < self.chunks.len() {
            if !self.chunks[head].context.goes_on {
                head += 1;
                continue;
            }
            let view = KernelView::split_from(self, head);
            let chunks = view.sources(self);
            seen.push(chunks[0]);
            let generations = &self.stamps[view.head..=view.tail];
            let reads = |p: usize| {
                let slot = if p == 0 {
                    crate::kernel::view::KernelSlot::Last
                } else {
                    crate::kernel::view::KernelSlot::At(0)
                };
                slot.of(summary::part_reads(db, chunks[p]))
                    .cloned()
                    .unwrap_or_default()
            };
            let mut findings = self.read_cache.findings(&chunks, generations, reads);
            let kernel = SplitKernel::new(db, chunks);
            findings.extend(p500::of_split(db, kernel).iter().cloned());
            findings.extend(p208::of_split(db, kernel).iter().cloned());
            let places = kernel.each(db, summary::parts);
            let starts: Vec<TextSize> = self.chunks[view.head..=view.tail]
                .iter()
                .map(|c| c.start)
                .collect();
            for finding in &findings {
                let place = |p: u32| {
                    let part = places.get(p as usize)?;
                    Some((&part.places, *starts.get(p as usize)?))
                };
                out.extend(rules::place(finding, place));
            }
            // P416, placed only when a peak is over its memory's capacity.
            let [sbuf, psum] = crate::kernel::resources::split_peaks(db, kernel);
            let over = |peak: &crate::kernel::resources::KernelPeak,
                        memory: lower::types::Memory| {
                peak.bytes > memory.partition_capacity().unwrap_or(u64::MAX)
            };
            if over(sbuf, lower::types::Memory::Sbuf) || over(psum, lower::types::Memory::Psum) {
                out.extend(p416::diagnostics(&self.split_stats(db, head)));
            }
            head = view.tail.max(head + 1);
        }
        self.read_cache.retain(&seen);
    }

    /// Each kernel's resources in source order (SPEC §10.1), in the document's offsets: a
    /// chunk's whole kernels' ([`crate::kernel::stats::kernel_stats`], memoized per chunk),
    /// and each kernel cut into chunks joined over its parts ([`Document::split_stats`]).
    pub fn kernel_stats(&self, db: &dyn Db) -> Vec<crate::KernelStats> {
        let mut out = Vec::new();
        for (i, chunk) in self.chunks.iter().enumerate() {
            let stats = crate::kernel::stats::kernel_stats(db, chunk.source);
            let last = stats.len().saturating_sub(1);
            for (k, stats) in stats.iter().enumerate() {
                match stats {
                    Some(stats) => {
                        let mut stats = stats.clone();
                        stats.shift(chunk.start);
                        out.push(stats);
                    }
                    // The head of a kernel cut into chunks (its other parts are skipped).
                    None if k == last
                        && chunk.context.goes_on
                        && !(k == 0 && chunk.context.inside) =>
                    {
                        out.push(self.split_stats(db, i));
                    }
                    None => {}
                }
            }
        }
        out
    }

    /// The resources of the kernel cut into chunks whose first chunk is `head`, joined
    /// over its parts and placed across its chunks.
    pub fn split_stats(&self, db: &dyn Db, head: usize) -> crate::KernelStats {
        let view = KernelView::split_from(self, head);
        let kernel = SplitKernel::new(db, view.sources(self));
        let resources = crate::kernel::resources::split_resources(db, kernel);
        let places = kernel.each(db, summary::parts);
        let ids = kernel.each(db, summary::part_ids);
        let parts: Vec<crate::kernel::stats::PlacedPart<'_>> = places
            .iter()
            .zip(ids)
            .zip(&self.chunks[view.head..=view.tail])
            .map(|((part, ids), chunk)| crate::kernel::stats::PlacedPart {
                places: &part.places,
                ids,
                start: chunk.start,
            })
            .collect();
        let name = crate::db::file_items(db, self.chunks[head].source)
            .kernels
            .last()
            .map(|k| k.name.clone())
            .unwrap_or_default();
        crate::kernel::stats::stats(name, resources, &parts)
    }

    /// P201 on each kernel named as one in an earlier chunk (within a chunk, resolution
    /// reports them).
    fn kernels_defined_twice(&self, db: &dyn Db, out: &mut Vec<Diagnostic>) {
        let mut kernels: HashMap<&str, TextRange> = HashMap::default();
        for chunk in &self.chunks {
            for (name, range) in &chunk_summary(db, chunk.source).kernels {
                let range = *range + chunk.start;
                match kernels.get(name.as_str()) {
                    Some(&first) => out.push(
                        Diagnostic::new(
                            Code::P201,
                            range,
                            format!("kernel `@{name}` is defined twice"),
                        )
                        .with_related(first, "first defined here"),
                    ),
                    None => {
                        kernels.insert(name, range);
                    }
                }
            }
        }
        // A chunk's own P201 on a kernel defined twice in it points at the chunk's first
        // definition: the document's is earlier when another chunk defined the name.
        for d in out.iter_mut().filter(|d| d.code == Code::P201) {
            let Some(name) = d
                .message
                .strip_prefix("kernel `@")
                .and_then(|m| m.strip_suffix("` is defined twice"))
            else {
                continue;
            };
            if let (Some(&first), Some(related)) = (kernels.get(name), d.related.first_mut())
                && first != d.range
            {
                related.0 = first;
            }
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
        crate::split::outline(db, chunk.source);
    }
    if chunk.context.inside {
        crate::split::mentions(db, chunk.source);
    }
}

/// Computes what [`Document::diagnostics`] gathers of `source` (its diagnostics and
/// [`ChunkSummary`]), so that the gathering finds it memoized.
pub(crate) fn analyse_chunk(db: &dyn Db, source: SourceFile) {
    crate::check::diagnostics(db, source);
    chunk_summary(db, source);
    crate::kernel::resources::part_resources(db, source);
}

/// What [`Document::diagnostics`] reads of a chunk besides its diagnostics, memoized apart
/// from the syntax tree and the names it comes from (those are evicted from chunks not in
/// use, [`crate::db::parse`]; this stays, so gathering never re-parses a chunk).
#[derive(Clone, Debug, PartialEq, Eq)]
struct ChunkSummary {
    /// Syntax errors past the parser's cap ([`syntax::Parse::left_out`]).
    left_out: usize,
    /// The chunk's kernel names, each once (its first definition), with the name's range
    /// (UTF-8 bytes, relative to the chunk), in source order.
    kernels: Vec<(String, TextRange)>,
}

#[salsa::tracked(returns(ref))]
fn chunk_summary(db: &dyn Db, source: SourceFile) -> ChunkSummary {
    let mut seen: HashSet<&str> = HashSet::default();
    let kernels = crate::db::file_items(db, source)
        .definitions
        .iter()
        .filter(|def| def.kind == crate::resolve::DefKind::Kernel && seen.insert(&def.name))
        .map(|def| (def.name.clone(), def.range))
        .collect();
    ChunkSummary {
        left_out: crate::db::parse(db, source).left_out,
        kernels,
    }
}

/// The lone carriage returns of a chunk's text: the first one's range (relative to the
/// chunk) and how many (see [`syntax::lone_carriage_returns`]), as its parse reports them.
#[salsa::tracked(returns(copy))]
pub(crate) fn lone_carriage_returns(db: &dyn Db, source: SourceFile) -> Option<(TextRange, usize)> {
    let text = source.text(db);
    syntax::lone_carriage_returns(text, text.len())
}

/// A chunk's input. New chunks are of medium durability and an edited chunk's text is set
/// at low durability: when a keystroke changes one chunk, salsa knows the queries of every
/// chunk not edited since they ran are still valid without walking their dependencies (one
/// per op), so gathering the document's diagnostics costs O(chunks), not O(ops). `coarse`
/// for the chunks of a new text (see [`SourceFile::coarse`]), not for those an edit makes.
fn new_source(
    db: &RootDatabase,
    text: &str,
    look_ahead: &str,
    context: syntax::Context,
    coarse: bool,
) -> SourceFile {
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

/// Sets the entry of `source` to `entry` at `durability`, unless it is that already (an
/// input set to its own value still starts a revision). Returns whether it was set.
fn set_entry(
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

/// The pieces of a run of chunks as [`Document::edit`] keeps them while it grows the run.
fn owned(parts: &[Piece<'_>]) -> Vec<(String, bool, bool)> {
    parts
        .iter()
        .map(|p| (p.text.to_string(), p.inside, p.through))
        .collect()
}

fn is_syntax(code: Code) -> bool {
    matches!(code, Code::P100 | Code::P101 | Code::P102 | Code::P103)
}

/// Values with byte offsets that move with their chunk: `shift(by)` adds `by` to every
/// offset (a chunk's answer made the document's). The trait of the syntax trees' pieces,
/// implemented here for the analysis' answers.
pub use syntax::Shift;

impl Shift for Diagnostic {
    fn shift(&mut self, by: TextSize) {
        self.range.shift(by);
        for (range, _) in &mut self.related {
            range.shift(by);
        }
    }
}
