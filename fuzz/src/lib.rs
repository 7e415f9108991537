//! The fuzz targets' bodies, called by the cargo-fuzz binaries in `fuzz_targets/` (one
//! function per target, so they can also be called from a test). Each function takes raw
//! bytes and panics when the contract is broken: bad input never panics, never hangs, never loses
//! text; every error is a diagnostic with a range inside the text; `format` is idempotent
//! and keeps every token.

use analysis::{Analysis, AnalysisHost, FileId, TextRange, TextSize};
use syntax::Token;

/// The syntax tests' helpers: `all_ranges` lists every range in a tree.
#[path = "../../syntax/tests/common/mod.rs"]
mod common;

/// Inputs longer than this are skipped: libFuzzer's default `-max_len` is far below it, and
/// big inputs only slow the search down (slowness has its own check, `-timeout`).
const MAX_LEN: usize = 64 * 1024;

pub mod generate;

/// The text of `data`: decoded as the server and the CLI decode files, or, after a first
/// 0 byte, the program that the rest of the bytes choose ([`generate::program`]).
fn input_text(data: &[u8]) -> String {
    match data.split_first() {
        Some((0, choices)) => generate::program(choices),
        _ => syntax::decode(data).0,
    }
}

/// Asserts that `range` is a range of `text` on char boundaries.
#[track_caller]
fn check_range(text: &str, range: TextRange, what: &dyn std::fmt::Debug) {
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    assert!(
        start <= end && end <= text.len(),
        "range {range:?} outside the text ({} bytes): {what:?}",
        text.len()
    );
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "range {range:?} not on char boundaries: {what:?}"
    );
}

/// What the lexer skips (SPEC §2; `skip` in `syntax/src/lexer.rs`).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\x0c' | '\u{FEFF}')
}

/// `decode`, `parse`, `parse_bytes` and `lex`.
pub fn parse(data: &[u8]) {
    if data.len() > MAX_LEN {
        return;
    }
    let (text, bad) = syntax::decode(data);
    if let Ok(s) = std::str::from_utf8(data) {
        assert_eq!(text, s, "decode changed valid UTF-8");
        assert!(bad.is_empty());
    }
    for r in &bad {
        check_range(&text, *r, r);
        assert_eq!(&text[*r], "\u{FFFD}");
    }
    for parse in [syntax::parse(&text), syntax::parse_bytes(data).1] {
        let mut last = TextSize::from(0);
        for e in &parse.errors {
            check_range(&text, e.range, e);
            assert!(e.range.start() >= last, "errors out of order: {e:?}");
            last = e.range.start();
            assert!(
                !e.range.is_empty() || usize::from(e.range.start()) == text.len(),
                "empty error range before the end: {e:?}"
            );
        }
        assert!(parse.errors.len() <= 101, "{} errors", parse.errors.len());
        for r in common::all_ranges(&parse.file) {
            check_range(&text, r, &"a node's range");
        }
    }
    let (tokens, errors) = syntax::lex(&text);
    let mut end = TextSize::from(0);
    for (t, r) in &tokens {
        check_range(&text, *r, t);
        assert!(r.start() >= end, "overlapping tokens at {t:?} {r:?}");
        // Nothing but whitespace between tokens: the lexer loses no text.
        let gap = &text[usize::from(end)..usize::from(r.start())];
        assert!(
            gap.chars().all(is_blank),
            "text {gap:?} not covered by a token before {t:?} {r:?}"
        );
        end = r.end();
    }
    let rest = &text[usize::from(end)..];
    assert!(
        rest.chars().all(is_blank),
        "text {rest:?} after the last token"
    );
    for e in &errors {
        check_range(&text, e.range, e);
    }
}

/// Up to `n` offsets spread over `text`, on char boundaries, plus the offset of every `%`
/// and `@` sigil among the first few (where navigation does something).
fn offsets(text: &str, n: usize) -> Vec<TextSize> {
    let mut out: Vec<usize> = (0..=n).map(|k| text.len() * k / n.max(1)).collect();
    out.extend(text.match_indices(['%', '@']).take(6).map(|(i, _)| i + 1));
    out.extend(text.match_indices('=').take(4).map(|(i, _)| i + 2));
    let mut out: Vec<TextSize> = out
        .into_iter()
        .map(|mut o| {
            o = o.min(text.len());
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            TextSize::from(o as u32)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Applies non-overlapping `(range, replacement)` edits, checking them.
fn apply(text: &str, edits: &[(TextRange, String)], what: &str) -> String {
    let mut sorted: Vec<_> = edits.iter().collect();
    sorted.sort_by_key(|(r, _)| (r.start(), r.end()));
    let mut out = String::new();
    let mut at = 0usize;
    for (r, new) in sorted {
        check_range(text, *r, &(what, r, new));
        assert!(
            usize::from(r.start()) >= at,
            "{what}: overlapping edits {edits:?}"
        );
        out.push_str(&text[at..usize::from(r.start())]);
        out.push_str(new);
        at = usize::from(r.end());
    }
    out.push_str(&text[at..]);
    out
}

/// An edit (a rename or a quick fix) of a file without syntax errors leaves none.
fn keeps_syntax(text: &str, well_formed: bool, edited: &str, what: &str) {
    if well_formed {
        let errors = syntax::parse(edited).errors;
        assert!(
            errors.is_empty(),
            "{what} made syntax errors {errors:?}\n--- before:\n{text}\n--- after:\n{edited}"
        );
    }
}

/// The diagnostics of a text analysed afresh, through the façade the server uses.
fn fresh_diagnostics(text: &str) -> Vec<analysis::Diagnostic> {
    let mut host = AnalysisHost::new();
    let file = host.add_file(text);
    host.snapshot().diagnostics(file).expect("nothing cancels")
}

/// Every query and IDE feature of the analysis over the decoded bytes, through
/// [`Analysis`], the façade the server and the command line use (a text of several
/// kernels is kept as several chunks: the façade joins their answers).
pub fn analysis(data: &[u8]) {
    if data.len() > MAX_LEN {
        return;
    }
    let text = input_text(data);
    // As the server keeps it, and cut as small as it goes: every kernel cut inside at each
    // statement directly in its body (the joins across chunks).
    for target in [0, 1] {
        let mut host = AnalysisHost::new().with_chunk_target(target);
        let file = host.add_file(&text);
        let analysis = host.snapshot();
        check_analysis(&text, &analysis, file);
    }
    if let Some(formatted) = analysis::ide::format(&text) {
        check_format(&text, &formatted);
    }
}

fn check_analysis(text: &str, a: &Analysis, file: FileId) {
    // Nothing edits the host while `a` lives: nothing is cancelled.
    let text = text.to_string();
    let diagnostics = a.diagnostics(file).expect("not cancelled");
    for d in &diagnostics {
        check_range(&text, d.range, d);
        for (r, _) in &d.related {
            check_range(&text, *r, d);
        }
        assert!(!d.message.is_empty(), "{d:?}");
    }
    let bir = a.bir_text(file).expect("not cancelled");
    serde_json::from_str::<serde_json::Value>(&bir).expect("BIR is JSON");
    for h in a.inlay_hints(file, None).expect("not cancelled") {
        check_range(&text, TextRange::empty(h.offset), &h);
    }
    let mut last = TextSize::from(0);
    for t in a.semantic_tokens(file, None).expect("not cancelled") {
        check_range(&text, t.range, &t);
        assert!(t.range.start() >= last, "semantic tokens overlap: {t:?}");
        last = t.range.end();
    }
    fn symbols(text: &str, syms: &[analysis::ide::Symbol]) {
        for s in syms {
            check_range(text, s.range, s);
            check_range(text, s.selection_range, s);
            symbols(text, &s.children);
        }
    }
    symbols(&text, &a.document_symbols(file).expect("not cancelled"));
    for f in a.folding_ranges(file).expect("not cancelled") {
        check_range(&text, f.range, &f);
    }
    let _ = a.show_bir(file, None);
    let well_formed = syntax::parse(&text).errors.is_empty();
    let mut renamed_once = false;
    let codes = |ds: &[analysis::Diagnostic]| {
        let mut codes: Vec<&'static str> = ds.iter().map(|d| d.code.as_str()).collect();
        codes.sort_unstable();
        codes
    };
    for at in offsets(&text, 8) {
        if let Ok(Some(h)) = a.hover(file, at) {
            check_range(&text, h.range, &h);
        }
        for c in a.completions(file, at).expect("not cancelled") {
            check_range(&text, c.replace, &c);
        }
        let _ = a.inlay_hints(file, Some(TextRange::new(at, at.max(last))));
        let _ = a.show_bir(file, Some(at));
        for r in a.selection_ranges(file, at).expect("not cancelled") {
            check_range(&text, r, &r);
        }
        if let Ok(Some(r)) = a.definition(file, at) {
            check_range(&text, r, &r);
        }
        for r in a.references(file, at, true).expect("not cancelled") {
            check_range(&text, r.range, &r);
        }
        if let Ok(Some((r, _))) = a.prepare_rename(file, at) {
            check_range(&text, r, &r);
        }
        if let Ok(Ok(edits)) = a.rename(file, at, "renamed") {
            let renamed = apply(&text, &edits, "rename");
            keeps_syntax(&text, well_formed, &renamed, "rename");
            // Renaming a tensor, register or loop variable changes no diagnostic's code
            // (a missed reference would be a P200), unless names clash (P201: renaming one
            // of two definitions ends the clash). Once per input: it re-analyses.
            let local = edits
                .iter()
                .all(|(r, _)| text[..usize::from(r.start())].ends_with('%'));
            let clash =
                text.contains("renamed") || diagnostics.iter().any(|d| d.code.as_str() == "P201");
            if !renamed_once && local && !clash && !edits.is_empty() {
                renamed_once = true;
                assert_eq!(
                    codes(&diagnostics),
                    codes(&fresh_diagnostics(&renamed)),
                    "rename changed the diagnostics\n--- before:\n{text}\n--- after:\n{renamed}"
                );
            }
        }
        for fix in a.fixes(file, TextRange::empty(at)).expect("not cancelled") {
            let fixed = apply(&text, &fix.edits, &fix.title);
            keeps_syntax(&text, well_formed, &fixed, &fix.title);
        }
    }
}

/// The tokens of `text` that formatting must keep, newlines left out; a comment's trailing
/// whitespace is not part of it.
fn kept_tokens(text: &str) -> Vec<(Token, &str)> {
    syntax::lex(text)
        .0
        .into_iter()
        .filter(|(t, _)| *t != Token::Newline)
        .map(|(t, r)| {
            let s = &text[r];
            (t, if t == Token::Comment { s.trim_end() } else { s })
        })
        .collect()
}

/// `formatted` (the formatting of `text`) keeps every token and is a fixed point.
fn check_format(text: &str, formatted: &str) {
    let before = kept_tokens(text);
    let after = kept_tokens(formatted);
    if before != after {
        let i = before
            .iter()
            .zip(&after)
            .position(|(a, b)| a != b)
            .unwrap_or(before.len().min(after.len()));
        panic!(
            "format changed the tokens at #{i}: {:?} became {:?}\n--- formatted:\n{formatted}",
            before.get(i),
            after.get(i)
        );
    }
    assert!(
        syntax::parse(formatted).errors.is_empty(),
        "formatted text has syntax errors: {:?}\n--- formatted:\n{formatted}",
        syntax::parse(formatted).errors
    );
    let again = analysis::ide::format(formatted).expect("formatted text formats");
    assert_eq!(
        again, formatted,
        "format is not idempotent\n--- once:\n{formatted}\n--- twice:\n{again}"
    );
}

/// The text that `target` reads from `data`.
pub fn text_of(target: &str, data: &[u8]) -> String {
    match target {
        "format" => generate::program(data),
        "analysis" => input_text(data),
        _ => syntax::decode(data).0,
    }
}

/// `format` keeps every token and is idempotent, over generated programs (every input is
/// read as the choices of [`generate::program`]: mutated raw files almost never parse, and
/// the `analysis` target checks `format` on those already).
pub fn format(data: &[u8]) {
    if data.len() > MAX_LEN {
        return;
    }
    let text = generate::program(data);
    if let Some(formatted) = analysis::ide::format(&text) {
        check_format(&text, &formatted);
    }
}

#[cfg(test)]
mod tests {
    /// The seed corpus (`seeds/`, real and mangled kernels) passes every target: the
    /// harness builds against the current API and its contract holds where fuzzing starts
    /// (`.ci/run` runs this, so the harness does not rot between fuzzing campaigns).
    #[test]
    fn seeds_pass_every_target() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
        let mut seeds: Vec<_> = std::fs::read_dir(&dir)
            .expect("seeds/")
            .map(|e| e.expect("a seed").path())
            .collect();
        seeds.sort();
        assert!(seeds.len() > 100, "{} seeds", seeds.len());
        for path in &seeds {
            let data = std::fs::read(path).expect("a readable seed");
            super::parse(&data);
            super::analysis(&data);
            super::format(&data);
        }
    }
}
