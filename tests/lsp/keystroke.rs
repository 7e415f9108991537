//! Issue 24: what an edit gives on texts shaped to hurt: a kernel nested thousands of
//! loops deep, a kernel written on one line.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::{Server, uri};

/// The diagnostics of `text` from a fresh server (what `pir check` reports).
fn fresh(text: &str) -> Vec<Value> {
    let mut server = Server::start(&["utf-16"], json!({}));
    server.timeout = Duration::from_secs(120);
    let u = uri("fresh.pir");
    server.open(&u, text);
    let diagnostics = server.diagnostics(&u, 1);
    assert!(server.shutdown_and_exit().success());
    diagnostics
}

/// `{a}{inserted}{b}` where `text` is `{a}{b}` cut at `at`.
fn inserted(text: &str, at: usize, insert: &str) -> String {
    format!("{}{insert}{}", &text[..at], &text[at..])
}

/// A kernel whose body is `depth` loops, each inside the one before, around one op.
fn nested(depth: usize) -> String {
    let mut text = String::from(
        "// deep\nkernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n",
    );
    for i in 0..depth {
        text.push_str(&format!("for %i{i} in 0..2 {{\n"));
    }
    text.push_str("DmaCopyOp { dst = %t, src = %x }\n");
    text.push_str(&"}\n".repeat(depth));
    text.push_str("  DmaCopyOp { dst = %y, src = %t }\n}\n");
    text
}

/// An edit at the top of a kernel nested 5,000 loops deep is diagnosed exactly as a fresh
/// check of the edited text (one P100 "nesting too deep"), with no crash; so is a second
/// edit that undoes it.
#[test]
fn an_edit_on_top_of_a_deep_kernel_gives_the_fresh_diagnostics() {
    let text = nested(5000);
    let mut server = Server::start(&["utf-16"], json!({}));
    server.timeout = Duration::from_secs(120);
    let u = uri("deep.pir");
    server.open(&u, &text);
    let opened = server.diagnostics(&u, 1);
    assert_eq!(opened, fresh(&text));
    assert!(
        opened.iter().any(|d| d["message"]
            .as_str()
            .is_some_and(|m| m.contains("nesting too deep"))),
        "{opened:#?}"
    );
    // A character typed in the comment on the first line, then deleted.
    let at = json!({"line": 0, "character": 3});
    let edits = [
        json!({"range": {"start": at, "end": at}, "text": "e"}),
        json!({"range": {"start": at, "end": {"line": 0, "character": 4}}, "text": ""}),
    ];
    let texts = [inserted(&text, 3, "e"), text.clone()];
    for ((version, edit), edited) in (2..).zip(edits).zip(texts) {
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [edit]}),
        );
        let got = server.diagnostics(&u, version);
        assert_eq!(got, fresh(&edited), "after change {version}");
    }
    assert!(server.shutdown_and_exit().success());
}

/// A kernel of `ops` ops written on one line, each op's slice width different from its
/// neighbours'.
fn one_line(ops: usize) -> String {
    let mut text = String::from(
        "kernel @k(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) { tensor %a : sbuf f32[128, 512] tensor %b : sbuf f32[128, 512] DmaCopyOp { dst = %a, src = %x } ",
    );
    for i in 0..ops {
        let width = 64 + 64 * (i % 7);
        text.push_str(&format!(
            "TensorCopyOp {{ dst = %b[0:128, 0:{width}], src = %a[0:128, 0:{width}] }} "
        ));
    }
    text.push_str("DmaCopyOp { dst = %y, src = %b } }\n");
    text
}

/// Edits on a kernel written on one line (read in pieces cut inside the line, issue 24)
/// are diagnosed exactly as a fresh check of the edited text: an op's `}` deleted and
/// typed back, a `"` that turns the rest of the line into a string and its deletion, a
/// misspelt op class, an op pasted in.
#[test]
fn edits_on_a_kernel_written_on_one_line_give_the_fresh_diagnostics() {
    let mut text = one_line(3000);
    let mut server = Server::start(&["utf-16"], json!({}));
    server.timeout = Duration::from_secs(120);
    let u = uri("one-line.pir");
    server.open(&u, &text);
    assert_eq!(server.diagnostics(&u, 1), fresh(&text));
    let middle = text.len() / 2;
    let brace = middle + text[middle..].find(" }").unwrap_or_default() + 1;
    let op = middle + text[middle..].find("TensorCopyOp").unwrap_or_default();
    // (byte offset, bytes deleted, inserted), each on the text the one before left.
    let edits: [(usize, usize, &str); 8] = [
        (brace, 1, ""),
        (brace, 0, "}"),
        (op, 0, "\""),
        (op, 1, ""),
        (op + 1, 0, "x"),
        (op + 1, 1, ""),
        (op, 0, "TensorCopyOp { dst = %b, src = %a } "),
        (text.len() / 4, 0, "for %i in 0..2 { "),
    ];
    for (version, (at, delete, insert)) in (2..).zip(edits) {
        let start = json!({"line": 0, "character": at});
        let end = json!({"line": 0, "character": at + delete});
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version},
                "contentChanges": [{"range": {"start": start, "end": end}, "text": insert}]}),
        );
        text.replace_range(at..at + delete, insert);
        let got = server.diagnostics(&u, version);
        assert_eq!(got, fresh(&text), "after change {version}");
    }
    assert!(server.shutdown_and_exit().success());
}

/// A kernel of 160,000 ops written on one line (10 MB, cut into chunks inside the line)
/// answers each edit within a second, even from a debug build: a field misspelt in the
/// middle of the line is one P203 at its column, and gone when the name is typed back.
/// Before chunks were cut inside lines, the release server took 1.16 s an edit
/// (`benches/results/session16-one-line.md`); the figure is the benchmark's, this only
/// guards the shape (an edit re-reads a chunk, not the line).
#[test]
fn an_edit_of_a_160000_op_line_answers_within_a_second() {
    let text = one_line(160_000);
    let mut server = Server::start(&["utf-16"], json!({}));
    server.timeout = Duration::from_secs(300);
    let u = uri("line.pir");
    server.open(&u, &text);
    assert_eq!(server.diagnostics(&u, 1), Vec::<Value>::new());
    let middle = text.len() / 2;
    let src = middle + text[middle..].find("src =").unwrap_or_default();
    // `src` → `sorc`, then back (the text is ASCII: UTF-16 columns are byte offsets).
    let edits = [(src + 1, src + 1, "o"), (src + 1, src + 2, "")];
    for (version, (from, to, insert)) in (2..).zip(edits) {
        let started = std::time::Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version},
                "contentChanges": [{"range": {"start": {"line": 0, "character": from},
                    "end": {"line": 0, "character": to}}, "text": insert}]}),
        );
        let got = server.diagnostics(&u, version);
        let took = started.elapsed();
        eprintln!("one line of 160,000 ops: change {version} diagnosed in {took:?}");
        assert!(
            took < Duration::from_secs(1),
            "change {version} took {took:?}"
        );
        let codes: Vec<(&str, &Value)> = got
            .iter()
            .map(|d| (d["code"].as_str().unwrap_or_default(), &d["range"]["start"]))
            .collect();
        if version == 2 {
            assert_eq!(codes, [("P203", &json!({"line": 0, "character": src}))]);
        } else {
            assert_eq!(codes, []);
        }
    }
    assert!(server.shutdown_and_exit().success());
}
