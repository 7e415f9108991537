//! Where a file may be cut into chunks of whole statements (see [`statement_lines`]).
//!
//! A chunk starts at the start of a line whose first tokens certainly start a statement:
//! `kernel @k`, `tensor %t`, `for %i`, `reg %r`, `Op {` or `Op #N`. No field, value or
//! header can start that way, and the parser ends whatever is open at such a token at the start of
//! a line (an op body without its `}`, an unclosed `[`, a run of junk), so every such line
//! starts a statement of the flat list whatever comes before it, and the statements of a chunk read the same alone
//! ([`crate::parse_statements`], with the next line as look-ahead) as in the file. Telling
//! a line needs only that line.

use crate::Context;
use crate::lexer::{Token, lex};

/// The byte offsets of the starts of the lines of `text` that start a statement (see the
/// module docs), in order. 0-based UTF-8 offsets; a line starts after `\n` (a lone `\r` is
/// not a line end in the language, SPEC §1).
pub fn statement_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line = 0;
    while line < text.len() {
        if starts_statement_line(text, line) {
            out.push(line);
        }
        line = text[line..].find('\n').map_or(text.len(), |i| line + i + 1);
    }
    out
}

/// Whether the line of `text` that starts at byte `line` starts a statement: its first two
/// tokens are one of the forms of the module docs.
/// `line` must be 0 or follow a `\n`.
pub fn starts_statement_line(text: &str, line: usize) -> bool {
    let line_end = text[line..].find('\n').map_or(text.len(), |i| line + i);
    let window = &text[line..line_end];
    let (tokens, _) = lex(window);
    let mut significant = tokens.iter().filter(|(kind, _)| *kind != Token::Comment);
    let (Some(&(first, first_range)), second) = (
        significant.next(),
        significant.next().map(|&(kind, _)| kind),
    ) else {
        return false;
    };
    // First on its line as the parser tells it: after spaces and tabs only (a lone `\r`,
    // skipped by the lexer, is not a line start, `recover::starts_statement_line`).
    if !only_indent(&window[..usize::from(first_range.start())]) {
        return false;
    }
    let word = &window[first_range];
    match (first, second) {
        (Token::Kernel, Some(Token::Global)) => true,
        (Token::Tensor | Token::For, Some(Token::Local)) => true,
        (Token::Ident, Some(Token::Local)) => word == "reg",
        (Token::Ident, Some(Token::LBrace | Token::OpId)) => true,
        _ => false,
    }
}

/// Whether the line of `text` that starts at byte `line` starts a kernel: its first two
/// tokens (comments aside) are `kernel @name`. Such a line ends every body open before it
/// and starts a kernel of the file, whatever precedes it (see the module docs); the kernels
/// from one such line to the next parse alone as in their file ([`crate::parse_piece`]).
/// `line` must be 0 or follow a `\n`.
pub fn starts_kernel_line(text: &str, line: usize) -> bool {
    let line_end = text[line..].find('\n').map_or(text.len(), |i| line + i);
    let window = &text[line..line_end];
    let (tokens, _) = lex(window);
    let mut significant = tokens.iter().filter(|(kind, _)| *kind != Token::Comment);
    match (significant.next(), significant.next()) {
        (Some((Token::Kernel, first)), Some((Token::Global, _))) => {
            only_indent(&window[..usize::from(first.start())])
        }
        _ => false,
    }
}

/// Whether `prefix` (what stands before a line's first token) is spaces and tabs only.
fn only_indent(prefix: &str) -> bool {
    prefix.bytes().all(|b| b == b' ' || b == b'\t')
}

/// The byte offset just past the line of `text` that holds byte `line` (after its `\n`,
/// or the end of the text). Any offset will do, also one inside a character: a `\n` byte
/// is never part of another character, so the answer is a character boundary.
pub fn line_end(text: &str, line: usize) -> usize {
    text.as_bytes()
        .get(line..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(text.len(), |i| line + i + 1)
}

/// Chunk starts for `text`: 0, then statement lines (see [`statement_lines`]) at least
/// `target` bytes apart, so each chunk but the last holds `target` bytes or more (or the
/// rest of the file). A file without statement lines is one chunk.
pub fn chunk_starts(text: &str, target: usize) -> Vec<usize> {
    let mut out = vec![0];
    for line in statement_lines(text) {
        if line >= out.last().copied().unwrap_or(0) + target.max(1) {
            out.push(line);
        }
    }
    out
}

/// One statement line in this many (on average) ends a piece in [`piece_starts`].
const PIECE_STATEMENTS: u64 = 8;

/// The longest piece [`piece_starts`] makes when no line's content picks a cut (bytes;
/// longer only where no statement line follows).
const MAX_PIECE: usize = 4096;

/// Where to cut `text[..end]` into pieces that are read apart ([`crate::read_statements`])
/// and re-read only when an edit touches them: statement lines ([`statement_lines`]),
/// chosen by their own text (a hash of the line picks one in [`PIECE_STATEMENTS`]), so an
/// edit moves no cut but those on the lines it changed: the pieces before and after it keep
/// their text. Where no line is picked for [`MAX_PIECE`] bytes, the next statement line
/// is a cut. 0-based UTF-8 offsets, ascending, each in `1..end`.
pub fn piece_starts(text: &str, end: usize) -> Vec<usize> {
    use std::hash::Hasher;
    let end = end.min(text.len());
    let mut out = Vec::new();
    let mut last = 0;
    let mut line = line_end(text, 0);
    while line < end {
        let next = line_end(text, line);
        let mut hasher = rustc_hash::FxHasher::default();
        hasher.write(&text.as_bytes()[line..next]);
        let picked =
            (hasher.finish() >> 40).is_multiple_of(PIECE_STATEMENTS) || line - last >= MAX_PIECE;
        if picked && starts_statement_line(text, line) {
            out.push(line);
            last = line;
        }
        line = next;
    }
    out
}

/// Where [`cuts`] cuts a text into parts, and whether its ends fit the parts around it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cuts {
    /// Each part's start (UTF-8 bytes, ascending, the first 0) and whether it starts inside
    /// a kernel's body ([`Context::inside`]; the first part's is the text's own).
    pub parts: Vec<(usize, bool)>,
    /// Whether the text ends with a kernel's body open and nothing else (no loop, no
    /// kernel left unclosed before it): a next part may start inside it.
    pub ends_inside: bool,
    /// Whether the kernel the text starts inside (when it does) ends as the whole file
    /// would end it: by its `}`, or still open (with nothing else) at the end of the text.
    /// A kernel a `kernel` line cuts short is not: its error is at its `{`, in an earlier
    /// part. Always true for a text that does not start inside a kernel.
    pub entry_kept: bool,
    /// At each part's place: whether it starts inside a kernel that goes on past its end (a
    /// middle part of a kernel: no kernel ends or starts in it).
    pub through: Vec<bool>,
}

/// Cuts `text[..end]` (a document or a run of its parts, read in `context`; `text[end..]`
/// is look-ahead, the next part's first line) into parts of at least `target` bytes: at `kernel @name` lines, as [`chunk_starts`] does, and, inside a
/// kernel of `split` bytes or more (from its line to its `}`; or one that starts before or
/// goes on past the text), at statement lines ([`statement_lines`]) directly in its body,
/// where nothing but the kernel is open. Only in a kernel closed by its own `}` (or going
/// on past the text, `context.goes_on`), so that no part reports a body left open that
/// another part holds.
///
/// Parsed each with its [`Context`] (`inside` as given here, `goes_on` when the next part
/// starts inside), the parts give the parse of the whole ([`crate::parse_part`]). Texts
/// without a kernel of `split` bytes are cut at kernel lines only, without being read.
pub fn cuts(text: &str, end: usize, context: Context, target: usize, split: usize) -> Cuts {
    cuts_read(
        text,
        end,
        context,
        target,
        split,
        &mut StatementReader::OnEveryCore(MARK_PIECE),
    )
}

/// How [`cuts_read`] reads the statements of a text it may cut inside a kernel.
pub enum StatementReader<'a, 'r> {
    /// On every core, in pieces of about this many bytes (`cuts` reads 256 KB), each read
    /// alone, kept as where each statement starts and how it nests: the cuts do not depend
    /// on the size.
    OnEveryCore(usize),
    /// In the pieces [`piece_starts`] picks, each given by the caller (its text with its
    /// look-ahead, and where the piece proper ends, as [`crate::read_in_pieces`] asks):
    /// an editor's analysis hands its memoized pieces, so that cutting an edited chunk
    /// re-reads only the piece the edit touched, and parsing it afterwards re-reads none.
    Pieces(&'a mut dyn FnMut(&str, usize) -> &'r crate::Statements),
}

/// [`cuts`], the statements read by `reader` (the cuts do not depend on how).
pub fn cuts_read(
    text: &str,
    end: usize,
    context: Context,
    target: usize,
    split: usize,
    reader: &mut StatementReader<'_, '_>,
) -> Cuts {
    let target = target.max(1);
    let end = end.min(text.len());
    let kernel_lines = kernel_lines(&text[..end]);
    let longest = kernel_lines
        .iter()
        .zip(kernel_lines.iter().skip(1).chain([&end]))
        .map(|(a, b)| b - a)
        .max()
        .unwrap_or(0);
    if !context.inside && !context.goes_on && longest < split {
        let mut parts = vec![(0, false)];
        for line in kernel_lines {
            if line >= parts.last().map_or(0, |p| p.0) + target {
                parts.push((line, false));
            }
        }
        return Cuts {
            through: vec![false; parts.len()],
            parts,
            ends_inside: false,
            entry_kept: true,
        };
    }
    let marks = match reader {
        StatementReader::OnEveryCore(piece) => marks_on_every_core(text, end, (*piece).max(1)),
        StatementReader::Pieces(read) => {
            let mut marks = Vec::new();
            for (from, piece, len) in crate::pieces(text, end, &piece_starts(text, end)) {
                let read = read(piece, len);
                marks.extend(read.statements.iter().map(|s| Mark::of(s).shifted(from)));
            }
            marks
        }
    };
    cut_in_kernels(text, end, context, target, split, &marks)
}

/// The starts of the lines of `text` that start a kernel ([`starts_kernel_line`]).
fn kernel_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line = 0;
    while line < text.len() {
        if text[line..]
            .trim_start_matches([' ', '\t'])
            .starts_with("kernel")
            && starts_kernel_line(text, line)
        {
            out.push(line);
        }
        line = line_end(text, line);
    }
    out
}

/// [`cuts`] when a kernel may be cut: the flat statements read and nested as the parser
/// nests them ([`crate::assemble`]), a body-level statement line a candidate cut of its
/// kernel, kept when the kernel ends as it must.
fn cut_in_kernels(
    text: &str,
    end: usize,
    context: Context,
    target: usize,
    split: usize,
    marks: &[Mark],
) -> Cuts {
    let mut statements = marks.iter().peekable();
    let mut parts = vec![(0, context.inside)];
    // The open bodies: true for a kernel. A kernel's start, its candidate cuts, and
    // whether it is the one the text starts inside.
    let mut open: Vec<bool> = Vec::new();
    let mut kernel_start = 0;
    let mut candidates: Vec<usize> = Vec::new();
    let mut entry = context.inside;
    let mut entry_kept = true;
    // Where kernels end (their `}`, or the line that cuts them short): no part holding one
    // is a middle part.
    let mut kernel_ends: Vec<usize> = Vec::new();
    if context.inside {
        open.push(true);
    }
    let last_cut = |parts: &[(usize, bool)], candidates: &[usize]| {
        candidates
            .last()
            .copied()
            .unwrap_or(0)
            .max(parts.last().map_or(0, |p| p.0))
    };
    let mut lines = statement_lines(&text[..end]).into_iter().peekable();
    loop {
        let next_line = lines.peek().copied();
        let next_statement = statements.peek().map(|s| s.start());
        match (next_line, next_statement) {
            (None, None) => break,
            (Some(line), statement) if statement.is_none_or(|s| s >= line) => {
                lines.next();
                if line == 0 {
                    continue;
                }
                if starts_kernel_line(text, line) {
                    if line >= parts.last().map_or(0, |p| p.0) + target {
                        parts.push((line, false));
                    }
                } else if open == [true] && line >= last_cut(&parts, &candidates) + target {
                    candidates.push(line);
                }
            }
            _ => {
                let Some(statement) = statements.next() else {
                    break;
                };
                match *statement {
                    Mark::Kernel { start, opens } => {
                        if !open.is_empty() {
                            // Cut short: left unclosed.
                            kernel_ends.push(start);
                            candidates.clear();
                            entry_kept &= !entry;
                            entry = false;
                            open.clear();
                        }
                        if opens {
                            open.push(true);
                            kernel_start = start;
                        }
                    }
                    Mark::Loop { opens, .. } => {
                        if opens && !open.is_empty() {
                            open.push(false);
                        }
                    }
                    Mark::Close { start, end } => {
                        if open.pop() == Some(true) {
                            kernel_ends.push(start);
                            let long = end - kernel_start >= split;
                            if entry || long {
                                parts.extend(candidates.drain(..).map(|c| (c, true)));
                            }
                            candidates.clear();
                            entry = false;
                        }
                    }
                    Mark::Stmt { .. } => {}
                }
            }
        }
    }
    let ends_inside = open == [true];
    if ends_inside && context.goes_on {
        parts.extend(candidates.drain(..).map(|c| (c, true)));
    } else if entry {
        entry_kept = false;
    }
    parts.sort_unstable();
    let through = (0..parts.len())
        .map(|i| {
            let start = parts[i].0;
            let end = parts.get(i + 1).map_or(end, |p| p.0);
            let goes_on = parts
                .get(i + 1)
                .map_or(ends_inside && context.goes_on, |p| p.1);
            parts[i].1 && goes_on && !kernel_ends.iter().any(|&e| start <= e && e < end)
        })
        .collect();
    Cuts {
        parts,
        ends_inside,
        entry_kept,
        through,
    }
}

/// What [`cut_in_kernels`] reads of a flat statement ([`crate::ast::FlatStmt`]): where it
/// starts (UTF-8 bytes) and how it nests.
#[derive(Clone, Copy, Debug)]
enum Mark {
    /// A kernel header, and whether it opens a body.
    Kernel { start: usize, opens: bool },
    /// A loop header, and whether it opens a body.
    Loop { start: usize, opens: bool },
    /// A `}`: its start and end.
    Close { start: usize, end: usize },
    /// Any other statement.
    Stmt { start: usize },
}

impl Mark {
    /// The mark of `statement`.
    fn of(statement: &crate::ast::FlatStmt) -> Mark {
        use crate::ast::FlatStmt;
        match statement {
            FlatStmt::Kernel(k) => Mark::Kernel {
                start: usize::from(k.range.start()),
                opens: k.open.is_some(),
            },
            FlatStmt::Loop(l) => Mark::Loop {
                start: usize::from(l.range.start()),
                opens: l.open.is_some(),
            },
            FlatStmt::Close(r) => Mark::Close {
                start: usize::from(r.start()),
                end: usize::from(r.end()),
            },
            FlatStmt::Stmt(s) => Mark::Stmt {
                start: usize::from(s.range().start()),
            },
        }
    }

    /// The mark `by` bytes further on.
    fn shifted(self, by: usize) -> Mark {
        match self {
            Mark::Kernel { start, opens } => Mark::Kernel {
                start: start + by,
                opens,
            },
            Mark::Loop { start, opens } => Mark::Loop {
                start: start + by,
                opens,
            },
            Mark::Close { start, end } => Mark::Close {
                start: start + by,
                end: end + by,
            },
            Mark::Stmt { start } => Mark::Stmt { start: start + by },
        }
    }

    /// Where its statement starts.
    fn start(self) -> usize {
        match self {
            Mark::Kernel { start, .. }
            | Mark::Loop { start, .. }
            | Mark::Close { start, .. }
            | Mark::Stmt { start } => start,
        }
    }
}

/// The [`Mark`]s of the flat statements of `text[..end]` (`text[end..]` is look-ahead),
/// read on every core for a big text: cut at statement lines into pieces of about
/// `piece` bytes ([`MARK_PIECE`]), each read alone with its look-ahead (which reads the same as the
/// whole, [`crate::read_in_pieces`], `syntax/tests/statements.rs`) and kept as marks only,
/// so that no more than a piece per core of statements is ever held.
fn marks_on_every_core(text: &str, end: usize, piece: usize) -> Vec<Mark> {
    let cores = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(8);
    let marks_of = |from: usize, to: usize| -> Vec<Mark> {
        let until = if to == end {
            text.len()
        } else {
            crate::look_ahead_end(text, to)
        };
        let read = crate::read_statements(&text[from..until], to - from, &|| ());
        read.statements
            .iter()
            .map(|s| Mark::of(s).shifted(from))
            .collect()
    };
    if end < piece.saturating_mul(2) {
        return marks_of(0, end);
    }
    // Piece boundaries: the first statement line at or after each piece's share.
    let mut bounds = vec![0];
    let mut at = piece;
    while at < end {
        let mut line = line_end(text, at.min(end));
        while line < end && !starts_statement_line(text, line) {
            line = line_end(text, line);
        }
        if line < end && line > *bounds.last().unwrap_or(&0) {
            bounds.push(line);
        }
        at = line.max(at) + piece;
    }
    bounds.push(end);
    let pieces = bounds.len() - 1;
    let threads = cores.min(pieces);
    let mut marks: Vec<Vec<Mark>> = vec![Vec::new(); pieces];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let bounds = &bounds;
                scope.spawn(move || {
                    (t..pieces)
                        .step_by(threads)
                        .map(|i| (i, marks_of(bounds[i], bounds[i + 1])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            for (i, piece) in handle.join().unwrap_or_default() {
                marks[i] = piece;
            }
        }
    });
    marks.concat()
}

/// The size of a piece of text [`marks_on_every_core`] reads at once, in bytes.
const MARK_PIECE: usize = 256 * 1024;
