//! The lexer (SPEC §2): text → tokens with UTF-8 byte ranges, plus lexical errors.
//!
//! Lexing never fails. [`logos`] does the raw tokenization into a private [`Raw`] kind; a
//! post-pass then classifies numbers, validates literals and coalesces unknown characters,
//! so that the public [`Token`] stays a plain `Copy` kind (the parser reads literal values
//! back from the token's text, see `literal.rs`; so can the language server).
//!
//! Lexical errors (SPEC §7):
//! * P103 — a run of unknown characters, one error per run (characters separated only by
//!   spaces or tabs count as one run). U+FFFD, which [`decode`](crate::decode) puts in place
//!   of invalid UTF-8, is reported as "invalid UTF-8" when it appears outside a comment or
//!   string. A lone sigil (`%`, `@`, `#`, `$` with no name or number after it) is a P103 too,
//!   and so is a block comment `/* … */` (to its `*/` on the same line, else to the end of
//!   the line), which is then skipped as a comment.
//! * P102 — a malformed number (`12ab`, `0x`, an `i64` overflow, an op id or dim var that
//!   does not fit `u32`), and a malformed bytes literal (a non-hex character, or an odd
//!   number of hex digits): one error per literal.
//! * P101 — an unterminated string or bytes literal (strings end at the end of their line).
//! * P100 — an unknown escape in a string (`\q`): "expected an escape …, found `\q`".
//!
//! A token with a lexical error keeps its kind (an unterminated string is still a
//! [`Token::Str`], useful for highlighting), but the parser sees it as [`Token::Error`]
//! (an op id excepted), so that its value becomes an error node without a second
//! diagnostic.

use std::fmt;

use logos::Logos;
use text_size::{TextRange, TextSize};

use crate::literal::{
    bad_escape, bytes_error, float_overflows, float_value, index_value, int_value_in_range,
    number_kind,
};
use crate::{SyntaxError, SyntaxErrorCode};

/// A token kind (SPEC §2). Values are read back from the text of the token's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Token {
    /// `// …` up to (not including) the end of the line. Never reaches the parser.
    Comment,
    /// A line end: `\n`, or `\r\n` as one token. Significant only inside op and
    /// record bodies (SPEC §2 "Newlines").
    Newline,
    /// `kernel`
    Kernel,
    /// `tensor`
    Tensor,
    /// `for`
    For,
    /// `in`
    In,
    /// `step`
    Step,
    /// `true`
    True,
    /// `false`
    False,
    /// An identifier `[A-Za-z_][A-Za-z0-9_]*`, including the word `reg`, which is a keyword
    /// only at the start of a statement (the parser decides; use the AST's
    /// [`RegDecl`](crate::RegDecl) range to highlight it).
    Ident,
    /// `%name`
    Local,
    /// `@name`
    Global,
    /// `#N`, an op id.
    OpId,
    /// `$N`, a dim variable.
    DimVar,
    /// An integer: decimal or `0x` hex, `_` separators allowed.
    Int,
    /// A float: `1.0`, `1e-6`, `inf`, `nan` (a sign is a separate [`Token::Minus`]).
    Float,
    /// `"…"` (possibly unterminated, then with a P101).
    Str,
    /// `x"de ad"` (possibly unterminated or malformed, then with an error).
    Bytes,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `=`
    Eq,
    /// `..`
    DotDot,
    /// `->`
    Arrow,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `==`
    EqEq,
    /// `!=`
    Ne,
    /// A run of unknown characters (or, in the parser's input, any token with a lexical
    /// error or a region nested too deeply). Its error has already been reported.
    Error,
}

impl Token {
    /// Keywords: usable as field names (SPEC §3 `field`).
    pub fn is_keyword(self) -> bool {
        matches!(
            self,
            Token::Kernel
                | Token::Tensor
                | Token::For
                | Token::In
                | Token::Step
                | Token::True
                | Token::False
        )
    }

    /// The fixed spelling of punctuation and keywords; `None` for the other kinds.
    pub fn as_str(self) -> Option<&'static str> {
        Some(match self {
            Token::Kernel => "kernel",
            Token::Tensor => "tensor",
            Token::For => "for",
            Token::In => "in",
            Token::Step => "step",
            Token::True => "true",
            Token::False => "false",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::Eq => "=",
            Token::DotDot => "..",
            Token::Arrow => "->",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Ge => ">=",
            Token::Gt => ">",
            Token::Le => "<=",
            Token::Lt => "<",
            Token::EqEq => "==",
            Token::Ne => "!=",
            _ => return None,
        })
    }
}

/// How a token kind is named in "expected …" messages: "`=`", "identifier", "newline".
impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = self.as_str() {
            return write!(f, "`{s}`");
        }
        f.write_str(match self {
            Token::Comment => "comment",
            Token::Newline => "newline",
            Token::Ident => "identifier",
            Token::Local => "`%name`",
            Token::Global => "`@name`",
            Token::OpId => "op id `#N`",
            Token::DimVar => "dim variable `$N`",
            Token::Int => "integer",
            Token::Float => "float",
            Token::Str => "string",
            Token::Bytes => "bytes literal",
            _ => "invalid token",
        })
    }
}

/// The characters the lexer skips between tokens (as its `skip` pattern: a lone `\r` is
/// one, reported apart, [`lone_carriage_returns`]).
pub(crate) const SKIPPED: [char; 5] = [' ', '\t', '\r', '\u{c}', '\u{FEFF}'];

/// The raw logos tokens. Numbers are matched loosely (`[0-9][0-9A-Za-z_]*` with an optional
/// fraction and signed exponent) and classified afterwards, so that `12ab` is one malformed
/// number rather than `12` followed by `ab`.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
// U+FEFF: a byte-order mark some editors put first; harmless anywhere as whitespace.
#[logos(skip r"[ \t\r\f\u{FEFF}]+")]
enum Raw {
    #[regex(r"//[^\n]*", allow_greedy = true)]
    Comment,
    /// `/* … */` (closed on its line) or `/*` to the end of its line: not in the language
    /// (SPEC §2 has `//` comments only), one P103, then skipped as a comment is.
    #[regex(r"/\*([^*\r\n]|\*+[^*/\r\n])*\*+/")]
    #[regex(r"/\*([^*\r\n]|\*+[^*/\r\n])*\**", allow_greedy = true)]
    BlockComment,
    #[token("\n")]
    Newline,
    #[token("kernel")]
    Kernel,
    #[token("tensor")]
    Tensor,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("step")]
    Step,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("inf")]
    #[token("nan")]
    FloatWord,
    // A dotted name (`nl.exp`, `nki.language.multiply`, as written in NKI) is one token, so
    // that it is one unknown name with a did-you-mean, not a name and a stray `.`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")]
    Ident,
    #[regex(r"%[A-Za-z_][A-Za-z0-9_]*")]
    Local,
    #[regex(r"@[A-Za-z_][A-Za-z0-9_]*")]
    Global,
    #[regex(r"#[0-9][0-9A-Za-z_]*")]
    OpId,
    #[regex(r"\$[0-9][0-9A-Za-z_]*")]
    DimVar,
    #[regex(r"[0-9][0-9A-Za-z_]*(\.[0-9][0-9A-Za-z_]*)?")]
    #[regex(r"[0-9][0-9_]*(\.[0-9][0-9A-Za-z_]*)?[eE][+-][0-9A-Za-z_]*")]
    Number,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    #[regex(r#""([^"\\\n]|\\[^\n])*\\?"#)]
    StrUnterminated,
    #[regex(r#"x"[^"\n]*""#)]
    Bytes,
    #[regex(r#"x"[^"\n]*"#)]
    BytesUnterminated,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    /// `;`, which the language does not have: read as the `,` it stands for, with a P103.
    #[token(";")]
    Semicolon,
    #[token(":")]
    Colon,
    #[token("=")]
    Eq,
    #[token("..")]
    DotDot,
    #[token("->")]
    Arrow,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token(">=")]
    Ge,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token("<")]
    Lt,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
}

/// One token of [`lex_detailed`]: its kind, its range, and whether it carries a lexical
/// error (then the parser treats it as [`Token::Error`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lexed {
    pub kind: Token,
    pub range: TextRange,
    pub bad: bool,
}

/// Lexes a whole text: every token in order, comments and newlines included, and the
/// lexical errors (P100–P103, see the module docs) in source order. Never fails.
///
/// Ranges are UTF-8 byte offsets. Whitespace other than `\n` is skipped; a run of unknown
/// characters is one [`Token::Error`] with one P103.
pub fn lex(text: &str) -> (Vec<(Token, TextRange)>, Vec<SyntaxError>) {
    let (tokens, errors) = lex_detailed(text);
    (
        tokens.into_iter().map(|t| (t.kind, t.range)).collect(),
        errors,
    )
}

/// The first `n` tokens of `text` other than comments (newlines included), lexed lazily:
/// what telling a line's start needs, at a cost that does not grow with the line (a line
/// may hold a whole kernel). Kinds and ranges as [`lex`] gives them, but that a run of
/// unknown characters may be several [`Token::Error`]s.
pub fn first_tokens(text: &str, n: usize) -> Vec<(Token, TextRange)> {
    let mut out = Vec::with_capacity(n);
    let mut lexer = Raw::lexer(text);
    while out.len() < n
        && let Some(raw) = lexer.next()
    {
        let span = lexer.span();
        let range = TextRange::new(to_size(span.start), to_size(span.end));
        let kind = match raw {
            Ok(raw) => classify(raw, lexer.slice()).0,
            Err(_) => Token::Error,
        };
        if kind != Token::Comment {
            out.push((kind, range));
        }
    }
    out
}

/// [`lex`], keeping for each token whether it had a lexical error.
pub(crate) fn lex_detailed(text: &str) -> (Vec<Lexed>, Vec<SyntaxError>) {
    lex_checked(text, &|| ())
}

/// [`lex_detailed`], calling `check` (a cancellation check) every few thousand tokens.
pub(crate) fn lex_checked(text: &str, check: &dyn Fn()) -> (Vec<Lexed>, Vec<SyntaxError>) {
    let mut out: Vec<Lexed> = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Raw::lexer(text);
    while let Some(raw) = lexer.next() {
        if out.len().is_multiple_of(4096) {
            check();
        }
        let span = lexer.span();
        let mut range = TextRange::new(to_size(span.start), to_size(span.end));
        if matches!(
            raw,
            Ok(Raw::Comment | Raw::StrUnterminated | Raw::BytesUnterminated)
        ) && text[span.clone()].ends_with('\r')
        {
            // A CRLF line end is not part of the comment (nor of a string left open at the
            // end of its line: its P101 would end past the line, on the `\r`).
            range = TextRange::new(range.start(), range.end() - TextSize::of('\r'));
        }
        if matches!(raw, Ok(Raw::Newline)) && text[..span.start].ends_with('\r') {
            // A CRLF line end is one newline token, so that "found newline" points at the
            // end of the line's text (the `\r`), not one column past it.
            range = TextRange::new(range.start() - TextSize::of('\r'), range.end());
        }
        let slice = lexer.slice();
        let Ok(raw) = raw else {
            // Coalesce with the previous error token when only spaces or tabs separate them.
            if let Some(last) = out.last_mut()
                && last.kind == Token::Error
                && text[usize::from(last.range.end())..span.start]
                    .bytes()
                    .all(|b| b == b' ' || b == b'\t')
            {
                last.range = last.range.cover(range);
            } else {
                out.push(Lexed {
                    kind: Token::Error,
                    range,
                    bad: true,
                });
            }
            continue;
        };
        let (kind, mut error) = classify(raw, slice);
        // `-9223372036854775808` (i64's least) is a `-` and 2^63: the magnitude is read
        // right after a `-` (the parser reads it as i64::MIN, which `-` leaves as it is).
        if kind == Token::Int
            && crate::literal::is_i64_min_magnitude(slice)
            && out
                .last()
                .is_some_and(|t| t.kind == Token::Minus && t.range.end() == range.start())
        {
            error = None;
        }
        // A negative integer out of range is quoted with its `-` (a `-` and the magnitude
        // to the lexer).
        if kind == Token::Int
            && let Some((SyntaxErrorCode::P102, message, at)) = &mut error
            && out
                .last()
                .is_some_and(|t| t.kind == Token::Minus && t.range.end() == range.start())
        {
            *message = int_out_of_range(&format!("-{}", shorten(slice)));
            *at = None;
        }
        let mut bad = false;
        if let Some((code, message, at)) = error {
            // A bad escape leaves the string readable, and a `;` reads as the `,` it stands
            // for (and is fixed by one); other errors make the token unreadable.
            let semicolon = raw == Raw::Semicolon;
            bad = code != SyntaxErrorCode::P100 && !semicolon;
            let at = at.map_or(range, |r| r + range.start());
            errors.push(SyntaxError {
                code,
                range: at,
                message,
                replacement: semicolon.then_some(","),
            });
        }
        out.push(Lexed { kind, range, bad });
    }
    // One P103 per error run, now that runs are complete.
    for t in out.iter().filter(|t| t.kind == Token::Error) {
        errors.push(unknown_error(&text[t.range], t.range));
    }
    errors.sort_by_key(|e| (e.range.start(), e.range.end()));
    (out, errors)
}

/// The lone carriage returns of `text[..end]` (each a `\r` not followed by `\n`; SPEC §1
/// allows LF and CRLF line ends only, and an editor that shows a lone CR as a line end
/// would show code the lexer reads as part of a comment): the first one's range and how
/// many there are. A whole text reports them as one P103 ([`lone_carriage_return_error`]);
/// a document kept in chunks adds up its chunks' (`analysis::document`).
pub fn lone_carriage_returns(text: &str, end: usize) -> Option<(TextRange, usize)> {
    let bytes = text.as_bytes();
    let bytes_before_end = &bytes[..end.min(bytes.len())];
    let lone = |i: &usize| bytes.get(i + 1) != Some(&b'\n');
    let mut positions = memchr_iter(b'\r', bytes_before_end).filter(lone);
    let first = positions.next()?;
    Some((
        TextRange::at(to_size(first), TextSize::of('\r')),
        positions.count() + 1,
    ))
}

/// The one P103 for `count` lone carriage returns, at the first one (`at`).
pub fn lone_carriage_return_error(at: TextRange, count: usize) -> SyntaxError {
    let message = if count <= 1 {
        "a lone carriage return: lines end with LF or CRLF".to_string()
    } else {
        format!("a lone carriage return ({count} in the file): lines end with LF or CRLF")
    };
    SyntaxError {
        replacement: None,
        code: crate::SyntaxErrorCode::P103,
        range: at,
        message,
    }
}

/// The positions of `byte` in `bytes`.
fn memchr_iter(byte: u8, bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(move |(_, b)| **b == byte)
        .map(|(i, _)| i)
}

/// A byte offset as a [`TextSize`].
pub(crate) fn to_size(offset: usize) -> TextSize {
    // Texts over 4 GiB are not supported by `text-size`; saturate rather than panic.
    TextSize::new(u32::try_from(offset).unwrap_or(u32::MAX))
}

/// A lexical error found in one token: code, message, and its range relative to the token
/// (`None`: the whole token).
pub(crate) type TokenError = (SyntaxErrorCode, String, Option<TextRange>);

/// The P102 message of an integer literal past i64 (`text` as written, shortened).
fn int_out_of_range(text: &str) -> String {
    format!("integer out of range `{text}`")
}

/// Maps a raw token to its public kind and validates literals.
fn classify(raw: Raw, slice: &str) -> (Token, Option<TokenError>) {
    use SyntaxErrorCode::*;
    let simple = |t| (t, None);
    match raw {
        Raw::Comment => simple(Token::Comment),
        Raw::BlockComment => (
            Token::Comment,
            Some((
                P103,
                "`/* */` is not a comment in Penguin IR: comments are `//` to the end of the \
                 line"
                    .to_string(),
                None,
            )),
        ),
        Raw::Newline => simple(Token::Newline),
        Raw::Kernel => simple(Token::Kernel),
        Raw::Tensor => simple(Token::Tensor),
        Raw::For => simple(Token::For),
        Raw::In => simple(Token::In),
        Raw::Step => simple(Token::Step),
        Raw::True => simple(Token::True),
        Raw::False => simple(Token::False),
        Raw::FloatWord => simple(Token::Float),
        Raw::Ident => simple(Token::Ident),
        Raw::Local => simple(Token::Local),
        Raw::Global => simple(Token::Global),
        Raw::OpId | Raw::DimVar => {
            let kind = if raw == Raw::OpId {
                Token::OpId
            } else {
                Token::DimVar
            };
            let error = index_value(slice)
                .is_none()
                .then(|| (P102, format!("malformed number `{}`", shorten(slice)), None));
            (kind, error)
        }
        Raw::Number => match number_kind(slice) {
            Some(kind) => {
                let ok = match kind {
                    Token::Int => int_value_in_range(slice).is_some(),
                    _ => float_value(slice).is_some(),
                };
                let error = (!ok).then(|| {
                    if kind == Token::Float && float_overflows(slice) {
                        // SPEC §2 [2]: never a silent infinity.
                        let message = format!(
                            "number `{}` rounds to infinity as an f64 (the largest is \
                             1.7976931348623157e308; write `inf` for infinity)",
                            shorten(slice)
                        );
                        return (P102, message, None);
                    }
                    let message = if kind == Token::Int {
                        int_out_of_range(&shorten(slice))
                    } else {
                        format!("malformed number `{}`", shorten(slice))
                    };
                    (P102, message, None)
                });
                (kind, error)
            }
            None => (
                Token::Int,
                Some((P102, format!("malformed number `{}`", shorten(slice)), None)),
            ),
        },
        Raw::Str => (Token::Str, bad_escape(slice)),
        Raw::StrUnterminated => (
            Token::Str,
            Some((
                P101,
                "unterminated string: expected `\"` before the end of the line".into(),
                None,
            )),
        ),
        Raw::Bytes => (Token::Bytes, bytes_error(slice)),
        Raw::BytesUnterminated => (
            Token::Bytes,
            Some((
                P101,
                "unterminated bytes literal: expected `\"` before the end of the line".into(),
                None,
            )),
        ),
        Raw::LBrace => simple(Token::LBrace),
        Raw::RBrace => simple(Token::RBrace),
        Raw::LBracket => simple(Token::LBracket),
        Raw::RBracket => simple(Token::RBracket),
        Raw::LParen => simple(Token::LParen),
        Raw::RParen => simple(Token::RParen),
        Raw::Comma => simple(Token::Comma),
        Raw::Semicolon => (
            Token::Comma,
            Some((
                P103,
                "unknown character `;`: fields are separated by `,` or a new line".to_string(),
                None,
            )),
        ),
        Raw::Colon => simple(Token::Colon),
        Raw::Eq => simple(Token::Eq),
        Raw::DotDot => simple(Token::DotDot),
        Raw::Arrow => simple(Token::Arrow),
        Raw::Plus => simple(Token::Plus),
        Raw::Minus => simple(Token::Minus),
        Raw::Star => simple(Token::Star),
        Raw::Ge => simple(Token::Ge),
        Raw::Gt => simple(Token::Gt),
        Raw::Le => simple(Token::Le),
        Raw::Lt => simple(Token::Lt),
        Raw::EqEq => simple(Token::EqEq),
        Raw::Ne => simple(Token::Ne),
    }
}

/// The P103 of a run of unknown characters.
fn unknown_error(run: &str, range: TextRange) -> SyntaxError {
    let message = if run.contains('\u{FFFD}') {
        if run
            .chars()
            .all(|c| c == '\u{FFFD}' || c == ' ' || c == '\t')
        {
            "invalid UTF-8".to_string()
        } else {
            format!("invalid UTF-8 and unknown characters `{}`", shorten(run))
        }
    } else if matches!(run, "%" | "@" | "#" | "$") {
        let what = if matches!(run, "%" | "@") {
            "a name"
        } else {
            "a number"
        };
        format!("unknown character `{run}`: expected {what} right after it")
    } else if run.chars().count() == 1 {
        format!("unknown character `{}`", shorten(run))
    } else {
        format!("unknown characters `{}`", shorten(run))
    };
    SyntaxError {
        replacement: None,
        code: SyntaxErrorCode::P103,
        range,
        message,
    }
}

/// At most 24 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> String {
    let short = match s.char_indices().nth(24) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    };
    // A control character from the file (ESC, say) must not reach a terminal raw.
    if short.chars().any(char::is_control) {
        short.escape_debug().to_string()
    } else {
        short
    }
}
