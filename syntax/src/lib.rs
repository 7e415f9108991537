//! Lexer and parser of the Penguin text IR (SPEC §2–§3).
//!
//! [`parse`] never fails: it returns the tree and the syntax errors (P100–P103). Ranges are
//! UTF-8 byte offsets into the parsed text. This crate knows nothing of the op catalog,
//! salsa or LSP.
//!
//! The pipeline: [`lex`] (logos; comments and newlines are tokens, lexical errors are
//! reported there) → a layout pass (newline significance of SPEC §2 and a bracket nesting
//! limit of 32) → a chumsky parser with error recovery (see `parser.rs` for the recovery
//! rules) → the [`ast`].
//!
//! Error policy: errors are in source order, at most one per start offset (a cascade at one
//! token is one mistake), and at most 100 per file, followed then by one P100 "too many
//! syntax errors: N more not reported" at the first error left out.

mod assemble;
pub mod ast;
mod chunks;
mod layout;
mod lexer;
mod literal;
mod parser;
mod recover;
mod shift;
mod value;

pub use assemble::{Closes, Shape, extra_closes};
pub use ast::*;
pub use chunks::{
    indentation, line_end, piece_starts, starts_kernel_line, starts_statement_line,
    statement_lines, statements_after_close,
};
pub use layout::may_nest_too_deep;
pub use lexer::{Token, first_tokens, lex, lone_carriage_return_error, lone_carriage_returns};
pub use parser::Statements;
pub use shift::Shift;

/// The syntax error codes of SPEC §7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyntaxErrorCode {
    /// P100: expected … found ….
    P100,
    /// P101: unterminated string or bytes literal.
    P101,
    /// P102: malformed number.
    P102,
    /// P103: unknown character (a run of them is one error), or invalid UTF-8.
    P103,
}

impl SyntaxErrorCode {
    /// The code as printed: `"P100"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SyntaxErrorCode::P100 => "P100",
            SyntaxErrorCode::P101 => "P101",
            SyntaxErrorCode::P102 => "P102",
            SyntaxErrorCode::P103 => "P103",
        }
    }
}

/// One syntax error: a code, the range it covers (UTF-8 bytes) and a message with no final
/// period.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    /// The code (P100–P103).
    pub code: SyntaxErrorCode,
    /// Where (never empty unless at the end of the file).
    pub range: TextRange,
    /// What went wrong, e.g. "expected `=`, found `}`".
    pub message: String,
    /// The text that fixes it in place of `range`, when there is one (`,` for a `;`
    /// between fields): the quick fix of the diagnostic.
    pub replacement: Option<&'static str>,
}

/// The result of parsing: always a tree, plus the errors.
#[derive(Clone, Debug, PartialEq)]
pub struct Parse {
    /// The tree, as complete as recovery allows.
    pub file: SourceFile,
    /// Syntax errors in source order: at most 100, then one P100 "too many syntax errors:
    /// N more not reported" (see [`too_many_errors`]).
    pub errors: Vec<SyntaxError>,
    /// How many errors the cap left out (the N above; 0 when all were reported).
    pub left_out: usize,
}

/// At most this many syntax errors are reported per file (SPEC §7 does not bound them; a
/// language server must); then one P100 says how many more there were.
pub const MAX_ERRORS: usize = parser::MAX_ERRORS;

/// The P100 at `at` saying that `left_out` syntax errors were not reported.
pub fn too_many_errors(at: TextRange, left_out: usize) -> SyntaxError {
    parser::too_many_errors(at, left_out)
}

/// Parses a whole file. Never panics, whatever the input; deep nesting and long operator
/// chains are cut off with an error rather than recursed into, so any thread stack of a
/// few hundred KiB (release build) is enough.
///
/// A U+FFFD outside comments and strings is reported as P103 "invalid UTF-8" (it is what
/// [`decode`] puts for invalid bytes); use [`parse_bytes`] to also report invalid bytes
/// inside comments and strings.
pub fn parse(text: &str) -> Parse {
    parser::parse(text, &[], &|| ())
}

/// [`parse`], calling `check` between phases and every few hundred statements: a caller
/// whose work has gone stale (a language server after an edit) makes `check` unwind, so a
/// long parse stops at once instead of running to its end.
pub fn parse_cancellable(text: &str, check: &dyn Fn()) -> Parse {
    parser::parse(text, &[], check)
}

/// Where a part of a file stands among its kernels: a file may be cut inside a big kernel,
/// at a line that starts a statement directly in the kernel's body ([`cuts`]); the part
/// after such a cut starts `inside` the kernel, the part before it `goes_on` into the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Context {
    /// The text starts inside a kernel's body, at a statement directly in it (no loop
    /// open): its statements up to that kernel's `}` belong to it ([`Kernel::continues`]).
    pub inside: bool,
    /// The body of the kernel open where the part ends goes on in the next part (which
    /// starts `inside` it): it is not reported unclosed ([`Kernel::goes_on`]).
    pub goes_on: bool,
    /// The text starts inside a line of its file (a part of a long line, cut after a `}`
    /// at a statement directly in a kernel's body): the indentation of that line (spaces
    /// and tabs before its first token, in bytes), which the text does not hold and which
    /// tells the `}`s below a header on that line where they belong. `None` when the text
    /// starts at a line start.
    pub line_indent: Option<u32>,
}

/// [`parse_part`] of a part of a file that may start inside a kernel or end inside one
/// (`context`, see [`cuts`]): `text[..end]` is the part, `text[end..]` the first line of the
/// next part. The parts of a file cut by [`cuts`], each parsed with its context, give the
/// file's parse: a kernel cut into parts is one kernel whose first part has the header
/// (and [`Kernel::goes_on`]) and the others [`Kernel::continues`]
/// (`syntax/tests/pieces.rs`).
pub fn parse_part(text: &str, end: usize, context: Context, check: &dyn Fn()) -> Parse {
    parser::parse_piece(text, end, context, check)
}

/// Reads the statements of `text` that start before byte `end` as a flat list
/// ([`FlatStmt`]: kernel and loop headers, each `}`, declarations and ops), without nesting
/// them. `text[end..]` is look-ahead: the next statement start of the file (its first line
/// or two), so that what is said at the end of the piece is what the whole file says there.
/// Errors that start in the look-ahead are left out, except those at its first token,
/// which the piece's last statement reported (a statement start never reports itself:
/// "expected `]`, found `tensor`").
///
/// Ranges are UTF-8 byte offsets into `text`; errors are in source order. What only the
/// whole file can tell is not reported here but by [`parse`]: bodies left open, statements
/// outside every kernel, and the cap on the number of errors.
///
/// A run of whole statements of a file reads the same alone (with its look-ahead) as in
/// the file, its ranges shifted by its start (`syntax/tests/statements.rs`): the property
/// that lets an edit re-read only the statements it touched.
pub fn parse_statements(text: &str, end: usize) -> (Vec<FlatStmt>, Vec<SyntaxError>) {
    let read = parser::statements(text, &[], end, &|| ());
    let mut errors = read.lexical_errors;
    errors.extend(read.reader_errors);
    // The look-ahead's first token: errors there are the piece's last statement's.
    let first = text.get(end..).map_or(end, |rest| {
        end + rest.len() - rest.trim_start_matches(crate::lexer::SKIPPED).len()
    });
    errors.retain(|e| usize::from(e.range.start()) <= first || end == text.len());
    parser::order_errors(&mut errors);
    (read.statements, errors)
}

/// Reads the statements of `text` that start before byte `end` as a flat list, as
/// [`parse_statements`] does, but with the lexical errors (lexer, layout) and the
/// statement reader's apart, as [`assemble_part`] takes them. `check` is called as in
/// [`parse_cancellable`].
///
/// Read at statement lines ([`statement_lines`]), each piece with the next one's first
/// line or two as look-ahead (the line of its next token, and the one after when that line
/// holds a single token) and shifted by its start ([`Shift`]), the pieces of a text join
/// into the statements of the whole (`syntax/tests/statements.rs`): the analysis reads an
/// edited chunk piece by piece, re-reading only the pieces an edit touched.
pub fn read_statements(text: &str, end: usize, check: &dyn Fn()) -> Statements {
    let end = end.min(text.len());
    let mut read = parser::statements(text, &[], end, check);
    parser::retain_before_look_ahead(text, end, &mut read.lexical_errors);
    parser::retain_before_look_ahead(text, end, &mut read.reader_errors);
    read
}

/// Nests the flat statements `read` of `text[..end]` (as [`read_statements`] gives them,
/// ranges into `text`) into kernels, as [`parse_part`] does after reading them in
/// `context`: the same tree and errors.
pub fn assemble_part(text: &str, end: usize, context: Context, read: Statements) -> Parse {
    parser::assemble_piece(text, end, context, read)
}

/// The end of the look-ahead of a piece of `text` that ends at byte `at` (a statement
/// start): the end of the line holding the next token and, when that line holds a single
/// token, of the line after it too (see [`read_statements`]) — but on a long line no more
/// than [`LOOK_AHEAD_TOKENS`] tokens (comments aside), ending just after the last of them,
/// so that a piece of a long line does not carry the rest of the line with it.
pub fn look_ahead_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    let significant = |from: usize, to: usize| {
        lex(text.get(from..to).unwrap_or_default())
            .0
            .iter()
            .filter(|(kind, _)| !matches!(kind, Token::Newline | Token::Comment))
            .count()
    };
    let by_lines = |first: usize| {
        if significant(at, first) >= 2 {
            first
        } else {
            line_end(text, first)
        }
    };
    // The end of `at`'s line, looked for within the window only (a line may be megabytes).
    let window = (at + LOOK_AHEAD_WINDOW).min(text.len());
    let near = text
        .as_bytes()
        .get(at..window)
        .and_then(|bytes| bytes.iter().position(|&b| b == b'\n'))
        .map(|i| at + i + 1)
        .or((window == text.len()).then_some(window));
    if let Some(first) = near {
        let end = by_lines(first);
        if end - at <= LOOK_AHEAD_WINDOW {
            return end;
        }
    }
    // A long line: lex a window only. Its last token may be cut short: only a token
    // followed by another one within the window is known to end where it ends in `text`.
    let mut window = window;
    while !text.is_char_boundary(window) {
        window -= 1;
    }
    let (lexed, _) = lex(text.get(at..window).unwrap_or_default());
    let mut tokens = lexed
        .iter()
        .filter(|(kind, _)| !matches!(kind, Token::Comment));
    match (tokens.nth(LOOK_AHEAD_TOKENS - 1), tokens.next()) {
        (Some((_, last)), Some(_)) => at + usize::from(last.end()),
        // A window of few tokens (a long string or comment): by lines after all.
        _ => by_lines(near.unwrap_or_else(|| line_end(text, at))),
    }
}

/// A piece's look-ahead holds at most this many tokens on a long line (see
/// [`look_ahead_end`]): the statement reader looks at most three tokens past the end of
/// the statement it reads.
pub const LOOK_AHEAD_TOKENS: usize = 16;

/// A look-ahead by lines longer than this (bytes) is cut to [`LOOK_AHEAD_TOKENS`].
const LOOK_AHEAD_WINDOW: usize = 1024;

/// Reads the statements of `text[..end]` (`text[end..]` is look-ahead) piece by piece:
/// cut at `starts` (ascending token starts of statements, as [`piece_starts`] gives
/// them), each piece read by `read(piece, piece_end)` — the piece with its look-ahead
/// ([`look_ahead_end`]; the last piece with `text[end..]`) and where the piece proper
/// ends, ranges relative to the piece, as [`read_statements`] gives them — then shifted
/// by its start and joined. The result is what [`read_statements`] reads of the whole
/// (`syntax/tests/statement_pieces.rs`); `read` may answer from a cache, since a piece
/// reads the same wherever it stands.
///
/// A start at the start of a line is a statement line, which ends whatever is open
/// before it. A start inside a line is kept only when the piece before it ends between
/// two statements of the file (its reader stopped right at the start,
/// [`Statements::stopped_at`]); else that piece is read on to the next start, at most
/// [`MAX_MERGES`] times in a row, then to the next line.
pub fn read_in_pieces(
    text: &str,
    end: usize,
    starts: &[usize],
    read: &mut dyn FnMut(&str, usize) -> Statements,
) -> Statements {
    let mut out = Statements::default();
    read_pieces(text, end, starts, read, &mut |from, mut piece| {
        if from > 0 {
            piece.shift(TextSize::try_from(from).unwrap_or_default());
        }
        out.statements.append(&mut piece.statements);
        out.lexical_errors.append(&mut piece.lexical_errors);
        out.reader_errors.append(&mut piece.reader_errors);
        out.stopped_at = piece.stopped_at;
    });
    out
}

/// A piece of a line that does not end between two statements is read on to the next
/// start at most this many times in a row; then the rest of its line is one piece, so
/// that a line of broken statements costs a bounded number of re-reads
/// ([`read_in_pieces`]).
pub const MAX_MERGES: usize = 4;

/// The pieces of [`read_in_pieces`], each read by `read` (which may answer from a cache:
/// any `S` that borrows as [`Statements`]) and handed to `take` with its start (bytes),
/// its ranges still relative to the piece, in order.
pub fn read_pieces<S: std::borrow::Borrow<Statements>>(
    text: &str,
    end: usize,
    starts: &[usize],
    read: &mut dyn FnMut(&str, usize) -> S,
    take: &mut dyn FnMut(usize, S),
) {
    let end = end.min(text.len());
    let cuts: Vec<usize> = starts
        .iter()
        .copied()
        .filter(|&s| s > 0 && s < end && text.is_char_boundary(s))
        .chain([end])
        .collect();
    let (mut from, mut merges) = (0, 0);
    for to in cuts {
        let inside_line = to < end && !at_line_start(text, to);
        if to <= from || (inside_line && merges >= MAX_MERGES) {
            continue;
        }
        let piece = if to == end {
            text.get(from..).unwrap_or_default()
        } else {
            text.get(from..look_ahead_end(text, to)).unwrap_or_default()
        };
        let statements = read(piece, to - from);
        let stopped = statements.borrow().stopped_at.map(usize::from);
        if inside_line && stopped != Some(to - from) {
            // Not between two statements: read this piece on to the next start.
            merges += 1;
            continue;
        }
        merges = 0;
        take(from, statements);
        from = to;
    }
}

/// Whether byte `at` of `text` starts a line (follows a `\n` or is 0).
pub fn at_line_start(text: &str, at: usize) -> bool {
    at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n')
}

/// Decodes file bytes with [`decode`] and parses them: every run of invalid UTF-8 is one
/// P103 (SPEC §7), wherever it is. Returns the decoded text, which the ranges refer to.
pub fn parse_bytes(bytes: &[u8]) -> (String, Parse) {
    let (text, invalid) = decode(bytes);
    let parse = parser::parse(&text, &invalid, &|| ());
    (text, parse)
}

/// Decodes file bytes as UTF-8, replacing each run of invalid bytes with one U+FFFD.
///
/// Returns the text and the ranges (in the returned text, UTF-8 bytes) of the
/// replacement characters, each of which is one P103 "invalid UTF-8" (SPEC §7).
/// [`parse`] reports those outside comments and strings itself; [`parse_bytes`] reports
/// them all, once each.
pub fn decode(bytes: &[u8]) -> (String, Vec<TextRange>) {
    let mut text = String::with_capacity(bytes.len());
    let mut bad = Vec::new();
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            let start = TextSize::of(text.as_str());
            // Consecutive invalid chunks form one run: extend the previous replacement.
            let extends_previous = chunk.valid().is_empty()
                && bad.last().is_some_and(|r: &TextRange| r.end() == start);
            if !extends_previous {
                text.push('\u{FFFD}');
                bad.push(TextRange::at(start, TextSize::of('\u{FFFD}')));
            }
        }
    }
    (text, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_bytes_reports_each_invalid_run_once() {
        let (text, parse) = parse_bytes(b"// \xff\nkernel @k() { Op { s = \"\xfe\", a = \xfd } }");
        assert!(text.contains('\u{FFFD}'));
        let codes: Vec<_> = parse
            .errors
            .iter()
            .map(|e| (e.code, e.message.as_str()))
            .collect();
        assert_eq!(codes, vec![(SyntaxErrorCode::P103, "invalid UTF-8"); 3]);
        let ops = &parse.file.kernels[0].body;
        assert_eq!(ops.len(), 1);
    }

    #[test]
    fn decode_coalesces_invalid_runs() {
        let (text, bad) = decode(b"ab\xff\xfe\xfdcd\xc0");
        assert_eq!(text, "ab\u{FFFD}cd\u{FFFD}");
        assert_eq!(bad.len(), 2);
        assert_eq!(&text[bad[0]], "\u{FFFD}");
    }
}
