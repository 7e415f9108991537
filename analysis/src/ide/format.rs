//! Canonical formatting (`pir fmt`, `textDocument/formatting`; SPEC §9–§10).
//!
//! A token-level formatter that never moves a token to another line and never drops one,
//! so comments and meaning are always kept. It fixes the indentation of statement and field
//! lines (two spaces per enclosing `{`), the spacing inside lines, trailing whitespace, runs
//! of blank lines (at most one), the colons of consecutive `tensor` declarations (aligned)
//! and the final newline. Continuation lines inside `( )` or `[ ]`, and `->` lines of a
//! signature, keep their indentation, so hand-aligned parameters stay aligned. A file with
//! syntax errors is not formatted. See `docs/decisions.md` for the style.

use syntax::{TextRange, Token};

/// The formatted text, or `None` when the text has syntax errors (formatting a broken file
/// could only guess).
pub fn format(text: &str) -> Option<String> {
    syntax::parse(text)
        .errors
        .is_empty()
        .then(|| format_parsed(text))
}

/// [`format`] of a text the caller knows to have no syntax errors (the server knows it
/// from its analysis, chunk by chunk: parsing a 10 MB document whole again to find out
/// held about 500 MB for a moment). Given a text with syntax errors it still keeps every
/// token, but its layout is a guess.
pub fn format_parsed(text: &str) -> String {
    // A byte-order mark is kept as it was (it is no token, so the layout below would drop
    // it).
    if let Some(rest) = text.strip_prefix('\u{FEFF}') {
        return format!("\u{FEFF}{}", format_parsed(rest));
    }
    let (tokens, _) = syntax::lex(text);
    let mut lines: Vec<Vec<(Token, TextRange)>> = vec![Vec::new()];
    for (t, r) in tokens {
        if t == Token::Newline {
            lines.push(Vec::new());
        } else if let Some(line) = lines.last_mut() {
            line.push((t, r));
        }
    }
    let slice = |r: TextRange| &text[usize::from(r.start())..usize::from(r.end())];
    let mut out: Vec<String> = Vec::new();
    // The open brackets, each with whether it is an access's `[` (slices inside).
    let mut stack: Vec<(Token, bool)> = Vec::new();
    let mut blank = false;
    for line in &lines {
        let Some(&(first, first_range)) = line.first() else {
            blank = true;
            continue;
        };
        if blank && !out.is_empty() && !matches!(first, Token::RBrace) {
            out.push(String::new());
        }
        blank = false;
        let inside_parens = matches!(stack.last(), Some((Token::LParen | Token::LBracket, _)));
        let indent = if inside_parens || first == Token::Arrow {
            // A continuation line: keep the author's alignment.
            let line_start = text[..usize::from(first_range.start())]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            text[line_start..usize::from(first_range.start())].replace('\t', "    ")
        } else {
            let closing = usize::from(first == Token::RBrace);
            let depth = stack
                .iter()
                .filter(|(t, _)| *t == Token::LBrace)
                .count()
                .saturating_sub(closing);
            "  ".repeat(depth)
        };
        let mut s = indent;
        let mut prev: Option<Token> = None;
        for (i, &(t, r)) in line.iter().enumerate() {
            if let Some(p) = prev {
                s.push_str(space(p, t, line, i, &stack, text));
            }
            s.push_str(slice(r));
            match t {
                Token::LBrace | Token::LParen => stack.push((t, false)),
                Token::LBracket => stack.push((t, matches!(prev, Some(Token::Local)))),
                Token::RBrace | Token::RParen | Token::RBracket => {
                    stack.pop();
                }
                _ => {}
            }
            prev = Some(t);
        }
        out.push(s);
    }
    align_tensor_colons(&mut out);
    // Keep the file's line ends: CRLF if its first line ends so (SPEC §1 allows both).
    let newline = if text.find('\n').is_some_and(|i| text[..i].ends_with('\r')) {
        "\r\n"
    } else {
        "\n"
    };
    let mut result = out.join(newline);
    result.push_str(newline);
    result
}

/// The whitespace between `prev` and the token at `line[i]`.
fn space(
    prev: Token,
    next: Token,
    line: &[(Token, TextRange)],
    i: usize,
    stack: &[(Token, bool)],
    text: &str,
) -> &'static str {
    use Token as T;
    let in_access = matches!(stack.last(), Some((T::LBracket, true)));
    match (prev, next) {
        (_, T::Comment) => "  ",
        (_, T::Comma) | (T::LParen | T::LBracket, _) | (_, T::RParen | T::RBracket) => "",
        (T::Comma, _) => " ",
        (T::LBrace, T::RBrace) => "",
        (T::Global | T::Ident, T::LParen) => "",
        (T::Local | T::Ident, T::LBracket) => "",
        (_, T::DotDot) | (T::DotDot, _) => "",
        (_, T::Star) | (T::Star, _) => "",
        (T::Colon, _) | (_, T::Colon) if in_access => {
            if slice_is_complex(line, i) {
                " "
            } else {
                ""
            }
        }
        (T::Local, T::Colon) => {
            // `%x: type` in a signature, `tensor %x : type` in a declaration.
            let before = i.checked_sub(2).and_then(|j| line.get(j));
            let declaration = match before {
                Some((T::Tensor, _)) => true,
                Some((T::Ident, range)) => text.get(std::ops::Range::from(*range)) == Some("reg"),
                _ => false,
            };
            if declaration { " " } else { "" }
        }
        (T::Minus, _) if i.checked_sub(1).is_some_and(|j| is_unary(line, j)) => "",
        _ => " ",
    }
}

/// Whether the `-` at `line[i]` is a sign (no operand before it).
fn is_unary(line: &[(Token, TextRange)], i: usize) -> bool {
    !matches!(
        i.checked_sub(1).and_then(|j| line.get(j)).map(|t| t.0),
        Some(
            Token::Int
                | Token::Float
                | Token::Local
                | Token::DimVar
                | Token::RParen
                | Token::RBracket
                | Token::Ident
        )
    )
}

/// Whether the slice around the `:` next to `line[i]` has a `+` or `-` between operands
/// (then its colons are spaced: `%i*128 : %i*128 + 128`; else tight: `0:32`).
fn slice_is_complex(line: &[(Token, TextRange)], i: usize) -> bool {
    let token = |j: usize| line.get(j).map(|t| t.0);
    let bound = |j: usize| {
        matches!(
            token(j),
            Some(Token::Comma | Token::LBracket | Token::RBracket)
        )
    };
    let mut start = i;
    let mut depth = 0i32;
    while start > 0 {
        let t = token(start - 1);
        if depth == 0 && bound(start - 1) {
            break;
        }
        match t {
            Some(Token::RParen) => depth += 1,
            Some(Token::LParen) => depth -= 1,
            _ => {}
        }
        start -= 1;
    }
    let mut end = i;
    depth = 0;
    while end < line.len() && !(depth == 0 && bound(end)) {
        match token(end) {
            Some(Token::LParen) => depth += 1,
            Some(Token::RParen) => depth -= 1,
            _ => {}
        }
        end += 1;
    }
    (start..end).any(|j| match token(j) {
        Some(Token::Plus) => true,
        Some(Token::Minus) => !is_unary(line, j),
        _ => false,
    })
}

/// Pads the names of consecutive `tensor %name : type` lines of equal indentation so that
/// their colons line up.
fn align_tensor_colons(lines: &mut [String]) {
    let key = |l: &str| -> Option<(usize, usize)> {
        let indent = l.len() - l.trim_start().len();
        let rest = l.trim_start().strip_prefix("tensor ")?;
        let name_len = rest.find(" : ")?;
        rest.starts_with('%').then_some((indent, name_len))
    };
    let mut i = 0;
    while i < lines.len() {
        let Some((indent, _)) = lines.get(i).and_then(|l| key(l)) else {
            i += 1;
            continue;
        };
        let mut j = i;
        let mut width = 0;
        while let Some(line) = lines.get(j) {
            match key(line) {
                Some((ind, len)) if ind == indent => width = width.max(len),
                _ => break,
            }
            j += 1;
        }
        for line in lines.iter_mut().take(j).skip(i) {
            if let Some((_, len)) = key(line) {
                let at = indent + "tensor ".len() + len;
                line.insert_str(at, &" ".repeat(width - len));
            }
        }
        i = j;
    }
}

/// The edits that format the lines `range` touches (`textDocument/rangeFormatting`, so
/// that an editor's "format these lines" — Neovim's `gq` — formats instead of wrapping):
/// the difference between `text` and [`format`]`(text)`, as non-overlapping replacements
/// of byte ranges of `text` (UTF-8), keeping those that touch a line of `range`. Since the
/// formatter never moves a token to another line, the lines outside the range keep their
/// text. `None` when the text has syntax errors.
pub fn format_range(text: &str, range: TextRange) -> Option<Vec<(TextRange, String)>> {
    let formatted = format(text)?;
    Some(range_edits(text, &formatted, range))
}

/// The replacements of [`format_range`], given `formatted`, the text [`format`] makes of
/// `text`.
pub fn range_edits(text: &str, formatted: &str, range: TextRange) -> Vec<(TextRange, String)> {
    // The whole lines of `range`: from the start of its first line to the end of its last.
    let start = usize::from(range.start()).min(text.len());
    let end = usize::from(range.end()).clamp(start, text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let mut edits: Vec<(TextRange, String)> = Vec::new();
    let mut at = 0usize;
    let mut pending: Option<(usize, usize, String)> = None;
    for chunk in dissimilar::diff(text, formatted) {
        match chunk {
            dissimilar::Chunk::Equal(s) => {
                edits.extend(pending.take().map(|(from, to, new)| (span(from, to), new)));
                at += s.len();
            }
            dissimilar::Chunk::Delete(s) => {
                let edit = pending.get_or_insert((at, at, String::new()));
                at += s.len();
                edit.1 = at;
            }
            dissimilar::Chunk::Insert(s) => {
                pending.get_or_insert((at, at, String::new())).2.push_str(s);
            }
        }
    }
    edits.extend(pending.map(|(from, to, new)| (span(from, to), new)));
    let touches = |r: &TextRange| {
        let (from, to) = (usize::from(r.start()), usize::from(r.end()));
        from < line_end && (to > line_start || (from == to && from >= line_start))
    };
    edits.into_iter().filter(|(r, _)| touches(r)).collect()
}

/// The byte range `from..to` (offsets of a text that fits `TextSize`, as every parsed text).
fn span(from: usize, to: usize) -> TextRange {
    let size = |n: usize| syntax::TextSize::from(u32::try_from(n).unwrap_or(u32::MAX));
    TextRange::new(size(from), size(to))
}

#[cfg(test)]
mod tests {
    use super::{format, format_range};
    use syntax::{TextRange, TextSize};

    /// `text` with the edits of `format_range` over `lines` (0-based, inclusive) applied.
    fn format_lines(text: &str, lines: std::ops::RangeInclusive<usize>) -> Option<String> {
        let offset = |line: usize| {
            text.split_inclusive('\n')
                .take(line)
                .map(str::len)
                .sum::<usize>()
        };
        let size = |n: usize| TextSize::from(u32::try_from(n).expect("small"));
        let range = TextRange::new(size(offset(*lines.start())), size(offset(*lines.end())));
        let edits = format_range(text, range)?;
        let mut out = text.to_string();
        for (r, new) in edits.iter().rev() {
            out.replace_range(usize::from(r.start())..usize::from(r.end()), new);
        }
        Some(out)
    }

    #[test]
    fn formats_only_the_lines_of_the_range() {
        let text = "kernel @k(%x: hbm f32[4]) {\n      NoOp{}\n  NoOp   {}\n    NoOp {  }\n}\n";
        assert_eq!(
            format_lines(text, 2..=2).as_deref(),
            Some("kernel @k(%x: hbm f32[4]) {\n      NoOp{}\n  NoOp {}\n    NoOp {  }\n}\n")
        );
        assert_eq!(format_lines(text, 0..=4), format(text));
        assert_eq!(format_range("kernel @k( {", TextRange::default()), None);
    }

    #[test]
    fn normalizes_indentation_and_spacing() {
        let text = "kernel @k(%x:hbm f32[128,4])->(%y: hbm f32[128, 4]){\n\n\n tensor %t:sbuf f32[128,4]\n    tensor %long_name : sbuf f32[128, 4]   \nfor %i in 0 .. 2 {\nDmaCopyOp{dst=%t[%i*64 : %i*64+64,0:4],src=%x}   // copy\n  }\n  MemsetOp { dst = %t, value = - 1 }\n}";
        let expected = "kernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {\n\n  tensor %t         : sbuf f32[128, 4]\n  tensor %long_name : sbuf f32[128, 4]\n  for %i in 0..2 {\n    DmaCopyOp { dst = %t[%i*64 : %i*64 + 64, 0:4], src = %x }  // copy\n  }\n  MemsetOp { dst = %t, value = -1 }\n}\n";
        assert_eq!(format(text).as_deref(), Some(expected));
        assert_eq!(format(expected).as_deref(), Some(expected));
    }

    #[test]
    fn keeps_crlf_line_ends() {
        let text = "kernel @k(%x: hbm f32[4]) {\r\n    NoOp {}\r\n}\r\n";
        assert_eq!(
            format(text).as_deref(),
            Some("kernel @k(%x: hbm f32[4]) {\r\n  NoOp {}\r\n}\r\n")
        );
    }

    #[test]
    fn keeps_continuation_alignment_and_refuses_broken_files() {
        let text = "kernel @k(%a: hbm f32[4],\n          %b: hbm f32[4])\n    -> (%c: hbm f32[4]) {\n  NoOp {}\n}\n";
        assert_eq!(format(text).as_deref(), Some(text));
        assert_eq!(format("kernel @k( {"), None);
    }
}

#[cfg(test)]
mod bom_tests {
    #[test]
    fn a_byte_order_mark_is_kept() {
        let text = "\u{FEFF}kernel @k() {\n    NoOp   {}\n}\n";
        let formatted = super::format(text).expect("no syntax error");
        assert!(formatted.starts_with("\u{FEFF}kernel"), "{formatted:?}");
        assert_eq!(
            super::format(&formatted).as_deref(),
            Some(formatted.as_str())
        );
    }
}
