//! Literal values (SPEC §2): reading and validating the text of number, string and bytes
//! tokens. The lexer validates (and reports); the parser reads values back quietly.

use text_size::{TextRange, TextSize};

use crate::SyntaxErrorCode;
use crate::lexer::{Token, TokenError, to_size};

/// Whether a loosely matched number is an integer or a float (`None`: neither).
pub(crate) fn number_kind(s: &str) -> Option<Token> {
    let s_lower = s.to_ascii_lowercase();
    if let Some(hex) = s_lower.strip_prefix("0x") {
        let digits: String = hex.chars().filter(|&c| c != '_').collect();
        return (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_hexdigit()))
            .then_some(Token::Int);
    }
    let is_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let (mantissa, exponent) = match s_lower.split_once('e') {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (s_lower.as_str(), None),
    };
    let (int_part, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    if !is_digits(int_part)
        || frac.is_some_and(|f| !is_digits(f))
        || exponent.is_some_and(|e| !is_digits(e))
    {
        return None;
    }
    Some(if frac.is_none() && exponent.is_none() {
        Token::Int
    } else {
        Token::Float
    })
}

/// The value of an [`Token::Int`] token's text; `None` when malformed or beyond `i64`.
pub(crate) fn int_value(s: &str) -> Option<i64> {
    int_value_in_range(s).or_else(|| is_i64_min_magnitude(s).then_some(i64::MIN))
}

/// Whether `s` is 2^63 written in decimal (`9223372036854775808`, `_` allowed): the
/// magnitude of i64's least value, which only a `-` right before it makes a value (the
/// lexer reports it otherwise; [`int_value`] reads it as `i64::MIN`, which negation
/// leaves as it is).
pub(crate) fn is_i64_min_magnitude(s: &str) -> bool {
    s.replace('_', "") == "9223372036854775808"
}

/// [`int_value`] of a literal within i64's range.
pub(crate) fn int_value_in_range(s: &str) -> Option<i64> {
    let cleaned;
    let s = if s.contains('_') {
        cleaned = s.replace('_', "");
        cleaned.as_str()
    } else {
        s
    };
    let (radix, digits) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, s),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    i64::from_str_radix(digits, radix).ok()
}

/// The value of a [`Token::Float`] token's text (`inf`, `nan`, `1.5e-3`, `1_000.0`).
///
/// `None` when malformed, and (SPEC §2 [2]) when a written number rounds to infinity as an
/// f64 (`1e400`): only the word `inf` is infinite.
pub(crate) fn float_value(s: &str) -> Option<f64> {
    match s {
        "inf" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => {
            let cleaned: String = s.chars().filter(|&c| c != '_').collect();
            number_kind(s)
                .and(cleaned.parse::<f64>().ok())
                .filter(|v| v.is_finite())
        }
    }
}

/// Whether a float token's text is well formed but rounds to infinity as an f64 (`1e400`;
/// SPEC §2 [2], P102).
pub(crate) fn float_overflows(s: &str) -> bool {
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    number_kind(s).is_some() && cleaned.parse::<f64>().is_ok_and(f64::is_infinite)
}

/// The number of an op id `#N` or dim var `$N` (sigil included in `s`).
pub(crate) fn index_value(s: &str) -> Option<u32> {
    let digits = s.get(1..)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The first unknown escape of a terminated string, as a P100 relative to the token.
pub(crate) fn bad_escape(s: &str) -> Option<TokenError> {
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            continue;
        }
        let (j, e) = chars.next()?;
        let ok = match e {
            '"' | '\\' | 'n' | 't' => true,
            'u' => unicode_escape(&s[j + 1..]).is_some(),
            _ => false,
        };
        if !ok {
            let mut end = j + e.len_utf8();
            if e == 'u' && s[end..].starts_with('{') {
                // Cover the whole `\u{…}` when it is closed on this line.
                if let Some(close) = s[end..].find('}') {
                    end += close + 1;
                }
            }
            let range = TextRange::new(to_size(i), to_size(end));
            return Some((
                SyntaxErrorCode::P100,
                format!(
                    "expected an escape (`\\\"`, `\\\\`, `\\n`, `\\t` or `\\u{{…}}`), found `{}`",
                    &s[i..end]
                ),
                Some(range),
            ));
        }
    }
    None
}

/// Parses the `{…}` of a `\u{…}` escape at the start of `s`: the char and the bytes used.
fn unicode_escape(s: &str) -> Option<(char, usize)> {
    let rest = s.strip_prefix('{')?;
    let close = rest.find('}')?;
    let hex = &rest[..close];
    if hex.is_empty() || hex.len() > 6 {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, close + 2))
}

/// The contents of a [`Token::Str`] token's text with escapes resolved. Lenient: an unknown
/// escape is kept as written, a missing closing quote is tolerated.
pub(crate) fn string_value(s: &str) -> String {
    let inner = s.strip_prefix('"').unwrap_or(s);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let rest = chars.as_str();
                match unicode_escape(rest) {
                    Some((c, used)) => {
                        out.push(c);
                        chars = rest[used..].chars();
                    }
                    None => out.push_str("\\u"),
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The hex digits of a bytes literal's text, spaces removed (`None` if not a bytes literal).
fn bytes_digits(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("x\"")?;
    Some(inner.strip_suffix('"').unwrap_or(inner))
}

/// The first problem of a terminated bytes literal, as a P102.
pub(crate) fn bytes_error(s: &str) -> Option<TokenError> {
    let inner = bytes_digits(s)?;
    if let Some((i, c)) = inner
        .char_indices()
        .find(|&(_, c)| c != ' ' && !c.is_ascii_hexdigit())
    {
        let start = to_size(2 + i);
        let range = TextRange::at(start, TextSize::of(c));
        return Some((
            SyntaxErrorCode::P102,
            format!("malformed bytes literal: `{c}` is not a hex digit"),
            Some(range),
        ));
    }
    let digits = inner.bytes().filter(|&b| b != b' ').count();
    (digits % 2 == 1).then(|| {
        (
            SyntaxErrorCode::P102,
            "malformed bytes literal: odd number of hex digits".to_string(),
            None,
        )
    })
}

/// The bytes of a [`Token::Bytes`] token's text; `None` when malformed.
pub(crate) fn bytes_value(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = bytes_digits(s)?.bytes().filter(|&b| b != b' ').collect();
    if digits.len() % 2 == 1 {
        return None;
    }
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}
