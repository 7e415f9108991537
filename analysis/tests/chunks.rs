//! A document kept as chunks of whole kernels answers as one whole text: every answer of
//! the façade, on documents cut into chunks of single kernels, equals the answer on the
//! same text in one chunk; and a document edited chunk by chunk (`edit_file`, random edit
//! sequences) answers as a fresh analysis of its final text (issue 9's incremental ≡
//! from-scratch property).

use analysis::{Analysis, AnalysisHost, FileId, TextRange, TextSize};
use proptest::prelude::*;

/// A host cutting documents into chunks of at least `target` bytes.
fn host(target: usize) -> AnalysisHost {
    AnalysisHost::new().with_chunk_target(target)
}

/// Everything the server and the command line ask of a document, in one string: the
/// answers that cover the whole document, then the answers at every `step`-th offset.
fn answers(analysis: &Analysis, file: FileId, text: &str, step: usize) -> String {
    let mut out = format!(
        "diagnostics {:#?}\ncapped {:?}\nbir {}\nsymbols {:?}\nworkspace symbols {:?}\nfolds {:?}\n\
         tokens {:?}\ninlay {:?}\nlenses {:?}\nstats {:?}\n",
        analysis.diagnostics(file).unwrap(),
        analysis.capped_diagnostics(file).unwrap(),
        analysis.bir_text(file).unwrap(),
        analysis.document_symbols(file).unwrap(),
        analysis.workspace_symbols(&[file], "").unwrap(),
        analysis.folding_ranges(file).unwrap(),
        analysis.semantic_tokens(file, None).unwrap(),
        analysis.inlay_hints(file, None).unwrap(),
        analysis.code_lenses(file).unwrap(),
        analysis.kernel_stats(file).unwrap(),
    );
    for offset in (0..=text.len())
        .step_by(step.max(1))
        .filter(|&o| text.is_char_boundary(o))
    {
        let at = TextSize::from(offset as u32);
        let window = TextRange::new(at, TextSize::of(text).min(at + TextSize::from(200)));
        out.push_str(&format!(
            "@{offset}\nhover {:?}\ncompletions {:?}\ndefinition {:?}\nreferences {:?}\n\
             rename {:?}\nselection {:?}\nfixes {:?}\nshow_bir {}\nrange tokens {:?}\n\
             range inlay {:?}\n",
            analysis.hover(file, at).unwrap(),
            analysis
                .completions(file, at)
                .unwrap()
                .iter()
                .map(|c| (&c.label, c.replace))
                .collect::<Vec<_>>(),
            analysis.definition(file, at).unwrap(),
            analysis.references(file, at, true).unwrap(),
            analysis.rename(file, at, "renamed").unwrap(),
            analysis.selection_ranges(file, at).unwrap(),
            analysis.fixes(file, window).unwrap(),
            analysis.show_bir(file, Some(at)).unwrap(),
            analysis.semantic_tokens(file, Some(window)).unwrap(),
            analysis.inlay_hints(file, Some(window)).unwrap(),
        ));
    }
    out
}

/// The diagnostics an editor is given are every diagnostic but the cost warnings after the
/// first [`analysis::MAX_COST_WARNINGS`], and the count of those, whether the document is one
/// chunk or cut into single kernels (whose later chunks are only counted, not read), and
/// after an edit that adds an error past the cap.
#[test]
fn an_editor_is_given_the_first_cost_warnings_and_their_count() {
    // Each kernel: one P420 (a 1-element op in a loop) and an unused tensor (P500).
    let kernel = |k: usize| {
        format!(
            "kernel @k{k}(%a: sbuf f32[128, 1], %b: sbuf f32[128, 1]) {{\n  %u = sbuf f32[128, 1]\n  \
             for %i in 0..4 {{\n    TensorScalarPtrOp {{ dst = %b, src = %a, op0 = multiply, \
             operand0 = 2.0 }}\n  }}\n}}\n"
        )
    };
    let text: String = (0..250).map(kernel).collect();
    let expected = |all: Vec<analysis::Diagnostic>| {
        let limit = analysis::MAX_COST_WARNINGS;
        let costs: Vec<_> = all.iter().filter(|d| d.code.is_cost_advice()).collect();
        let left_out = (costs.len() > limit).then(|| analysis::LeftOut {
            first: costs[limit].range,
            count: costs.len() - limit,
        });
        let mut seen = 0;
        let diagnostics = all
            .iter()
            .filter(|d| {
                seen += usize::from(d.code.is_cost_advice());
                !d.code.is_cost_advice() || seen <= limit
            })
            .cloned()
            .collect();
        analysis::CappedDiagnostics {
            diagnostics,
            cost_left_out: left_out,
        }
    };
    for target in [1, usize::MAX] {
        let mut host = host(target);
        let file = host.add_file(&text);
        let capped = host.snapshot().capped_diagnostics(file).unwrap();
        let all = host.snapshot().diagnostics(file).unwrap();
        assert_eq!(all.iter().filter(|d| d.code.is_cost_advice()).count(), 250);
        assert_eq!(capped.cost_left_out.map(|l| l.count), Some(150));
        assert_eq!(capped, expected(all), "chunk target {target}");
        // An error in the last kernel, past the cap: still given.
        let at = text.rfind("%a,").unwrap();
        host.edit_file(
            file,
            TextRange::at(TextSize::from(at as u32), TextSize::from(2)),
            "%q",
        );
        let capped = host.snapshot().capped_diagnostics(file).unwrap();
        let all = host.snapshot().diagnostics(file).unwrap();
        assert!(
            capped
                .diagnostics
                .iter()
                .any(|d| d.code == lower::Code::P200)
        );
        assert_eq!(capped, expected(all), "chunk target {target}, edited");
    }
}

/// The answers on `text` cut into single kernels, and in one chunk.
fn chunked_and_whole(text: &str, step: usize) -> (String, String) {
    let mut chunked = host(1);
    let file = chunked.add_file(text);
    let mut whole = host(usize::MAX);
    let whole_file = whole.add_file(text);
    (
        answers(&chunked.snapshot(), file, text, step),
        answers(&whole.snapshot(), whole_file, text, step),
    )
}

/// A document opened (its chunks lowered together, without a memo per op) answers as the
/// same text typed in (its chunks edited, each op's lowering memoized apart): the two ways
/// of lowering a chunk agree (`SourceFile::coarse`), also after the host's batched cold
/// start with garbage collected between batches.
///
/// In one chunk (the whole text), the typed document is also read in pieces at statement
/// lines, each memoized apart (`analysis::db::parse`); an edit in the middle then re-reads
/// one piece.
#[test]
fn opened_and_typed_documents_answer_alike() {
    let text = all_corpus_kernels();
    for target in [1, usize::MAX] {
        let mut opened = host(target);
        let file = opened.add_file(&text);
        opened.warm(file);
        let mut typed = host(target);
        let typed_file = typed.add_file("");
        typed.edit_file(typed_file, TextRange::empty(0.into()), &text);
        let step = text.len() / 40 + 1;
        let (a, b) = (
            answers(&opened.snapshot(), file, &text, step),
            answers(&typed.snapshot(), typed_file, &text, step),
        );
        assert!(
            a == b,
            "chunk target {target}: {}",
            first_difference(&a, &b)
        );
    }
}

/// All corpus kernels in one file: many kernels, kernel names defined twice (P201 across
/// chunks), a byte-order mark nowhere but at the start.
fn all_corpus_kernels() -> String {
    let mut texts: Vec<String> = test_utils::corpus_files()
        .into_iter()
        .map(|(_, text)| text.trim_start_matches('\u{FEFF}').to_string())
        .collect();
    // Its first file again: its kernels defined twice, in other chunks.
    texts.push(texts[0].clone());
    texts.join("\n")
}

#[test]
fn a_document_in_chunks_answers_as_one_text() {
    let all = all_corpus_kernels();
    let (chunked, whole) = chunked_and_whole(&all, 97);
    assert!(
        whole.contains("P201"),
        "the corpus joined defines a kernel twice"
    );
    assert!(chunked == whole, "{}", first_difference(&chunked, &whole));
    for (name, text) in test_utils::corpus_files() {
        let (chunked, whole) = chunked_and_whole(&text, 13);
        assert!(
            chunked == whole,
            "{name}: {}",
            first_difference(&chunked, &whole)
        );
    }
}

/// A whole document's semantic tokens are memoized per chunk: after an edit, the chunks it
/// did not touch give the same lists (what the server keeps each chunk's encoding by), the
/// edited chunk a new one, and the document's tokens are those of a fresh analysis.
#[test]
fn semantic_tokens_are_kept_per_chunk() {
    let mut text = all_corpus_kernels();
    let mut host = host(1);
    let file = host.add_file(&text);
    let before = host.snapshot().semantic_token_chunks(file).unwrap();
    assert!(before.len() > 3, "{} chunks", before.len());
    // A space after the first `=` from the middle chunk on (kernels are cut at their
    // statements too: the chunk holding it).
    let start = usize::from(before[before.len() / 2].range.start());
    let at = start + text[start..].find('=').unwrap() + 1;
    let middle = before
        .iter()
        .position(|c| c.range.contains(TextSize::from(at as u32)))
        .unwrap();
    text.insert(at, ' ');
    host.edit_file(file, TextRange::empty(TextSize::from(at as u32)), " ");
    let analysis = host.snapshot();
    let after = analysis.semantic_token_chunks(file).unwrap();
    let kept: Vec<bool> = before
        .iter()
        .zip(&after)
        .map(|(b, a)| std::sync::Arc::ptr_eq(&b.tokens, &a.tokens))
        .collect();
    let mut expected = vec![true; before.len()];
    expected[middle] = false;
    assert_eq!(kept, expected);
    let mut fresh = AnalysisHost::new();
    let fresh_file = fresh.add_file(&text);
    assert_eq!(
        analysis.semantic_tokens(file, None).unwrap(),
        fresh.snapshot().semantic_tokens(fresh_file, None).unwrap()
    );
}

#[test]
fn lines_and_errors_across_chunks() {
    // More than 100 syntax errors spread over kernels: the cap applies to the document.
    let bad_kernel = |k: usize| format!("kernel @k{k}() {{\n{}}}\n", "  Op { a = = }\n".repeat(30));
    let text: String = (0..8).map(bad_kernel).collect();
    let (chunked, whole) = chunked_and_whole(&text, 5000);
    assert!(whole.contains("too many syntax errors"), "{whole}");
    assert!(chunked == whole, "{}", first_difference(&chunked, &whole));
    // Lines and columns of the command line, in a later chunk.
    let mut host = host(1);
    let file = host.add_file(&text);
    let analysis = host.snapshot();
    let last_kernel = text.rfind("kernel @k7").unwrap();
    let at = analysis
        .line_col(file, TextSize::from(last_kernel as u32 + 7))
        .unwrap();
    assert_eq!((at.line, at.column), (1 + 7 * 32, 8));
}

#[test]
fn an_edit_of_a_kernel_line_is_seen_by_the_chunk_before() {
    // `@a` lacks its `}`: its error names the kernel after it, in the next chunk.
    let text = "kernel @a() {\n  NoOp {}\nkernel @b() {\n  NoOp {}\n}\n";
    let mut host = host(1);
    let file = host.add_file(text);
    let message = |host: &AnalysisHost| {
        let diagnostics = host.snapshot().diagnostics(file).unwrap();
        diagnostics
            .first()
            .map(|d| d.message.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        message(&host),
        "unclosed `{`: kernel `@b` starts before its `}`"
    );
    let b = text.find("@b").unwrap() as u32 + 1;
    host.edit_file(file, TextRange::at(b.into(), 1.into()), "c");
    assert_eq!(
        message(&host),
        "unclosed `{`: kernel `@c` starts before its `}`"
    );
    // The kernel line gone, the chunks join: `@c() {` is junk inside `@a`'s body.
    let kernel = text.find("kernel @b").unwrap() as u32;
    host.edit_file(file, TextRange::at(kernel.into(), 6.into()), "");
    let diagnostics = host.snapshot().diagnostics(file).unwrap();
    let mut fresh = self::host(usize::MAX);
    let fresh_file = fresh.add_file(&host.snapshot().file_text(file));
    assert_eq!(
        diagnostics,
        fresh.snapshot().diagnostics(fresh_file).unwrap()
    );
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
}

/// Replaces `len` bytes at `at` of `file` (whose text is `text`) with `insert`; returns
/// the codes and ranges of its diagnostics, after checking them against a fresh analysis.
fn edit_and_report(
    host: &mut AnalysisHost,
    file: FileId,
    text: &mut String,
    (at, len): (usize, usize),
    insert: &str,
) -> Vec<String> {
    text.replace_range(at..at + len, insert);
    let range = TextRange::at(TextSize::from(at as u32), TextSize::from(len as u32));
    host.edit_file(file, range, insert);
    let mut fresh = self::host(usize::MAX);
    let fresh_file = fresh.add_file(text);
    let diagnostics = host.snapshot().diagnostics(file).unwrap();
    assert_eq!(
        diagnostics,
        fresh.snapshot().diagnostics(fresh_file).unwrap()
    );
    diagnostics
        .iter()
        .map(|d| format!("{} {:?}", d.code.as_str(), d.range))
        .collect()
}

/// Typing in one chunk changes what the document reports across chunks: a kernel renamed
/// to the name of a kernel in another chunk is P201 (pointing at the first), named back it
/// is not, and a chunk left clean by an edit is clean again (the gathering keeps what it
/// knows of the chunks not edited, and forgets it for the chunks an edit sets).
#[test]
fn edits_change_what_chunks_report_to_the_document() {
    let mut text = "kernel @a() {\n  NoOp {}\n}\n\
                    kernel @b() {\n  NoOp {}\n}\n\
                    kernel @c() {\n  NoOp {}\n}\n"
        .to_string();
    let mut host = host(1);
    let file = host.add_file(&text);
    host.warm(file);
    assert!(host.snapshot().diagnostics(file).unwrap().is_empty());
    let c = text.find("@c").unwrap() + 1;
    let report = edit_and_report(&mut host, file, &mut text, (c, 1), "a");
    assert_eq!(report, ["P201 59..61"]);
    let report = edit_and_report(&mut host, file, &mut text, (c, 1), "c");
    assert_eq!(report, Vec::<String>::new());
    let b_body = text.find("  NoOp {}\n}\nkernel @c").unwrap();
    let report = edit_and_report(&mut host, file, &mut text, (b_body, 6), "  Nop");
    assert_eq!(report, ["P202 42..45"]);
    let report = edit_and_report(&mut host, file, &mut text, (b_body, 5), "  NoOp");
    assert_eq!(report, Vec::<String>::new());
}

/// Whether a `}` is one too many is decided on whole kernels, never on the part of a split
/// kernel an edit re-cuts (issue 23's drift: a part starting inside a kernel took its
/// header to be unindented, and could not see an over-indented `}` in an earlier part).
/// Each case, cut a part per statement: fresh and whole agree, and so does each edit.
#[test]
fn a_close_too_many_is_decided_on_the_whole_kernel() {
    // An indented kernel closed at its own indentation, with an op after it: the `}` is
    // not over-indented, the op is stray (a part starting inside took it for one too many).
    let indented = "  kernel @k() {\n    NoOp {}\n    NoOp {}\n    NoOp {}\n  }\n  NoOp {}\n";
    // Written without indentation, and an op after the kernel's `}`, then a `}`: the
    // kernel's `}` is the one too many.
    let unindented = "kernel @k() {\nNoOp {}\nNoOp {}\n}\nNoOp {}\n}\nkernel @m() {\nNoOp {}\n}\n";
    for text in [indented, unindented] {
        let (chunked, whole) = chunked_and_whole(text, 7);
        assert!(chunked == whole, "{}", first_difference(&chunked, &whole));
    }
    // An over-indented `}` early in a split kernel; an op typed after the kernel's `}`
    // makes that early `}` one too many, though the edited part does not hold it.
    let mut text =
        "kernel @k() {\n  for %i in 0..2 {\n    NoOp {}\n    }\n  NoOp {}\n  NoOp {}\n  \
                    NoOp {}\n}\nkernel @m() {\n  NoOp {}\n}\n"
            .to_string();
    let mut host = host(1);
    let file = host.add_file(&text);
    assert!(host.snapshot().diagnostics(file).unwrap().is_empty());
    let after = text.find("}\nkernel @m").unwrap() + 2;
    let report = edit_and_report(&mut host, file, &mut text, (after, 0), "NoOp {}\n");
    assert_eq!(report.first().map(|r| &r[..4]), Some("P100"), "{report:?}");
    // Back, and the other way round: the op after the kernel first, then the early `}`
    // indented over its loop by an edit of the part that holds it.
    let report = edit_and_report(&mut host, file, &mut text, (after, 8), "");
    assert!(report.is_empty(), "{report:?}");
    let close = text.find("    }").unwrap();
    edit_and_report(&mut host, file, &mut text, (close, 2), "");
    edit_and_report(&mut host, file, &mut text, (after - 2, 0), "NoOp {}\n");
    let close = text.find("  }").unwrap();
    let report = edit_and_report(&mut host, file, &mut text, (close, 0), "  ");
    assert_eq!(report.first().map(|r| &r[..4]), Some("P100"), "{report:?}");
}

/// The first line where `a` and `b` differ, with both versions.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    let mut n = 0;
    loop {
        n += 1;
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => return "equal".into(),
            (x, y) => return format!("line {n}:\n  chunked: {x:?}\n  whole:   {y:?}"),
        }
    }
}

/// One edit: replace `len` bytes at `at` (a fraction of the text, in thousandths) with
/// `insert`.
#[derive(Clone, Debug)]
struct Edit {
    at: usize,
    len: usize,
    insert: &'static str,
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    (
        0usize..1000,
        0usize..60,
        prop::sample::select(vec![
            "",
            "x",
            "{",
            "}",
            "\n",
            "\nkernel @n() {\n",
            "kernel @m() { NoOp {} }\n",
            "}\n}\n",
            "  NoOp {}\n",
            "  tensor %t : sbuf f32[128, 4]\n",
            "  for %q in 0..4 {\n",
            "ker",
            "nel @",
            " = ",
            "// kernel @c() {}\n",
            "\r\n",
            "\r",
            "\n\r",
            "é",
            "\u{2028}",
            "\u{FEFF}",
            "\0",
            "kernel @z() {",
        ]),
    )
        .prop_map(|(at, len, insert)| Edit { at, len, insert })
}

/// Applies `edit` to `text`, returning the byte range it replaced (on char boundaries).
fn apply(text: &mut String, edit: &Edit) -> TextRange {
    let mut start = edit.at * text.len() / 1000;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + edit.len).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text.replace_range(start..end, edit.insert);
    TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random edit sequences through `edit_file` on a chunked document give, after every
    /// edit, the diagnostics of a fresh analysis of the edited text; at the end, every
    /// answer.
    #[test]
    fn edits_answer_as_a_fresh_analysis(
        file in 0usize..64,
        target in prop::sample::select(vec![1usize, 300, usize::MAX]),
        edits in prop::collection::vec(edit_strategy(), 1..12),
    ) {
        let mut text = all_corpus_kernels();
        if file % 2 == 1 {
            let files = test_utils::corpus_files();
            text = files[file % files.len()].1.clone();
        } else if file % 4 == 2 {
            // Long lines, cut inside.
            let files = test_utils::long_line_files();
            text = files[file / 4 % files.len()].1.clone();
        }
        let mut host = host(target);
        let id = host.add_file(&text);
        host.warm(id);
        let _ = host.snapshot().diagnostics(id).unwrap();
        for edit in &edits {
            let range = apply(&mut text, edit);
            host.edit_file(id, range, edit.insert);
            let mut fresh = self::host(usize::MAX);
            let fresh_id = fresh.add_file(&text);
            prop_assert_eq!(host.snapshot().file_text(id), text.clone());
            prop_assert_eq!(
                host.snapshot().diagnostics(id).unwrap(),
                fresh.snapshot().diagnostics(fresh_id).unwrap()
            );
        }
        let mut fresh = self::host(usize::MAX);
        let fresh_id = fresh.add_file(&text);
        let step = text.len() / 7 + 1;
        let edited = answers(&host.snapshot(), id, &text, step);
        let expected = answers(&fresh.snapshot(), fresh_id, &text, step);
        prop_assert!(edited == expected, "{}", first_difference(&edited, &expected));
    }
}

/// Lone carriage returns are one P103 for the document, at the first, counting all, however
/// the document is cut (each chunk's parse reports its own: the gathering adds them up) or
/// read (an edited chunk is read in pieces, which report none).
#[test]
fn lone_carriage_returns_are_counted_once_per_document() {
    let kernel = |k: usize| format!("kernel @k{k}() {{\n  NoOp {{}} // a\rb\n}}\n");
    let text: String = (0..3).map(kernel).collect();
    let (chunked, whole) = chunked_and_whole(&text, 11);
    assert!(chunked == whole, "{}", first_difference(&chunked, &whole));
    let mut chunked = host(1);
    let file = chunked.add_file(&text);
    let lone: Vec<_> = chunked
        .snapshot()
        .diagnostics(file)
        .unwrap()
        .into_iter()
        .map(|d| (d.code.as_str(), d.range, d.message))
        .collect();
    let first = TextRange::at(TextSize::from(text.find('\r').unwrap() as u32), 1.into());
    assert_eq!(
        lone,
        vec![(
            "P103",
            first,
            "a lone carriage return (3 in the file): lines end with LF or CRLF".to_string()
        )]
    );
    // Typed into a chunk big enough to be read in pieces: still one, counting all.
    let big: String = (0..3)
        .map(|k| format!("kernel @k{k}() {{\n{}}}\n", "  NoOp {}\n".repeat(600)))
        .collect();
    let mut whole = host(usize::MAX);
    let file = whole.add_file(&big);
    // At line starts (a kernel line of 15 bytes, op lines of 10), from the last.
    for at in [6015, 3015, 105] {
        whole.edit_file(file, TextRange::empty(TextSize::from(at)), "// a\rb\n");
    }
    let p103: Vec<_> = whole
        .snapshot()
        .diagnostics(file)
        .unwrap()
        .into_iter()
        .filter(|d| d.code.as_str() == "P103")
        .map(|d| d.message)
        .collect();
    assert_eq!(
        p103,
        vec!["a lone carriage return (3 in the file): lines end with LF or CRLF"]
    );
}

/// `write_bir` (`pir lower`: made a batch of chunks at a time on every core, written as it
/// comes) writes the text of `bir_text` (the whole document serialized at once), across
/// batches of chunks, and for texts with no kernel.
#[test]
fn bir_written_in_batches_is_the_whole_documents() {
    let all = all_corpus_kernels();
    let twice = format!("{all}\n{all}");
    for text in [twice.as_str(), "", "// nothing\n", "junk {"] {
        let mut host = host(1);
        let file = host.add_file(text);
        let whole = host.snapshot().bir_text(file).unwrap();
        let mut written = Vec::new();
        host.write_bir(file, &mut written).unwrap();
        let written = String::from_utf8(written).unwrap();
        assert!(
            written == whole,
            "{:?}: {}",
            &text[..text.len().min(20)],
            first_difference(&written, &whole)
        );
        // Analysed on the way: the diagnostics are those of a fresh analysis.
        let mut fresh = AnalysisHost::new();
        let again = fresh.add_file(text);
        assert_eq!(
            host.snapshot().diagnostics(file).unwrap(),
            fresh.snapshot().diagnostics(again).unwrap()
        );
    }
    let mut host = host(1);
    let file = host.add_file(&twice);
    let mut written = Vec::new();
    host.write_bir(file, &mut written).unwrap();
    // A kernel per chunk: more than two batches of 16 chunks.
    let functions = String::from_utf8(written)
        .unwrap()
        .matches("\"blocks\"")
        .count();
    assert!(functions > 32, "{functions} functions");
}

/// The outline of a document of more than `MAX_DOCUMENT_SYMBOLS` symbols is its kernels
/// and their parameters (each chunk's tree counted, then cut the same way however the
/// document is cut).
#[test]
fn a_huge_documents_symbols_are_its_kernels() {
    let kernel = |k: usize, ops: usize| {
        format!(
            "kernel @k{k}(%x: hbm f32[4]) {{\n  tensor %t : sbuf f32[128, 4]\n{}}}\n",
            "  NoOp {}\n".repeat(ops)
        )
    };
    // 10 kernels of 3 + ops symbols each: just within the budget, then just over it.
    let within = (analysis::ide::MAX_DOCUMENT_SYMBOLS - 30) / 10;
    for (ops, whole) in [(within, true), (within + 1, false)] {
        let text: String = (0..10).map(|k| kernel(k, ops)).collect();
        for target in [1, usize::MAX] {
            let mut host = host(target);
            let file = host.add_file(&text);
            let symbols = host.snapshot().document_symbols(file).unwrap();
            assert_eq!(symbols.len(), 10);
            let count: usize = symbols.iter().map(analysis::ide::Symbol::count).sum();
            if whole {
                assert_eq!(count, analysis::ide::MAX_DOCUMENT_SYMBOLS);
            } else {
                // Each kernel and its parameter.
                assert_eq!(count, 20, "ops {ops}, target {target}");
            }
        }
    }
    // 1,000 kernels of 25 parameters: the kernels and their parameters are over the budget
    // too, so the outline is the kernels alone.
    let params: Vec<String> = (0..25).map(|p| format!("%p{p}: hbm f32[4]")).collect();
    let text: String = (0..1000)
        .map(|k| format!("kernel @k{k}({}) {{\n  NoOp {{}}\n}}\n", params.join(", ")))
        .collect();
    let mut host = host(usize::MAX);
    let file = host.add_file(&text);
    let symbols = host.snapshot().document_symbols(file).unwrap();
    let count: usize = symbols.iter().map(analysis::ide::Symbol::count).sum();
    assert_eq!((symbols.len(), count), (1000, 1000));
}

/// The inserts of a long editing session (issue 23): line ends of every kind, U+2028, a
/// byte-order mark, NUL, braces and a kernel header typed mid-line.
const SESSION_INSERTS: &[&str] = &[
    "",
    "x",
    "{",
    "}",
    "\n",
    "\r",
    "\r\n",
    "\n\r",
    "\u{2028}",
    "\u{FEFF}",
    "\0",
    "é",
    "kernel @z() {",
    "}\n}\n",
    "  NoOp {}\n",
    "  for %q in 0..4 {\n",
    "\nkernel @n() {\n",
    "  tensor %t : sbuf f32[128, 4]\n",
    "// kernel @c() {}\n",
    " = ",
];

/// A deterministic session of `edits` random edits (xorshift from `seed`) on `text`,
/// checking after each that the edited document reports what a fresh analysis of its text
/// reports. Returns the edit at which they first differ, with both reports' codes.
fn session(mut text: String, target: usize, seed: u64, edits: usize) -> Option<String> {
    let mut state = seed.max(1);
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let mut host = host(target);
    let id = host.add_file(&text);
    let _ = host.snapshot().diagnostics(id).unwrap();
    for i in 0..edits {
        let edit = Edit {
            at: next(1000),
            len: if next(3) == 0 { next(60) } else { 0 },
            insert: SESSION_INSERTS[next(SESSION_INSERTS.len())],
        };
        let range = apply(&mut text, &edit);
        host.edit_file(id, range, edit.insert);
        let got = host.snapshot().diagnostics(id).unwrap();
        let mut fresh = self::host(target);
        let fresh_id = fresh.add_file(&text);
        let want = fresh.snapshot().diagnostics(fresh_id).unwrap();
        if got != want {
            let codes = |d: &[analysis::Diagnostic]| {
                d.iter()
                    .map(|d| format!("{} {:?}", d.code.as_str(), d.range))
                    .collect::<Vec<_>>()
            };
            return Some(format!(
                "edit {i} ({edit:?} at {range:?}): edited {:?}\nfresh {:?}",
                codes(&got),
                codes(&want)
            ));
        }
    }
    None
}

/// A long editing session (2,500 edits) with every kind of line end, on four corpus
/// kernels cut small: incremental equals fresh after every edit (issue 23's drift needed
/// ~1,800 edits to show). `PIR_LONG_SESSIONS=N` runs `N` more sessions of other seeds, on
/// the whole corpus and with the server's chunk size.
#[test]
fn long_editing_sessions_answer_as_a_fresh_analysis() {
    let files = test_utils::corpus_files();
    let text: String = files.iter().take(4).map(|(_, t)| t.as_str()).collect();
    let drift = session(text, 300, 7, 2500);
    assert!(drift.is_none(), "{}", drift.unwrap_or_default());
    // Kernels on long lines, cut inside them.
    let long: String = test_utils::long_line_files()
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let drift = session(long, 300, 11, 1000);
    assert!(drift.is_none(), "long lines: {}", drift.unwrap_or_default());
    let more: u64 = std::env::var("PIR_LONG_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    for seed in 0..more {
        for target in [300, 2048, analysis::CHUNK_TARGET] {
            let drift = session(all_corpus_kernels(), target, 100 + seed, 2500);
            assert!(
                drift.is_none(),
                "seed {seed}, chunks of {target}: {}",
                drift.unwrap_or_default()
            );
        }
    }
}

/// A request for the hints of more ops than [`analysis::ide::MAX_INLAY_HINTS`] is answered with
/// the first of them, in source order, across chunks: kernels of 600 ops each written on
/// one line, as one chunk and as a chunk per kernel.
#[test]
fn an_inlay_hint_request_is_answered_with_its_first_ops() {
    let kernel = |k: usize| {
        let ops = "TensorCopyOp { dst = %b, src = %a } ".repeat(600);
        format!("kernel @k{k}(%a: sbuf f32[128, 4], %b: sbuf f32[128, 4]) {{ {ops}}}\n")
    };
    let text: String = (0..3).map(kernel).collect();
    let op_ends: Vec<u32> = text
        .match_indices(" } ")
        .map(|(at, _)| at as u32 + 2)
        .collect();
    for target in [usize::MAX, 1] {
        let mut host = host(target);
        let file = host.add_file(&text);
        let hints = host.snapshot().inlay_hints(file, None).unwrap();
        let offsets: Vec<u32> = hints.iter().map(|h| u32::from(h.offset)).collect();
        assert_eq!(
            offsets,
            op_ends[..analysis::ide::MAX_INLAY_HINTS],
            "chunk target {target}"
        );
    }
}

/// One kernel cut into more parts than one group of the resource join holds
/// (`GROUP_PARTS`, 32): SBUF and PSUM tensors declared all along it, some live across many
/// parts, written op ids, loops, its peaks in a late group. Its lenses, stats, hover and
/// diagnostics are a whole text's, at chunk targets that cut it into about 1,000, 150 and
/// 40 parts.
#[test]
fn a_kernel_of_many_groups_of_parts_answers_as_one_text() {
    let mut text = String::from(
        "kernel @big(%x: hbm f32[128, 64], %s: sbuf f32[128, 8]) -> (%y: hbm f32[128, 64]) {\n  \
         tensor %a : sbuf f32[128, 64]\n  DmaCopyOp { dst = %a, src = %x }\n",
    );
    for i in 0..900 {
        if i % 45 == 0 {
            // Wider tensors further on: the peaks are reached late.
            text.push_str(&format!("  tensor %t{i} : sbuf f32[128, {}]\n", 16 + i / 3));
            text.push_str(&format!("  tensor %p{i} : psum f32[128, {}]\n", 8 + i / 90));
        }
        let t = i - i % 45;
        // Every third group of tensors is read again 200 ops on: live across many parts.
        let src = if t >= 200 && (t / 45) % 3 == 0 {
            t - 180
        } else {
            t
        };
        let src = src - src % 45;
        let id = if i % 7 == 0 {
            format!(" #{}", 5000 + i)
        } else {
            String::new()
        };
        let op =
            format!("TensorTensorOp{id} {{ dst = %t{t}, src0 = %t{src}, src1 = %s, op = add }}");
        if i % 60 == 30 {
            text.push_str(&format!(
                "  for %j in 0..2 {{\n    {op}\n    MatMulOp {{ dst = %p{t}, stationary = %a, moving = %a }}\n  }}\n"
            ));
        } else {
            text.push_str(&format!("  {op}\n"));
        }
    }
    text.push_str("  DmaCopyOp { dst = %y, src = %a }\n}\n");
    let mut whole = host(usize::MAX);
    let whole_file = whole.add_file(&text);
    let name = TextSize::from(text.find("@big").unwrap() as u32 + 1);
    let summary = |analysis: &Analysis, file: FileId| {
        format!(
            "lenses {:?}\nstats {:#?}\nhover {:?}\ndiagnostics {:#?}",
            analysis.code_lenses(file).unwrap(),
            analysis.kernel_stats(file).unwrap(),
            analysis.hover(file, name).unwrap(),
            analysis.diagnostics(file).unwrap(),
        )
    };
    let expected = summary(&whole.snapshot(), whole_file);
    for target in [1, 256, 1024] {
        let mut chunked = host(target);
        let file = chunked.add_file(&text);
        let got = summary(&chunked.snapshot(), file);
        assert!(
            got == expected,
            "chunk target {target}: {}",
            first_difference(&got, &expected)
        );
    }
}
