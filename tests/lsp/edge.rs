//! Protocol edge cases replayed from language-server bugs reported elsewhere (issue 11):
//! URI spellings, `shutdown` with `{}`, `$/` requests, lone surrogates, bursts of edits.

use std::time::{Duration, Instant};

use pir_lsp::convert::Encoding;
use serde_json::{Value, json};

use super::SMALL;
use super::support::{Server, position_of};

fn change(server: &mut Server, uri: &str, version: i64, changes: Value) {
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
    );
}

fn hover_at(server: &mut Server, uri: &str, text: &str, at: usize) -> Value {
    let position = position_of(text, at, server.encoding);
    server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position}),
    )
}

/// A misspelt op class on the line of the second DMA (a P202 error there).
fn misspelt(text: &str) -> Value {
    let at = text.rfind("DmaCopyOp").expect("op");
    json!([{"range": {"start": position_of(text, at, Encoding::Utf16),
        "end": position_of(text, at + "DmaCopyOp".len(), Encoding::Utf16)},
        "text": "DmaCopyOpp"}])
}

#[test]
fn uris_that_name_the_same_file_are_one_document() {
    for (opened, changed) in [
        ("file:///C:/p/a.pir", "file:///c%3A/p/a.pir"),
        ("file:///p/%C3%BC.pir", "file:///p/%c3%bc.pir"),
    ] {
        let mut server = Server::start(&["utf-16"], json!({}));
        server.open(opened, SMALL);
        assert!(server.diagnostics(opened, 1).is_empty());
        change(&mut server, changed, 2, misspelt(SMALL));
        // One document: the edit applies to it, and diagnostics use the spelling of didOpen.
        let diagnostics = server.diagnostics(opened, 2);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
        assert_eq!(diagnostics[0]["code"], "P202");
        // A request in either spelling sees it, and its answer uses the request's spelling.
        let at = SMALL.find("%t,").expect("tensor") + 1;
        let definition = server.request(
            "textDocument/definition",
            json!({"textDocument": {"uri": changed},
                "position": position_of(SMALL, at, server.encoding)}),
        );
        assert_eq!(definition["result"]["uri"], changed, "{definition}");
        let symbols = server.request("workspace/symbol", json!({"query": "k"}));
        let uris: Vec<&Value> = symbols["result"]
            .as_array()
            .expect("symbols")
            .iter()
            .map(|s| &s["location"]["uri"])
            .collect();
        assert!(
            !uris.is_empty() && uris.iter().all(|u| *u == opened),
            "{uris:?}"
        );
        // Closing in the other spelling closes it.
        server.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": changed}}),
        );
        let cleared = server.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == opened
                && m["params"]["version"].is_null()
        });
        assert_eq!(cleared["params"]["diagnostics"], json!([]));
        let symbols = server.request("workspace/symbol", json!({"query": "k"}));
        assert_eq!(symbols["result"], json!([]), "{symbols}");
        assert!(server.shutdown_and_exit().success());
    }
}

#[test]
fn shutdown_and_exit_accept_empty_params() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let response = server.request("shutdown", json!({}));
    assert!(response.get("error").is_none(), "{response}");
    assert_eq!(response["result"], Value::Null, "{response}");
    server.notify("exit", json!({}));
    assert_eq!(server.wait_exit().code(), Some(0));
}

#[test]
fn dollar_requests_are_answered_with_method_not_found() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let response = server.request("$/unknownRequest", json!({}));
    assert_eq!(response["error"]["code"], -32601, "{response}");
    // `$/` notifications stay unanswered (a `$/cancelRequest` of nothing, a `$/setTrace`).
    server.notify("$/cancelRequest", json!({"id": 12345}));
    server.notify("$/setTrace", json!({"value": "off"}));
    server.notify("$/somethingNew", json!({}));
    let answered = server.request("$/another", Value::Null);
    assert_eq!(answered["error"]["code"], -32601, "{answered}");
    let stray: Vec<&Value> = server
        .unconsumed()
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_none())
        .collect();
    assert!(stray.is_empty(), "{stray:#?}");
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn a_lone_surrogate_becomes_one_replacement_character_and_positions_stay_in_step() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = super::support::uri("surrogate.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    // Insert `// x<lone surrogate>y` as a comment line at the start (raw JSON: the escape must
    // reach the server as written).
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{u}","version":2}},"contentChanges":[{{"range":{{"start":{{"line":0,"character":0}},"end":{{"line":0,"character":0}}}},"text":"// x\ud800y\n"}}]}}}}"#
    );
    server.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let warning = server.wait_for(|m| m["method"] == "window/showMessage");
    assert_eq!(warning["params"]["type"], 2, "{warning}");
    assert!(
        warning["params"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("surrogate") && m.contains("U+FFFD")),
        "{warning}"
    );
    assert!(server.diagnostics(&u, 2).is_empty());
    // The server's text: the comment with U+FFFD (one UTF-16 unit, as the surrogate is).
    // An edit after it on the same line lands where the editor put it.
    change(
        &mut server,
        &u,
        3,
        json!([{"range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 6}},
            "text": "z"}]),
    );
    // Deleting the line's 7 UTF-16 units (`// x`, the surrogate, `yz`) leaves it empty: had
    // the server read the surrogate as more or fewer units, code or a stray letter would
    // remain and the file would not parse.
    change(
        &mut server,
        &u,
        4,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 7}},
            "text": ""}]),
    );
    assert_eq!(server.diagnostics(&u, 4), Vec::<Value>::new());
    let text = format!("\n{SMALL}");
    let edited = misspelt(&text);
    change(&mut server, &u, 5, edited.clone());
    let diagnostics = server.diagnostics(&u, 5);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        edited[0]["range"]["start"]
    );
    assert!(server.shutdown_and_exit().success());
}

/// A kernel of `ops` DMAs: big enough that analysing it takes a while.
fn big_kernel(ops: usize) -> String {
    let mut text = String::from(
        "kernel @k(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) {\n  tensor %t : sbuf f32[128, 512]\n",
    );
    for _ in 0..ops {
        text.push_str("  DmaCopyOp { dst = %t, src = %x }\n");
    }
    text.push_str("  DmaCopyOp { dst = %y, src = %t }\n}\n");
    text
}

/// Sends `n` one-space edits at the start of line 1 of `u` (from version `from`), each
/// followed by the `textDocument/diagnostic` request a pulling editor sends, then a hover on
/// the last op; returns the time from the first edit to the hover's answer, and the answer.
fn burst(
    server: &mut Server,
    u: &str,
    text: &str,
    (from, n): (i64, i64),
    pull: bool,
) -> (Duration, Value) {
    let at = json!({"line": 1, "character": 0});
    let started = Instant::now();
    for version in from..from + n {
        change(
            server,
            u,
            version,
            json!([{"range": {"start": at, "end": at}, "text": " "}]),
        );
        if pull {
            server.send(&json!({"jsonrpc": "2.0", "id": 100_000 + version,
                "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": u}}}));
        }
    }
    let edited = format!(
        "{}{}{}",
        &text[..text.find('\n').expect("line") + 1],
        " ".repeat(usize::try_from(from + n - 2).expect("count")),
        &text[text.find('\n').expect("line") + 1..]
    );
    let hover = hover_at(
        server,
        u,
        &edited,
        edited.rfind("DmaCopyOp").expect("op") + 2,
    );
    let elapsed = started.elapsed();
    // Every pull is answered: with a report, or with ContentModified when a later edit was
    // already queued behind it (never an error of another kind, never silence).
    for version in (from..from + n).filter(|_| pull) {
        let answer = server.wait_for(|m| m["id"] == 100_000 + version);
        assert!(
            answer["result"]["kind"] == "full" || answer["error"]["code"] == -32801,
            "{answer}"
        );
    }
    (elapsed, hover)
}

/// Issue 11: after a burst of edits, the next hover does not wait for each edit's analysis
/// in turn: the edits queued together are applied with one database write, and the
/// requests they made stale are answered at once. The figures are printed (see them with
/// `--nocapture`); the assertions are on the answers, the timing is machine-dependent.
#[test]
fn a_burst_of_edits_then_a_hover() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = super::support::uri("burst.pir");
    let text = big_kernel(5000);
    server.open(&u, &text);
    server.diagnostics(&u, 1);
    let mut version = 2;
    for (n, pull) in [(1, false), (50, false), (1, true), (50, true)] {
        let (elapsed, hover) = burst(&mut server, &u, &text, (version, n), pull);
        version += n;
        let pulls = if pull {
            " (each with a diagnostic pull)"
        } else {
            ""
        };
        eprintln!("a burst of {n} edits{pulls}: the hover answered after {elapsed:?}");
        assert!(
            hover["result"]["contents"]["value"]
                .as_str()
                .is_some_and(|h| h.contains("DmaCopyOp")),
            "{hover}"
        );
    }
    assert!(server.shutdown_and_exit().success());
}

/// `SMALL` after `lines` comment lines of 100 bytes each: a big document that is quick to
/// analyse.
fn behind_comments(lines: usize) -> String {
    let comment = format!("// {}\n", "x".repeat(97));
    format!("{}{SMALL}", comment.repeat(lines))
}

/// A `didOpen` of a megabyte or more goes to the document thread beside the framework (the
/// transport keeps its text aside, so the framework's read buffer never grows to hold it):
/// the document is analysed, edited and answered as any other, in order with the
/// notifications around it, and opened again under the same URI and version it is its own
/// text again.
#[test]
fn a_big_document_opens_as_a_small_one() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let big = behind_comments(12_000);
    assert!(big.len() > 1 << 20);
    let (a, b) = (
        super::support::uri("big.pir"),
        super::support::uri("small.pir"),
    );
    server.open(&a, &big);
    server.open(&b, SMALL);
    assert_eq!(server.diagnostics(&a, 1), Vec::<Value>::new());
    assert_eq!(server.diagnostics(&b, 1), Vec::<Value>::new());
    change(&mut server, &a, 2, misspelt(&big));
    let diagnostics = server.diagnostics(&a, 2);
    let dma = big.rfind("DmaCopyOp").expect("op");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!(position_of(&big, dma, Encoding::Utf16))
    );
    let hover = hover_at(
        &mut server,
        &a,
        &big,
        big.find("DmaCopyOp").expect("op") + 2,
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|h| h.contains("DmaCopyOp")),
        "{hover}"
    );
    server.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    server.open(&a, &big);
    assert_eq!(server.diagnostics(&a, 1), Vec::<Value>::new());
    assert!(server.shutdown_and_exit().success());
}

/// `textDocument/rangeFormatting` (what Neovim's `gq` asks for): only the lines of the
/// range are formatted; with syntax errors nothing is.
#[test]
fn range_formatting_formats_only_the_range() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = super::support::uri("range.pir");
    let messy = "kernel @k(%x: hbm f32[4]) {\n      NoOp{}\n  NoOp   {}\n}\n";
    server.open(&u, messy);
    server.diagnostics(&u, 1);
    let capabilities = server.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true},
            "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 3}}}),
    );
    let edits = capabilities["result"].as_array().expect("edits").clone();
    assert!(!edits.is_empty(), "{capabilities}");
    let mut lines: Vec<String> = messy.lines().map(str::to_string).collect();
    // Apply the edits (all on line 2, non-overlapping) from the last to the first.
    let mut sorted = edits.clone();
    sorted.sort_by_key(|e| std::cmp::Reverse(e["range"]["start"]["character"].as_u64()));
    for edit in &sorted {
        assert_eq!(edit["range"]["start"]["line"], 2, "{edit}");
        assert_eq!(edit["range"]["end"]["line"], 2, "{edit}");
        let from =
            usize::try_from(edit["range"]["start"]["character"].as_u64().expect("c")).expect("c");
        let to =
            usize::try_from(edit["range"]["end"]["character"].as_u64().expect("c")).expect("c");
        lines[2].replace_range(from..to, edit["newText"].as_str().expect("text"));
    }
    assert_eq!(lines[1], "      NoOp{}", "line 1 is outside the range");
    assert_eq!(lines[2], "  NoOp {}");
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": "kernel @k( {\n"}]}),
    );
    server.diagnostics(&u, 2);
    let broken = server.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}),
    );
    assert_eq!(broken["result"], Value::Null, "{broken}");
    assert!(server.shutdown_and_exit().success());
}

/// `pir/showBir` also gives the JSON as `pir lower` writes it (`1.0` stays `1.0`), for
/// clients whose JSON decoding loses it.
#[test]
fn show_bir_text_is_what_pir_lower_writes() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = super::support::uri("text.pir");
    let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  ActivationOp { dst = %t, src = %t, func = exp }\n}\n";
    server.open(&u, text);
    server.diagnostics(&u, 1);
    let file = server.request("pir/showBir", json!({"textDocument": {"uri": u}}));
    let shown = file["result"]["text"].as_str().expect("text").to_string();
    let path = std::env::temp_dir().join(format!("pir-showbir-{}.pir", std::process::id()));
    std::fs::write(&path, text).expect("write");
    let lowered = std::process::Command::new(env!("CARGO_BIN_EXE_pir"))
        .arg("lower")
        .arg(&path)
        .output()
        .expect("pir lower");
    assert_eq!(
        format!("{shown}\n"),
        String::from_utf8_lossy(&lowered.stdout)
    );
    assert!(shown.contains("\"scale\": 1.0"), "{shown}");
    assert!(server.shutdown_and_exit().success());
}

/// Workspace symbols cover the `*.pir` files of the workspace folders, open or not (an open
/// file is answered from its editor text, once).
#[test]
fn workspace_symbols_cover_the_workspace_folders() {
    let dir = std::env::temp_dir().join(format!("pir-ws-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("dir");
    std::fs::create_dir_all(dir.join(".hidden")).expect("dir");
    let kernel = |name: &str| format!("kernel @{name}(%x: hbm f32[4]) {{\n  NoOp {{}}\n}}\n");
    std::fs::write(dir.join("a.pir"), kernel("alpha_on_disk")).expect("write");
    std::fs::write(dir.join("sub/b.pir"), kernel("beta_kernel")).expect("write");
    std::fs::write(dir.join(".hidden/c.pir"), kernel("gamma_kernel")).expect("write");
    std::fs::write(dir.join("notes.txt"), kernel("delta_kernel")).expect("write");
    let folder = format!("file://{}", dir.display());
    let mut server = Server::spawn(&[]);
    let init = server.request(
        "initialize",
        json!({"processId": null, "rootUri": folder, "capabilities": {},
            "workspaceFolders": [{"uri": folder, "name": "ws"}]}),
    );
    assert!(init.get("error").is_none(), "{init}");
    server.notify("initialized", json!({}));
    // a.pir is open, with a text that differs from the disk's.
    let a = format!("{folder}/a.pir");
    server.open(&a, &kernel("alpha_in_editor"));
    server.diagnostics(&a, 1);
    let symbols = server.request("workspace/symbol", json!({"query": "kernel"}));
    let mut found: Vec<(String, String)> = symbols["result"]
        .as_array()
        .expect("symbols")
        .iter()
        .filter(|s| s["kind"] == 12)
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["location"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [("@beta_kernel".to_string(), format!("{folder}/sub/b.pir")),],
        "{symbols}"
    );
    let all = server.request("workspace/symbol", json!({"query": "alpha"}));
    let names: Vec<&str> = all["result"]
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["@alpha_in_editor"], "{all}");
    // A file changed on disk is read again (the others are not: they are kept until they
    // change), and a file gone is gone.
    std::fs::write(dir.join("sub/b.pir"), kernel("beta_kernel_renamed")).expect("write");
    std::fs::write(dir.join("sub/e.pir"), kernel("epsilon_kernel")).expect("write");
    let again = server.request("workspace/symbol", json!({"query": "_kernel"}));
    let mut names: Vec<&str> = again["result"]
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["@beta_kernel_renamed", "@epsilon_kernel"],
        "{again}"
    );
    std::fs::remove_file(dir.join("sub/e.pir")).expect("remove");
    let gone = server.request("workspace/symbol", json!({"query": "epsilon"}));
    assert_eq!(gone["result"], json!([]), "{gone}");
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn unusable_initialization_options_are_reported_and_left_at_their_defaults() {
    let mut server = Server::start(
        &["utf-16"],
        json!({"tkgSeqlenThreshold": "64", "inlayHints": "no"}),
    );
    let mut messages = Vec::new();
    for _ in 0..2 {
        let m = server.wait_for(|m| m["method"] == "window/showMessage");
        assert_eq!(m["params"]["type"], 2, "{m}");
        messages.push(
            m["params"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    messages.sort();
    assert!(
        messages[0].contains("`inlayHints.enabled` must be true or false"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("`tkgSeqlenThreshold` must be a whole number"),
        "{messages:?}"
    );
    // The defaults hold: inlay hints are on.
    let u = super::support::uri("options.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    let hints = server.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}}),
    );
    assert!(
        hints["result"].as_array().is_some_and(|h| !h.is_empty()),
        "{hints}"
    );
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn a_change_that_ends_before_it_starts_is_reported_and_the_server_goes_on() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = super::support::uri("reversed.pir");
    server.open(&u, SMALL);
    assert!(server.diagnostics(&u, 1).is_empty());
    change(
        &mut server,
        &u,
        2,
        json!([{"range": {"start": {"line": 2, "character": 4}, "end": {"line": 1, "character": 0}}, "text": "x"}]),
    );
    let warning = server.wait_for(|m| m["method"] == "window/showMessage");
    assert_eq!(warning["params"]["type"], 2, "{warning}");
    assert!(
        warning["params"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("ends (2:1) before it starts (3:5)")),
        "{warning}"
    );
    // The change was not applied, so pir no longer knows the editor's text: its diagnostics
    // are withdrawn, requests answered ContentModified, and ranged changes cannot apply…
    assert!(server.diagnostics(&u, 2).is_empty());
    change(&mut server, &u, 3, misspelt(SMALL));
    assert!(server.diagnostics(&u, 3).is_empty());
    let hover = hover_at(
        &mut server,
        &u,
        SMALL,
        SMALL.find("DmaCopyOp").expect("op") + 2,
    );
    assert_eq!(hover["error"]["code"], -32801, "{hover}");
    // …until the whole text comes again.
    change(&mut server, &u, 4, json!([{"text": SMALL}]));
    change(&mut server, &u, 5, misspelt(SMALL));
    assert_eq!(server.diagnostics(&u, 5).len(), 1);
    assert!(server.shutdown_and_exit().success());
}

/// A document an editor decoded as UTF-8 though it is UTF-16 (a NUL after every ASCII
/// character) is one P103 naming the encoding, published and pulled, as `pir check` of the
/// file says; sent again as UTF-8, it is checked as usual.
#[test]
fn a_utf16_document_read_as_utf8_is_one_diagnostic() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let uri = "file:///w/utf16.pir";
    let garbled: String = SMALL.chars().flat_map(|c| [c, '\0']).collect();
    server.open(uri, &garbled);
    let published = server.diagnostics(uri, 1);
    assert_eq!(published.len(), 1, "{published:#?}");
    assert_eq!(published[0]["code"], "P103");
    let message = published[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the file looks like UTF-16 (little-endian)"),
        "{message}"
    );
    let pulled = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(
        pulled["result"]["items"],
        Value::Array(published),
        "{pulled}"
    );
    change(&mut server, uri, 2, json!([{"text": SMALL}]));
    assert!(server.diagnostics(uri, 2).is_empty());
}
