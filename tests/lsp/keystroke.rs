//! Issue 24: what an edit gives on texts shaped to hurt: a kernel nested thousands of
//! loops deep.

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
