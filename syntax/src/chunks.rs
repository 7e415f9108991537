//! Where a file may be cut into chunks of whole statements (see [`statement_lines`]).
//!
//! A chunk starts at the start of a line whose first tokens certainly start a statement:
//! `kernel @k`, `tensor %t`, `for %i`, `reg %r`, `Op {` or `Op #N`. No field, value or
//! header can start that way, and the parser ends whatever is open at such a token at the start of
//! a line (an op body without its `}`, an unclosed `[`, a run of junk), so every such line
//! starts a statement of the flat list whatever comes before it, and the statements of a chunk read the same alone
//! ([`crate::parse_statements`], with the next line as look-ahead) as in the file. Telling
//! a line needs only that line.

use crate::lexer::{Token, first_tokens, lex};

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
    let tokens = first_tokens(window, 2);
    let mut significant = tokens.iter();
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
/// from one such line to the next parse alone as in their file ([`crate::parse_part`]).
/// `line` must be 0 or follow a `\n`.
pub fn starts_kernel_line(text: &str, line: usize) -> bool {
    let line_end = text[line..].find('\n').map_or(text.len(), |i| line + i);
    let window = &text[line..line_end];
    let tokens = first_tokens(window, 2);
    let mut significant = tokens.iter();
    match (significant.next(), significant.next()) {
        (Some((Token::Kernel, first)), Some((Token::Global, _))) => {
            only_indent(&window[..usize::from(first.start())])
        }
        _ => false,
    }
}

/// The indentation of `line` (a text from a line's start): its leading spaces and tabs.
/// What the assembler compares to tell where a `}` belongs, and what a chunk that starts
/// inside a line is told of it ([`crate::Context::line_indent`]).
pub fn indentation(line: &str) -> &str {
    let rest = line.trim_start_matches([' ', '\t']);
    line.get(..line.len() - rest.len()).unwrap_or_default()
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

/// One statement line in this many (on average) ends a piece in [`piece_starts`].
const PIECE_STATEMENTS: u64 = 8;

/// Inside a long line, one op start after a `}` in this many (on average) ends a piece
/// in [`piece_starts`]: ops on one line are short, and the pieces of a line of 160,000
/// ops stay within the analysis's cache of pieces (`analysis/src/db.rs`).
const LINE_PIECE_STATEMENTS: u64 = 32;

/// The longest piece [`piece_starts`] makes when no line's content picks a cut (bytes;
/// longer only where no statement line follows). A line longer than this is also cut
/// inside.
const MAX_PIECE: usize = 4096;

/// Where to cut `text[..end]` into pieces that are read apart ([`crate::read_statements`])
/// and re-read only when an edit touches them: statement lines ([`statement_lines`]),
/// chosen by their own text (a hash of the line picks one in [`PIECE_STATEMENTS`]), so an
/// edit moves no cut but those on the lines it changed: the pieces before and after it keep
/// their text. Where no line is picked for [`MAX_PIECE`] bytes, the next statement line
/// is a cut. A line longer than [`MAX_PIECE`] is cut inside too, at statements that start
/// right after a `}` (an op's, or a loop's), chosen the same way by the statement's text
/// up to the next such start (one in [`LINE_PIECE_STATEMENTS`]); such a cut is kept only
/// where the file reads a statement there ([`crate::read_in_pieces`]). 0-based UTF-8
/// offsets, ascending, each in `1..end`, each the start of a token.
pub fn piece_starts(text: &str, end: usize) -> Vec<usize> {
    let end = end.min(text.len());
    let mut out = Vec::new();
    let mut last = 0;
    let mut line = 0;
    while line < end {
        let next = line_end(text, line);
        let mut pick =
            |at: usize, picked: bool, starts: &dyn Fn() -> bool, out: &mut Vec<usize>| {
                if at > 0 && at < end && (picked || at - last >= MAX_PIECE) && starts() {
                    out.push(at);
                    last = at;
                }
            };
        let unit = |from: usize, to: usize| text.as_bytes().get(from..to).unwrap_or_default();
        pick(
            line,
            picked_by(unit(line, next), PIECE_STATEMENTS),
            &|| starts_statement_line(text, line),
            &mut out,
        );
        if next - line > MAX_PIECE {
            let inside = starts_inside_line(text, line, next.min(end));
            for (k, &at) in inside.iter().enumerate() {
                let to = inside.get(k + 1).copied().unwrap_or(next);
                let picked = picked_by(unit(at, to), LINE_PIECE_STATEMENTS);
                pick(at, picked, &|| true, &mut out);
            }
        }
        line = next;
    }
    out
}

/// Whether the hash of `unit` (a line, or a statement's text) picks it, one in `one_in`.
fn picked_by(unit: &[u8], one_in: u64) -> bool {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(unit);
    (hasher.finish() >> 40).is_multiple_of(one_in)
}

/// The starts of the statements of the line `text[line..line_end]` that follow a `}` on
/// it (comments aside): `Op {`, `Op #N`, `tensor %t`, `for %i`, `reg %r`, `kernel @k`.
/// Lexed from the line's start, which is a token start (no token spans lines), so each
/// is the start of a token of the file.
fn starts_inside_line(text: &str, line: usize, line_end: usize) -> Vec<usize> {
    let window = text.get(line..line_end).unwrap_or_default();
    let (tokens, _) = lex(window);
    statements_after_close(window, &tokens)
        .map(|at| line + usize::from(at))
        .collect()
}

/// The starts of the statements among `tokens` (as [`lex`] gives them for `text`) that
/// come right after a `}` (comments and line ends aside): where a line of several
/// statements is cut into pieces ([`piece_starts`]) and where the analysis cuts a long
/// line ([`crate::Context::line_indent`]) or reads a statement from (completion).
pub fn statements_after_close<'t>(
    text: &'t str,
    tokens: &'t [(Token, text_size::TextRange)],
) -> impl Iterator<Item = text_size::TextSize> + 't {
    let mut significant = tokens
        .iter()
        .filter(|(kind, _)| !matches!(kind, Token::Comment | Token::Newline))
        .copied()
        .peekable();
    let mut before = None;
    std::iter::from_fn(move || {
        loop {
            let (first, range) = significant.next()?;
            let next = significant.peek().map(|&(kind, _)| kind);
            let after_close = before == Some(Token::RBrace);
            before = Some(first);
            if after_close && crate::layout::starts_statement(text, first, range, next) {
                return Some(range.start());
            }
        }
    })
}
