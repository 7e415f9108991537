//! Every conversion between LSP positions and the analysis' UTF-8 byte offsets, in one
//! place (STYLE: "convert at the edge"), each through the document's rope
//! ([`ropey::Rope`], which keeps line, char and UTF-16 counts in its tree): O(log n) per
//! conversion, so that nothing a keystroke or a request does here walks the file.
//!
//! Units: LSP lines are 0-based; LSP characters count UTF-8 bytes or UTF-16 code units,
//! as negotiated at `initialize` ([`Encoding`]). Lines end as LSP counts them (SPEC §1
//! [2]): at `\n`, `\r\n` or a lone `\r` (the `\r` of a `\r\n` belongs to no column a
//! client can address), whatever the language makes of a lone `\r`: the rope counts
//! lines so (its `cr_lines` feature). A byte-order mark is a character like any other (it
//! takes a column, as the client's text holds it). A column past the end of its line is
//! clamped to the line end; a column inside a multi-byte character snaps to that
//! character's start; a line past the last one is an error for requests and the end of the
//! document for edits. A byte offset past the end of the text is the end of the text; one
//! inside a multi-byte character is that character's start.
//!
//! A client that ends lines at `\n` only (Neovim: a lone `\r` is a character of its line,
//! shown `^M`; `Config::lf_lines`) gets its lines: each document keeps its lone `\r`s
//! ([`lone_crs`], char indices, updated by [`lf::apply_change`] in time linear in their
//! number and the change), and [`lf`] converts through them; with none, its conversions are
//! the ones above. `docs/decisions.md` says why.

use analysis::{TextRange, TextSize};
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

/// A byte offset of the rope as `TextSize` (documents are under 4 GiB, as every parsed text).
fn text_size(bytes: usize) -> TextSize {
    TextSize::from(u32::try_from(bytes).unwrap_or(u32::MAX))
}

/// The char index of byte `offset`, clamped to the text (an offset inside a multi-byte
/// character gives that character).
fn offset_char(rope: &Rope, offset: TextSize) -> usize {
    rope.byte_to_char(usize::from(offset).min(rope.len_bytes()))
}

/// The LSP position of byte `offset` (clamped to the text and to a char boundary).
pub fn position(rope: &Rope, offset: TextSize, encoding: Encoding) -> Position {
    let char = offset_char(rope, offset);
    let line = rope.char_to_line(char);
    let character = match encoding {
        Encoding::Utf8 => rope.char_to_byte(char) - rope.line_to_byte(line),
        Encoding::Utf16 => {
            rope.char_to_utf16_cu(char) - rope.char_to_utf16_cu(rope.line_to_char(line))
        }
    };
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(character).unwrap_or(u32::MAX),
    }
}

/// The LSP range of a byte range.
pub fn range(rope: &Rope, range: TextRange, encoding: Encoding) -> Range {
    Range {
        start: position(rope, range.start(), encoding),
        end: position(rope, range.end(), encoding),
    }
}

/// The byte offset of an LSP position in a request. Errors: a line past the last one.
pub fn offset(rope: &Rope, pos: Position, encoding: Encoding) -> Result<TextSize, PositionError> {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return Err(PositionError(format!(
            "line {} is past the end of the document",
            pos.line
        )));
    }
    Ok(text_size(rope.char_to_byte(column_char(
        rope,
        line,
        pos.character,
        encoding,
    ))))
}

/// The byte range of an LSP range in a request. Errors: a bad position, or end < start.
pub fn text_range(rope: &Rope, r: Range, encoding: Encoding) -> Result<TextRange, PositionError> {
    let start = offset(rope, r.start, encoding)?;
    let end = offset(rope, r.end, encoding)?;
    if end < start {
        return Err(PositionError("the range ends before it starts".into()));
    }
    Ok(TextRange::new(start, end))
}

/// The byte range of an LSP range that may reach past the end of the document (inlay
/// hints, code actions): a line past the last one means the end of the text.
pub fn text_range_clamped(
    rope: &Rope,
    r: Range,
    encoding: Encoding,
) -> Result<TextRange, PositionError> {
    let clamp =
        |p: Position| offset(rope, p, encoding).unwrap_or_else(|_| text_size(rope.len_bytes()));
    let (start, end) = (clamp(r.start), clamp(r.end));
    if end < start {
        return Err(PositionError("the range ends before it starts".into()));
    }
    Ok(TextRange::new(start, end))
}

/// Applies one `didChange` content change to `rope`, and returns the UTF-8 byte range of
/// the text before the change that it replaced with `change.text` (on char boundaries), or
/// `None` for a change without a range (the whole text replaced). A range past the last
/// line ends at the end of the document. Errors: a range whose end precedes its start (the
/// rope is left as it was).
pub fn apply_change(
    rope: &mut Rope,
    change: &TextDocumentContentChangeEvent,
    encoding: Encoding,
) -> Result<Option<TextRange>, PositionError> {
    let Some(r) = change.range else {
        *rope = Rope::from_str(&change.text);
        return Ok(None);
    };
    let start = edit_char(rope, r.start, encoding);
    let end = edit_char(rope, r.end, encoding);
    replace_chars(rope, start, end, &change.text).map(Some)
}

/// Replaces the chars `start..end` of `rope` with `text`; the UTF-8 byte range replaced.
/// Errors: `end < start` (the rope is left as it was).
fn replace_chars(
    rope: &mut Rope,
    start: usize,
    end: usize,
    text: &str,
) -> Result<TextRange, PositionError> {
    if end < start {
        return Err(PositionError(
            "the change's range ends before it starts".into(),
        ));
    }
    let replaced = TextRange::new(
        text_size(rope.char_to_byte(start)),
        text_size(rope.char_to_byte(end)),
    );
    rope.remove(start..end);
    rope.insert(start, text);
    Ok(replaced)
}

/// The lone `\r`s of `rope` (a `\r` no `\n` follows), as ascending char indices: where
/// LSP ends a line and a client that ends lines at `\n` only does not. O(the text).
pub fn lone_crs(rope: &Rope) -> Vec<usize> {
    let mut out = Vec::new();
    let mut chars = rope.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\r' && chars.peek().is_none_or(|(_, next)| *next != '\n') {
            out.push(i);
        }
    }
    out
}

/// Conversions for a client that ends lines at `\n` only (see the module docs): `crs` are
/// the document's lone `\r`s ([`lone_crs`]). Line `n` of the client is rope line `n` plus
/// the lone `\r`s before it; each is a character of the client's line (one byte, one
/// UTF-16 unit). O(log n) each, plus the lone `\r`s of the line converted.
pub mod lf {
    use super::*;

    /// How many lone `\r`s stand before char `char`.
    fn before(crs: &[usize], char: usize) -> usize {
        crs.partition_point(|&c| c < char)
    }

    fn is_lone_cr(crs: &[usize], char: usize) -> bool {
        crs.binary_search(&char).is_ok()
    }

    /// The char where the client's line holding char `char` starts.
    fn line_start(rope: &Rope, crs: &[usize], char: usize) -> usize {
        let mut start = rope.line_to_char(rope.char_to_line(char));
        while start > 0 && is_lone_cr(crs, start - 1) {
            start = rope.line_to_char(rope.char_to_line(start - 1));
        }
        start
    }

    /// The rope line where the client's line `n` starts; `None` past the last one.
    fn rope_line(rope: &Rope, crs: &[usize], n: usize) -> Option<usize> {
        // The least fixed point of l = n + (lone `\r`s before rope line l), from below.
        let mut line = n;
        loop {
            if line >= rope.len_lines() {
                return None;
            }
            let at = n + before(crs, rope.line_to_char(line));
            if at == line {
                return Some(line);
            }
            line = at;
        }
    }

    /// The char of the client's position `pos`, clamped to its line and snapped to a
    /// character's start; `None` for a line past the last one.
    fn char_at(rope: &Rope, crs: &[usize], pos: Position, encoding: Encoding) -> Option<usize> {
        let mut line = rope_line(rope, crs, pos.line as usize)?;
        let mut column = pos.character;
        loop {
            let next = rope.line_to_char(line + 1);
            let goes_on = line + 1 < rope.len_lines() && next > 0 && is_lone_cr(crs, next - 1);
            if !goes_on {
                return Some(column_char(rope, line, column, encoding));
            }
            // This rope line, its lone `\r` included, is the first part of the client's.
            let start = rope.line_to_char(line);
            let width = match encoding {
                Encoding::Utf8 => rope.char_to_byte(next) - rope.char_to_byte(start),
                Encoding::Utf16 => rope.char_to_utf16_cu(next) - rope.char_to_utf16_cu(start),
            };
            let width = u32::try_from(width).unwrap_or(u32::MAX);
            if column < width {
                // Up to the `\r` itself (the line's end before its break, for the rope).
                return Some(column_char(rope, line, column, encoding));
            }
            column -= width;
            line += 1;
        }
    }

    /// [`super::position`] in the client's lines.
    pub fn position(rope: &Rope, crs: &[usize], offset: TextSize, encoding: Encoding) -> Position {
        let char = offset_char(rope, offset);
        let line = rope.char_to_line(char) - before(crs, char);
        let start = line_start(rope, crs, char);
        let character = match encoding {
            Encoding::Utf8 => rope.char_to_byte(char) - rope.char_to_byte(start),
            Encoding::Utf16 => rope.char_to_utf16_cu(char) - rope.char_to_utf16_cu(start),
        };
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(character).unwrap_or(u32::MAX),
        }
    }

    /// [`super::range`] in the client's lines.
    pub fn range(rope: &Rope, crs: &[usize], range: TextRange, encoding: Encoding) -> Range {
        Range {
            start: position(rope, crs, range.start(), encoding),
            end: position(rope, crs, range.end(), encoding),
        }
    }

    /// [`super::offset`] in the client's lines.
    pub fn offset(
        rope: &Rope,
        crs: &[usize],
        pos: Position,
        encoding: Encoding,
    ) -> Result<TextSize, PositionError> {
        let char = char_at(rope, crs, pos, encoding).ok_or_else(|| {
            PositionError(format!("line {} is past the end of the document", pos.line))
        })?;
        Ok(text_size(rope.char_to_byte(char)))
    }

    /// [`super::text_range_clamped`] in the client's lines.
    pub fn text_range_clamped(
        rope: &Rope,
        crs: &[usize],
        r: Range,
        encoding: Encoding,
    ) -> Result<TextRange, PositionError> {
        let clamp = |p: Position| {
            offset(rope, crs, p, encoding).unwrap_or_else(|_| text_size(rope.len_bytes()))
        };
        let (start, end) = (clamp(r.start), clamp(r.end));
        if end < start {
            return Err(PositionError("the range ends before it starts".into()));
        }
        Ok(TextRange::new(start, end))
    }

    /// [`super::apply_change`] of a change in the client's lines, keeping `crs` the lone
    /// `\r`s of the text after it (those near the change found again, the later ones
    /// moved).
    pub fn apply_change(
        rope: &mut Rope,
        crs: &mut Vec<usize>,
        change: &TextDocumentContentChangeEvent,
        encoding: Encoding,
    ) -> Result<Option<TextRange>, PositionError> {
        let Some(r) = change.range else {
            let out = super::apply_change(rope, change, encoding);
            *crs = lone_crs(rope);
            return out;
        };
        let edit =
            |p: Position| char_at(rope, crs, p, encoding).unwrap_or_else(|| rope.len_chars());
        let (start, end) = (edit(r.start), edit(r.end));
        let replaced = replace_chars(rope, start, end, &change.text)?;
        let (removed, inserted) = (end - start, change.text.chars().count());
        // A `\r` just before the change may have become lone, or stopped being so.
        let from = start.saturating_sub(1);
        crs.retain(|&c| c < from || c >= end);
        for c in crs.iter_mut().filter(|c| **c >= end) {
            *c = *c - removed + inserted;
        }
        let to = (start + inserted + 1).min(rope.len_chars());
        for i in from..to {
            let lone =
                rope.char(i) == '\r' && (i + 1 >= rope.len_chars() || rope.char(i + 1) != '\n');
            if lone {
                crs.push(i);
            }
        }
        crs.sort_unstable();
        crs.dedup();
        Ok(Some(replaced))
    }
}

/// The char index of an LSP position in an edit: as [`offset`], but a line past the last
/// one is the end of the document.
fn edit_char(rope: &Rope, pos: Position, encoding: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    column_char(rope, line, pos.character, encoding)
}

/// The char index of `column` (in `encoding`'s units) on `line` (< `len_lines`), clamped
/// to the line's end (before its line break) and snapped to the start of the character it
/// falls in.
fn column_char(rope: &Rope, line: usize, column: u32, encoding: Encoding) -> usize {
    let start = rope.line_to_char(line);
    // The line's end before its break: with `cr_lines` a line holds at most one break,
    // `\n`, `\r\n` or `\r`, at its end.
    let mut end = rope.line_to_char(line + 1);
    if end > start && rope.char(end - 1) == '\n' {
        end -= 1;
    }
    if end > start && rope.char(end - 1) == '\r' {
        end -= 1;
    }
    let column = column as usize;
    match encoding {
        Encoding::Utf8 => {
            let byte = rope.line_to_byte(line) + column;
            if byte >= rope.char_to_byte(end) {
                end
            } else {
                rope.byte_to_char(byte)
            }
        }
        Encoding::Utf16 => {
            let unit = rope.char_to_utf16_cu(start) + column;
            if unit >= rope.char_to_utf16_cu(end) {
                end
            } else {
                rope.utf16_cu_to_char(unit)
            }
        }
    }
}

/// Semantic tokens in the LSP's relative encoding: `[Δline, Δstart, length, type,
/// modifiers]` per token, positions and lengths in the negotiated encoding; a token that
/// spans lines is split at each line end. `tokens` are in document order (byte ranges of
/// the rope's text; one that starts before the previous one ends, or is not on char
/// boundaries, is left out). One pass over the whole lines the tokens cover (a copy of
/// that slice of the rope, found in O(log n)): the lines of the range an editor asked
/// for, the whole text only when it asked for the whole file. Positions advance from
/// token to token (a long line of wide characters stays linear).
///
/// `crs`: the lone `\r`s of a client that ends lines at `\n` only ([`lf`]), else empty.
pub fn semantic_tokens(
    rope: &Rope,
    crs: &[usize],
    tokens: &[analysis::ide::SemanticToken],
    encoding: Encoding,
) -> Vec<tower_lsp_server::ls_types::SemanticToken> {
    let Some(first) = tokens.first() else {
        return Vec::new();
    };
    let last_end = tokens
        .iter()
        .map(|t| t.range.end())
        .max()
        .unwrap_or_default();
    let first_line = rope.char_to_line(offset_char(rope, first.range.start()));
    let last_line = rope.char_to_line(offset_char(rope, last_end));
    let to = rope.line_to_byte(last_line + 1);
    let (from, line) = if crs.is_empty() {
        (rope.line_to_byte(first_line), first_line)
    } else {
        // From the start of the client's line.
        let line = lf::position(rope, crs, first.range.start(), encoding).line as usize;
        let start = lf::offset(
            rope,
            crs,
            Position {
                line: line as u32,
                character: 0,
            },
            encoding,
        )
        .map_or(0, usize::from);
        (start, line)
    };
    let window = String::from(rope.byte_slice(from..to));
    encode_semantic_tokens(&window, from, line, tokens, encoding, !crs.is_empty())
}

/// The semantic tokens of one chunk of the document, the bytes `range` of `rope`'s text,
/// encoded as [`semantic_tokens`] encodes the document's but with lines counted from the
/// chunk's first line, and columns on that line from the chunk's start (a chunk may start
/// inside a long line): every token but the first is encoded as in the document's data,
/// the first's `Δstart` is its column. `tokens` are relative to the
/// chunk's start. `lf`: lines end at `\n` only (a client of [`lf`]).
pub fn chunk_semantic_tokens(
    rope: &Rope,
    range: TextRange,
    tokens: &[analysis::ide::SemanticToken],
    encoding: Encoding,
    lf: bool,
) -> Vec<tower_lsp_server::ls_types::SemanticToken> {
    let to = usize::from(range.end()).min(rope.len_bytes());
    let from = usize::from(range.start()).min(to);
    let chunk = String::from(rope.byte_slice(from..to));
    encode_semantic_tokens(&chunk, 0, 0, tokens, encoding, lf)
}

/// [`semantic_tokens`] on `text`, the document's bytes from `from` (the start of line
/// `line`) on; `lf`: lines end at `\n` only.
fn encode_semantic_tokens(
    text: &str,
    from: usize,
    line: usize,
    tokens: &[analysis::ide::SemanticToken],
    encoding: Encoding,
    lf: bool,
) -> Vec<tower_lsp_server::ls_types::SemanticToken> {
    let mut cursor = Cursor {
        text,
        encoding,
        lf,
        at: 0,
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: 0,
    };
    let mut out = Vec::new();
    let (mut last_line, mut last_start) = (0u32, 0u32);
    for token in tokens {
        let type_index = analysis::ide::TokenType::ALL
            .iter()
            .position(|t| *t == token.token_type)
            .unwrap_or(0) as u32;
        let (Some(start), Some(end)) = (
            usize::from(token.range.start()).checked_sub(from),
            usize::from(token.range.end()).checked_sub(from),
        ) else {
            continue;
        };
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
            // Split at every line end (`\n`, `\r\n`, a lone `\r` unless `lf`).
            let found = if lf {
                rest.find('\n').map(|i| {
                    if i > 0 && rest[..i].ends_with('\r') {
                        i - 1
                    } else {
                        i
                    }
                })
            } else {
                rest.find(['\n', '\r'])
            };
            let (piece, next) = match found {
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

/// A position moving forward through a text: byte offset, line, column in `encoding`.
struct Cursor<'t> {
    text: &'t str,
    encoding: Encoding,
    /// Lines end at `\n` only (a lone `\r` is a character).
    lf: bool,
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
                let ends_line = bytes[i] == b'\n'
                    || (!self.lf && bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
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
pub(crate) mod tests {
    use super::*;
    use analysis::ide::{SemanticToken, TokenType};
    use proptest::prelude::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_and_utf8_columns_round_trip() {
        let text = "// 😀 漢字\nab\n";
        let rope = Rope::from_str(text);
        let b = text.find('b').unwrap();
        assert_eq!(
            position(&rope, TextSize::from(b as u32), Encoding::Utf16),
            pos(1, 1)
        );
        let kanji = text.find('字').unwrap();
        // "// " 3 + 😀 2 units + " " 1 + 漢 1 = 7 UTF-16 units; 3 + 4 + 1 + 3 = 11 bytes.
        assert_eq!(
            position(&rope, TextSize::from(kanji as u32), Encoding::Utf16),
            pos(0, 7)
        );
        assert_eq!(
            position(&rope, TextSize::from(kanji as u32), Encoding::Utf8),
            pos(0, 11)
        );
        assert_eq!(
            offset(&rope, pos(0, 7), Encoding::Utf16),
            Ok(TextSize::from(kanji as u32))
        );
        // Inside the surrogate pair: the emoji's start; inside its UTF-8 bytes too.
        assert_eq!(
            offset(&rope, pos(0, 4), Encoding::Utf16),
            Ok(TextSize::from(3))
        );
        assert_eq!(
            offset(&rope, pos(0, 5), Encoding::Utf8),
            Ok(TextSize::from(3))
        );
        // A byte offset inside the emoji is its start.
        assert_eq!(
            position(&rope, TextSize::from(5), Encoding::Utf16),
            pos(0, 3)
        );
        // Past the line end: clamped; past the last line: an error; past the text: its end.
        assert_eq!(
            offset(&rope, pos(1, 99), Encoding::Utf16),
            Ok(TextSize::from(b as u32 + 1))
        );
        assert!(offset(&rope, pos(9, 0), Encoding::Utf16).is_err());
        assert_eq!(
            position(&rope, TextSize::from(999), Encoding::Utf16),
            pos(2, 0)
        );
    }

    #[test]
    fn crlf_line_end_is_not_a_column() {
        let rope = Rope::from_str("ab\r\ncd");
        assert_eq!(
            offset(&rope, pos(0, 5), Encoding::Utf16),
            Ok(TextSize::from(2))
        );
        assert_eq!(
            offset(&rope, pos(1, 1), Encoding::Utf16),
            Ok(TextSize::from(5))
        );
    }

    #[test]
    fn lone_cr_ends_a_line() {
        // SPEC §1 [2]: `\n`, `\r\n` and a lone `\r` each end a line, in positions sent and
        // in edits received (the rope, `cr_lines`).
        let text = "a\rbc\r\nd\ne";
        let mut rope = Rope::from_str(text);
        let at = |s: &str| TextSize::from(text.find(s).unwrap() as u32);
        assert_eq!(position(&rope, at("b"), Encoding::Utf16), pos(1, 0));
        assert_eq!(position(&rope, at("d"), Encoding::Utf16), pos(2, 0));
        assert_eq!(
            offset(&rope, pos(1, 9), Encoding::Utf16),
            Ok(at("c") + TextSize::from(1))
        );
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(pos(1, 1), pos(1, 9))),
            range_length: None,
            text: "X".into(),
        };
        let replaced = apply_change(&mut rope, &change, Encoding::Utf16).unwrap();
        assert_eq!(
            replaced,
            Some(TextRange::new(at("c"), at("c") + TextSize::from(1)))
        );
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
        let replaced = apply_change(
            &mut rope,
            &change(Some(Range::new(pos(0, 3), pos(0, 4))), "B"),
            Encoding::Utf16,
        );
        assert_eq!(
            replaced,
            Ok(Some(TextRange::new(TextSize::from(5), TextSize::from(6))))
        );
        assert_eq!(rope.to_string(), "a😀B\r\ncd\n");
        let replaced = apply_change(
            &mut rope,
            &change(Some(Range::new(pos(1, 1), pos(99, 0))), "!"),
            Encoding::Utf16,
        );
        assert_eq!(
            replaced,
            Ok(Some(TextRange::new(TextSize::from(9), TextSize::from(11))))
        );
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
        assert_eq!(rope.to_string(), "a😀X\r\nc!");
        assert_eq!(
            apply_change(&mut rope, &change(None, "new"), Encoding::Utf8),
            Ok(None)
        );
        assert_eq!(rope.to_string(), "new");
    }

    #[test]
    fn semantic_tokens_of_a_range_count_lines_from_the_file_start() {
        let text = "a\r\nbb 😀c\rd\n\nee f";
        let rope = Rope::from_str(text);
        let token = |s: &str, len: usize| {
            let start = text.find(s).unwrap();
            SemanticToken {
                range: TextRange::new(
                    TextSize::from(start as u32),
                    TextSize::from((start + len) as u32),
                ),
                token_type: TokenType::ALL[1],
                modifiers: 1,
            }
        };
        let tokens = [token("c", 1), token("d", 1), token("f", 1)];
        let encoded: Vec<[u32; 3]> = semantic_tokens(&rope, &[], &tokens, Encoding::Utf16)
            .iter()
            .map(|t| [t.delta_line, t.delta_start, t.length])
            .collect();
        // `c` on line 1 after "bb 😀" (5 units), `d` on line 2 (a lone `\r`), `f` on line 4.
        assert_eq!(encoded, [[1, 5, 1], [1, 0, 1], [2, 3, 1]]);
    }

    /// The conversions as they were made before the rope, on a line index of the whole
    /// text (`line_index::LineIndex`, with a lone `\r` read as `\n`, as
    /// the analysis built it before the server kept positions in its rope): the oracle of the property tests.
    mod oracle {
        use super::super::Encoding;
        use analysis::{LineIndex, TextSize, WideEncoding};
        use tower_lsp_server::ls_types::Position;

        /// The index of `text` with lines as LSP counts them.
        pub fn editor_index(text: &str) -> LineIndex {
            let bytes = text.as_bytes();
            let lone_cr = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
            let patched: String = text
                .char_indices()
                .map(|(i, c)| if c == '\r' && lone_cr(i) { '\n' } else { c })
                .collect();
            LineIndex::new(&patched)
        }

        pub fn position(
            index: &LineIndex,
            text: &str,
            offset: TextSize,
            encoding: Encoding,
        ) -> Position {
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

        /// `None`: a line past the last one.
        pub fn offset(
            index: &LineIndex,
            text: &str,
            pos: Position,
            encoding: Encoding,
        ) -> Option<TextSize> {
            let line_range = index.line(pos.line)?;
            let start = usize::from(line_range.start());
            let line = text.get(start..usize::from(line_range.end())).unwrap_or("");
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            let mut units = 0u32;
            for (i, ch) in line.char_indices() {
                let width = match encoding {
                    Encoding::Utf8 => ch.len_utf8() as u32,
                    Encoding::Utf16 => ch.len_utf16() as u32,
                };
                if units + width > pos.character {
                    return Some(TextSize::from((start + i) as u32));
                }
                units += width;
            }
            Some(TextSize::from((start + line.len()) as u32))
        }
    }

    /// Texts of ASCII, line breaks of the three kinds, and characters of 2, 3 and 4 UTF-8
    /// bytes (the last two UTF-16 units), a byte-order mark among them.
    pub(crate) fn text() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec![
            'a', 'b', ' ', '{', '\n', '\r', '\n', 'é', '漢', '😀', '\u{FEFF}',
        ]);
        let pieces = prop_oneof![
            4 => chars.prop_map(String::from),
            1 => Just("\r\n".to_string()),
        ];
        prop::collection::vec(pieces, 0..40).prop_map(|p| p.concat())
    }

    /// Tokens between the cut points `cuts` once sorted (the first and second, the third and
    /// fourth, …), each of its own type and modifiers.
    pub(crate) fn tokens_between(mut cuts: Vec<usize>) -> Vec<SemanticToken> {
        cuts.sort_unstable();
        cuts.chunks_exact(2)
            .enumerate()
            .map(|(i, pair)| SemanticToken {
                range: TextRange::new(
                    TextSize::from(pair[0] as u32),
                    TextSize::from(pair[1] as u32),
                ),
                token_type: TokenType::ALL[i % TokenType::ALL.len()],
                modifiers: i as u32,
            })
            .collect()
    }

    pub(crate) fn encoding() -> impl Strategy<Value = Encoding> {
        prop_oneof![Just(Encoding::Utf8), Just(Encoding::Utf16)]
    }

    proptest! {
        #[test]
        fn rope_conversions_equal_the_line_index_ones(
            text in text(),
            offsets in prop::collection::vec(0u32..200, 1..8),
            positions in prop::collection::vec((0u32..30, 0u32..40), 1..8),
            encoding in encoding(),
        ) {
            let rope = Rope::from_str(&text);
            let index = oracle::editor_index(&text);
            for o in offsets {
                let o = TextSize::from(o % (text.len() as u32 + 4));
                prop_assert_eq!(
                    position(&rope, o, encoding),
                    oracle::position(&index, &text, o, encoding),
                    "offset {:?}", o
                );
            }
            let lines = rope.len_lines() as u32;
            for (line, character) in positions {
                let p = pos(line % (lines + 2), character);
                let expected = oracle::offset(&index, &text, p, encoding);
                prop_assert_eq!(offset(&rope, p, encoding).ok(), expected, "{:?}", p);
                // An edit's position: a line past the last one is the end.
                let edit = rope.char_to_byte(edit_char(&rope, p, encoding));
                let expected = expected.map_or(text.len(), usize::from);
                prop_assert_eq!(edit, expected, "edit at {:?}", p);
            }
        }

        #[test]
        fn semantic_tokens_equal_the_whole_text_encoder(
            text in text(),
            cuts in prop::collection::vec(0usize..200, 0..16),
            encoding in encoding(),
        ) {
            // Tokens between sorted cut points (some empty, some across line ends, some
            // off char boundaries: all as the whole-text encoder treats them).
            let cuts: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 3)).collect();
            let tokens = tokens_between(cuts);
            let rope = Rope::from_str(&text);
            let got: Vec<[u32; 5]> = semantic_tokens(&rope, &[], &tokens, encoding)
                .iter()
                .map(|t| {
                    [t.delta_line, t.delta_start, t.length, t.token_type, t.token_modifiers_bitset]
                })
                .collect();
            // The same encoder over the whole text from its start, as before the rope.
            let whole: Vec<[u32; 5]> = encode_semantic_tokens(&text, 0, 0, &tokens, encoding, false)
                .iter()
                .map(|t| {
                    [t.delta_line, t.delta_start, t.length, t.token_type, t.token_modifiers_bitset]
                })
                .collect();
            prop_assert_eq!(got, whole);
        }
    }

    /// Lines at `\n` only, as Neovim counts them: the position of byte `o` (a char
    /// boundary) in `text`, every `\r` a character of its line.
    fn lf_oracle(text: &str, o: usize, encoding: Encoding) -> Position {
        let before = &text[..o];
        let line = before.matches('\n').count() as u32;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        let piece = &text[start..o];
        let character = match encoding {
            Encoding::Utf8 => piece.len(),
            Encoding::Utf16 => piece.encode_utf16().count(),
        } as u32;
        pos(line, character)
    }

    proptest! {
        /// Issue 25: for a client that ends lines at `\n` only, positions are its lines'
        /// (every `\r` a character), and they round-trip; its edits keep the lone `\r`s
        /// those of the new text.
        #[test]
        fn lf_lines_are_neovims(
            text in text(),
            edits in prop::collection::vec((0usize..200, 0usize..200, text()), 0..6),
            encoding in encoding(),
        ) {
            let mut rope = Rope::from_str(&text);
            let mut crs = lone_crs(&rope);
            let mut now = text.clone();
            for (a, b, insert) in edits {
                let boundary = |x: usize| {
                    let mut x = x % (now.len() + 1);
                    while !now.is_char_boundary(x) { x -= 1; }
                    x
                };
                let (a, b) = (boundary(a).min(boundary(b)), boundary(a).max(boundary(b)));
                for o in [a, b] {
                    let p = lf::position(&rope, &crs, TextSize::from(o as u32), encoding);
                    prop_assert_eq!(p, lf_oracle(&now, o, encoding), "{:?} at {}", now, o);
                    // Inside a CRLF, the client's column past the `\r` is the line's end.
                    let inside_crlf = now[..o].ends_with('\r') && now[o..].starts_with('\n');
                    if !inside_crlf {
                        prop_assert_eq!(
                            lf::offset(&rope, &crs, p, encoding).map(usize::from),
                            Ok(o),
                            "{:?} at {}", now, o
                        );
                    }
                }
                let inside_crlf = |o: usize| now[..o].ends_with('\r') && now[o..].starts_with('\n');
                if inside_crlf(a) || inside_crlf(b) {
                    continue;
                }
                let change = TextDocumentContentChangeEvent {
                    range: Some(Range {
                        start: lf_oracle(&now, a, encoding),
                        end: lf_oracle(&now, b, encoding),
                    }),
                    range_length: None,
                    text: insert.clone(),
                };
                lf::apply_change(&mut rope, &mut crs, &change, encoding).expect("applies");
                now.replace_range(a..b, &insert);
                prop_assert_eq!(rope.to_string(), now.clone());
                prop_assert_eq!(&crs, &lone_crs(&rope));
            }
        }
    }
}
