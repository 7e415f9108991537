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
use std::sync::{Arc, OnceLock};

use lower::diag::Code;
use salsa::{Durability, Setter};

use crate::db::{Db, RootDatabase, SourceFile};
use crate::diagnostic::Diagnostic;
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
    /// The hashes of its kernel names ([`Summary::kernels`]), in order.
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
    /// The digest of `source`, from its memoized diagnostics and [`Summary`].
    fn of(db: &dyn Db, source: SourceFile) -> Digest {
        let summary = summary(db, source);
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
}

/// Where `text` is cut: 0, then kernel lines at least `target` bytes apart.
fn cuts(text: &str, target: usize) -> Vec<usize> {
    let mut out = vec![0];
    let mut line = 0;
    while line < text.len() {
        let last = out.last().copied().unwrap_or(0);
        if line >= last + target
            && text[line..]
                .trim_start_matches([' ', '\t'])
                .starts_with("kernel")
            && syntax::starts_kernel_line(text, line)
        {
            out.push(line);
        }
        line = syntax::line_end(text, line);
    }
    out
}

/// The first line of `text` with its `\n` (a chunk's look-ahead for the chunk before it).
fn first_line(text: &str) -> &str {
    &text[..syntax::line_end(text, 0)]
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
    pub fn new(db: &RootDatabase, text: &str) -> Document {
        Document::with_target(db, text, CHUNK_TARGET)
    }

    /// A document holding `text`, cut into chunks of at least `target` bytes (tests cut
    /// small, to cross chunk boundaries).
    pub fn with_target(db: &RootDatabase, text: &str, target: usize) -> Document {
        let mut doc = Document {
            chunks: Vec::new(),
            digests: Vec::new(),
            warmed: false,
            target,
        };
        let pieces = cut_pieces(text, target);
        for (i, piece) in pieces.iter().enumerate() {
            let look_ahead = pieces.get(i + 1).map_or("", |next| first_line(next));
            let source = new_source(db, piece, look_ahead, true);
            doc.chunks.push(Chunk {
                source,
                start: TextSize::from(0),
                len: size(piece.len()),
                first_line: 0,
                newlines: newlines(piece),
            });
            doc.digests.push(OnceLock::new());
        }
        doc.renumber(0);
        doc
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
            }],
            digests: vec![OnceLock::new()],
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
    /// whose text changed).
    pub fn set_text(&mut self, db: &mut RootDatabase, text: &str) {
        self.warmed = false;
        let all = 0..self.chunks.len();
        self.replace_chunks(db, all, &cut_pieces(text, self.target), false);
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
        loop {
            if first > 0 && !syntax::starts_kernel_line(&merged, 0) {
                first -= 1;
                merged.insert_str(0, self.chunks[first].source.text(db));
            } else if last + 1 < self.chunks.len() && !merged.is_empty() && !merged.ends_with('\n')
            {
                last += 1;
                merged.push_str(self.chunks[last].source.text(db));
            } else {
                break;
            }
        }
        let pieces = if merged.is_empty() && self.chunks.len() > 1 {
            Vec::new()
        } else {
            cut_pieces(&merged, self.target)
        };
        self.replace_chunks(db, first..last + 1, &pieces, true);
    }

    /// Replaces the chunks `old` with chunks of `pieces` (reusing their inputs in order),
    /// and sets the look-aheads around them. `edited`: an edit, not a new text, made them
    /// (their ops are then lowered one memo each, see [`SourceFile::coarse`]).
    fn replace_chunks(
        &mut self,
        db: &mut RootDatabase,
        old: std::ops::Range<usize>,
        pieces: &[&str],
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
        }
        let after = self.chunks.get(old.end).map(|c| c.source);
        let after_line = after.map(|s| first_line(s.text(db)).to_string());
        let mut new = Vec::with_capacity(pieces.len());
        for (i, piece) in pieces.iter().enumerate() {
            let look_ahead = match pieces.get(i + 1) {
                Some(next) => first_line(next),
                None => after_line.as_deref().unwrap_or(""),
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
                    source
                }
                None => new_source(db, piece, look_ahead, !edited),
            };
            new.push(Chunk {
                source,
                start: TextSize::from(0),
                len: size(piece.len()),
                first_line: 0,
                newlines: newlines(piece),
            });
        }
        // The chunk before: its look-ahead is the first line after it.
        if let Some(before) = old.start.checked_sub(1).map(|i| self.chunks[i].source) {
            let line = match pieces.first() {
                Some(piece) => first_line(piece).to_string(),
                None => after_line.unwrap_or_default(),
            };
            if *before.look_ahead(db) != line {
                before
                    .set_look_ahead(db)
                    .with_durability(Durability::LOW)
                    .to(line);
                self.digests[old.start - 1] = OnceLock::new();
            }
        }
        let start = old.start;
        let fresh = std::iter::repeat_with(OnceLock::new).take(new.len());
        self.digests.splice(old.clone(), fresh);
        self.chunks.splice(old, new);
        if self.chunks.is_empty() {
            self.chunks.push(Chunk {
                source: new_source(db, "", "", !edited),
                start: TextSize::from(0),
                len: TextSize::from(0),
                first_line: 0,
                newlines: 0,
            });
            self.digests.push(OnceLock::new());
        }
        self.renumber(start);
    }

    /// Empties every chunk's [`Digest`] (the settings changed: what any chunk reports may
    /// have).
    pub fn forget_digests(&mut self) {
        self.digests.fill_with(OnceLock::new);
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
        for (chunk, digest) in self.chunks.iter().zip(&self.digests) {
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
            let summary = summary(db, source);
            let crs = lone_carriage_returns(db, source);
            for d in crate::check::diagnostics(db, source) {
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

    /// P201 on each kernel named as one in an earlier chunk (within a chunk, resolution
    /// reports them).
    fn kernels_defined_twice(&self, db: &dyn Db, out: &mut Vec<Diagnostic>) {
        let mut kernels: HashMap<&str, TextRange> = HashMap::default();
        for chunk in &self.chunks {
            for (name, range) in &summary(db, chunk.source).kernels {
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
    }
}

/// Computes what [`Document::diagnostics`] gathers of `source` (its diagnostics and
/// [`Summary`]), so that the gathering finds it memoized.
pub(crate) fn analyse_chunk(db: &dyn Db, source: SourceFile) {
    crate::check::diagnostics(db, source);
    summary(db, source);
}

/// What [`Document::diagnostics`] reads of a chunk besides its diagnostics, memoized apart
/// from the syntax tree and the names it comes from (those are evicted from chunks not in
/// use, [`crate::db::parse`]; this stays, so gathering never re-parses a chunk).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Summary {
    /// Syntax errors past the parser's cap ([`syntax::Parse::left_out`]).
    left_out: usize,
    /// The chunk's kernel names, each once (its first definition), with the name's range
    /// (UTF-8 bytes, relative to the chunk), in source order.
    kernels: Vec<(String, TextRange)>,
}

#[salsa::tracked(returns(ref))]
fn summary(db: &dyn Db, source: SourceFile) -> Summary {
    let mut seen: HashSet<&str> = HashSet::default();
    let kernels = crate::db::file_items(db, source)
        .definitions
        .iter()
        .filter(|def| def.kind == crate::resolve::DefKind::Kernel && seen.insert(&def.name))
        .map(|def| (def.name.clone(), def.range))
        .collect();
    Summary {
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
fn new_source(db: &RootDatabase, text: &str, look_ahead: &str, coarse: bool) -> SourceFile {
    SourceFile::builder(text.to_string())
        .text_durability(Durability::MEDIUM)
        .look_ahead(look_ahead.to_string())
        .look_ahead_durability(Durability::MEDIUM)
        .coarse(coarse)
        .coarse_durability(Durability::MEDIUM)
        .new(db)
}

/// The pieces of `text` from one cut to the next (one empty piece for an empty text).
fn cut_pieces(text: &str, target: usize) -> Vec<&str> {
    let cuts = cuts(text, target);
    cuts.iter()
        .enumerate()
        .map(|(i, &start)| &text[start..cuts.get(i + 1).copied().unwrap_or(text.len())])
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
