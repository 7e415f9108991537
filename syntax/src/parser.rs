//! The parser (SPEC §3): a chumsky 0.13 parser over the pre-processed tokens of
//! [`layout`](crate::layout), producing the [`ast`](crate::ast) and P100 errors.
//!
//! Phrase-level syntax (expressions, values, types, headers of kernels, loops and
//! declarations) is written with chumsky combinators; the four repetitions that must never
//! fail — the statements of a file, the fields of an op or record body, and comma lists — are hand-written loops in [`chumsky::primitive::custom`]
//! parsers (see [`recover`](crate::recover)), because they carry the error recovery and
//! must make progress on any input.
//!
//! Recovery, innermost first:
//! * a missing piece of a header (`@name`, `:`, `in`, `..`, a type) is reported ("expected
//!   `:`, found `hbm`") and left `None` (`or_expected`: `recover_with(via_parser(empty()))`);
//! * a parenthesised expression that does not parse is skipped to its `)` (brackets
//!   balanced, never past `kernel @k`) and becomes [`ExprKind::Error`];
//! * a bad value skips to the next `,`, newline or closing bracket and becomes
//!   [`ValueKind::Error`]; a missing value leaves the field's value `None`; tokens after a
//!   complete field are reported once and skipped to the next separator;
//! * a bad list item, parameter or index skips to the next `,` or the closing bracket;
//! * anything that does not start a statement skips to the next statement start or `}`;
//! * a missing `}` of an op or record body ends it at a statement start that cannot be a
//!   field (`Op {`, `tensor %t`, …), and a missing `}` of a kernel or loop body ends it at
//!   `kernel @k` or at the end of the file, keeping what was read; either is reported at
//!   the `{` that is never closed, as rustc does.
//!
//! The statement level is flat: kernel and loop headers (with their `{`), each `}` and the
//! declarations and ops between them are read as a list of [`FlatStmt`]s, and
//! [`assemble`](crate::assemble) nests them. So a run of whole statements parses the same
//! alone as inside its file, which is what lets an edit re-read only the statements it
//! touched.
//!
//! Every skipped run is reported once, at its first token. Tokens that are lexical errors
//! are skipped without a second report (their error came from the lexer).

use chumsky::input::{Input as _, InputRef, MappedInput};
use chumsky::prelude::*;

use crate::assemble::PieceEnd;
use crate::ast::*;
use crate::layout::layout;
use crate::lexer::{
    Token, lex_checked, lone_carriage_return_error, lone_carriage_returns as lone_crs,
};
use crate::literal::{index_value, int_value};
use crate::recover::{
    Exp, Stop, comma_list, emit_expected, field_block, is_stmt_start, parse_or_skip, peek2,
    plain_ident, range, skip_junk,
};
use crate::value::{expr_parser, value_parser};
use crate::{Context, Parse, SyntaxError, SyntaxErrorCode};

/// Chumsky's span: UTF-8 byte offsets.
pub(crate) type Span = SimpleSpan;
/// The parser's input: the layout's tokens with their spans.
pub(crate) type In<'a> = MappedInput<'a, Token, Span, &'a [(Token, Span)]>;
/// Chumsky's error type for this parser.
pub(crate) type PError<'a> = Rich<'a, Token, Span>;
/// Parser extras: just the error type.
pub(crate) type Extra<'a> = extra::Err<PError<'a>>;
/// The input as seen by `custom` parsers.
pub(crate) type Inp<'a, 'p> = InputRef<'a, 'p, In<'a>, Extra<'a>>;

/// The statement reader calls its `check` (a cancellation check) once per this many
/// statements.
const CHECK_EVERY: usize = 256;

/// At most this many errors are reported per file; a final P100 says how many were left
/// out (SPEC §7 does not bound them; a language server must).
pub(crate) const MAX_ERRORS: usize = 100;

/// Lexes, lays out and parses `text`. See [`crate::parse`]; `invalid_utf8` are the ranges
/// of [`crate::decode`]'s replacement characters, each a P103 unless the lexer reported it.
pub(crate) fn parse(text: &str, invalid_utf8: &[TextRange], check: &dyn Fn()) -> Parse {
    let Statements {
        statements,
        lexical_errors: mut errors,
        mut reader_errors,
        stopped_at: _,
    } = statements(text, invalid_utf8, text.len(), check);
    let file = crate::assemble::assemble(
        text,
        statements,
        &mut reader_errors,
        PieceEnd::File,
        Context::default(),
    );
    errors.append(&mut reader_errors);
    errors.extend(lone_carriage_returns(text, text.len()));
    let (errors, left_out) = finish_errors(errors);
    Parse {
        file,
        errors,
        left_out,
    }
}

/// Parses the whole kernels of `text[..end]`; `text[end..]` is look-ahead, the line of the
/// next kernel (see [`crate::parse_piece`]).
pub(crate) fn parse_piece(text: &str, end: usize, context: Context, check: &dyn Fn()) -> Parse {
    let end = end.min(text.len());
    assemble_piece(text, end, context, statements(text, &[], end, check))
}

/// Nests the flat statements `read` of `text[..end]` into kernels (see
/// [`crate::assemble_piece`]).
pub(crate) fn assemble_piece(text: &str, end: usize, context: Context, read: Statements) -> Parse {
    let end = end.min(text.len());
    let Statements {
        statements,
        lexical_errors: mut errors,
        mut reader_errors,
        stopped_at: _,
    } = read;
    let at = TextSize::try_from(end).unwrap_or_default();
    let piece_end = if context.goes_on {
        PieceEnd::Continued { at }
    } else if end == text.len() {
        PieceEnd::File
    } else {
        PieceEnd::Kernel {
            at,
            name: kernel_name(&text[end..]),
        }
    };
    let file = crate::assemble::assemble(text, statements, &mut reader_errors, piece_end, context);
    errors.append(&mut reader_errors);
    retain_before_look_ahead(text, end, &mut errors);
    errors.extend(lone_carriage_returns(text, end));
    let (errors, left_out) = finish_errors(errors);
    Parse {
        file,
        errors,
        left_out,
    }
}

/// Drops the errors of the look-ahead `text[end..]`: they are the next piece's, but for those
/// at its first token, which the piece's last statement reported ("expected `]`, found
/// `kernel`").
pub(crate) fn retain_before_look_ahead(text: &str, end: usize, errors: &mut Vec<SyntaxError>) {
    if end < text.len() {
        let rest = &text[end..];
        let first = end + rest.len() - rest.trim_start_matches(crate::lexer::SKIPPED).len();
        errors.retain(|e| usize::from(e.range.start()) <= first);
    }
}

/// The name (without `@`) of the kernel whose line starts `line`, if it has one.
fn kernel_name(line: &str) -> Option<&str> {
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let (tokens, _) = crate::lexer::lex(line);
    let mut significant = tokens.iter().filter(|(kind, _)| *kind != Token::Comment);
    match (significant.next(), significant.next()) {
        (Some((Token::Kernel, _)), Some((Token::Global, range))) => {
            line.get(usize::from(range.start()) + 1..usize::from(range.end()))
        }
        _ => None,
    }
}

/// Lexes, lays out and reads `text` as a flat statement list, up to the statement that
/// starts at byte `end` (the text after it is look-ahead). The errors are in no order (see
/// [`finish_errors`]).
pub(crate) fn statements(
    text: &str,
    invalid_utf8: &[TextRange],
    end: usize,
    check: &dyn Fn(),
) -> Statements {
    let (lexed, mut errors) = lex_checked(text, check);
    // Both lists are in source order: one merge pass (files may hold many bad runs).
    let mut lexer_p103 = errors
        .iter()
        .filter(|e| e.code == SyntaxErrorCode::P103)
        .map(|e| e.range)
        .collect::<Vec<_>>()
        .into_iter()
        .peekable();
    for &r in invalid_utf8 {
        while lexer_p103.next_if(|e| e.end() <= r.start()).is_some() {}
        if !lexer_p103.peek().is_some_and(|e| e.contains_range(r)) {
            errors.push(SyntaxError {
                replacement: None,
                code: SyntaxErrorCode::P103,
                range: r,
                message: "invalid UTF-8".to_string(),
            });
        }
    }
    check();
    let (tokens, layout_errors) = layout(text, &lexed);
    check();
    errors.extend(layout_errors);
    let spanned: Vec<(Token, Span)> = tokens
        .iter()
        .map(|&(t, r)| (t, Span::from(usize::from(r.start())..usize::from(r.end()))))
        .collect();
    let eoi = Span::from(text.len()..text.len());
    let (read, parse_errors) = statements_parser(text, end, check)
        .parse(spanned.as_slice().split_token_span(eoi))
        .into_output_errors();
    let (statements, stopped_at) = read.unwrap_or_default();
    let reader_errors = parse_errors
        .into_iter()
        .filter_map(|e| convert_error(text, e))
        .collect();
    Statements {
        statements,
        lexical_errors: errors,
        reader_errors,
        stopped_at,
    }
}

/// The statements of a text read flat (see [`crate::read_statements`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statements {
    /// The flat statements.
    pub statements: Vec<FlatStmt>,
    /// The lexer's and the layout's errors (P101–P103, nesting too deep).
    pub lexical_errors: Vec<SyntaxError>,
    /// The statement reader's (P100 "expected …").
    pub reader_errors: Vec<SyntaxError>,
    /// Where the reader stopped: the start of the first token at or after the end it was
    /// given, where it would have read the next statement (UTF-8 bytes into the text
    /// read); `None` when the text ended first. A piece whose reader stopped exactly at
    /// the piece's end ends between two statements of its file ([`crate::read_in_pieces`]).
    pub stopped_at: Option<TextSize>,
}

/// Turns a chumsky error into a P100, or `None` when it is about a token that already has
/// a lexical error.
fn convert_error(text: &str, err: PError<'_>) -> Option<SyntaxError> {
    use chumsky::error::{RichPattern, RichReason};
    let at = range(*err.span());
    let message = match err.reason() {
        RichReason::ExpectedFound { expected, found } => {
            if found.as_deref() == Some(&Token::Error) {
                return None;
            }
            let mut names: Vec<String> = Vec::new();
            for pattern in expected {
                let name = match pattern {
                    RichPattern::Token(t) => t.to_string(),
                    RichPattern::Label(l) => l.to_string(),
                    RichPattern::Identifier(i) => format!("`{i}`"),
                    RichPattern::EndOfInput => "end of file".to_string(),
                    _ => "something else".to_string(),
                };
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let found = match found.as_deref() {
                None => "end of file".to_string(),
                Some(Token::Newline) => "newline".to_string(),
                Some(_) => format!("`{}`", crate::lexer::shorten(&text[at])),
            };
            if names.is_empty() {
                format!("unexpected {found}")
            } else {
                format!("expected {}, found {found}", join_or(&names))
            }
        }
        RichReason::Custom(message) => message.clone(),
    };
    Some(SyntaxError {
        replacement: None,
        code: SyntaxErrorCode::P100,
        range: at,
        message,
    })
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The one P103 for the lone carriage returns of `text[..end]`, if any (counted per text
/// read whole: never per piece, whose counts a document adds up).
fn lone_carriage_returns(text: &str, end: usize) -> Option<SyntaxError> {
    lone_crs(text, end).map(|(at, count)| lone_carriage_return_error(at, count))
}

/// Source order, one error per start offset (the first reported: a cascade at one token
/// is one mistake), and the [`MAX_ERRORS`] cap: with the number of errors left out.
fn finish_errors(mut errors: Vec<SyntaxError>) -> (Vec<SyntaxError>, usize) {
    order_errors(&mut errors);
    let mut left_out = 0;
    if errors.len() > MAX_ERRORS {
        left_out = errors.len() - MAX_ERRORS;
        let at = errors[MAX_ERRORS].range;
        errors.truncate(MAX_ERRORS);
        errors.push(too_many_errors(at, left_out));
    }
    (errors, left_out)
}

/// The P100 at `at` that says `left_out` errors were not reported.
pub(crate) fn too_many_errors(at: TextRange, left_out: usize) -> SyntaxError {
    SyntaxError {
        replacement: None,
        code: SyntaxErrorCode::P100,
        range: at,
        message: format!("too many syntax errors: {left_out} more not reported"),
    }
}

/// Source order, one error per start offset: where two start together the higher code
/// wins, so that invalid UTF-8 (P103) is never hidden by what it broke (a P102 bytes
/// literal, say).
pub(crate) fn order_errors(errors: &mut Vec<SyntaxError>) {
    errors.sort_by_key(|e| (e.range.start(), std::cmp::Reverse(e.code)));
    errors.dedup_by(|later, earlier| later.range.start() == earlier.range.start());
}

/// A name token: `%x` and `@x` lose their sigil in [`Name::text`].
pub(crate) fn name(text: &str, span: Span) -> Name {
    let r = range(span);
    let s = &text[r];
    let s = s.strip_prefix(['%', '@']).unwrap_or(s);
    Name {
        text: crate::ast::SmolStr::new(s),
        range: r,
    }
}

/// One token of kind `kind`, as a [`Name`].
pub(crate) fn named<'a>(
    text: &'a str,
    kind: Token,
) -> impl Parser<'a, In<'a>, Name, Extra<'a>> + Clone {
    just(kind).map_with(move |_, e| name(text, e.span()))
}

/// `p`, or — reporting what was expected — nothing.
pub(crate) fn or_expected<'a, O: 'a>(
    p: impl Parser<'a, In<'a>, O, Extra<'a>> + Clone,
) -> impl Parser<'a, In<'a>, Option<O>, Extra<'a>> + Clone {
    p.map(Some).recover_with(via_parser(empty().map(|()| None)))
}

/// The whole file as a flat list of statements (see [`FlatStmt`]): kernel and loop headers
/// with their `{`, each `}`, and the declarations and ops between them. Anything that does
/// not start a statement is reported once and skipped to the next statement start or `}`.
/// The reader keeps no state from one statement to the next (not even how deep it is), so
/// that a run of statements reads the same alone as in its file; how they nest, and what
/// stands outside every kernel, is the assembler's business ([`crate::assemble`]). It stops
/// at the first statement that starts at or after byte `end` (look-ahead).
fn statements_parser<'a>(
    text: &'a str,
    end: usize,
    check: &'a dyn Fn(),
) -> impl Parser<'a, In<'a>, (Vec<FlatStmt>, Option<TextSize>), Extra<'a>> {
    let kernel = kernel_header_parser(text);
    let for_loop = loop_header_parser(text);
    let stmt = stmt_parser(text);
    custom(move |inp: &mut Inp<'a, '_>| {
        let mut out = Vec::new();
        let mut stopped_at = None;
        while let (Some(tok), span, next) = peek2(inp) {
            if out.len().is_multiple_of(CHECK_EVERY) {
                check();
            }
            if span.start >= end {
                // Look-ahead: read, never parsed (chumsky wants the input consumed).
                stopped_at = TextSize::try_from(span.start).ok();
                while inp.next().is_some() {}
                break;
            }
            match tok {
                Token::Newline => inp.skip(),
                // Any `kernel` starts a kernel (its header reports what is missing).
                Token::Kernel => {
                    if let Ok(header) = parse_or_skip(inp, text, &kernel, Stop::Stmt) {
                        out.push(FlatStmt::Kernel(header));
                    }
                }
                Token::RBrace => {
                    inp.skip();
                    out.push(FlatStmt::Close(range(span)));
                }
                Token::For => {
                    if let Ok(header) = parse_or_skip(inp, text, &for_loop, Stop::Stmt) {
                        out.push(FlatStmt::Loop(header));
                    }
                }
                t if is_stmt_start(text, t, span, next) => {
                    if let Ok(s) = parse_or_skip(inp, text, &stmt, Stop::Stmt) {
                        out.push(FlatStmt::Stmt(s));
                    }
                }
                Token::Error => {
                    skip_junk(inp, text, Stop::Stmt, true);
                }
                _ => {
                    emit_expected(inp, &[Exp::Label("statement"), Exp::Tok(Token::RBrace)]);
                    skip_junk(inp, text, Stop::Stmt, true);
                }
            }
        }
        Ok((out, stopped_at))
    })
}

/// `kernel @name(params) [-> (params)] {`.
fn kernel_header_parser<'a>(
    text: &'a str,
) -> impl Parser<'a, In<'a>, KernelHeader, Extra<'a>> + Clone {
    let params = comma_list(
        text,
        Token::LParen,
        Token::RParen,
        param_parser(text),
        "parameter",
        false,
        |_| None,
    );
    // A name without its `@` is reported but kept, so the signature (and every use of its
    // parameters) is still read: one mistake, one diagnostic.
    let bare_name = plain_ident(text).validate(|name, e, emitter| {
        emitter.emit(Rich::custom(
            e.span(),
            format!(
                "expected `@name`, found `{}`: a kernel name starts with `@`",
                name.text
            ),
        ));
        name
    });
    just(Token::Kernel)
        .ignore_then(or_expected(
            named(text, Token::Global).or(bare_name).labelled("`@name`"),
        ))
        .then(or_expected(params.clone()))
        .then(just(Token::Arrow).ignore_then(or_expected(params)).or_not())
        .then(open_after_header(
            text,
            &[Exp::Tok(Token::Arrow), Exp::Tok(Token::LBrace)],
        ))
        .map_with(|(((name, params), outputs), open), e| KernelHeader {
            range: range(e.span()),
            name,
            params: params.map(|g| g.items).unwrap_or_default(),
            outputs: outputs.flatten().map(|g| g.items).unwrap_or_default(),
            open,
        })
}

/// The start of the line holding byte `at` (after its `\n`) when only white space comes
/// between them, else `None` (also on the first line). Reads back over that white space
/// only, never the whole line (a test per header on a long line must not cost the line).
fn line_start_if_first(text: &str, at: usize) -> Option<usize> {
    let (i, c) = text
        .get(..at)?
        .char_indices()
        .rev()
        .find(|&(_, c)| c == '\n' || !c.is_whitespace())?;
    (c == '\n').then_some(i + 1)
}

/// The `{` after a kernel or loop header. Tokens before it are reported once (expecting
/// `expected`) and skipped; a missing `{` is `None` (a header without a body). A header
/// that ends its line without `{`, the next line starting a statement, is reported at its
/// last character, which then stands for the `{`: the lines below, up to the `}` that
/// closes them, are its body (one diagnostic for one missing `{`).
fn open_after_header<'a>(
    text: &'a str,
    expected: &'static [Exp],
) -> impl Parser<'a, In<'a>, Option<TextRange>, Extra<'a>> + Clone {
    custom(move |inp: &mut Inp<'a, '_>| {
        let (tok, span, next) = peek2(inp);
        if let Some(t) = tok
            && t != Token::LBrace
            && is_stmt_start(text, t, span, next)
            && let Some(line_start) = line_start_if_first(text, span.start)
        {
            // The end of the header's line's last token (before any comment, also one
            // holding `//`): where the `{` belongs.
            let header_line = text[..line_start - 1].rfind('\n').map_or(0, |i| i + 1);
            let header = &text[header_line..line_start - 1];
            let (tokens, _) = crate::lexer::lex(header);
            let code_end = tokens
                .iter()
                .rev()
                .find(|(kind, _)| !matches!(kind, Token::Comment | Token::Newline))
                .map_or(0, |(_, r)| usize::from(r.end()));
            let code = header.get(..code_end).unwrap_or_default();
            if let Some(last) = code.chars().next_back() {
                let end = header_line + code.len();
                let at = Span::from(end - last.len_utf8()..end);
                inp.emit(Rich::custom(
                    at,
                    "expected `{` at the end of this line: the statements below are its body",
                ));
                return Ok(Some(range(at)));
            }
        }
        if inp.peek() != Some(Token::LBrace) {
            emit_expected(inp, expected);
            skip_junk(inp, text, Stop::Header, false);
            if inp.peek() != Some(Token::LBrace) {
                return Ok(None);
            }
        }
        let before = inp.cursor();
        inp.skip();
        Ok(Some(range(inp.span_since(&before))))
    })
}

/// `for %var in start..end [step N] {`.
fn loop_header_parser<'a>(text: &'a str) -> impl Parser<'a, In<'a>, LoopHeader, Extra<'a>> + Clone {
    let expr = expr_parser(text);
    let step = just(Token::Step)
        .ignore_then(or_expected(expr.clone()))
        .or_not()
        .map(Option::flatten);
    just(Token::For)
        .ignore_then(or_expected(named(text, Token::Local)))
        .then_ignore(or_expected(just(Token::In)))
        .then(or_expected(expr.clone()))
        .then_ignore(or_expected(just(Token::DotDot)))
        .then(or_expected(expr))
        .then(step)
        .then(open_after_header(text, &[Exp::Tok(Token::LBrace)]))
        .map_with(|((((var, start), end), step), open), e| LoopHeader {
            range: range(e.span()),
            var,
            start,
            end,
            step,
            open,
        })
}

/// `%name: type`.
fn param_parser<'a>(text: &'a str) -> impl Parser<'a, In<'a>, Param, Extra<'a>> + Clone {
    named(text, Token::Local)
        .then_ignore(or_expected(just(Token::Colon)))
        .then(or_expected(type_parser(text)))
        .map_with(|(name, ty), e| Param {
            range: range(e.span()),
            name,
            ty,
        })
        .labelled("parameter `%name: type`")
}

/// `memory dtype[d0, …]`.
fn type_parser<'a>(text: &'a str) -> impl Parser<'a, In<'a>, TypeRef, Extra<'a>> + Clone {
    let dim = choice((
        just(Token::Int).map_with(move |_, e| {
            let r = range(e.span());
            int_value(&text[r])
                .and_then(|v| u64::try_from(v).ok())
                .map(|v| (v, r))
        }),
        just(Token::Error).to(None),
    ))
    .labelled("dimension");
    plain_ident(text)
        .labelled("memory space")
        .then(or_expected(plain_ident(text).labelled("dtype")))
        .then(or_expected(comma_list(
            text,
            Token::LBracket,
            Token::RBracket,
            dim,
            "dimension",
            false,
            |_| None,
        )))
        .map_with(|((memory, dtype), dims), e| TypeRef {
            range: range(e.span()),
            memory,
            dtype,
            dims: dims
                .map(|g| g.items.into_iter().flatten().collect())
                .unwrap_or_default(),
        })
}

/// One declaration or op (the statement loop has already checked how it starts; loops
/// are headers of the flat list, see [`statements_parser`]).
fn stmt_parser<'a>(text: &'a str) -> impl Parser<'a, In<'a>, Stmt, Extra<'a>> + Clone {
    let value = value_parser(text);
    let tensor = just(Token::Tensor)
        .ignore_then(or_expected(named(text, Token::Local)))
        .then_ignore(or_expected(just(Token::Colon)))
        .then(or_expected(type_parser(text)))
        .map_with(|(name, ty), e| {
            Stmt::Tensor(TensorDecl {
                range: range(e.span()),
                name,
                ty,
            })
        });
    let reg = just(Token::Ident)
        .try_map(move |_, span| {
            if &text[range(span)] == "reg" {
                Ok(())
            } else {
                Err(Rich::custom(span, "expected `reg`"))
            }
        })
        .ignore_then(or_expected(named(text, Token::Local)))
        .then_ignore(or_expected(just(Token::Colon)))
        .then(or_expected(plain_ident(text).labelled("dtype")))
        .map_with(|(name, dtype), e| {
            Stmt::Reg(RegDecl {
                range: range(e.span()),
                name,
                dtype,
            })
        });
    let op_id = choice((
        just(Token::OpId).map_with(move |_, e| {
            let r = range(e.span());
            index_value(&text[r]).map(|id| (id, r))
        }),
        just(Token::Error).to(None),
    ));
    let op = named(text, Token::Ident)
        .then(op_id.or_not().map(Option::flatten))
        .then(or_expected(field_block(text, value)))
        .map_with(|((class, id), body), e| {
            Stmt::Op(std::sync::Arc::new(Op {
                range: range(e.span()),
                class,
                id,
                body_range: body.as_ref().map(|b| range(b.span)),
                fields: body.map(|b| b.items).unwrap_or_default(),
            }))
        });
    choice((tensor, reg, op))
}
