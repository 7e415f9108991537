//! An edit of a document ([`Document::edit`]): the chunks it touches are cut again, and
//! only their inputs (and the chunk before's look-ahead) are set. A document's text is cut
//! into parts by [`cut_parts`].

use salsa::{Durability, Setter};

use super::cut::look_ahead;
use super::{
    Chunk, Document, Origin, new_generation, new_source, newlines, retire_source, set_entry, size,
    tail_chars,
};
use crate::db::{Db, RootDatabase, SourceFile};
use crate::{TextRange, TextSize};
use std::sync::OnceLock;

/// The longest run of several chunks [`cut_parts`] reads through the database's memoized
/// pieces (bytes); a longer one (a whole kernel re-cut) is read on every core. One chunk
/// is always read through its pieces, however long (a kernel written on one line of
/// megabytes is one chunk: issue 24).
const MEMOIZED_CUT: usize = 1 << 20;

/// An edit's run of chunks, as [`cut_parts`] cuts it: the database its chunks' memoized
/// pieces are read through, and how many chunks it spans.
#[derive(Clone, Copy)]
pub(super) struct EditRun<'db> {
    pub(super) db: &'db dyn Db,
    pub(super) chunks: usize,
}

/// The parts of `text` (a document, or a run of its chunks read in `context`, with
/// `look_ahead` the first line of the chunk after them): each piece with whether it starts
/// inside a kernel, and the cut's verdict on the ends ([`super::cut::cuts`]). `run`: for an
/// edit's run, the database it is read through (its chunks' memoized pieces, for one
/// chunk or up to [`MEMOIZED_CUT`] bytes); such a run is cut into parts of at least twice
/// `target`.
pub(super) fn cut_parts<'t>(
    text: &'t str,
    look_ahead: &str,
    context: syntax::Context,
    target: usize,
    run: Option<EditRun<'_>>,
) -> (Vec<CutPart<'t>>, super::cut::Cuts) {
    let split = target.saturating_mul(crate::document::SPLIT_FACTOR);
    // An edit's run is cut into parts of twice the target: a chunk an edit grew is cut
    // again when it has doubled, not as soon as its last statement passes the target (an
    // op line typed in a chunk cut there would split off a chunk of one line, and a new
    // list of chunks makes a cut kernel's indexes anew).
    let target = if run.is_some() {
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
    let cuts = match run {
        Some(EditRun { db, chunks }) if chunks == 1 || text.len() < MEMOIZED_CUT => {
            let mut read = |piece: &str, end: usize| {
                crate::db::piece_statements(
                    db,
                    crate::db::Piece::new(db, piece.to_string(), end as u32),
                )
            };
            let mut reader = super::cut::StatementReader::Pieces(&mut read);
            super::cut::cuts_read(all, text.len(), context, target, split, &mut reader)
        }
        _ => super::cut::cuts(all, text.len(), context, target, split),
    };
    let parts = cuts
        .parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let end = cuts.parts.get(i + 1).map_or(text.len(), |p| p.at);
            CutPart {
                text: &text[part.at..end],
                inside: part.inside,
                line_indent: part.line_indent,
                through: cuts.through.get(i).copied().unwrap_or(false),
            }
        })
        .collect();
    (parts, cuts)
}

/// A chunk's text as [`cut_parts`] cuts it, with where it stands ([`Chunk::context`]'s
/// `inside` and `line_indent`, [`Chunk::through`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct CutPart<'t> {
    pub(super) text: &'t str,
    pub(super) inside: bool,
    pub(super) line_indent: Option<u32>,
    pub(super) through: bool,
}

impl CutPart<'_> {
    /// Its [`syntax::Context`], the part after it (`next`) starting inside its kernel or not.
    pub(super) fn context(&self, next_inside: bool) -> syntax::Context {
        syntax::Context {
            inside: self.inside,
            goes_on: next_inside,
            line_indent: self.line_indent,
        }
    }
}

impl Document {
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
        for chunk in self.chunks.get(first..=last).unwrap_or_default() {
            merged.push_str(chunk.source.text(db));
        }
        let base = self.chunk(first).start;
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
        // in its body, or at a statement after a `}` inside a long line) and ends with a
        // `\n` (or with that `}`), and a kernel cut inside is closed by its `}`.
        let pieces: Vec<Owned> = loop {
            let inside = self.chunk(first).context.inside;
            let line_indent = self.chunk(first).context.line_indent;
            let starts_ok = first == 0
                || match line_indent {
                    // Inside a line: the statement the chunk before reads up to is as it
                    // was (its look-ahead), so that chunk still ends between statements.
                    Some(_) => look_ahead(&merged) == *self.chunk(first - 1).source.look_ahead(db),
                    None if inside => {
                        syntax::starts_statement_line(&merged, 0)
                            && !syntax::starts_kernel_line(&merged, 0)
                    }
                    None => syntax::starts_kernel_line(&merged, 0),
                };
            if !starts_ok {
                first -= 1;
                merged.insert_str(0, self.chunk(first).source.text(db));
                continue;
            }
            let next = self.chunks.get(last + 1).map(|c| c.context.line_indent);
            if let Some(next_indent) = next
                && !merged.is_empty()
            {
                match next_indent {
                    Some(indent) => {
                        // The next chunk starts inside the run's last line: after a `}`,
                        // on a line indented as it was.
                        let ends = merged.trim_end_matches([' ', '\t']);
                        if !ends.ends_with('}')
                            || last_line_indent(&merged, line_indent) != Some(indent)
                        {
                            self.extend_to_line_end(db, &mut last, &mut merged);
                            continue;
                        }
                    }
                    None if !merged.ends_with('\n') => {
                        last += 1;
                        merged.push_str(self.chunk(last).source.text(db));
                        continue;
                    }
                    None => {}
                }
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
            let goes_on = self.chunk(last).context.goes_on;
            let look_ahead = self
                .chunks
                .get(last + 1)
                .map_or(String::new(), |c| look_ahead(c.source.text(db)));
            let context = syntax::Context {
                inside,
                goes_on,
                line_indent,
            };
            let (parts, cuts) = cut_parts(
                &merged,
                &look_ahead,
                context,
                self.target,
                Some(EditRun {
                    db,
                    chunks: last + 1 - first,
                }),
            );
            if next.flatten().is_some() && !cuts.ends_between {
                // The run's last statement reads on into the next chunk.
                self.extend_to_line_end(db, &mut last, &mut merged);
                continue;
            }
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
        let pieces: Vec<CutPart<'_>> = pieces
            .iter()
            .map(|p| CutPart {
                text: &p.text,
                inside: p.inside,
                line_indent: p.line_indent,
                through: p.through,
            })
            .collect();
        self.replace_chunks(db, first..last + 1, &pieces, true);
        self.refresh_entries(db, first, first + pieces.len().max(1), Durability::LOW);
    }

    /// Grows an edit's run (its last chunk `last`, its text `run`) over the chunks after it
    /// up to the one that ends its line (or the last): the chunks that start inside that
    /// line are cut again with it.
    fn extend_to_line_end(&self, db: &dyn Db, last: &mut usize, run: &mut String) {
        while let Some(chunk) = self.chunks.get(*last + 1) {
            *last += 1;
            let text = chunk.source.text(db);
            run.push_str(text);
            if text.ends_with('\n') {
                break;
            }
        }
    }

    /// Replaces the chunks `old` with chunks of `pieces` (reusing their inputs in order),
    /// and sets the look-aheads around them. `edited`: an edit, not a new text, made them
    /// (their ops are then lowered one memo each, see [`SourceFile::coarse`]).
    pub(super) fn replace_chunks(
        &mut self,
        db: &mut RootDatabase,
        old: std::ops::Range<usize>,
        pieces: &[CutPart<'_>],
        edited: bool,
    ) {
        let reused: Vec<SourceFile> = self
            .chunks
            .get(old.clone())
            .unwrap_or_default()
            .iter()
            .map(|c| c.source)
            .collect();
        // Inputs no piece reuses leave the document, to be reused by the next chunk made.
        for &source in reused.iter().skip(pieces.len()) {
            self.indexes.remove(&source);
            retire_source(db, source);
        }
        let after = self
            .chunks
            .get(old.end)
            .map(|c| (c.source, c.context.inside));
        let after_line = after.map(|(s, _)| look_ahead(s.text(db)));
        let after_inside = after.is_some_and(|a| a.1);
        let mut new = Vec::with_capacity(pieces.len());
        for (i, part) in pieces.iter().enumerate() {
            let (piece, inside, through) = (part.text, part.inside, part.through);
            let look_ahead = match pieces.get(i + 1) {
                Some(next) => look_ahead(next.text),
                None => after_line.clone().unwrap_or_default(),
            };
            let look_ahead = look_ahead.as_str();
            let context = part.context(pieces.get(i + 1).map_or(after_inside, |next| next.inside));
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
                origin: Origin::default(),
                newlines: newlines(piece),
                tail_chars: tail_chars(piece),
                context,
                through,
            });
        }
        // The chunk before: its look-ahead is the first line after it, and its last kernel
        // goes on when the first chunk after it starts inside one.
        if let Some(i) = old.start.checked_sub(1) {
            let before = self.chunk(i).source;
            let (line, inside) = match pieces.first() {
                Some(piece) => (look_ahead(piece.text), piece.inside),
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
                ..self.chunk(i).context
            };
            if context != self.chunk(i).context {
                before
                    .set_context(db)
                    .with_durability(Durability::LOW)
                    .to(context);
                if let Some(chunk) = self.chunks.get_mut(i) {
                    chunk.context = context;
                }
                self.forget(i);
            }
        }
        let start = old.start;
        let fresh = std::iter::repeat_with(OnceLock::new).take(new.len());
        self.digests.splice(old.clone(), fresh);
        let generations = std::iter::repeat_with(new_generation).take(new.len());
        self.generations.splice(old.clone(), generations);
        self.chunks.splice(old, new);
        if self.chunks.is_empty() {
            let context = syntax::Context::default();
            self.chunks.push(Chunk {
                source: new_source(db, "", "", context, !edited),
                start: TextSize::from(0),
                len: TextSize::from(0),
                origin: Origin::default(),
                newlines: 0,
                tail_chars: 0,
                context,
                through: false,
            });
            self.digests.push(OnceLock::new());
            self.generations.push(new_generation());
        }
        self.place_from(start);
    }
}

/// A [`CutPart`] with its own text, as [`Document::edit`] keeps the parts while it grows
/// the run.
struct Owned {
    text: String,
    inside: bool,
    line_indent: Option<u32>,
    through: bool,
}

/// The parts of a run of chunks as [`Document::edit`] keeps them.
fn owned(parts: &[CutPart<'_>]) -> Vec<Owned> {
    parts
        .iter()
        .map(|p| Owned {
            text: p.text.to_string(),
            inside: p.inside,
            line_indent: p.line_indent,
            through: p.through,
        })
        .collect()
}

/// The indentation of the last line of `run` (a run of chunks' text; `first_indent`: its
/// first chunk's [`syntax::Context::line_indent`], that of its first line when the run
/// starts inside it).
fn last_line_indent(run: &str, first_indent: Option<u32>) -> Option<u32> {
    let line = match run.rfind('\n') {
        Some(i) => run.get(i + 1..).unwrap_or_default(),
        None if first_indent.is_some() => return first_indent,
        None => run,
    };
    u32::try_from(syntax::indentation(line).len()).ok()
}
