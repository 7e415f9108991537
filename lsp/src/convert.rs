//! Every conversion between LSP positions and the analysis' UTF-8 byte offsets, in one
//! place (STYLE: "convert at the edge").
//!
//! Units: LSP lines are 0-based; LSP characters count UTF-8 bytes or UTF-16 code units,
//! as negotiated at `initialize` ([`Encoding`]). Lines end as LSP counts them (SPEC §1
//! [2]): at `\n`, `\r\n` or a lone `\r` (the `\r` of a `\r\n` belongs to no column a
//! client can address), whatever the language makes of a lone `\r`; callers pass the
//! index `analysis::editor_line_index` builds, and the rope counts lines the same way (its
//! `cr_lines` feature). A column past the end of its line is
//! clamped to the line end; a column inside a multi-byte character snaps to that
//! character's start; a line past the last one is an error for requests and the end of the
//! document for edits.

use analysis::{LineIndex, TextRange, TextSize, WideEncoding};
use ropey::Rope;
use tower_lsp_server::ls_types::{
    ClientCapabilities, Position, PositionEncodingKind, Range, TextDocumentContentChangeEvent,
};

/// The negotiated position encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Characters are UTF-8 bytes.
    Utf8,
    /// Characters are UTF-16 code units (the LSP default).
    Utf16,
}

impl Encoding {
    /// UTF-8 when the client offers it, else UTF-16 (SPEC §10).
    pub fn negotiate(capabilities: &ClientCapabilities) -> Encoding {
        let offered = capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    /// The LSP kind to announce.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// A position that names no place in the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError(pub String);

impl std::fmt::Display for PositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The LSP position of byte `offset` (clamped to the text and to a char boundary).
pub fn position(index: &LineIndex, text: &str, offset: TextSize, encoding: Encoding) -> Position {
    let mut offset = offset.min(TextSize::of(text));
    while !text.is_char_boundary(usize::from(offset)) {
        offset -= TextSize::from(1);
    }
    let utf8 = index.line_col(offset);
    let character = match encoding {
        Encoding::Utf8 => utf8.col,
        Encoding::Utf16 => index
            .to_wide(WideEncoding::Utf16, utf8)
            .map_or(utf8.col, |w| w.col),
    };
    Position {
        line: utf8.line,
        character,
    }
}

/// The LSP range of a byte range.
pub fn range(index: &LineIndex, text: &str, range: TextRange, encoding: Encoding) -> Range {
    Range {
        start: position(index, text, range.start(), encoding),
        end: position(index, text, range.end(), encoding),
    }
}

/// The byte offset of an LSP position in a request. Errors: a line past the last one.
pub fn offset(
    index: &LineIndex,
    text: &str,
    pos: Position,
    encoding: Encoding,
) -> Result<TextSize, PositionError> {
    let Some(line_range) = index.line(pos.line) else {
        return Err(PositionError(format!(
            "line {} is past the end of the document",
            pos.line
        )));
    };
    let start = usize::from(line_range.start());
    let line = line_text(text.get(start..usize::from(line_range.end())).unwrap_or(""));
    Ok(TextSize::from(
        (start + column_to_byte(line, pos.character, encoding)) as u32,
    ))
}

/// The byte range of an LSP range in a request. Errors: a bad position, or end < start.
pub fn text_range(
    index: &LineIndex,
    text: &str,
    r: Range,
    encoding: Encoding,
) -> Result<TextRange, PositionError> {
    let start = offset(index, text, r.start, encoding)?;
    let end = offset(index, text, r.end, encoding)?;
    if end < start {
        return Err(PositionError("the range ends before it starts".into()));
    }
    Ok(TextRange::new(start, end))
}

/// The byte range of an LSP range that may reach past the end of the document (inlay
/// hints, code actions): a line past the last one means the end of the text.
pub fn text_range_clamped(
    index: &LineIndex,
    text: &str,
    r: Range,
    encoding: Encoding,
) -> Result<TextRange, PositionError> {
    let clamp = |p: Position| match offset(index, text, p, encoding) {
        Ok(o) => o,
        Err(_) => TextSize::of(text),
    };
    let (start, end) = (clamp(r.start), clamp(r.end));
    if end < start {
        return Err(PositionError("the range ends before it starts".into()));
    }
    Ok(TextRange::new(start, end))
}

/// Applies one `didChange` content change to `rope`. A range past the last line ends at
/// the end of the document. Errors: a range whose end precedes its start.
pub fn apply_change(
    rope: &mut Rope,
    change: &TextDocumentContentChangeEvent,
    encoding: Encoding,
) -> Result<(), PositionError> {
    let Some(r) = change.range else {
        *rope = Rope::from_str(&change.text);
        return Ok(());
    };
    let start = rope_char(rope, r.start, encoding);
    let end = rope_char(rope, r.end, encoding);
    if end < start {
        return Err(PositionError(
            "the change's range ends before it starts".into(),
        ));
    }
    rope.remove(start..end);
    rope.insert(start, &change.text);
    Ok(())
}

/// The char index of an LSP position in `rope`, clamped as the module doc says.
fn rope_char(rope: &Rope, pos: Position, encoding: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    let line_start = rope.line_to_char(line);
    let slice = rope.line(line);
    let mut units = 0u32;
    let mut chars = 0usize;
    for ch in slice.chars() {
        // With `cr_lines`, a `\r` (lone or before `\n`) only ever ends a line.
        if ch == '\n' || ch == '\r' {
            break;
        }
        let width = match encoding {
            Encoding::Utf8 => ch.len_utf8() as u32,
            Encoding::Utf16 => ch.len_utf16() as u32,
        };
        if units + width > pos.character {
            break;
        }
        units += width;
        chars += 1;
    }
    line_start + chars
}

/// A line without its `\n` or `\r\n`.
fn line_text(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// The byte offset within `line` of `column` units, clamped to the line end and snapped
/// to the start of the character it falls in.
fn column_to_byte(line: &str, column: u32, encoding: Encoding) -> usize {
    let mut units = 0u32;
    for (i, ch) in line.char_indices() {
        let width = match encoding {
            Encoding::Utf8 => ch.len_utf8() as u32,
            Encoding::Utf16 => ch.len_utf16() as u32,
        };
        if units + width > column {
            return i;
        }
        units += width;
    }
    line.len()
}

/// Semantic tokens in the LSP's relative encoding: `[Δline, Δstart, length, type,
/// modifiers]` per token, positions and lengths in the negotiated encoding; a token that
/// spans lines is split at each line end. One pass over the text from `from` (the start of
/// the line of the first token: the file's start, or a range's first line): positions
/// advance from token to token (a long line of wide characters stays linear).
pub fn semantic_tokens(
    text: &str,
    tokens: &[analysis::ide::SemanticToken],
    encoding: Encoding,
    from: LineStart,
) -> Vec<tower_lsp_server::ls_types::SemanticToken> {
    let mut cursor = Cursor {
        text,
        encoding,
        at: from.offset,
        line: from.line,
        column: 0,
    };
    let mut out = Vec::new();
    let (mut last_line, mut last_start) = (0u32, 0u32);
    for token in tokens {
        let type_index = analysis::ide::TokenType::ALL
            .iter()
            .position(|t| *t == token.token_type)
            .unwrap_or(0) as u32;
        let (start, end) = (
            usize::from(token.range.start()),
            usize::from(token.range.end()),
        );
        if start < cursor.at
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        let mut piece_start = start;
        let mut rest = &text[start..end];
        loop {
            // Split at every line end (`\n`, `\r\n`, a lone `\r`).
            let (piece, next) = match rest.find(['\n', '\r']) {
                Some(i) if rest[i..].starts_with("\r\n") => (&rest[..i], Some(i + 2)),
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            let (line, column) = cursor.advance(piece_start);
            let length = cursor.width(piece);
            if length > 0 {
                let delta_line = line - last_line;
                let delta_start = if delta_line == 0 {
                    column - last_start
                } else {
                    column
                };
                out.push(tower_lsp_server::ls_types::SemanticToken {
                    delta_line,
                    delta_start,
                    length,
                    token_type: type_index,
                    token_modifiers_bitset: token.modifiers,
                });
                (last_line, last_start) = (line, column);
            }
            let Some(next) = next else { break };
            piece_start += next;
            rest = &rest[next..];
        }
    }
    out
}

/// The start of a line: its byte offset and its 0-based LSP line number (where
/// [`semantic_tokens`] starts counting; no token may start before it).
#[derive(Clone, Copy, Debug, Default)]
pub struct LineStart {
    /// UTF-8 byte offset of the line's first character.
    pub offset: usize,
    /// 0-based line number, as LSP counts lines.
    pub line: u32,
}

/// A position moving forward through a text: byte offset, line, column in `encoding`.
struct Cursor<'t> {
    text: &'t str,
    encoding: Encoding,
    at: usize,
    line: u32,
    column: u32,
}

impl Cursor<'_> {
    fn width(&self, s: &str) -> u32 {
        match self.encoding {
            Encoding::Utf8 => s.len() as u32,
            Encoding::Utf16 => s.encode_utf16().count() as u32,
        }
    }

    /// Moves to byte `to` (not backwards) and returns its line and column. A line ends at
    /// `\n` or at a `\r` that no `\n` follows (LSP's lines, SPEC §1 [2]).
    fn advance(&mut self, to: usize) -> (u32, u32) {
        let to = to.min(self.text.len());
        if to > self.at {
            let bytes = self.text.as_bytes();
            let mut line_start = None;
            for i in self.at..to {
                let ends_line =
                    bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
                if ends_line {
                    self.line += 1;
                    line_start = Some(i + 1);
                }
            }
            match line_start {
                Some(s) => self.column = self.width(&self.text[s..to]),
                None => self.column += self.width(&self.text[self.at..to]),
            }
            self.at = to;
        }
        (self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_and_utf8_columns_round_trip() {
        let text = "// 😀 漢字\nab\n";
        let index = LineIndex::new(text);
        let b = text.find('b').unwrap();
        assert_eq!(
            position(&index, text, TextSize::from(b as u32), Encoding::Utf16),
            pos(1, 1)
        );
        let kanji = text.find('字').unwrap();
        // "// " 3 + 😀 2 units + " " 1 + 漢 1 = 7 UTF-16 units; 3 + 4 + 1 + 3 = 11 bytes.
        assert_eq!(
            position(&index, text, TextSize::from(kanji as u32), Encoding::Utf16),
            pos(0, 7)
        );
        assert_eq!(
            position(&index, text, TextSize::from(kanji as u32), Encoding::Utf8),
            pos(0, 11)
        );
        assert_eq!(
            offset(&index, text, pos(0, 7), Encoding::Utf16),
            Ok(TextSize::from(kanji as u32))
        );
        // Inside the surrogate pair: the emoji's start.
        assert_eq!(
            offset(&index, text, pos(0, 4), Encoding::Utf16),
            Ok(TextSize::from(3))
        );
        // Past the line end: clamped; past the last line: an error.
        assert_eq!(
            offset(&index, text, pos(1, 99), Encoding::Utf16),
            Ok(TextSize::from(b as u32 + 1))
        );
        assert!(offset(&index, text, pos(9, 0), Encoding::Utf16).is_err());
    }

    #[test]
    fn crlf_line_end_is_not_a_column() {
        let text = "ab\r\ncd";
        let index = LineIndex::new(text);
        assert_eq!(
            offset(&index, text, pos(0, 5), Encoding::Utf16),
            Ok(TextSize::from(2))
        );
        assert_eq!(
            offset(&index, text, pos(1, 1), Encoding::Utf16),
            Ok(TextSize::from(5))
        );
    }

    #[test]
    fn lone_cr_ends_a_line() {
        // SPEC §1 [2]: `\n`, `\r\n` and a lone `\r` each end a line, in positions sent
        // (with the editor index) and in edits received (the rope, `cr_lines`).
        let text = "a\rbc\r\nd\ne";
        let patched = text
            .replace("\r\n", "\u{1}\n")
            .replace('\r', "\n")
            .replace('\u{1}', "\r");
        let index = LineIndex::new(&patched);
        let at = |s: &str| TextSize::from(text.find(s).unwrap() as u32);
        assert_eq!(position(&index, text, at("b"), Encoding::Utf16), pos(1, 0));
        assert_eq!(position(&index, text, at("d"), Encoding::Utf16), pos(2, 0));
        assert_eq!(
            offset(&index, text, pos(1, 9), Encoding::Utf16),
            Ok(at("c") + TextSize::from(1))
        );
        let mut rope = Rope::from_str(text);
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(pos(1, 1), pos(1, 9))),
            range_length: None,
            text: "X".into(),
        };
        apply_change(&mut rope, &change, Encoding::Utf16).unwrap();
        assert_eq!(rope.to_string(), "a\rbX\r\nd\ne");
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(pos(0, 1), pos(0, 1))),
            range_length: None,
            text: "Y".into(),
        };
        apply_change(&mut rope, &change, Encoding::Utf16).unwrap();
        assert_eq!(rope.to_string(), "aY\rbX\r\nd\ne");
    }

    #[test]
    fn rope_edits() {
        let mut rope = Rope::from_str("a😀b\r\ncd\n");
        let change = |r: Option<Range>, text: &str| TextDocumentContentChangeEvent {
            range: r,
            range_length: None,
            text: text.into(),
        };
        apply_change(
            &mut rope,
            &change(Some(Range::new(pos(0, 3), pos(0, 4))), "B"),
            Encoding::Utf16,
        )
        .unwrap();
        assert_eq!(rope.to_string(), "a😀B\r\ncd\n");
        apply_change(
            &mut rope,
            &change(Some(Range::new(pos(1, 1), pos(99, 0))), "!"),
            Encoding::Utf16,
        )
        .unwrap();
        assert_eq!(rope.to_string(), "a😀B\r\nc!");
        apply_change(
            &mut rope,
            &change(Some(Range::new(pos(0, 5), pos(0, 9))), "X"),
            Encoding::Utf8,
        )
        .unwrap();
        assert_eq!(rope.to_string(), "a😀X\r\nc!");
        assert!(
            apply_change(
                &mut rope,
                &change(Some(Range::new(pos(1, 1), pos(0, 0))), ""),
                Encoding::Utf8
            )
            .is_err()
        );
    }
}
