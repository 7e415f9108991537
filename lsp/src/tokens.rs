//! The semantic tokens of whole documents (`textDocument/semanticTokens/full` and
//! `…/full/delta`, LSP 3.16): each answer has a result id, and the server keeps, per open
//! document, the last answer it sent, so that a request naming that id is answered with
//! one edit of it (`SemanticTokensDelta`) instead of the whole data. At 100,000 ops the
//! data is 2 million tokens, about 20 MB of JSON; an edit changes a few of them.
//!
//! An answer is kept as its chunks' encodings ([`Encoded`]): the LSP encoding of one
//! chunk's tokens ([`analysis::Analysis::semantic_token_chunks`]) with lines counted from
//! the chunk's first line (and on that line, columns from the chunk's start). The
//! document's data is their concatenation, each chunk's first token made relative to the
//! last token before it: its only token whose encoding depends on what comes before, also
//! for a chunk that starts inside a long line (after the tokens of the chunk before on
//! that line). A chunk whose
//! tokens are the same list as in the kept answer (its text did not change) is not encoded
//! again.
//!
//! Memory: per open document, one answer (20 bytes a token, 41 MB at 100,000 ops), let go
//! of on `didClose`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use analysis::ide::ChunkTokens;
use ropey::Rope;
use tower_lsp_server::ls_types::{
    SemanticToken, SemanticTokens, SemanticTokensDelta, SemanticTokensEdit,
    SemanticTokensFullDeltaResult, Uri,
};

use crate::convert::{self, Encoding};

/// The largest document (UTF-8 bytes of its text) given whole-document semantic tokens:
/// 1 MiB, about 5,000 ops written as the corpus writes them and 100,000 tokens (a 1 MB
/// answer). A bigger document's `…/full` and `…/full/delta` are answered `null`: the
/// editor keeps its grammar's highlighting (Neovim's `syntax/pir.vim` or tree-sitter, VS
/// Code's TextMate grammar), and VS Code, having no whole-document tokens, asks
/// `…/range` for the lines it shows. At 100,000 ops the whole data was 2 million tokens and
/// 17.5 MB, which Neovim keeps (and copies at every delta) in Lua tables: gigabytes and
/// seconds a keystroke (decision, docs/decisions.md).
pub const MAX_WHOLE_DOCUMENT_BYTES: usize = 1 << 20;

/// The last whole-document semantic tokens answer sent for each open document, by
/// [`crate::state::document_key`].
#[derive(Default)]
pub struct SentTokens {
    /// The last result id given out (ids are unique in the session).
    last_id: AtomicU64,
    /// A slot for each open document (from `didOpen` to `didClose`), with its last answer.
    sent: Mutex<HashMap<Uri, Option<Sent>>>,
}

/// A whole-document answer as sent: its result id and its data.
#[derive(Clone)]
struct Sent {
    result_id: String,
    tokens: DocumentTokens,
}

/// A document's semantic tokens in LSP's relative encoding, chunk by chunk.
#[derive(Clone)]
struct DocumentTokens {
    chunks: Vec<Chunk>,
}

/// One chunk of [`DocumentTokens`].
#[derive(Clone)]
struct Chunk {
    /// The analysis' tokens it was encoded from: the same list is the same chunk text.
    source: Arc<[analysis::ide::SemanticToken]>,
    /// Their encoding, lines counted from the chunk's first line.
    encoded: Arc<Encoded>,
    /// The `Δline` of its first token in the document's data (from the last token before
    /// the chunk, or from line 0).
    lead: u32,
    /// The `Δstart` of its first token in the document's data (from the last token before
    /// the chunk when `lead` is 0, else from its line's start).
    lead_start: u32,
}

/// One chunk's tokens in LSP's relative encoding, lines counted from the chunk's first
/// line ([`convert::chunk_semantic_tokens`]).
struct Encoded {
    data: Vec<SemanticToken>,
    /// The line of its last token, counted from the chunk's first line.
    last_line: u32,
    /// The column of its last token (from its line's start, or from the chunk's start on
    /// the chunk's first line).
    last_start: u32,
}

impl SentTokens {
    /// `didOpen`: the document's answers are kept from now on.
    pub fn open(&self, key: Uri) {
        self.lock().entry(key).or_default();
    }

    /// `didClose`: the document's last answer is let go of, and none is kept until it is
    /// opened again (a request still running keeps nothing).
    pub fn close(&self, key: &Uri) {
        self.lock().remove(key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uri, Option<Sent>>> {
        self.sent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `textDocument/semanticTokens/full`: the tokens of `chunks` (the whole document
    /// `key`, whose text is `rope`), with a new result id; kept as the document's last answer.
    pub fn full(
        &self,
        key: Uri,
        rope: &Rope,
        crs: &[usize],
        chunks: &[ChunkTokens],
        encoding: Encoding,
    ) -> SemanticTokens {
        let (sent, _) = self.answer(key, rope, crs, chunks, encoding);
        SemanticTokens {
            data: sent.tokens.iter().collect(),
            result_id: Some(sent.result_id),
        }
    }

    /// `textDocument/semanticTokens/full/delta`: as [`SentTokens::full`], but when
    /// `previous_result_id` is the id of the document's kept answer, one edit of that
    /// answer's data (none when they are equal).
    pub fn delta(
        &self,
        key: Uri,
        rope: &Rope,
        crs: &[usize],
        chunks: &[ChunkTokens],
        encoding: Encoding,
        previous_result_id: &str,
    ) -> SemanticTokensFullDeltaResult {
        let (sent, kept) = self.answer(key, rope, crs, chunks, encoding);
        match kept.filter(|kept| kept.result_id == previous_result_id) {
            Some(kept) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta {
                result_id: Some(sent.result_id),
                edits: diff_tokens(kept.tokens.iter(), sent.tokens.iter())
                    .into_iter()
                    .collect(),
            }),
            None => SemanticTokensFullDeltaResult::Tokens(SemanticTokens {
                data: sent.tokens.iter().collect(),
                result_id: Some(sent.result_id),
            }),
        }
    }

    /// Encodes `chunks` (reusing the kept answer's encodings of the same lists), keeps the
    /// result, with a new id, as the document's last answer (if it is open), and returns it
    /// with the answer it replaces.
    fn answer(
        &self,
        key: Uri,
        rope: &Rope,
        crs: &[usize],
        chunks: &[ChunkTokens],
        encoding: Encoding,
    ) -> (Sent, Option<Sent>) {
        let kept = self.lock().get(&key).cloned().flatten();
        let tokens = DocumentTokens::encode(
            rope,
            crs,
            chunks,
            encoding,
            kept.as_ref().map(|k| &k.tokens),
        );
        let id = self.last_id.fetch_add(1, Ordering::Relaxed) + 1;
        let sent = Sent {
            result_id: id.to_string(),
            tokens,
        };
        if let Some(slot) = self.lock().get_mut(&key) {
            *slot = Some(sent.clone());
        }
        (sent, kept)
    }
}

impl DocumentTokens {
    /// The encoding of a document's `chunks` (its text is `rope`); a chunk whose tokens are
    /// the same list as one of `reuse`'s keeps that chunk's encoding.
    fn encode(
        rope: &Rope,
        crs: &[usize],
        chunks: &[ChunkTokens],
        encoding: Encoding,
        reuse: Option<&DocumentTokens>,
    ) -> DocumentTokens {
        let reusable: HashMap<*const analysis::ide::SemanticToken, &Arc<Encoded>> = reuse
            .into_iter()
            .flat_map(|r| &r.chunks)
            .map(|c| (c.source.as_ptr(), &c.encoded))
            .collect();
        // The line and column of the last token so far.
        let (mut last_line, mut last_column) = (0, 0);
        let chunks = chunks
            .iter()
            .map(|chunk| {
                let encoded = match reusable.get(&chunk.tokens.as_ptr()) {
                    Some(&encoded) => Arc::clone(encoded),
                    None => {
                        let data = convert::chunk_semantic_tokens(
                            rope,
                            chunk.range,
                            &chunk.tokens,
                            encoding,
                            !crs.is_empty(),
                        );
                        let (mut last_line, mut last_start) = (0, 0);
                        for t in &data {
                            last_line += t.delta_line;
                            last_start = if t.delta_line == 0 {
                                last_start + t.delta_start
                            } else {
                                t.delta_start
                            };
                        }
                        Arc::new(Encoded {
                            data,
                            last_line,
                            last_start,
                        })
                    }
                };
                let start = if crs.is_empty() {
                    convert::position(rope, chunk.range.start(), encoding)
                } else {
                    convert::lf::position(rope, crs, chunk.range.start(), encoding)
                };
                // A column on the chunk's first line counts from the chunk's start.
                let column = |line: u32, column: u32| {
                    if line == 0 {
                        start.character + column
                    } else {
                        column
                    }
                };
                let (lead, lead_start) = match encoded.data.first() {
                    Some(first) => {
                        let line = start.line + first.delta_line;
                        let first_column = column(first.delta_line, first.delta_start);
                        let lead = line.saturating_sub(last_line);
                        let lead_start = if lead == 0 {
                            first_column.saturating_sub(last_column)
                        } else {
                            first_column
                        };
                        last_line = start.line + encoded.last_line;
                        last_column = column(encoded.last_line, encoded.last_start);
                        (lead, lead_start)
                    }
                    None => (0, 0),
                };
                Chunk {
                    source: Arc::clone(&chunk.tokens),
                    encoded,
                    lead,
                    lead_start,
                }
            })
            .collect();
        DocumentTokens { chunks }
    }

    /// The document's data, token by token.
    fn iter(&self) -> impl DoubleEndedIterator<Item = SemanticToken> + Clone + '_ {
        self.chunks.iter().flat_map(|chunk| {
            let (lead, lead_start) = (chunk.lead, chunk.lead_start);
            chunk
                .encoded
                .data
                .iter()
                .enumerate()
                .map(move |(i, token)| {
                    if i == 0 {
                        SemanticToken {
                            delta_line: lead,
                            delta_start: lead_start,
                            ..*token
                        }
                    } else {
                        *token
                    }
                })
        })
    }
}

/// The one edit that turns the data `old` into `new` (`None` when they are equal): the
/// tokens between their common prefix and their common suffix, which do not overlap, whole
/// tokens each (as rust-analyzer's `diff_tokens`). Its `start` and `delete_count` count
/// `u32`s of the data, five a token, as LSP's `SemanticTokensEdit` does.
pub(crate) fn diff_tokens(
    old: impl DoubleEndedIterator<Item = SemanticToken> + Clone,
    new: impl DoubleEndedIterator<Item = SemanticToken> + Clone,
) -> Option<SemanticTokensEdit> {
    let (old_len, new_len) = (old.clone().count(), new.clone().count());
    let prefix = old
        .clone()
        .zip(new.clone())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = old
        .rev()
        .zip(new.clone().rev())
        .take(old_len.min(new_len) - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let deleted = old_len - prefix - suffix;
    let inserted: Vec<SemanticToken> = new.skip(prefix).take(new_len - prefix - suffix).collect();
    if deleted == 0 && inserted.is_empty() {
        return None;
    }
    // `data` even when empty, as rust-analyzer sends it (LSP lets it be left out).
    let units = |tokens: usize| u32::try_from(5 * tokens).unwrap_or(u32::MAX);
    Some(SemanticTokensEdit {
        start: units(prefix),
        delete_count: units(deleted),
        data: Some(inserted),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::tests::{encoding, text, tokens_between};
    use analysis::{TextRange, TextSize};
    use proptest::prelude::*;

    /// Tokens whose fields are all `n` (distinct tokens for distinct numbers).
    fn tokens(ns: &[u32]) -> Vec<SemanticToken> {
        ns.iter()
            .map(|&n| SemanticToken {
                delta_line: n,
                delta_start: n,
                length: n,
                token_type: n,
                token_modifiers_bitset: n,
            })
            .collect()
    }

    /// `edit` applied to `old`, in `u32`s as a client applies it.
    fn apply(old: &[SemanticToken], edit: &SemanticTokensEdit) -> Vec<SemanticToken> {
        let (start, deleted) = (edit.start as usize / 5, edit.delete_count as usize / 5);
        let mut out = old.to_vec();
        out.splice(start..start + deleted, edit.data.iter().flatten().copied());
        out
    }

    /// The edit from `old` to `new` as `(start, delete_count, inserted)` in `u32`s and tokens,
    /// checked to turn `old` into `new`.
    #[track_caller]
    fn check(old: &[u32], new: &[u32]) -> Option<(u32, u32, Vec<u32>)> {
        let (old, new) = (tokens(old), tokens(new));
        let edit = diff_tokens(old.iter().copied(), new.iter().copied())?;
        assert_eq!(apply(&old, &edit), new);
        let data = edit.data.iter().flatten().map(|t| t.delta_line).collect();
        Some((edit.start, edit.delete_count, data))
    }

    #[test]
    fn diff_of_equal_data_is_no_edit() {
        assert_eq!(check(&[], &[]), None);
        assert_eq!(check(&[1, 2, 3], &[1, 2, 3]), None);
    }

    #[test]
    fn diff_from_or_to_nothing_is_the_whole_data() {
        assert_eq!(check(&[], &[1, 2]), Some((0, 0, vec![1, 2])));
        assert_eq!(check(&[1, 2], &[]), Some((0, 10, vec![])));
    }

    #[test]
    fn diff_at_the_start_the_middle_and_the_end() {
        assert_eq!(check(&[1, 2, 3], &[9, 2, 3]), Some((0, 5, vec![9])));
        assert_eq!(check(&[1, 2, 3], &[1, 9, 3]), Some((5, 5, vec![9])));
        assert_eq!(check(&[1, 2, 3], &[1, 2, 9]), Some((10, 5, vec![9])));
        assert_eq!(check(&[1, 2, 3], &[0, 1, 2, 3]), Some((0, 0, vec![0])));
        assert_eq!(check(&[1, 2, 3], &[1, 2, 3, 4]), Some((15, 0, vec![4])));
        assert_eq!(check(&[1, 2, 3], &[2, 3]), Some((0, 5, vec![])));
        assert_eq!(check(&[1, 2, 3], &[1, 2]), Some((10, 5, vec![])));
    }

    #[test]
    fn diff_prefix_and_suffix_do_not_overlap() {
        // A repeated token inserted or removed: the prefix takes what it can, the suffix
        // only what is left.
        assert_eq!(check(&[1, 1], &[1, 1, 1]), Some((10, 0, vec![1])));
        assert_eq!(check(&[1, 1, 1], &[1, 1]), Some((10, 5, vec![])));
        assert_eq!(
            check(&[1, 2, 1], &[1, 2, 1, 2, 1]),
            Some((15, 0, vec![2, 1]))
        );
    }

    proptest! {
        #[test]
        fn diff_turns_old_into_new(
            old in prop::collection::vec(0u32..3, 0..12),
            new in prop::collection::vec(0u32..3, 0..12),
        ) {
            check(&old, &new);
        }

        /// A document's data put together from its chunks' encodings (each made alone, or
        /// kept from an earlier encoding) is the whole-text encoder's.
        #[test]
        fn chunk_encodings_join_into_the_documents(
            text in text(),
            cuts in prop::collection::vec(0usize..200, 0..16),
            encoding in encoding(),
            before in text(),
        ) {
            // Chunks start after a `\n`, or inside a line (the analysis cuts a long line
            // after a `}`); tokens between sorted cut points, none across a chunk's end.
            let mut starts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
            starts.extend((1..text.len()).filter(|&i| text.is_char_boundary(i) && i % 7 == 4));
            starts.sort_unstable();
            starts.dedup();
            starts.retain(|&s| s < text.len() && s % 3 != 0);
            starts.insert(0, 0);
            starts.push(text.len());
            let cuts: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).collect();
            let mut all = tokens_between(cuts);
            all.retain(|t| {
                let inside = |s: usize| usize::from(t.range.start()) < s && s < usize::from(t.range.end());
                !starts.iter().any(|&s| inside(s))
            });
            let chunks: Vec<ChunkTokens> = starts
                .windows(2)
                .map(|w| {
                    let range = TextRange::new(TextSize::from(w[0] as u32), TextSize::from(w[1] as u32));
                    let tokens: Vec<_> = all
                        .iter()
                        .filter(|t| range.contains(t.range.start()) || (t.range.is_empty() && t.range.start() == range.end() && w[1] == text.len()))
                        .map(|t| analysis::ide::SemanticToken {
                            range: t.range - range.start(),
                            ..*t
                        })
                        .collect();
                    ChunkTokens { range, tokens: tokens.into() }
                })
                .collect();
            let rope = Rope::from_str(&text);
            let whole = convert::semantic_tokens(&rope, &[], &all, encoding);
            let fresh = DocumentTokens::encode(&rope, &[], &chunks, encoding, None);
            prop_assert_eq!(fresh.iter().collect::<Vec<_>>(), whole.clone());
            // The same chunks after a text before them: each encoding is kept, not made
            // again, and the data is again the whole text's.
            let before = format!("{before}\n");
            let moved_text = format!("{before}{text}");
            let shift = TextSize::of(before.as_str());
            let moved: Vec<ChunkTokens> = chunks
                .iter()
                .map(|c| ChunkTokens { range: c.range + shift, tokens: Arc::clone(&c.tokens) })
                .collect();
            let moved_all: Vec<_> = all
                .iter()
                .map(|t| analysis::ide::SemanticToken { range: t.range + shift, ..*t })
                .collect();
            let moved_rope = Rope::from_str(&moved_text);
            let kept = DocumentTokens::encode(&moved_rope, &[], &moved, encoding, Some(&fresh));
            for (k, f) in kept.chunks.iter().zip(&fresh.chunks) {
                prop_assert!(Arc::ptr_eq(&k.encoded, &f.encoded));
            }
            prop_assert_eq!(
                kept.iter().collect::<Vec<_>>(),
                convert::semantic_tokens(&moved_rope, &[], &moved_all, encoding)
            );
        }
    }
}
