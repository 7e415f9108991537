//! The token pre-pass between the lexer and the parser: newline significance (SPEC §2
//! "Newlines") and the nesting guard.
//!
//! Everything that depends on bracket structure rather than grammar lives in [`layout`], so
//! that the parser only ever sees `Newline` tokens where they separate fields, and never
//! nests deeper than [`MAX_DEPTH`] brackets (the parser recurses only on brackets, so this
//! bounds its stack use, and the depth of the tree, whose `Drop` is recursive too).

use text_size::TextRange;

use crate::lexer::{Lexed, Token};
use crate::{SyntaxError, SyntaxErrorCode};

/// The deepest bracket nesting (`{`, `[`, `(` together) passed to the parser. Real files
/// nest about 10 deep (kernel, a few loops, an op, a list, a record, an index, a paren).
pub(crate) const MAX_DEPTH: usize = 32;

/// Whether `text`, read from the start of a statement line of a file (a chunk, which may
/// start inside one kernel), may nest its brackets deep enough for the nesting guard of
/// [`layout`] to fire somewhere in it. A byte scan, no lexing: brackets in comments are
/// skipped, those in strings counted (which can only say yes more often), and a closer
/// lowers the depth only down to 0. Read in pieces, each piece starts its guard at depth 0,
/// so a text for which this says yes must be read whole to be read as its file reads it
/// (the analysis does so, `analysis/src/db.rs` `parse`).
pub fn may_nest_too_deep(text: &str) -> bool {
    // A chunk may start inside a kernel's body: one level the scan does not see.
    let limit = MAX_DEPTH - 1;
    let (mut depth, mut bytes) = (0usize, text.bytes().peekable());
    while let Some(b) = bytes.next() {
        match b {
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth >= limit {
                    return true;
                }
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            b'/' if bytes.peek() == Some(&b'/') => {
                for c in bytes.by_ref() {
                    if c == b'\n' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// What an open bracket opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    /// `{` of an op body or a record: newlines separate fields.
    Fields,
    /// `{` of a kernel or loop body: newlines are whitespace.
    Stmts,
    /// `[`
    Bracket,
    /// `(`
    Paren,
}

/// Turns the lexer's tokens into the parser's input.
///
/// * Comments are dropped; a token with a lexical error becomes [`Token::Error`], except an
///   op id (the parser re-reads its number and leaves a bad id out).
/// * A run of newlines is kept (as one `Newline`) only when the innermost open bracket is a
///   field block: the `{` of an op body or a record, told from that of a kernel or loop
///   body by the token before it (see [`opened_by_brace`]).
/// * Closing brackets pop to their opener, closing any unclosed `[`/`(` in between (a `]`
///   or `)` never closes a `{`); a closer with no opener is passed on (the parser reports
///   it).
/// * Recovery from an unclosed field block, so that one missing `}` or `]` does not change
///   the meaning of newlines in the rest of the file: after a newline inside a field block,
///   a statement start (`Op {`, `Op #N`, `tensor %`, `for %`, `reg %`, `kernel @`) closes
///   it; after a newline inside `[`/`(` within a field block, `name =` closes the brackets;
///   and `kernel @name` anywhere closes everything. The parser applies the same rules and
///   reports the missing bracket.
/// * Nesting guard: a bracket that would open level [`MAX_DEPTH`]` + 1` is reported once
///   (P100 "nesting too deep") and the whole region up to its matching closer (or the end)
///   becomes one `Error` token.
pub(crate) fn layout(text: &str, lexed: &[Lexed]) -> (Vec<(Token, TextRange)>, Vec<SyntaxError>) {
    // Comments never matter here; working on the rest keeps look-ahead simple.
    let toks: Vec<(Token, TextRange)> = lexed
        .iter()
        .filter(|t| t.kind != Token::Comment)
        // An op id keeps its kind (the parser re-reads its number and leaves the id out),
        // so that `Op #99999999999 {` is still an op.
        .map(|t| {
            (
                if t.bad && t.kind != Token::OpId {
                    Token::Error
                } else {
                    t.kind
                },
                t.range,
            )
        })
        .collect();
    let mut out: Vec<(Token, TextRange)> = Vec::with_capacity(toks.len());
    let mut errors = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut pending_newline: Option<TextRange> = None;
    let mut prev: Option<Token> = None;
    let mut i = 0;
    while i < toks.len() {
        let (tok, range) = toks[i];
        if tok == Token::Newline {
            pending_newline.get_or_insert(range);
            i += 1;
            continue;
        }
        let next = next_kind(&toks, i);
        if tok == Token::Kernel && next == Some(Token::Global) {
            stack.clear();
        }
        let newline = pending_newline.take();
        // The innermost brace: a field block (an op body or a record) or a block of
        // statements.
        let brace = stack
            .iter()
            .rposition(|f| matches!(f, Frame::Fields | Frame::Stmts));
        if let Some(at) = brace
            && stack[at] == Frame::Fields
            && starts_statement(text, tok, range, next)
        {
            // An unclosed op body or record (with whatever brackets it left open), on this
            // line or before it: close every field block up to the block of statements
            // around it, as the parser ends them here. (Not only after a newline, so that a
            // statement reads the same whatever the line before it left open.)
            let stmts = stack[..at].iter().rposition(|f| *f == Frame::Stmts);
            stack.truncate(stmts.map_or(0, |s| s + 1));
        } else if let Some(newline) = newline {
            let in_fields = stack.last() == Some(&Frame::Fields);
            if in_fields {
                out.push((Token::Newline, newline));
            } else if matches!(stack.last(), Some(Frame::Bracket | Frame::Paren))
                && is_name(tok)
                && next == Some(Token::Eq)
                && let Some(brace) = stack
                    .iter()
                    .rposition(|f| matches!(f, Frame::Fields | Frame::Stmts))
                && stack[brace] == Frame::Fields
            {
                // `dst = %t[0:4` NEWLINE `src = …`: the `[` was never closed.
                stack.truncate(brace + 1);
                out.push((Token::Newline, newline));
            }
        }
        match tok {
            Token::LBrace | Token::LBracket | Token::LParen => {
                if stack.len() >= MAX_DEPTH {
                    i = skip_too_deep(&toks, i, &mut out, &mut errors);
                    prev = Some(Token::Error);
                    continue;
                }
                stack.push(match tok {
                    Token::LBracket => Frame::Bracket,
                    Token::LParen => Frame::Paren,
                    _ => opened_by_brace(prev),
                });
            }
            Token::RBrace => {
                if let Some(at) = stack
                    .iter()
                    .rposition(|f| matches!(f, Frame::Fields | Frame::Stmts))
                {
                    stack.truncate(at);
                }
            }
            Token::RBracket | Token::RParen => {
                let want = if tok == Token::RBracket {
                    Frame::Bracket
                } else {
                    Frame::Paren
                };
                let brace = stack
                    .iter()
                    .rposition(|f| matches!(f, Frame::Fields | Frame::Stmts));
                if let Some(at) = stack.iter().rposition(|&f| f == want)
                    && brace.is_none_or(|b| b < at)
                {
                    stack.truncate(at);
                }
            }
            _ => {}
        }
        out.push((tok, range));
        prev = Some(tok);
        i += 1;
    }
    (out, errors)
}

/// What a `{` after `prev` opens. A kernel body follows `)` (or `@k` when the parameter
/// list is missing), a loop body follows its bound (an INT, a local, a dim var or `)`).
/// Anything else is a field block: after an op class name or op id (an op body), or `=`,
/// `[`, `,`, `(` (a record value). Errors lean to field blocks too: a statement block
/// read as a field block only passes newlines that the statement loop ignores, while the
/// converse would glue the fields of an op together.
fn opened_by_brace(prev: Option<Token>) -> Frame {
    match prev {
        Some(Token::RParen | Token::Int | Token::Local | Token::DimVar | Token::Global) => {
            Frame::Stmts
        }
        _ => Frame::Fields,
    }
}

/// The kind of the token after `i`, newlines skipped.
fn next_kind(toks: &[(Token, TextRange)], i: usize) -> Option<Token> {
    toks[i + 1..]
        .iter()
        .map(|t| t.0)
        .find(|&t| t != Token::Newline)
}

/// Field names: identifiers and keywords (SPEC §3 `field`).
pub(crate) fn is_name(tok: Token) -> bool {
    tok == Token::Ident || tok.is_keyword()
}

/// Whether `tok` (at `range`), followed by `next`, certainly starts a statement or a
/// kernel, which no field can: `Op {`, `Op #N`, `tensor %t`, `for %i`, `reg %r`,
/// `kernel @k`. Shared with the parser so that both recover from a missing `}` alike.
pub(crate) fn starts_statement(
    text: &str,
    tok: Token,
    range: TextRange,
    next: Option<Token>,
) -> bool {
    match (tok, next) {
        (Token::Tensor | Token::For, Some(Token::Local)) => true,
        (Token::Kernel, Some(Token::Global)) => true,
        (Token::Ident, Some(Token::LBrace | Token::OpId)) => true,
        (Token::Ident, Some(Token::Local)) => &text[range] == "reg",
        _ => false,
    }
}

/// Replaces the over-deep region opened at `toks[i]` by one `Error` token and reports it.
/// Returns the index after the region. Iterative: a counter, not a stack.
fn skip_too_deep(
    toks: &[(Token, TextRange)],
    i: usize,
    out: &mut Vec<(Token, TextRange)>,
    errors: &mut Vec<SyntaxError>,
) -> usize {
    let start = toks[i].1;
    errors.push(SyntaxError {
        replacement: None,
        code: SyntaxErrorCode::P100,
        range: start,
        message: format!("nesting too deep: more than {MAX_DEPTH} levels of brackets"),
    });
    let mut depth = 0usize;
    let mut end = start;
    let mut j = i;
    while j < toks.len() {
        let (tok, range) = toks[j];
        j += 1;
        end = range;
        match tok {
            Token::LBrace | Token::LBracket | Token::LParen => depth += 1,
            Token::RBrace | Token::RBracket | Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    out.push((Token::Error, start.cover(end)));
    j
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::lexer::lex_detailed;

    /// The parser's input, newlines shown as `⏎`, then the layout's errors.
    fn check(text: &str, expected: Expect) {
        let (lexed, _) = lex_detailed(text);
        let (tokens, errors) = super::layout(text, &lexed);
        let mut out: Vec<String> = tokens
            .iter()
            .map(|&(t, r)| match t {
                super::Token::Newline => "⏎".to_string(),
                super::Token::Error => format!("<error {r:?}>"),
                _ => text[r].to_string(),
            })
            .collect();
        out.extend(
            errors
                .iter()
                .map(|e| format!("\n{:?} {}", e.range, e.message)),
        );
        expected.assert_eq(&out.join(" "));
    }

    #[test]
    fn newlines_separate_fields_only_in_op_and_record_bodies() {
        check(
            "kernel @k(%a: hbm f32[1],\n %b: hbm f32[1])\n{\n for %i in 0..2 {\n  Op #1 {\n   a = [1,\n    2] // c\n\n   b = { x = 1\n    y = 2 }\n  }\n }\n}\n",
            expect![
                "kernel @k ( %a : hbm f32 [ 1 ] , %b : hbm f32 [ 1 ] ) { for %i in 0 .. 2 { Op #1 { ⏎ a = [ 1 , 2 ] ⏎ b = { x = 1 ⏎ y = 2 } ⏎ } } }"
            ],
        );
    }

    #[test]
    fn a_statement_start_closes_an_unclosed_body() {
        check(
            "kernel @k() {\n Op1 { a = %t[0:4\n  b = 1\n Op2 { c = 2 }\n tensor %t : sbuf f32[1]\n}",
            expect![
                "kernel @k ( ) { Op1 { a = %t [ 0 : 4 ⏎ b = 1 Op2 { c = 2 } tensor %t : sbuf f32 [ 1 ] }"
            ],
        );
    }

    #[test]
    fn nesting_beyond_the_limit_is_one_error_token() {
        let text = format!("x = {}1{} y", "[".repeat(40), "]".repeat(40));
        check(
            &text,
            expect![[r#"
            x = [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ <error 36..53> ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] y 
            36..37 nesting too deep: more than 32 levels of brackets"#]],
        );
    }
}
