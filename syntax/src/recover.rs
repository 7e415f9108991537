//! The parser's total repetitions — statement blocks, field blocks, comma lists — and the
//! junk skipping they recover with (see the recovery list in [`parser`](crate::parser)).
//!
//! Each is a chumsky [`custom`] parser: it fails only when its opening bracket is missing
//! (so that alternatives can be tried); once open, it always succeeds, reports what it
//! cannot read, and makes progress on every iteration, whatever the input. Skipping is
//! iterative (a small stack of the brackets opened in the skipped run), never recursive.

use chumsky::error::{LabelError, RichPattern};
use chumsky::prelude::*;
use chumsky::util::Maybe;
use text_size::{TextRange, TextSize};

use crate::ast::{Field, Name, Value};
use crate::layout::{is_name, starts_statement};
use crate::lexer::Token;
use crate::parser::{Extra, In, Inp, PError, Span, name};

/// A bracketed sequence: its items and its span (open bracket to close bracket, or as far
/// as it got when the closing bracket is missing).
#[derive(Clone, Debug)]
pub(crate) struct Group<T> {
    pub items: Vec<T>,
    pub span: Span,
}

/// One thing an error says was expected.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Exp {
    /// A token kind.
    Tok(Token),
    /// A description, e.g. "statement".
    Label(&'static str),
}

/// Where a run of junk stops, outside brackets opened in the run. A closing bracket with no
/// opener in the run also stops it when it can close the enclosing construct (see
/// `closes_enclosing`); `kernel @name` always does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Between statements: at a statement start or `}`.
    Stmt,
    /// In a kernel or loop header: at `{` or a statement keyword.
    Header,
    /// In an op or record body: at `,`, a newline or a statement start.
    Field,
    /// In a comma list: at `,` or a statement start; also at `{` unless the list's items
    /// may contain braces (records).
    List {
        /// The list's closing bracket.
        close: Token,
        /// Whether items may contain `{ … }`.
        braces: bool,
    },
}

/// A span as a [`TextRange`] (an inverted span, which chumsky can produce for an empty
/// range, becomes empty).
pub(crate) fn range(span: Span) -> TextRange {
    let size = |o: usize| TextSize::new(u32::try_from(o).unwrap_or(u32::MAX));
    TextRange::new(size(span.start), size(span.end.max(span.start)))
}

/// The next two tokens and the span of the first, without consuming anything.
pub(crate) fn peek2<'a>(inp: &mut Inp<'a, '_>) -> (Option<Token>, Span, Option<Token>) {
    let save = inp.save();
    let before = inp.cursor();
    let first = inp.next();
    let span = inp.span_since(&before);
    let second = inp.next();
    inp.rewind(save);
    (first, span, second)
}

/// The token after the next two (see [`peek2`]).
fn peek_third(inp: &mut Inp<'_, '_>) -> Option<Token> {
    let save = inp.save();
    inp.next();
    inp.next();
    let third = inp.next();
    inp.rewind(save);
    third
}

/// Builds "expected …, found `next`" at the next token (or at the end of the file).
pub(crate) fn expected_error<'a>(inp: &mut Inp<'a, '_>, expected: &[Exp]) -> PError<'a> {
    let (found, span, _) = peek2(inp);
    let patterns = expected.iter().map(|e| match *e {
        Exp::Tok(t) => RichPattern::Token(Maybe::Val(t)),
        Exp::Label(l) => RichPattern::Label(l.into()),
    });
    <PError<'a> as LabelError<'a, In<'a>, RichPattern<'a, Token>>>::expected_found(
        patterns,
        found.map(Maybe::Val),
        span,
    )
}

/// Reports "expected …, found `next`" at the next token.
pub(crate) fn emit_expected(inp: &mut Inp<'_, '_>, expected: &[Exp]) {
    let err = expected_error(inp, expected);
    inp.emit(err);
}

/// Reports the `{` at `brace` of an op or record body as never closed, at the `{` itself
/// (as rustc does), saying why the body ended: the next statement (`at_end` false) or the
/// end of the file. The message names no line, so that a run of statements reads the same
/// alone as in its file.
pub(crate) fn emit_unclosed(inp: &mut Inp<'_, '_>, brace: Span, at_end: bool) {
    let why = if at_end {
        UNCLOSED_AT_END
    } else {
        "unclosed `{`: the next statement starts before its `}`"
    };
    inp.emit(PError::custom(brace, why));
}

/// How every unclosed-`{` message starts (op, record, kernel and loop bodies).
pub(crate) const UNCLOSED: &str = "unclosed `{`";

/// The message of a `{` whose body runs to the end of the file.
pub(crate) const UNCLOSED_AT_END: &str = "unclosed `{`: the file ends before its `}`";

/// Consumes `open` or fails without reporting (the caller's alternatives or recovery do).
fn expect_open<'a>(inp: &mut Inp<'a, '_>, open: Token) -> Result<(), PError<'a>> {
    if inp.peek() == Some(open) {
        inp.skip();
        Ok(())
    } else {
        Err(expected_error(inp, &[Exp::Tok(open)]))
    }
}

fn is_opener(t: Token) -> bool {
    matches!(t, Token::LBrace | Token::LBracket | Token::LParen)
}

fn is_closer(t: Token) -> bool {
    matches!(t, Token::RBrace | Token::RBracket | Token::RParen)
}

/// Whether a statement of the block loop starts here: the loop hands it to the statement
/// parser.
pub(crate) fn is_stmt_start(text: &str, tok: Token, span: Span, next: Option<Token>) -> bool {
    matches!(tok, Token::Tensor | Token::For) || starts_statement(text, tok, range(span), next)
}

/// Whether `tok` (at `span`, followed by `next`) starts a statement and is the first token
/// of its line: such a line ends every run of junk and every open bracket (see
/// [`crate::chunks`]).
pub(crate) fn starts_statement_line(
    text: &str,
    tok: Token,
    span: Span,
    next: Option<Token>,
) -> bool {
    starts_statement(text, tok, range(span), next) && first_on_its_line(text, span.start)
}

/// Whether only spaces and tabs come between the line start (after the last `\n`, or the
/// text's start) and byte `at`. Reads back over the indentation only, never the line: a
/// test per token of a long line's junk must not cost the line (it made a 10 MB line
/// quadratic: 96 s).
pub(crate) fn first_on_its_line(text: &str, at: usize) -> bool {
    let before = text.as_bytes().get(..at).unwrap_or_default();
    before
        .iter()
        .rev()
        .find(|&&b| b != b' ' && b != b'\t')
        .is_none_or(|&b| b == b'\n')
}

/// An identifier, unless it starts a statement line (`Op {` at the start of a line is the
/// next statement, never a memory space, dtype or value left out before it).
pub(crate) fn plain_ident<'a>(text: &'a str) -> impl Parser<'a, In<'a>, Name, Extra<'a>> + Clone {
    custom(move |inp: &mut Inp<'a, '_>| {
        let (tok, span, next) = peek2(inp);
        match tok {
            Some(Token::Ident) if !starts_statement_line(text, Token::Ident, span, next) => {
                inp.skip();
                Ok(name(text, span))
            }
            _ => Err(expected_error(inp, &[Exp::Tok(Token::Ident)])),
        }
    })
}

/// Skips a run of junk up to `stop` (see [`Stop`]), balancing brackets inside the run.
/// With `at_least_one`, consumes at least one token (unless at the end), so that the
/// calling loop makes progress. Returns the span skipped, if any.
pub(crate) fn skip_junk(
    inp: &mut Inp<'_, '_>,
    text: &str,
    stop: Stop,
    at_least_one: bool,
) -> Option<Span> {
    let before = inp.cursor();
    // The brackets opened inside the run (bounded by the layout's depth limit).
    let mut open: Vec<Token> = Vec::new();
    let mut count = 0usize;
    while let (Some(tok), span, next) = peek2(inp) {
        let first = at_least_one && count == 0;
        if !first {
            // `kernel @k` always ends the run: the layout closed every bracket there too. So
            // does a line that starts a statement, whatever the run left open, so that such
            // a line starts a statement whatever precedes it (`crate::chunks`).
            if (tok == Token::Kernel && next == Some(Token::Global))
                || starts_statement_line(text, tok, span, next)
            {
                break;
            }
            // A closer that matches nothing opened in the run ends it if it can close the
            // enclosing construct; a stray one is junk like any other token.
            if is_closer(tok) && !open.contains(&opener_of(tok)) && closes_enclosing(stop, tok) {
                break;
            }
            if open.is_empty() && at_stop(text, stop, tok, span, next) {
                break;
            }
        }
        if is_opener(tok) {
            open.push(tok);
        } else if is_closer(tok)
            && let Some(at) = open.iter().rposition(|&o| o == opener_of(tok))
        {
            open.truncate(at);
        }
        inp.skip();
        count += 1;
    }
    (count > 0).then(|| inp.span_since(&before))
}

/// The recovery of a parenthesised expression that does not parse: skips from its `(` to
/// the matching `)`, brackets balanced. Fails at a closer that matches nothing, at the end
/// of the file, at `kernel @k` (the layout closed every bracket there) and at a line that
/// starts a statement, so that each
/// unclosed `(` costs a scan to the next kernel at most (chumsky's `nested_delimiters`
/// scanned to the end of the file: quadratic in the number of unclosed `(`).
pub(crate) fn skip_parenthesised<'a>(
    text: &'a str,
) -> impl Parser<'a, In<'a>, (), Extra<'a>> + Clone {
    custom(move |inp: &mut Inp<'a, '_>| {
        expect_open(inp, Token::LParen)?;
        let mut open = vec![Token::LParen];
        while let Some(&last) = open.last() {
            let (tok, span, next) = peek2(inp);
            match tok {
                None => return Err(expected_error(inp, &[Exp::Tok(Token::RParen)])),
                Some(Token::Kernel) if next == Some(Token::Global) => {
                    return Err(expected_error(inp, &[Exp::Tok(Token::RParen)]));
                }
                // As a run of junk does (`skip_junk`).
                Some(t) if starts_statement_line(text, t, span, next) => {
                    return Err(expected_error(inp, &[Exp::Tok(Token::RParen)]));
                }
                Some(t) if is_opener(t) => open.push(t),
                Some(t) if is_closer(t) && opener_of(t) == last => {
                    open.pop();
                }
                Some(t) if is_closer(t) => {
                    return Err(expected_error(inp, &[Exp::Tok(Token::RParen)]));
                }
                Some(_) => {}
            }
            inp.skip();
        }
        Ok(())
    })
}

/// Whether the closer `tok` can end the construct that a run of junk is in.
fn closes_enclosing(stop: Stop, tok: Token) -> bool {
    match stop {
        Stop::Stmt | Stop::Header | Stop::Field => tok == Token::RBrace,
        Stop::List { close, .. } => tok == close || tok == Token::RBrace,
    }
}

/// The opening bracket of a closing one.
fn opener_of(closer: Token) -> Token {
    match closer {
        Token::RBrace => Token::LBrace,
        Token::RBracket => Token::LBracket,
        _ => Token::LParen,
    }
}

/// Whether `tok` ends a run of junk outside any bracket opened in the run.
fn at_stop(text: &str, stop: Stop, tok: Token, span: Span, next: Option<Token>) -> bool {
    let r = range(span);
    match stop {
        Stop::Stmt => is_stmt_start(text, tok, span, next),
        // Not `Op {`: after `for %i in 0..N`, `N {` is the body of a loop with a bad bound.
        Stop::Header => {
            tok == Token::LBrace
                || (tok != Token::Ident && starts_statement(text, tok, r, next))
                || (tok == Token::Ident && next == Some(Token::Local) && &text[r] == "reg")
        }
        Stop::Field => {
            matches!(tok, Token::Comma | Token::Newline) || starts_statement(text, tok, r, next)
        }
        Stop::List { braces, .. } => {
            matches!(tok, Token::Comma | Token::Newline)
                || (!braces && tok == Token::LBrace)
                || starts_statement(text, tok, r, next)
        }
    }
}

/// Parses with `p`; on failure reports its error, skips junk up to `stop` and returns the
/// skipped span instead.
pub(crate) fn parse_or_skip<'a, O>(
    inp: &mut Inp<'a, '_>,
    text: &str,
    p: &impl Parser<'a, In<'a>, O, Extra<'a>>,
    stop: Stop,
) -> Result<O, Span> {
    let save = inp.save();
    let before = inp.cursor();
    match inp.parse(p) {
        Ok(out) => Ok(out),
        Err(e) => {
            inp.rewind(save);
            inp.emit(e);
            skip_junk(inp, text, stop, true);
            Err(inp.span_since(&before))
        }
    }
}

/// `{ field SEP … }`: the fields of an op body or a record, SEP being any run of commas
/// and newlines (leading and trailing ones included).
pub(crate) fn field_block<'a>(
    text: &'a str,
    value: impl Parser<'a, In<'a>, Value, Extra<'a>> + Clone + 'a,
) -> impl Parser<'a, In<'a>, Group<Field>, Extra<'a>> + Clone {
    custom(move |inp: &mut Inp<'a, '_>| {
        let start = inp.cursor();
        expect_open(inp, Token::LBrace)?;
        let brace = inp.span_since(&start);
        let mut items = Vec::new();
        loop {
            let (tok, span, next) = peek2(inp);
            match tok {
                Some(Token::Comma | Token::Newline) => {
                    inp.skip();
                    continue;
                }
                Some(Token::RBrace) => {
                    inp.skip();
                    break;
                }
                None => {
                    emit_unclosed(inp, brace, true);
                    break;
                }
                Some(t) if starts_statement(text, t, range(span), next) => {
                    emit_unclosed(inp, brace, false);
                    break;
                }
                // Junk already reported (a NUL, an unknown character) right before a field:
                // the field after it is still written (no P204 for it).
                Some(Token::Error)
                    if next.is_some_and(is_name) && peek_third(inp) == Some(Token::Eq) =>
                {
                    inp.skip();
                    continue;
                }
                Some(Token::Error) => {
                    skip_junk(inp, text, Stop::Field, true);
                    continue;
                }
                Some(t) if is_name(t) => items.push(field(inp, text, &value)),
                Some(_) => {
                    emit_expected(inp, &[Exp::Label("field name"), Exp::Tok(Token::RBrace)]);
                    skip_junk(inp, text, Stop::Field, true);
                    continue;
                }
            }
            // After a field: a separator, or the end of the block.
            let (tok, span, next) = peek2(inp);
            match tok {
                None | Some(Token::Comma | Token::Newline | Token::RBrace) => {}
                Some(t) if starts_statement(text, t, range(span), next) => {}
                // `a = 1 b = 2`: a missing separator; read `b = 2` as the next field.
                Some(t) if is_name(t) && next == Some(Token::Eq) => {
                    emit_expected(
                        inp,
                        &[
                            Exp::Tok(Token::Comma),
                            Exp::Tok(Token::Newline),
                            Exp::Tok(Token::RBrace),
                        ],
                    );
                }
                Some(_) => {
                    emit_expected(
                        inp,
                        &[
                            Exp::Tok(Token::Comma),
                            Exp::Tok(Token::Newline),
                            Exp::Tok(Token::RBrace),
                        ],
                    );
                    skip_junk(inp, text, Stop::Field, true);
                }
            }
        }
        Ok(Group {
            items,
            span: inp.span_since(&start),
        })
    })
}

/// `name = value`, the name being next. Never fails: a missing `=` or value is reported and
/// leaves the value `None`; an unreadable value is [`ValueKind::Error`](crate::ValueKind).
fn field<'a>(
    inp: &mut Inp<'a, '_>,
    text: &str,
    value: &impl Parser<'a, In<'a>, Value, Extra<'a>>,
) -> Field {
    let before = inp.cursor();
    inp.skip();
    let name: Name = name(text, inp.span_since(&before));
    let value = if inp.peek() == Some(Token::Eq) {
        inp.skip();
        let (tok, span, next) = peek2(inp);
        let missing = match tok {
            None | Some(Token::Comma | Token::Newline | Token::RBrace) => true,
            Some(t) => starts_statement(text, t, range(span), next),
        };
        if missing {
            emit_expected(inp, &[Exp::Label("value")]);
            None
        } else {
            let read = parse_or_skip(inp, text, value, Stop::Field).unwrap_or_else(|span| Value {
                range: range(span),
                kind: crate::ValueKind::Error,
            });
            // A lexical error right after the value (`%rhs§_tile`, a bad byte inside a
            // name) means the value is not what was meant: unreadable, so that its one
            // mistake (the lexer's P103) is not followed by checks of a truncated value.
            let (next, next_span, _) = peek2(inp);
            if next == Some(Token::Error) && next_span.start == usize::from(read.range.end()) {
                Some(Value {
                    range: read.range,
                    kind: crate::ValueKind::Error,
                })
            } else {
                Some(read)
            }
        }
    } else {
        emit_expected(inp, &[Exp::Tok(Token::Eq)]);
        None
    };
    Field {
        range: range(inp.span_since(&before)),
        name,
        value,
    }
}

/// `open item, … close` with an optional trailing comma. `on_error` turns the span of an
/// unreadable item into a placeholder item (or nothing).
pub(crate) fn comma_list<'a, O: 'a>(
    text: &'a str,
    open: Token,
    close: Token,
    item: impl Parser<'a, In<'a>, O, Extra<'a>> + Clone + 'a,
    what: &'static str,
    braces: bool,
    on_error: fn(Span) -> Option<O>,
) -> impl Parser<'a, In<'a>, Group<O>, Extra<'a>> + Clone {
    let stop = Stop::List { close, braces };
    custom(move |inp: &mut Inp<'a, '_>| {
        let start = inp.cursor();
        expect_open(inp, open)?;
        let mut items = Vec::new();
        // `name =` cannot be in a list: the list was not closed before the next field.
        let ends_list = |tok: Token, span: Span, next: Option<Token>| {
            is_closer(tok)
                || tok == Token::Newline
                || (!braces && tok == Token::LBrace)
                || (is_name(tok) && next == Some(Token::Eq))
                || starts_statement(text, tok, range(span), next)
        };
        // Whether an item is due (at the start and after a comma): for the message.
        let mut want_item = true;
        loop {
            let (tok, span, next) = peek2(inp);
            match tok {
                Some(t) if t == close => {
                    inp.skip();
                    break;
                }
                None => {
                    emit_expected(inp, &[Exp::Tok(close)]);
                    break;
                }
                Some(Token::Comma) => {
                    emit_expected(inp, &[Exp::Label(what), Exp::Tok(close)]);
                    inp.skip();
                    continue;
                }
                Some(t) if ends_list(t, span, next) => {
                    let expected = if want_item {
                        Exp::Label(what)
                    } else {
                        Exp::Tok(Token::Comma)
                    };
                    emit_expected(inp, &[expected, Exp::Tok(close)]);
                    break;
                }
                Some(_) => match parse_or_skip(inp, text, &item, stop) {
                    Ok(v) => items.push(v),
                    Err(span) => items.extend(on_error(span)),
                },
            }
            // After an item: `,` or the end of the list.
            want_item = false;
            let (tok, span, next) = peek2(inp);
            match tok {
                Some(Token::Comma) => {
                    inp.skip();
                    want_item = true;
                }
                None => {}
                Some(t) if t == close || ends_list(t, span, next) => {}
                Some(_) => {
                    emit_expected(inp, &[Exp::Tok(Token::Comma), Exp::Tok(close)]);
                    skip_junk(inp, text, stop, true);
                    if inp.peek() == Some(Token::Comma) {
                        inp.skip();
                        want_item = true;
                    }
                }
            }
        }
        Ok(Group {
            items,
            span: inp.span_since(&start),
        })
    })
}
