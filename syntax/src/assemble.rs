//! Nesting a flat statement list ([`FlatStmt`]) into kernels and loop bodies.
//!
//! Recovery: a body still open when `kernel @name` or the end of the file comes is closed
//! there, and each is reported once where it opens (as rustc reports an unclosed
//! delimiter), so one missing `}` is one error next to the line that lacks it. Where is
//! told by indentation, as rustc does: a `}` that stands first on its line, indented less
//! than the line of the `{` it closes, most likely belongs to an outer block, so the block
//! it closed is the one that lacks its `}`. A header without `{` has an empty body; the
//! statements after it belong to the enclosing block.

use text_size::{TextRange, TextSize};

use crate::ast::{FlatStmt, Kernel, KernelHeader, Loop, LoopHeader, SourceFile, Stmt};
use crate::{SyntaxError, SyntaxErrorCode};

/// A body being filled: the kernel or loop, with the range of its `{`.
enum Open {
    Kernel(Kernel, TextRange),
    Loop(Loop, TextRange),
}

impl Open {
    fn body(&mut self) -> &mut Vec<Stmt> {
        match self {
            Open::Kernel(k, _) => &mut k.body,
            Open::Loop(l, _) => &mut l.body,
        }
    }
}

/// Nests `statements` (as [`crate::parse_statements`] reads them from `text`) into a
/// file, reporting each body left unclosed into `errors`, the statement reader's errors.
///
/// Outside every kernel only `kernel` may stand: each run of anything else there (between
/// the start of the file or a kernel's `}` and the next `kernel`) is one error, "expected
/// `kernel`, found …" at its first token, and what the statement reader said inside the
/// run is dropped, as the run is skipped whole (the lexer's and the layout's errors are not
/// in `errors` and stay).
///
/// `end` is where the statements end: the end of the file, or (for a piece of a file read
/// with look-ahead, [`crate::parse_piece`]) the start of the next kernel's line.
///
/// `context`: where the text stands in its file. Starting [`crate::Context::inside`] a
/// kernel's body (the rest of a kernel whose header is in an earlier part), it is nested as
/// if that body were open, into a kernel that [`Kernel::continues`]; starting inside a line
/// ([`crate::Context::line_indent`]), that line's headers are indented as the line is.
pub(crate) fn assemble(
    text: &str,
    statements: Vec<FlatStmt>,
    errors: &mut Vec<SyntaxError>,
    end: PieceEnd<'_>,
    context: crate::Context,
) -> SourceFile {
    let inside = context.inside;
    let statements = drop_extra_closes(text, statements, errors, context);
    let mut lines = Lines::new(text, context.line_indent);
    let mut file = SourceFile::default();
    let mut open: Vec<Open> = Vec::new();
    // Where the current stretch outside every kernel began, and the first stray statement
    // in it.
    let mut outside = Some(TextSize::from(0));
    if inside {
        let start = TextRange::empty(TextSize::from(0));
        let kernel = Kernel {
            range: start,
            name: None,
            params: Vec::new(),
            outputs: Vec::new(),
            body: Vec::new(),
            body_range: None,
            continues: true,
            goes_on: false,
        };
        open.push(Open::Kernel(kernel, start));
        outside = None;
    }
    let mut stray: Vec<Stray> = Vec::new();
    let mut first_stray: Option<TextRange> = None;
    // The `}` that closed the last kernel, while the stretch outside every kernel after it
    // lasts.
    let mut closer: Option<TextRange> = None;
    // Blocks of the current kernel closed by a `}` indented less than their `{` line, with
    // that `}`: the likeliest to lack their own `}`.
    let mut suspects: Vec<(TextRange, TextRange)> = Vec::new();
    for statement in statements {
        if open.is_empty() && !matches!(statement, FlatStmt::Kernel(_)) {
            first_stray.get_or_insert(first_token(&statement));
            continue;
        }
        match statement {
            FlatStmt::Kernel(header) => {
                if let Some(from) = outside.take() {
                    let to = header.range.start();
                    stray.push(Stray {
                        stretch: TextRange::new(from, to),
                        first: first_stray.take().unwrap_or_default(),
                        closer: closer.take(),
                    });
                }
                let name = header.name.as_ref().map(|n| n.text.clone());
                let why = Unclosed::Kernel(name.as_deref());
                close_unclosed(&mut open, &mut suspects, &mut file, errors, why);
                suspects.clear();
                let (kernel, brace) = kernel_of(header);
                match brace {
                    Some(brace) => open.push(Open::Kernel(kernel, brace)),
                    None => {
                        outside = Some(kernel.range.end());
                        file.kernels.push(kernel);
                    }
                }
            }
            FlatStmt::Loop(header) => {
                let (lp, brace) = loop_of(header);
                match brace {
                    Some(brace) => open.push(Open::Loop(lp, brace)),
                    None => push_stmt(&mut open, Stmt::Loop(lp)),
                }
            }
            FlatStmt::Close(close) => {
                if let Some(block) = open.pop() {
                    let brace = block.brace();
                    if first_on_line(text, close.start())
                        && lines.indent(close.start()) < lines.indent(brace.start())
                    {
                        suspects.push((brace, close));
                    }
                    let kernel = matches!(block, Open::Kernel(..));
                    close_block(block, close.end(), &mut open, &mut file);
                    if open.is_empty() {
                        outside = Some(close.end());
                        closer = kernel.then_some(close);
                    }
                }
            }
            FlatStmt::Stmt(stmt) => push_stmt(&mut open, stmt),
        }
    }
    if let PieceEnd::Continued { at } = end
        && let [Open::Kernel(..)] = open.as_slice()
        && let Some(Open::Kernel(mut kernel, brace)) = open.pop()
    {
        // The body goes on in the next part: this part of it ends here, unreported.
        kernel.range = TextRange::new(kernel.range.start(), at);
        kernel.body_range = Some(TextRange::new(brace.start(), at));
        kernel.goes_on = true;
        file.kernels.push(kernel);
    }
    close_unclosed(
        &mut open,
        &mut suspects,
        &mut file,
        errors,
        match end {
            PieceEnd::File | PieceEnd::Continued { .. } => Unclosed::End,
            PieceEnd::Kernel { name, .. } => Unclosed::Kernel(name),
        },
    );
    if let Some(from) = outside {
        let to = match end {
            PieceEnd::File => TextSize::of(text),
            PieceEnd::Kernel { at, .. } | PieceEnd::Continued { at } => at,
        };
        stray.push(Stray {
            stretch: TextRange::new(from, to),
            first: first_stray.take().unwrap_or_default(),
            closer,
        });
    }
    report_stray(text, &stray, errors);
    file
}

/// How a flat statement nests, all [`extra_closes`] reads of it.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// A kernel header.
    Kernel {
        /// Where it starts (UTF-8 bytes).
        start: TextSize,
        /// Whether it opens a body.
        opens: bool,
    },
    /// A loop header.
    Loop {
        /// Where it starts (UTF-8 bytes).
        start: TextSize,
        /// Whether it opens a body.
        opens: bool,
    },
    /// A `}` (its range).
    Close(TextRange),
    /// Any other statement.
    Stmt,
}

impl Shape {
    /// The shape of `statement`.
    pub fn of(statement: &FlatStmt) -> Shape {
        match statement {
            FlatStmt::Kernel(k) => Shape::Kernel {
                start: k.range.start(),
                opens: k.open.is_some(),
            },
            FlatStmt::Loop(l) => Shape::Loop {
                start: l.range.start(),
                opens: l.open.is_some(),
            },
            FlatStmt::Close(r) => Shape::Close(*r),
            FlatStmt::Stmt(_) => Shape::Stmt,
        }
    }
}

/// What [`extra_closes`] reads of a flat statement list: the `}`s that are one too many,
/// and whether the text's ends leave that undecided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Closes {
    /// The indices (ascending) of the `}`s that are one too many.
    pub extra: Vec<usize>,
    /// Those of [`Closes::extra`] (ascending) that are a kernel's own `}`, told by a `}`
    /// closing nothing after statements outside every kernel, not by indentation.
    pub kernel_closes: Vec<usize>,
    /// The text starts inside a kernel (`inside`), that kernel's body closes in the text,
    /// and a `}` or a statement of a body follows before the next `kernel`: whether a `}`
    /// is one too many then depends on the kernel's header and on its `}`s before the text
    /// (the first over-indented one may be there), which the text does not hold. None is
    /// dropped for it; the document's cuts re-cut that kernel whole.
    pub entry_undecided: bool,
    /// The text ends inside a kernel body holding an over-indented `}` (a candidate): a
    /// kernel closed and followed by a statement after the text would make it one too many.
    pub end_undecided: bool,
}

/// The `}`s among `shapes` (flat statements of `text`, in order; `context`: where the text
/// stands, [`crate::Context::inside`] a kernel's body, inside a line) that are one too many, which the parser drops (one P100 each) so
/// that what follows stays in its block: no cascade of P200s for the names declared before
/// it, no "expected `kernel`". The document's cuts read the same, so as to nest as the
/// parser does.
///
/// A `}` is one too many when the kernel it ends up closing is followed by a `}` or by a
/// statement of a body (an op, a declaration, a loop) before the next `kernel`. Which `}`
/// is told by indentation: the first `}` of that kernel that stands first on its line,
/// indented more than the line of the header it closes (an extra `}` after an op is
/// indented like the op's own `}`, and closes the block around it early; every `}` after
/// it then closes a block one level out). With no such `}`, when statements outside every
/// kernel follow the kernel's `}` and then a `}` that closes nothing (a file written
/// without indentation), the kernel's `}` is the one too many ([`Closes::kernel_closes`]):
/// the statements stay in the kernel. Otherwise nothing is dropped, and the stray
/// statements are reported as [`report_stray`] says.
///
/// Only whole kernels decide: in the kernel a text starts inside, nothing is dropped (its
/// header and its first `}`s are before the text), and [`Closes`] says where the text's
/// ends leave the answer open.
pub fn extra_closes(
    text: &str,
    shapes: impl IntoIterator<Item = Shape>,
    context: crate::Context,
) -> Closes {
    let inside = context.inside;
    // The indentation of each open header's line (the entry kernel's is unknown: 0 stands
    // in, and no `}` is dropped for it).
    let mut open: Vec<usize> = Vec::new();
    let mut lines = Lines::new(text, context.line_indent);
    // Whether the kernel open now is the one the text starts inside, and whether it has
    // just closed (the statements after it, up to the next `kernel`, decide nothing).
    let mut in_entry = inside;
    let mut entry_closed = false;
    if inside {
        open.push(0);
    }
    // The first over-indented `}` of the current kernel (its index), not yet dropped, and
    // a kernel just closed (the indentation of its header) with that `}`.
    let mut candidate: Option<usize> = None;
    let mut closed: Option<(usize, usize)> = None;
    // The `}` that closed the last kernel (no candidate in it), and whether a statement
    // has followed it outside every kernel.
    let mut kernel_close: Option<(usize, bool)> = None;
    let mut out = Closes::default();
    for (i, shape) in shapes.into_iter().enumerate() {
        if entry_closed && matches!(shape, Shape::Stmt | Shape::Loop { .. } | Shape::Close(_)) {
            out.entry_undecided = true;
        }
        if let Some((_, followed)) = &mut kernel_close
            && matches!(shape, Shape::Stmt | Shape::Loop { .. })
        {
            *followed = true;
        }
        if let Some((header, dropped)) = closed.take()
            && matches!(shape, Shape::Stmt | Shape::Loop { .. })
        {
            // Every `}` from the extra one on closed a block one level out: without it
            // the kernel is still open here.
            out.extra.push(dropped);
            open.push(header);
            candidate = None;
        }
        match shape {
            Shape::Kernel { start, opens } => {
                open.clear();
                candidate = None;
                kernel_close = None;
                (in_entry, entry_closed) = (false, false);
                if opens {
                    open.push(lines.indent(start));
                }
            }
            Shape::Loop { start, opens } => {
                if opens && !open.is_empty() {
                    open.push(lines.indent(start));
                }
            }
            Shape::Close(close) => match open.pop() {
                Some(header) => {
                    if candidate.is_none()
                        && first_on_line(text, close.start())
                        && lines.indent(close.start()) > header
                    {
                        candidate = Some(i);
                    }
                    if open.is_empty() && in_entry {
                        (in_entry, entry_closed) = (false, true);
                        candidate = None;
                    } else if open.is_empty() {
                        match candidate {
                            Some(dropped) => closed = Some((header, dropped)),
                            None => kernel_close = Some((i, false)),
                        }
                    }
                }
                None => {
                    if let Some(dropped) = candidate.take() {
                        // Without the extra `}`, this one closes the kernel.
                        out.extra.push(dropped);
                    } else if let Some((dropped, true)) = kernel_close.take() {
                        // Without the kernel's `}`, the statements after it are its own
                        // and this `}` closes it.
                        out.extra.push(dropped);
                        out.kernel_closes.push(dropped);
                    }
                }
            },
            Shape::Stmt => {}
        }
    }
    out.end_undecided = !open.is_empty() && candidate.is_some();
    out
}

/// Drops the `}`s that are one too many ([`extra_closes`]) from `statements`, each one
/// P100 in `errors`.
fn drop_extra_closes(
    text: &str,
    statements: Vec<FlatStmt>,
    errors: &mut Vec<SyntaxError>,
    context: crate::Context,
) -> Vec<FlatStmt> {
    let Closes {
        extra,
        kernel_closes,
        ..
    } = extra_closes(text, statements.iter().map(Shape::of), context);
    if extra.is_empty() {
        return statements;
    }
    statements
        .into_iter()
        .enumerate()
        .filter_map(|(i, statement)| {
            if extra.binary_search(&i).is_ok()
                && let FlatStmt::Close(close) = statement
            {
                let message = if kernel_closes.binary_search(&i).is_ok() {
                    "one `}` too many: this `}` closes the kernel early (statements follow it, \
                     then a `}` that closes nothing: the file has one `}` more than `{`)"
                } else {
                    "one `}` too many: this `}` closes its block early (it is indented deeper \
                     than the block's first line, and the file has one `}` more than `{`)"
                };
                errors.push(SyntaxError {
                    replacement: None,
                    code: SyntaxErrorCode::P100,
                    range: close,
                    message: message.to_string(),
                });
                return None;
            }
            Some(statement)
        })
        .collect()
}

/// A stretch of text outside every kernel (from the start of the text or a kernel's `}` to
/// the next kernel or the end).
struct Stray {
    stretch: TextRange,
    /// Its first stray statement's first token (empty: none).
    first: TextRange,
    /// The `}` that closed the kernel before it, when the stretch starts there. (Not the
    /// kernel's name: a part that continues a kernel does not know it.)
    closer: Option<TextRange>,
}

/// For each stretch outside every kernel: drops the statement reader's errors in it and
/// reports its first stray token (the earliest of the first stray statement and the first
/// dropped error), if any. When that is a statement of a body (an op, a declaration, a
/// loop) right after a kernel's `}`, the mistake is most likely that `}`, one too many (an
/// extra `}` after an op closes the kernel early): the error is on it instead.
fn report_stray(text: &str, stray: &[Stray], errors: &mut Vec<SyntaxError>) {
    for Stray {
        stretch,
        first: first_statement,
        closer,
    } in stray
    {
        let (stretch, first_statement) = (*stretch, *first_statement);
        let inside = |e: &SyntaxError| {
            stretch.contains(e.range.start()) && !e.message.starts_with(crate::recover::UNCLOSED)
        };
        let first_error = errors
            .iter()
            .filter(|e| inside(e))
            .map(|e| e.range)
            .min_by_key(|r| r.start());
        errors.retain(|e| !inside(e));
        let first = [
            first_error,
            (!first_statement.is_empty()).then_some(first_statement),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|r| r.start());
        if let Some(at) = first
            && at == first_statement
            && &text[at] != "}"
            && let Some(close) = closer
        {
            errors.push(SyntaxError {
                replacement: None,
                code: SyntaxErrorCode::P100,
                range: *close,
                message: format!(
                    "this `}}` closes the kernel, but `{}` after it stands outside every \
                     kernel: one `}}` too many?",
                    crate::lexer::shorten(&text[at])
                ),
            });
        } else if let Some(at) = first {
            errors.push(SyntaxError {
                replacement: None,
                code: SyntaxErrorCode::P100,
                range: at,
                message: format!(
                    "expected `kernel`, found `{}`",
                    crate::lexer::shorten(&text[at])
                ),
            });
        }
    }
}

/// The range of the first token of a statement (for "found …").
fn first_token(statement: &FlatStmt) -> TextRange {
    let keyword = |range: TextRange, word: &str| {
        TextRange::at(range.start(), TextSize::of(word))
            .intersect(range)
            .unwrap_or(range)
    };
    match statement {
        FlatStmt::Kernel(k) => keyword(k.range, "kernel"),
        FlatStmt::Loop(l) => keyword(l.range, "for"),
        FlatStmt::Close(r) => *r,
        FlatStmt::Stmt(Stmt::Op(op)) => op.class.range,
        FlatStmt::Stmt(Stmt::Tensor(t)) => keyword(t.range, "tensor"),
        FlatStmt::Stmt(Stmt::Reg(r)) => keyword(r.range, "reg"),
        FlatStmt::Stmt(Stmt::Loop(l)) => keyword(l.range, "for"),
    }
}

fn push_stmt(open: &mut [Open], stmt: Stmt) {
    if let Some(block) = open.last_mut() {
        block.body().push(stmt);
    }
}

/// Where the statements [`assemble`] nests end.
#[derive(Clone, Copy)]
pub(crate) enum PieceEnd<'a> {
    /// At the end of the text.
    File,
    /// At byte `at`, where a line holding kernel `name` (`None`: unnamed) starts.
    Kernel {
        /// The start of the kernel's line.
        at: TextSize,
        /// The kernel's name without `@`.
        name: Option<&'a str>,
    },
    /// At byte `at`, where the next part of the file starts, inside the body of the kernel
    /// open here ([`crate::Context::goes_on`]).
    Continued {
        /// The start of the next part.
        at: TextSize,
    },
}

/// Why open bodies are closed: a kernel starts at this offset, or the file ends.
#[derive(Clone, Copy)]
enum Unclosed<'a> {
    Kernel(Option<&'a str>),
    End,
}

/// Closes every open body, innermost first, each reported once: at the `{` of a suspect
/// (a block closed by an under-indented `}`, see the module docs) while there are some,
/// else at its own `{`.
fn close_unclosed(
    open: &mut Vec<Open>,
    suspects: &mut Vec<(TextRange, TextRange)>,
    file: &mut SourceFile,
    errors: &mut Vec<SyntaxError>,
    why: Unclosed,
) {
    while let Some(block) = open.pop() {
        let brace = block.brace();
        let (at, message) = if suspects.is_empty() {
            let message = match why {
                Unclosed::Kernel(Some(name)) => format!(
                    "{}: kernel `@{name}` starts before its `}}`",
                    crate::recover::UNCLOSED,
                ),
                Unclosed::Kernel(None) => format!(
                    "{}: the next kernel starts before its `}}`",
                    crate::recover::UNCLOSED,
                ),
                Unclosed::End => crate::recover::UNCLOSED_AT_END.to_string(),
            };
            (brace, message)
        } else {
            let (suspect, _close) = suspects.remove(0);
            let message = format!(
                "{}: the `}}` that closes it is indented like an outer block's, so this block \
                 has no `}}`",
                crate::recover::UNCLOSED,
            );
            (suspect, message)
        };
        errors.push(SyntaxError {
            replacement: None,
            code: SyntaxErrorCode::P100,
            range: at,
            message,
        });
        // As far as it got: the end of its last statement, else of its `{`.
        let end = block.body_end().unwrap_or(brace.end()).max(brace.end());
        close_block(block, end, open, file);
    }
}

/// The line starts of a text, for statements asked about in (mostly) source order: the
/// start of the line of each byte asked about, reading only what lies between it and the
/// byte asked about before it when it comes after that one (a search for `\n`, which
/// rarely finds none), else back to its line start. Reading back to the line start for
/// each loop header made 100,000 loops on one 5.5 MB line take 34 s; a query before the
/// last one (the `{` of the block a `}` on a later line closes) is bounded by the nesting
/// limit on a long line.
struct Lines<'a> {
    text: &'a str,
    /// The byte asked about last and the start of its line.
    last: Option<(usize, usize)>,
    /// The indentation of the text's first line when the text starts inside a line
    /// ([`crate::Context::line_indent`]).
    first_indent: Option<u32>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, first_indent: Option<u32>) -> Lines<'a> {
        Lines {
            text,
            last: None,
            first_indent,
        }
    }

    /// The start of the line holding byte `at` (clamped to the text).
    fn start(&mut self, at: usize) -> usize {
        let at = at.min(self.text.len());
        let start = match self.last {
            Some((last, start)) if last <= at => match last_newline(self.text, last, at) {
                Some(i) => i + 1,
                None => start,
            },
            _ => last_newline(self.text, 0, at).map_or(0, |i| i + 1),
        };
        self.last = Some((at, start));
        start
    }

    /// The indentation (spaces and tabs) of the line holding byte `at`.
    fn indent(&mut self, at: TextSize) -> usize {
        let start = self.start(usize::from(at));
        if let (0, Some(indent)) = (start, self.first_indent) {
            return indent as usize;
        }
        let line = self.text.get(start..).unwrap_or_default();
        crate::chunks::indentation(line).len()
    }
}

/// The offset of the last `\n` in `text[from..to]`.
fn last_newline(text: &str, from: usize, to: usize) -> Option<usize> {
    match text.get(from..to) {
        // On char boundaries (token starts, line starts): the str search.
        Some(between) => between.rfind('\n').map(|i| from + i),
        None => text
            .as_bytes()
            .get(from..to)?
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|i| from + i),
    }
}

/// Whether byte `at` is the first non-blank of its line.
fn first_on_line(text: &str, at: TextSize) -> bool {
    crate::recover::first_on_its_line(text, usize::from(at))
}

impl Open {
    fn brace(&self) -> TextRange {
        match self {
            Open::Kernel(_, b) | Open::Loop(_, b) => *b,
        }
    }

    fn body_end(&self) -> Option<text_size::TextSize> {
        match self {
            Open::Kernel(k, _) => k.body.last().map(|s| s.range().end()),
            Open::Loop(l, _) => l.body.last().map(|s| s.range().end()),
        }
    }
}

/// Ends `block` at `end` (its `}`, or as far as it got) and adds it to its parent.
fn close_block(block: Open, end: text_size::TextSize, open: &mut [Open], file: &mut SourceFile) {
    match block {
        Open::Kernel(mut kernel, brace) => {
            kernel.range = TextRange::new(kernel.range.start(), end);
            kernel.body_range = Some(TextRange::new(brace.start(), end));
            file.kernels.push(kernel);
        }
        Open::Loop(mut lp, brace) => {
            lp.range = TextRange::new(lp.range.start(), end);
            lp.body_range = Some(TextRange::new(brace.start(), end));
            push_stmt(open, Stmt::Loop(lp));
        }
    }
}

fn kernel_of(header: KernelHeader) -> (Kernel, Option<TextRange>) {
    let kernel = Kernel {
        range: header.range,
        name: header.name,
        params: header.params,
        outputs: header.outputs,
        body: Vec::new(),
        body_range: None,
        continues: false,
        goes_on: false,
    };
    (kernel, header.open)
}

fn loop_of(header: LoopHeader) -> (Loop, Option<TextRange>) {
    let lp = Loop {
        range: header.range,
        var: header.var,
        start: header.start,
        end: header.end,
        step: header.step,
        body: Vec::new(),
        body_range: None,
    };
    (lp, header.open)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Lines` gives every byte's line start as reading back to the last `\n` does, in any
    /// order of queries (forwards, backwards, jumping).
    #[test]
    fn line_starts_in_any_query_order_are_the_naive_ones() {
        let text = "ab\n\n  cd\tef\n\n\nxyz  \n q";
        let naive = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
        let n = text.len();
        let orders: Vec<Vec<usize>> = vec![
            (0..=n).collect(),
            (0..=n).rev().collect(),
            (0..=n).map(|i| (i * 7) % (n + 1)).collect(),
            (0..=n)
                .map(|i| if i % 2 == 0 { i / 2 } else { n - i / 2 })
                .collect(),
        ];
        for order in orders {
            let mut lines = Lines::new(text, None);
            for at in order {
                assert_eq!(lines.start(at), naive(at), "at {at}");
            }
        }
    }
}
