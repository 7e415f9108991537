//! Where a document is cut into chunks: at kernel lines, and inside a kernel of
//! [`super::SPLIT_FACTOR`] chunk targets or more at the statement lines of its body
//! ([`cuts`]). The policy of the analysis, on the locality properties of `syntax`: a kernel
//! line ends whatever is open before it, and a statement line starts a statement whatever
//! precedes it, so each part parses alone as in the whole ([`syntax::parse_part`]; the
//! tests below).

use syntax::{
    Context, TextSize, line_end, piece_starts, starts_kernel_line, starts_statement_line,
    statement_lines,
};

/// Where a part starts, as [`cuts`] cuts a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartStart {
    /// Its first byte in the text (UTF-8, the first part's 0).
    pub at: usize,
    /// Whether it starts inside a kernel's body ([`Context::inside`]; the first part's is
    /// the text's own).
    pub inside: bool,
    /// When it starts inside a line (a statement after a `}` on a line of a chunk target
    /// or more), that line's indentation ([`Context::line_indent`]); the first part's is
    /// the text's own.
    pub line_indent: Option<u32>,
}

/// Where [`cuts`] cuts a text into parts, and whether its ends fit the parts around it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cuts {
    /// Each part's start, ascending, the first at 0.
    pub parts: Vec<PartStart>,
    /// Whether the text ends with a kernel's body open and nothing else (no loop, no
    /// kernel left unclosed before it), and no over-indented `}` in it that a `}` one too
    /// many after the text would drop ([`syntax::Closes::end_undecided`]): a next part may
    /// start inside it.
    pub ends_inside: bool,
    /// Whether the kernel the text starts inside (when it does) ends as the whole file
    /// would end it: by its `}`, or still open (with nothing else) at the end of the text.
    /// A kernel a `kernel` line cuts short is not: its error is at its `{`, in an earlier
    /// part. Nor is one whose `}` is followed by a statement before the next `kernel`
    /// ([`syntax::Closes::entry_undecided`]): whether a `}` of it is one too many is decided
    /// on the whole kernel. Always true for a text that does not start inside a kernel.
    pub entry_kept: bool,
    /// At each part's place: whether it starts inside a kernel that goes on past its end (a
    /// middle part of a kernel: no kernel ends or starts in it).
    pub through: Vec<bool>,
    /// Whether the text's last statement ends by the text's end as read with its
    /// look-ahead (the reader stops there, [`syntax::Statements::stopped_at`]), and the
    /// text ends with a `}` and blanks: a next part may start inside the line there. Only
    /// read for a text that does not end at a line end and has look-ahead; else false.
    pub ends_between: bool,
}

/// The look-ahead of the part before `next` (the text of the part after it, on): its
/// first line with its `\n`, but only up to the end of the line's second significant
/// token (`kernel @name`, `Op {`, `tensor %t`, which tell the line starts a kernel or a
/// statement), then a line break: all the part before reads of it (where its last
/// statement ends, and the token an error there quotes). So editing the rest of a
/// chunk's first line leaves the chunk before as it was. Read lazily: a part that starts
/// inside a line of megabytes costs a few tokens.
pub fn look_ahead(next: &str) -> String {
    let tokens = syntax::first_tokens(next, 3);
    let second = tokens
        .iter()
        .take_while(|(kind, _)| *kind != syntax::Token::Newline)
        .nth(1);
    match second {
        Some((_, range)) => {
            let end = usize::from(range.end());
            let after = next.get(end..).unwrap_or_default();
            let blank = after.len() - after.trim_start_matches('\r').len();
            match after.as_bytes().get(blank) {
                None => next.to_string(),
                Some(b'\n') => next.get(..end + blank + 1).unwrap_or(next).to_string(),
                Some(_) => format!("{}\n", next.get(..end).unwrap_or_default()),
            }
        }
        None => next.get(..line_end(next, 0)).unwrap_or(next).to_string(),
    }
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
/// starts inside), the parts give the parse of the whole ([`syntax::parse_part`]). Texts
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
    /// look-ahead, and where the piece proper ends, as [`syntax::read_in_pieces`] asks):
    /// an editor's analysis hands its memoized pieces, so that cutting an edited chunk
    /// re-reads only the piece the edit touched, and parsing it afterwards re-reads none.
    Pieces(&'a mut dyn FnMut(&str, usize) -> &'r syntax::Statements),
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
        let mut parts = vec![PartStart {
            at: 0,
            inside: false,
            line_indent: context.line_indent,
        }];
        for line in kernel_lines {
            if line >= parts.last().map_or(0, |p| p.at) + target {
                parts.push(PartStart {
                    at: line,
                    inside: false,
                    line_indent: None,
                });
            }
        }
        return Cuts {
            through: vec![false; parts.len()],
            parts,
            ends_inside: false,
            entry_kept: true,
            ends_between: false,
        };
    }
    let marks = match reader {
        StatementReader::OnEveryCore(piece) => marks_on_every_core(text, end, (*piece).max(1)),
        StatementReader::Pieces(read) => {
            let mut marks = Vec::new();
            syntax::read_pieces(
                text,
                end,
                &piece_starts(text, end),
                &mut |piece, len| read(piece, len),
                &mut |from, read: &syntax::Statements| {
                    marks.extend(read.statements.iter().map(|s| Mark::of(s).shifted(from)));
                },
            );
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
/// nests them (the parser), a body-level statement line a candidate cut of its
/// kernel, and so is a body-level statement inside a long line that a `}` ends the
/// statement before ([`MidLine::cut_at`]); kept when the kernel ends as it must.
fn cut_in_kernels(
    text: &str,
    end: usize,
    context: Context,
    target: usize,
    split: usize,
    marks: &[Mark],
) -> Cuts {
    // The `}`s the parser drops as one too many: a kernel holding one is not cut inside,
    // so that its one part nests as the whole file does.
    let closes = syntax::extra_closes(text, marks.iter().map(Mark::shape), context);
    let extra = &closes.extra;
    let mut statements = marks.iter().enumerate().peekable();
    let mut uncut = false;
    let mut parts = vec![PartStart {
        at: 0,
        inside: context.inside,
        line_indent: context.line_indent,
    }];
    // The open bodies: true for a kernel. A kernel's start, its candidate cuts (each with
    // its line's indentation when it is inside a line), and whether it is the one the text
    // starts inside.
    let mut open: Vec<bool> = Vec::new();
    let mut kernel_start = 0;
    let mut candidates: Vec<(usize, Option<u32>)> = Vec::new();
    let mut entry = context.inside;
    let mut entry_kept = true;
    // Where kernels end (their `}`, or the line that cuts them short): no part holding one
    // is a middle part.
    let mut kernel_ends: Vec<usize> = Vec::new();
    if context.inside {
        open.push(true);
    }
    let last_cut = |parts: &[PartStart], candidates: &[(usize, Option<u32>)]| {
        candidates
            .last()
            .map_or(0, |c| c.0)
            .max(parts.last().map_or(0, |p| p.at))
    };
    let take = |candidates: &mut Vec<(usize, Option<u32>)>, parts: &mut Vec<PartStart>| {
        parts.extend(candidates.drain(..).map(|(at, line_indent)| PartStart {
            at,
            inside: true,
            line_indent,
        }));
    };
    let mut mid_line = MidLine::new(context.line_indent, target);
    let mut previous: Option<usize> = None;
    let mut lines = statement_lines(&text[..end]).into_iter().peekable();
    loop {
        let next_line = lines.peek().copied();
        let next_statement = statements.peek().map(|(_, s)| s.start());
        match (next_line, next_statement) {
            (None, None) => break,
            (Some(line), statement) if statement.is_none_or(|s| s >= line) => {
                lines.next();
                if line == 0 {
                    continue;
                }
                if starts_kernel_line(text, line) {
                    if line >= parts.last().map_or(0, |p| p.at) + target {
                        parts.push(PartStart {
                            at: line,
                            inside: false,
                            line_indent: None,
                        });
                    }
                } else if open == [true] && !uncut && line >= last_cut(&parts, &candidates) + target
                {
                    candidates.push((line, None));
                }
            }
            _ => {
                let Some((i, statement)) = statements.next() else {
                    break;
                };
                let before = previous.replace(statement.start());
                if extra.binary_search(&i).is_ok() {
                    candidates.clear();
                    uncut = true;
                    continue;
                }
                if let Mark::Stmt { start } | Mark::Loop { start, .. } = *statement
                    && open == [true]
                    && !uncut
                    && start >= last_cut(&parts, &candidates) + target
                    && let Some(indent) = before.and_then(|b| mid_line.cut_at(text, b, start))
                {
                    candidates.push((start, Some(indent)));
                }
                match *statement {
                    Mark::Kernel { start, opens } => {
                        uncut = false;
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
                                take(&mut candidates, &mut parts);
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
        take(&mut candidates, &mut parts);
    } else if entry {
        entry_kept = false;
    }
    // Where the text's ends leave a `}` one too many or not undecided, they do not fit:
    // the kernel is re-cut whole, where it is decided.
    entry_kept &= !closes.entry_undecided;
    let ends_inside = ends_inside && !closes.end_undecided;
    let ends_between = end < text.len()
        && !text[..end].ends_with('\n')
        && previous.is_some_and(|last| ends_between_statements(text, last, end));
    parts.sort_unstable_by_key(|p| p.at);
    let through = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let end = parts.get(i + 1).map_or(end, |p| p.at);
            let goes_on = parts
                .get(i + 1)
                .map_or(ends_inside && context.goes_on, |p| p.inside);
            part.inside && goes_on && !kernel_ends.iter().any(|&e| part.at <= e && e < end)
        })
        .collect();
    Cuts {
        parts,
        ends_inside,
        entry_kept,
        through,
        ends_between,
    }
}

/// Whether the statement of `text` that starts at byte `last` (a statement start of the
/// file), read alone with the look-ahead a part ending at `end` is given
/// ([`look_ahead`]), ends by `end` — the reader stops there — and a `}` and blanks end
/// `text[..end]`: a part may start at `end`, inside its line. A `}` ends the statement
/// before such a start, so that the reader is between statements there as at a line start
/// (no run of junk, no bracket open), as a piece of a long line is
/// ([`syntax::piece_starts`]).
fn ends_between_statements(text: &str, last: usize, end: usize) -> bool {
    let (Some(statement), Some(next)) = (text.get(last..end), text.get(end..)) else {
        return false;
    };
    if !statement.trim_end_matches([' ', '\t']).ends_with('}') {
        return false;
    }
    let read = format!("{statement}{}", look_ahead(next));
    let stopped = syntax::read_statements(&read, statement.len(), &|| ()).stopped_at;
    stopped == TextSize::try_from(statement.len()).ok()
}

/// The lines of a text as [`cut_in_kernels`] asks about the statements in them, in order:
/// where a statement may start a part inside its line. Each line is found once (the text
/// may be one line of megabytes, cut at hundreds of places).
struct MidLine {
    /// The first line's indentation when the text starts inside a line.
    first_indent: Option<u32>,
    /// The smallest part: a line this long or longer is cut inside.
    target: usize,
    /// The start and end (after its `\n`) of the line asked about last.
    line: (usize, usize),
}

impl MidLine {
    fn new(first_indent: Option<u32>, target: usize) -> MidLine {
        MidLine {
            first_indent,
            target,
            line: (0, 0),
        }
    }

    /// The indentation of the line holding byte `start` of `text`, when a part may start
    /// at `start` (a body-level statement, after the statement at `before`): it is inside
    /// a line of [`MidLine::target`] bytes or more (a text that starts inside a line
    /// counts its first line as long), not first on it, and the statement before it ends
    /// there with its `}` ([`ends_between_statements`]). Else `None`.
    fn cut_at(&mut self, text: &str, before: usize, start: usize) -> Option<u32> {
        let (line, end) = self.line_of(text, start);
        let blanks = text.get(..start)?.trim_end_matches([' ', '\t']).len();
        if blanks <= line {
            return None; // First on its line: a statement line, cut there if at all.
        }
        let first = line == 0 && self.first_indent.is_some();
        if !first && end - line < self.target {
            return None;
        }
        if !ends_between_statements(text, before, start) {
            return None;
        }
        match self.first_indent {
            Some(indent) if line == 0 => Some(indent),
            _ => {
                let rest = text.get(line..start).unwrap_or_default();
                u32::try_from(syntax::indentation(rest).len()).ok()
            }
        }
    }

    /// The start and end of the line of `text` holding byte `at` (a token start).
    fn line_of(&mut self, text: &str, at: usize) -> (usize, usize) {
        let (start, end) = self.line;
        if at >= start && at < end {
            return self.line;
        }
        let from = if at >= end { end } else { 0 };
        let start = match text.get(from..at) {
            Some(between) => between.rfind('\n').map_or(from, |i| from + i + 1),
            None => text
                .get(..at)
                .and_then(|b| b.rfind('\n'))
                .map_or(0, |i| i + 1),
        };
        self.line = (start, line_end(text, at));
        self.line
    }
}

/// What [`cut_in_kernels`] reads of a flat statement ([`syntax::FlatStmt`]): where it
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
    /// How it nests, as [`syntax::extra_closes`] reads it.
    fn shape(&self) -> syntax::Shape {
        let at = |b: usize| crate::TextSize::try_from(b).unwrap_or(u32::MAX.into());
        match *self {
            Mark::Kernel { start, opens } => syntax::Shape::Kernel {
                start: at(start),
                opens,
            },
            Mark::Loop { start, opens } => syntax::Shape::Loop {
                start: at(start),
                opens,
            },
            Mark::Close { start, end } => {
                syntax::Shape::Close(crate::TextRange::new(at(start), at(end)))
            }
            Mark::Stmt { .. } => syntax::Shape::Stmt,
        }
    }

    /// The mark of `statement`.
    fn of(statement: &syntax::FlatStmt) -> Mark {
        use syntax::FlatStmt;
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
/// `piece` bytes ([`MARK_PIECE`]), and a line longer than a piece also inside, at
/// statements after a `}` ([`syntax::statements_after_close`]). Each piece is read alone
/// with its look-ahead (which reads the same as the whole, [`syntax::read_in_pieces`],
/// `syntax/tests/statements.rs`) and kept as marks only, so that no more than a piece per
/// core of statements is ever held. A cut inside a line holds only where the piece before
/// it stops there ([`syntax::Statements::stopped_at`]); where it does not, the two pieces
/// are read again as one.
fn marks_on_every_core(text: &str, end: usize, piece: usize) -> Vec<Mark> {
    // The marks of `text[from..to]`, and whether the reader stopped at `to`.
    let marks_of = |from: usize, to: usize| -> (Vec<Mark>, bool) {
        let until = if to == end {
            text.len()
        } else {
            syntax::look_ahead_end(text, to)
        };
        let read = syntax::read_statements(&text[from..until], to - from, &|| ());
        let stopped = read.stopped_at.map(usize::from) == Some(to - from);
        let marks = read
            .statements
            .iter()
            .map(|s| Mark::of(s).shifted(from))
            .collect();
        (marks, stopped)
    };
    if end < piece.saturating_mul(2) {
        return marks_of(0, end).0;
    }
    let mut bounds = piece_bounds(text, end, piece);
    let pieces = bounds.len() - 1;
    let mut read =
        crate::executor::on_every_core(pieces, |i| match (bounds.get(i), bounds.get(i + 1)) {
            (Some(&from), Some(&to)) => marks_of(from, to),
            _ => (Vec::new(), true),
        });
    // A piece that did not stop at a cut inside a line is read again with the next.
    let mut i = 0;
    while i + 1 < read.len() {
        let (Some(&to), Some(&(_, stopped))) = (bounds.get(i + 1), read.get(i)) else {
            break;
        };
        if stopped || syntax::at_line_start(text, to) {
            i += 1;
            continue;
        }
        let from = bounds.get(i).copied().unwrap_or(0);
        let next = bounds.get(i + 2).copied().unwrap_or(end);
        bounds.remove(i + 1);
        read.remove(i + 1);
        if let Some(slot) = read.get_mut(i) {
            *slot = marks_of(from, next);
        }
    }
    read.into_iter().flat_map(|(marks, _)| marks).collect()
}

/// Where [`marks_on_every_core`] cuts `text[..end]`: 0, then the first statement line at
/// or after each `piece` bytes, and on a line longer than `piece`, the first statement after
/// a `}` at or after each `piece` bytes of it (the line lexed once), then `end`.
fn piece_bounds(text: &str, end: usize, piece: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut line = 0;
    while line < end {
        let next = line_end(text, line).min(end);
        let last = bounds.last().copied().unwrap_or(0);
        if line >= last + piece && starts_statement_line(text, line) {
            bounds.push(line);
        }
        if next - line > piece {
            let window = text.get(line..next).unwrap_or_default();
            let (tokens, _) = syntax::lex(window);
            for at in syntax::statements_after_close(window, &tokens) {
                let at = line + usize::from(at);
                if at >= bounds.last().copied().unwrap_or(0) + piece && at < end {
                    bounds.push(at);
                }
            }
        }
        line = next;
    }
    bounds.push(end);
    bounds
}

/// The size of a piece of text [`marks_on_every_core`] reads at once, in bytes.
const MARK_PIECE: usize = 256 * 1024;

#[cfg(test)]
mod tests;
