//! Where a file may be cut into chunks of whole statements (see [`statement_lines`]).
//!
//! A chunk starts at the start of a line whose first tokens certainly start a statement:
//! `kernel @k`, `tensor %t`, `for %i`, `reg %r`, `Op {` or `Op #N`. No field, value or
//! header can start that way, and the parser ends whatever is open at such a token at the start of
//! a line (an op body without its `}`, an unclosed `[`, a run of junk), so every such line
//! starts a statement of the flat list whatever comes before it, and the statements of a chunk read the same alone
//! ([`crate::parse_statements`], with the next line as look-ahead) as in the file. Telling
//! a line needs only that line.

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
/// from one such line to the next parse alone as in their file ([`crate::parse_part`]).
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
