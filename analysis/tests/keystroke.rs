//! What one keystroke recomputes at the document level, read off salsa's execution log
//! (wgsl-analyzer's `hir_ty/src/tests/incremental.rs` style): a keystroke in one kernel of
//! a many-kernel document, and in a middle part of a kernel cut into chunks, through the
//! [`AnalysisHost`] the server uses. Each snapshot lists the queries that ran, with how many
//! times: a change to it is a change to what a keystroke costs, and must be deliberate.

use analysis::{AnalysisHost, FileId, TextRange, TextSize};
use expect_test::{Expect, expect};

/// One kernel: a DMA in, `ops` element-wise ops on one column each (no two alike), a DMA
/// out. Each op on its own line.
fn kernel(name: &str, ops: usize) -> String {
    let mut text = format!(
        "kernel @{name}(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) {{\n  tensor %a : sbuf f32[128, 512]\n  tensor %b : sbuf f32[128, 512]\n  DmaCopyOp {{ dst = %a, src = %x }}\n"
    );
    for i in 0..ops {
        let op = if i % 2 == 0 { "add" } else { "multiply" };
        text.push_str(&format!(
            "  TensorTensorOp {{ dst = %b[:, {i}], src0 = %a[:, {i}], src1 = %a[:, {i}], op = {op} }}\n"
        ));
    }
    text.push_str("  DmaCopyOp { dst = %y, src = %b }\n}\n");
    text
}

/// The log's query names with their counts, sorted (ids differ run to run).
fn executed(host: &AnalysisHost) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for e in host.take_executions() {
        let name = e.split('(').next().unwrap_or_default().to_string();
        *counts.entry(name).or_default() += 1;
    }
    counts
        .iter()
        .map(|(name, n)| format!("{name} × {n}\n"))
        .collect()
}

/// Opens `text` in a logging host cutting chunks of at least `target` bytes, gathers its
/// diagnostics (as the server does after opening), then types `typed` in place of the first
/// `from` after `after`, gathers again, and checks the queries the keystroke ran. A space is
/// typed there and deleted first: the keystroke logged is the steady state of typing (the
/// first edit of a chunk makes it fine-grained, once, `SourceFile::coarse`).
#[track_caller]
fn check(text: &str, target: usize, after: &str, from: &str, typed: &str, expect: Expect) {
    let mut host = AnalysisHost::with_execution_log().with_chunk_target(target);
    let file: FileId = host.add_file(text);
    host.warm(file);
    let before = host.snapshot().diagnostics(file).unwrap();
    host.take_executions();
    let at = text.find(after).expect("anchor text") + after.len();
    let start = at + text[at..].find(from).expect("edited text");
    let range = TextRange::at(
        TextSize::from(start as u32),
        TextSize::from(from.len() as u32),
    );
    host.edit_file(file, TextRange::empty(range.start()), " ");
    host.snapshot().diagnostics(file).unwrap();
    host.edit_file(file, TextRange::at(range.start(), TextSize::from(1)), "");
    host.snapshot().diagnostics(file).unwrap();
    host.take_executions();
    host.edit_file(file, range, typed);
    let after_edit = host.snapshot().diagnostics(file).unwrap();
    expect.assert_eq(&executed(&host));
    // The keystroke (a value typed, another op) changes no diagnostic.
    assert_eq!(before, after_edit);
}

#[test]
fn a_keystroke_in_one_kernel_of_many() {
    // Forty kernels of 20 ops, about 3 KiB each: one kernel per 2 KiB chunk.
    let text: String = (0..40).map(|k| kernel(&format!("k{k}"), 20)).collect();
    check(
        &text,
        2048,
        "kernel @k20(",
        "op = add",
        "op = subtract",
        expect![[r#"
            chunk_summary × 1
            file_items × 1
            findings × 1
            kernel_stats × 1
            lower_op × 1
            op_keys × 1
            parse × 1
            part_ids × 1
            part_resources × 1
            parts × 1
        "#]],
    );
}

#[test]
fn a_keystroke_in_a_middle_part_of_a_cut_kernel() {
    // One kernel of 400 ops (about 40 KiB), cut at statement lines into chunks of 2 KiB or
    // more; the edit is in the middle.
    let text = kernel("big", 400);
    check(
        &text,
        2048,
        "src0 = %a[:, 200]",
        "op = add",
        "op = subtract",
        expect![[r#"
            chunk_summary × 1
            file_items × 1
            findings × 1
            kernel_stats × 1
            lower_op × 1
            mentions × 1
            op_keys × 1
            outline × 1
            parse × 1
            part_decls × 1
            part_ids × 1
            part_reads × 1
            part_resources × 1
            part_writes × 1
            parts × 1
            piece_statements × 2
        "#]],
    );
}

/// A document of more chunks than keep their symbol trees (256) and more symbols than its
/// outline lists in full (`MAX_DOCUMENT_SYMBOLS`): opening it keeps each chunk's count and
/// kernel heads, not its tree, and its first outline reads those alone (no chunk's symbol
/// tree is built again, nothing is parsed).
#[test]
fn a_big_documents_first_outline_after_opening_builds_no_tree() {
    let kernel = |k: usize| {
        format!(
            "kernel @k{k}(%x: hbm f32[4]) {{\n{}}}\n",
            "  NoOp {}\n".repeat(70)
        )
    };
    let text: String = (0..300).map(kernel).collect();
    let mut host = AnalysisHost::with_execution_log()
        .with_chunk_target(64)
        .for_editor();
    let file: FileId = host.add_file(&text);
    host.warm(file);
    host.take_executions();
    let symbols = host.snapshot().document_symbols(file).unwrap();
    // Each kernel with its parameter: the tree's 21,600 symbols are over the budget.
    assert_eq!(symbols.len(), 300);
    assert!(
        symbols.iter().all(|s| s.children.len() == 1),
        "{:?}",
        symbols.first()
    );
    expect![[r#""#]].assert_eq(&executed(&host));
}

/// What an editor's first folding and outline requests after opening run (the server's
/// host is [`AnalysisHost::for_editor`]): nothing — each chunk's folds and symbols were
/// memoized while its tree was alive. Asked of a host that evicted the trees, each
/// re-parsed every chunk (0.67 s and about 200 MB more at 100,000 ops). For many kernels,
/// and for one kernel cut into chunks (analysed as its chunks are entered).
#[test]
fn the_first_folds_and_outline_after_opening_parse_nothing() {
    let many: String = (0..40).map(|k| kernel(&format!("k{k}"), 20)).collect();
    let one = kernel("big", 400);
    for text in [many, one] {
        let mut host = AnalysisHost::with_execution_log()
            .with_chunk_target(2048)
            .for_editor();
        let file: FileId = host.add_file(&text);
        host.warm(file);
        host.snapshot().diagnostics(file).unwrap();
        host.take_executions();
        let folds = host.snapshot().folding_ranges(file).unwrap();
        assert!(folds.len() > 20, "{}", folds.len());
        let symbols = host.snapshot().document_symbols(file).unwrap();
        assert!(!symbols.is_empty());
        expect![[r#""#]].assert_eq(&executed(&host));
    }
}

/// What the diagnostics and then the code lenses after a keystroke in a kernel cut into
/// about 100 parts run: the
/// edited part's summaries, its group's join (`GROUP_PARTS`, 32 parts,
/// `analysis/src/kernel/resources/split.rs`) and the kernel's join of its groups, not a
/// walk of every part. The first edit types into an op (its instructions change, not
/// what they cost or where they run); the second makes it another engine's op; the third
/// adds an op (the part's live ranges change: its peak, its group's and the kernel's).
#[test]
fn the_lenses_after_a_keystroke_in_a_cut_kernel_join_one_group() {
    let text = kernel("big", 1000);
    let mut host = AnalysisHost::with_execution_log()
        .with_chunk_target(1024)
        .for_editor();
    let file: FileId = host.add_file(&text);
    host.warm(file);
    host.snapshot().diagnostics(file).unwrap();
    let before = host.snapshot().code_lenses(file).unwrap();
    let op = "TensorTensorOp { dst = %b[:, 500], src0 = %a[:, 500], src1 = %a[:, 500], op = add }";
    let mut start = text.find(op).expect("the middle op");
    // The steady state of typing (see `check`): a space typed and deleted first.
    let at = TextSize::from(start as u32);
    host.edit_file(file, TextRange::empty(at), " ");
    host.snapshot().code_lenses(file).unwrap();
    host.edit_file(file, TextRange::at(at, TextSize::from(1)), "");
    host.snapshot().code_lenses(file).unwrap();
    host.take_executions();
    let edits = [
        ("op = add }", "op = subtract }"),
        (
            "TensorTensorOp { dst = %b[:, 500], src0 = %a[:, 500], src1 = %a[:, 500], op = subtract }",
            "ActivationOp { dst = %b[:, 500], src = %a[:, 500], func = exp }",
        ),
        (
            "ActivationOp",
            "MemsetOp { dst = %b[:, 500], value = 0 }\n  ActivationOp",
        ),
    ];
    let mut expects = [
        expect![[r#"
        diagnostics:
        chunk_summary × 1
        file_items × 1
        findings × 1
        kernel_stats × 1
        lower_op × 1
        mentions × 1
        of_split × 3
        op_keys × 1
        outline × 1
        parse × 1
        part_decls × 1
        part_ids × 1
        part_reads × 1
        part_resources × 1
        part_writes × 1
        parts × 1
        piece_statements × 1
        lenses:
    "#]],
        expect![[r#"
        diagnostics:
        chunk_summary × 1
        file_items × 1
        findings × 1
        kernel_stats × 1
        lower_op × 1
        mentions × 1
        op_keys × 1
        outline × 1
        parse × 1
        part_decls × 1
        part_ids × 1
        part_live × 1
        part_reads × 1
        part_resources × 1
        part_writes × 1
        parts × 1
        piece_statements × 1
        lenses:
        group_counts × 1
        split_resources × 1
    "#]],
        expect![[r#"
        diagnostics:
        chunk_summary × 1
        file_items × 1
        findings × 1
        group_peaks × 1
        kernel_stats × 1
        lower_op × 1
        mentions × 1
        of_split × 1
        op_keys × 1
        outline × 1
        parse × 1
        part_decls × 1
        part_ids × 1
        part_live × 1
        part_names × 1
        part_reads × 1
        part_resources × 1
        part_writes × 1
        parts × 1
        piece_statements × 1
        split_part_peak × 1
        split_peaks × 1
        split_sides × 1
        lenses:
        group_counts × 1
        split_resources × 1
    "#]],
    ]
    .into_iter();
    let mut current = text.clone();
    for (from, to) in edits {
        let at = start + current[start..].find(from).expect("edited text");
        let range = TextRange::at(TextSize::from(at as u32), TextSize::from(from.len() as u32));
        host.edit_file(file, range, to);
        current.replace_range(at..at + from.len(), to);
        host.snapshot().diagnostics(file).unwrap();
        let diagnostics = executed(&host);
        let lenses = host.snapshot().code_lenses(file).unwrap();
        let log = format!("diagnostics:\n{diagnostics}lenses:\n{}", executed(&host));
        assert_eq!(lenses.len(), before.len());
        let engines = |lenses: &[analysis::ide::CodeLens]| {
            lenses.first().map(|l| {
                l.title
                    .split(" · SBUF")
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
        };
        if to.starts_with("Memset") {
            assert_ne!(engines(&lenses), engines(&before));
        } else if to.starts_with("ActivationOp") {
            assert_eq!(engines(&lenses).as_deref(), Some("Act 1 · DVE 999 · DMA 2"));
        } else {
            assert_eq!(engines(&lenses), engines(&before));
        }
        expects.next().unwrap().assert_eq(&log);
        start = current.find("%b[:, 500]").expect("the edited op") - 30;
    }
}
