//! Protocol tests: the real `pir lsp` over stdio, spoken to in JSON-RPC.

mod cost;
mod edge;
mod features;
mod hostile;
mod keystroke;
mod support;
mod workspace;

use serde_json::{Value, json};
use support::{Server, cursors, position_of, uri};

fn corpus(name: &str) -> String {
    std::fs::read_to_string(test_utils::corpus_dir().join(name)).expect("corpus file")
}

fn errors(diagnostics: &[Value]) -> Vec<&Value> {
    diagnostics.iter().filter(|d| d["severity"] == 1).collect()
}

const SMALL: &str = "kernel @k(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) {\n  tensor %t : sbuf f32[128, 512]\n  DmaCopyOp { dst = %t, src = %x }\n  DmaCopyOp { dst = %y, src = %t }\n}\n";

#[test]
fn corpus_kernel_opens_clean_with_hover_and_hints() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let text = corpus("rmsnorm.pir");
    let u = uri("rmsnorm.pir");
    server.open(&u, &text);
    let diagnostics = server.diagnostics(&u, 1);
    assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");

    // Hover on the TensorScalarPtrOp class name names the opcode and shows the JSON.
    let at = text
        .find("TensorScalarPtrOp {  //> TensorScalarPtr DVE {\"op0\": \"mult\", \"op1\": \"add\"}")
        .expect("op");
    let pos = position_of(&text, at + 3, server.encoding);
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": pos}),
    );
    let markdown = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        markdown.contains("codegenTensorScalarPtrOp")
            && markdown.contains("\"opcode\": \"TensorScalarPtr\""),
        "{hover}"
    );

    // Inlay hints over the whole document: one per op, naming engines.
    let end = position_of(&text, text.len(), server.encoding);
    let hints = server.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": end}}),
    );
    let labels: Vec<&str> = hints["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["label"].as_str())
        .collect();
    // Each with its cost suffix (SPEC §10.2.9, `inlayHints.cost` on by default).
    assert!(
        labels.contains(&"→ StreamShuffle · DVE · 2,048 cyc"),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"→ TensorReduce · DVE · 2,048 cyc"),
        "{labels:?}"
    );
    assert_eq!(labels.len(), text.matches("//>").count(), "{labels:?}");

    // Only the hints inside a requested range.
    let line = text[..text.find("StreamShuffleInst").expect("op")]
        .matches('\n')
        .count() as u32;
    let partial = server.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": line, "character": 0}, "end": {"line": line + 5, "character": 0}}}),
    );
    let partial: Vec<&str> = partial["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["label"].as_str())
        .collect();
    assert_eq!(partial, ["→ StreamShuffle · DVE · 2,048 cyc"]);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn an_error_is_reported_on_its_line_and_cleared_when_fixed() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri("edit.pir");
    server.open(&u, SMALL);
    assert!(server.diagnostics(&u, 1).is_empty());
    // Break the second DMA's source: `%t` → `%q` (undefined).
    let (_, marks) = cursors(
        &SMALL.replacen("src = %t", "src = <|>%t<|>", 1),
        server.encoding,
    );
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": marks[0], "end": marks[1]}, "text": "%q"}]}),
    );
    let diagnostics = server.diagnostics(&u, 2);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["code"], "P200");
    assert_eq!(diagnostics[0]["range"]["start"], json!(marks[0]));
    assert_eq!(diagnostics[0]["source"], "pir");
    // Fix it again.
    let end = json!({"line": marks[0].line, "character": marks[0].character + 2});
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"range": {"start": marks[0], "end": end}, "text": "%t"}]}),
    );
    assert!(server.diagnostics(&u, 3).is_empty());
    // Pull diagnostics agree.
    let pulled = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": u}}),
    );
    assert_eq!(pulled["result"]["kind"], "full");
    assert_eq!(pulled["result"]["items"], json!([]));
    // Sent back, its result id makes the next pull `unchanged` while nothing that would be
    // shown changed: here, a comment added at the end.
    let id = pulled["result"]["resultId"].clone();
    assert!(id.is_string(), "{pulled}");
    let again = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": u}, "previousResultId": id}),
    );
    assert_eq!(
        again["result"],
        json!({"kind": "unchanged", "resultId": id})
    );
    // The text is SMALL again (the fix restored it): its end is after its last newline.
    let end_line = u32::try_from(SMALL.matches('\n').count()).unwrap_or(0);
    let eof = json!({"line": end_line, "character": 0});
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 4}, "contentChanges": [{"range": {"start": eof, "end": eof}, "text": "// a comment\n"}]}),
    );
    let after_comment = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": u}, "previousResultId": id}),
    );
    assert_eq!(
        after_comment["result"]["kind"], "unchanged",
        "{after_comment}"
    );
    // A change that is seen (a misspelt field) gives a full report with another id.
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 5}, "contentChanges": [{"range": {"start": marks[0], "end": end}, "text": "%q"}]}),
    );
    let changed = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": u}, "previousResultId": id}),
    );
    assert_eq!(changed["result"]["kind"], "full", "{changed}");
    assert_ne!(changed["result"]["resultId"], id);
    assert_eq!(changed["result"]["items"].as_array().map(Vec::len), Some(1));
    // Closing clears.
    server.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    let cleared = server.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"].is_null()
    });
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    assert!(server.shutdown_and_exit().success());
}

/// A closed document's database file serves the next document opened (emptied on close):
/// the next documents, and the first opened again, answer for their own texts.
#[test]
fn documents_opened_after_a_close_answer_for_their_own_text() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let many = corpus("matmul_tiled.pir")
        .repeat(30)
        .replace("@matmul_tiled", "@k");
    let a = uri("a.pir");
    server.open(&a, &many);
    // Its small DMAs in loops are P421 (SPEC §10.2.10), beside the point here.
    let not_p421 = |d: &Value| d["code"] != "P421";
    let first: Vec<Value> = server
        .diagnostics(&a, 1)
        .into_iter()
        .filter(not_p421)
        .collect();
    assert_eq!(
        first.len(),
        29,
        "thirty kernels @k: P201 29 times: {first:#?}"
    );
    server.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    let b = uri("b.pir");
    let text = "kernel @b(%x: hbm f32[128, 4]) {\n  DmaCopyOp { dst = %y, src = %x }\n}\n";
    server.open(&b, text);
    let diagnostics = server.diagnostics(&b, 1);
    let codes: Vec<&Value> = diagnostics.iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("P200")], "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": 1, "character": 20})
    );
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": b}, "position": {"line": 1, "character": 4}}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|t| t.contains("DMACopy")),
        "{hover}"
    );
    // The first one again, in a file of its own.
    server.open(&a, &many);
    let again: Vec<Value> = server
        .diagnostics(&a, 1)
        .into_iter()
        .filter(not_p421)
        .collect();
    assert_eq!(again, first);
    assert!(server.shutdown_and_exit().success());
}

/// Documents opened together (as an editor restoring a session opens them) each get their
/// diagnostics: the first one's, long to gather, are cancelled by the second one written to
/// the database (any write cancels every snapshot), and the server computes them again.
#[test]
fn documents_opened_together_each_get_their_diagnostics() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let many = format!("kernel @a() {{\n{}}}\n", "  Nop {}\n".repeat(5000));
    let (a, b) = (uri("many.pir"), uri("small.pir"));
    server.open(&a, &many);
    server.open(&b, SMALL);
    assert_eq!(server.diagnostics(&b, 1), Vec::<Value>::new());
    let diagnostics = server.diagnostics(&a, 1);
    assert_eq!(diagnostics.len(), 5000, "an unknown op on each line");
    assert!(server.shutdown_and_exit().success());
}

/// Non-ASCII comments before an edit: the edit lands where the client meant, in both
/// encodings.
fn edit_after_wide_text(encodings: &[&str]) {
    let mut server = Server::start(encodings, json!({}));
    let marked = "// 注意: 😀 wide text 漢字\nkernel @k(%x: hbm f32[128, 512]) { // 🚀\n  tensor %t : sbuf f32[128, 512]\n  DmaCopyOp { dst = %t, src = %x } // ☃ <|>%x<|>\n}\n";
    let (text, marks) = cursors(marked, server.encoding);
    let u = uri("wide.pir");
    server.open(&u, &text);
    assert!(errors(&server.diagnostics(&u, 1)).is_empty());
    // Replace the `%x` inside the trailing comment: still a comment, no diagnostic.
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": marks[0], "end": marks[1]}, "text": "✓"}]}),
    );
    assert!(errors(&server.diagnostics(&u, 2)).is_empty());
    // Now break the real source operand, found by a marker on the edited text.
    let edited = text.replacen("// ☃ %x", "// ☃ ✓", 1);
    let (_, marks) = cursors(
        &edited.replacen("src = %x", "src = <|>%x", 1),
        server.encoding,
    );
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"range": {"start": marks[0], "end": {"line": marks[0].line, "character": marks[0].character + 1}}, "text": "%y"}]}),
    );
    let diagnostics = server.diagnostics(&u, 3);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["code"], "P200");
    assert_eq!(diagnostics[0]["range"]["start"], json!(marks[0]));
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn utf16_session_with_emoji_and_cjk() {
    edit_after_wide_text(&["utf-16"]);
}

#[test]
fn utf8_session_with_emoji_and_cjk() {
    edit_after_wide_text(&["utf-8", "utf-16"]);
}

#[test]
fn negotiates_utf8_only_when_offered() {
    let server = Server::start(&["utf-8"], json!({}));
    assert_eq!(server.encoding, pir_lsp::convert::Encoding::Utf8);
    assert!(server.shutdown_and_exit().success());
    let server = Server::start(&["utf-32", "utf-16"], json!({}));
    assert_eq!(server.encoding, pir_lsp::convert::Encoding::Utf16);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn crlf_document() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let marked = SMALL
        .replace('\n', "\r\n")
        .replacen("src = %t", "src = <|>%t", 1);
    let (text, marks) = cursors(&marked, server.encoding);
    let u = uri("crlf.pir");
    server.open(&u, &text);
    assert!(server.diagnostics(&u, 1).is_empty());
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": marks[0], "end": {"line": marks[0].line, "character": marks[0].character + 2}}, "text": "%nope"}]}),
    );
    let diagnostics = server.diagnostics(&u, 2);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["range"]["start"], json!(marks[0]));
    assert_eq!(
        diagnostics[0]["range"]["end"]["character"],
        marks[0].character + 5
    );
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn several_changes_in_one_notification_apply_in_order() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri("multi.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    let (_, marks) = cursors(
        &SMALL.replacen("DmaCopyOp { dst = %y", "<|>DmaCopyOp { dst = %y", 1),
        server.encoding,
    );
    // First insert a line before the second DMA, then (in the shifted text) rename its class.
    let shifted = json!({"line": marks[0].line + 1, "character": marks[0].character});
    let shifted_end = json!({"line": marks[0].line + 1, "character": marks[0].character + 9});
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [
            {"range": {"start": marks[0], "end": marks[0]}, "text": "// inserted\n  "},
            {"range": {"start": shifted, "end": shifted_end}, "text": "DmaCopyOpp"},
        ]}),
    );
    let diagnostics = server.diagnostics(&u, 2);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["code"], "P202");
    assert_eq!(diagnostics[0]["range"]["start"], shifted);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("DmaCopyOp")
    );
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn an_edit_past_the_last_line_ends_at_the_end() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri("past.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    // Replace from the second DMA to "line 999" with a closing brace: the second DMA goes.
    let (_, marks) = cursors(
        &SMALL.replacen("  DmaCopyOp { dst = %y", "<|>  DmaCopyOp { dst = %y", 1),
        server.encoding,
    );
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": marks[0], "end": {"line": 999, "character": 0}}, "text": "}\n"}]}),
    );
    let diagnostics = server.diagnostics(&u, 2);
    // %y is no longer written; nothing is an error.
    assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");
    let bir = server.request("pir/showBir", json!({"textDocument": {"uri": u}}));
    let instructions = &bir["result"]["bir"]["functions"][0]["blocks"][0]["instructions"];
    assert_eq!(instructions.as_array().map(Vec::len), Some(1), "{bir}");
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn requests_at_end_of_file_and_on_an_empty_document() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri("empty.pir");
    server.open(&u, "");
    assert!(server.diagnostics(&u, 1).is_empty());
    let origin = json!({"line": 0, "character": 0});
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": origin}),
    );
    assert_eq!(hover["result"], Value::Null, "{hover}");
    let hints = server.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": u}, "range": {"start": origin, "end": origin}}),
    );
    assert_eq!(hints["result"], json!([]), "{hints}");

    let v = uri("eof.pir");
    server.open(&v, SMALL);
    server.diagnostics(&v, 1);
    let end = position_of(SMALL, SMALL.len(), server.encoding);
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": v}, "position": end}),
    );
    assert!(hover.get("error").is_none(), "{hover}");
    let past = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": v}, "position": {"line": 99, "character": 0}}),
    );
    assert_eq!(past["error"]["code"], -32602, "{past}");
    let bir = server.request(
        "pir/showBir",
        json!({"textDocument": {"uri": v}, "position": end}),
    );
    assert_eq!(bir["result"]["bir"]["version"], 2, "{bir}");
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn show_bir_of_one_op_and_as_a_command() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let (text, marks) = cursors(
        &SMALL.replacen("DmaCopyOp { dst = %y", "DmaCopyOp { d<|>st = %y", 1),
        server.encoding,
    );
    let u = uri("bir.pir");
    server.open(&u, &text);
    server.diagnostics(&u, 1);
    let one = server.request(
        "pir/showBir",
        json!({"textDocument": {"uri": u}, "position": marks[0]}),
    );
    assert_eq!(one["result"]["bir"]["op_id"], 2, "{one}");
    assert_eq!(one["result"]["bir"]["instructions"][0]["opcode"], "DMACopy");
    let command = server.request(
        "workspace/executeCommand",
        json!({"command": "pir.showBir", "arguments": [{"textDocument": {"uri": u}, "position": marks[0]}]}),
    );
    assert_eq!(command["result"], one["result"]);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn a_panicking_request_is_answered_and_the_server_keeps_serving() {
    let mut server = Server::start_with_env(&["utf-16"], json!({}), &[("PIR_LSP_DEBUG", "1")]);
    let response = server.request("pir/debugPanic", json!({}));
    assert_eq!(response["error"]["code"], -32603, "{response}");
    let u = uri("after-panic.pir");
    server.open(&u, SMALL);
    assert!(server.diagnostics(&u, 1).is_empty());
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": {"line": 2, "character": 4}}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("DMACopy"),
        "{hover}"
    );
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn inlay_hints_can_be_disabled() {
    let mut server = Server::start(&["utf-16"], json!({"inlayHints": {"enabled": false}}));
    let u = uri("nohints.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    let hints = server.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}}),
    );
    assert_eq!(hints["result"], json!([]));
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let mut server = Server::start(&["utf-16"], json!({}));
    server.notify("exit", Value::Null);
    assert_eq!(server.wait_exit().code(), Some(1));
}

#[test]
fn the_process_ends_when_stdin_closes() {
    let mut server = Server::start(&["utf-16"], json!({}));
    server.close_stdin();
    assert_eq!(server.wait_exit().code(), Some(1));
}

#[test]
fn lsp_stdio_serves_as_plain_lsp() {
    // vscode-languageclient's `TransportKind.stdio` appends `--stdio` to the command line.
    let mut server = Server::spawn_args(&["lsp", "--stdio"], &[]);
    server.initialize(&["utf-16"], json!({}));
    let u = uri("stdio.pir");
    server.open(&u, &SMALL.replacen("src = %t", "src = %q", 1));
    let diagnostics = server.diagnostics(&u, 1);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["code"], "P200");
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn a_pulling_client_gets_no_pushed_diagnostics() {
    let mut server = Server::spawn(&[]);
    let init = server.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {"textDocument": {"diagnostic": {"dynamicRegistration": false}}}}),
    );
    assert_eq!(
        init["result"]["capabilities"]["diagnosticProvider"]["identifier"],
        "pir"
    );
    server.notify("initialized", json!({}));
    let u = uri("pull.pir");
    server.open(&u, &SMALL.replacen("src = %t", "src = %q", 1));
    let pulled = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": u}}),
    );
    assert_eq!(pulled["result"]["items"][0]["code"], "P200", "{pulled}");
    // The pull answer came after the didOpen was handled; nothing was pushed for it.
    let shutdown = server.request("shutdown", Value::Null);
    assert!(shutdown.get("error").is_none());
    let pushed = server
        .unconsumed()
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .count();
    assert_eq!(pushed, 0);
    server.notify("exit", Value::Null);
    assert_eq!(server.wait_exit().code(), Some(0));
}

#[test]
fn an_inlay_hint_range_past_the_end_is_clamped() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri("clamp.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    let hints = server.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 500, "character": 0}}}),
    );
    assert_eq!(hints["result"].as_array().map(Vec::len), Some(2), "{hints}");
    assert!(server.shutdown_and_exit().success());
}

/// `body` in a `Content-Length` frame.
fn framed(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

#[test]
fn malformed_messages_are_answered_and_the_server_keeps_serving() {
    let mut server = Server::start(&["utf-16"], json!({}));
    let u = uri("malformed.pir");
    server.open(&u, SMALL);
    server.diagnostics(&u, 1);
    let error = |code: i64, id: Value| move |m: &Value| m["error"]["code"] == code && m["id"] == id;

    // Truncated JSON: a parse error, with id null.
    server.send_raw(&framed(
        r#"{"jsonrpc":"2.0","id":901,"method":"textDocument/hov"#,
    ));
    server.wait_for(error(-32700, Value::Null));
    // JSON that is not a JSON-RPC message: an invalid request, with its id when it has one.
    server.send_raw(&framed("[1,2,3]"));
    server.wait_for(error(-32600, Value::Null));
    server.send_raw(&framed(r#"{"jsonrpc":"2.0","id":9,"method":5}"#));
    server.wait_for(error(-32600, json!(9)));
    // A header block without Content-Length: a parse error, and its body (a `shutdown`) is
    // skipped up to the next header.
    server.send_raw(
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n\
          {\"jsonrpc\":\"2.0\",\"id\":902,\"method\":\"shutdown\"}",
    );
    server.wait_for(error(-32700, Value::Null));
    // A huge Content-Length: a parse error, not an allocation; its body is skipped too.
    server.send_raw(
        b"Content-Length: 99999999999\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":903,\"method\":\"shutdown\"}",
    );
    server.wait_for(error(-32700, Value::Null));
    // A body longer than its Content-Length: `{}` is no JSON-RPC message and the rest is
    // garbage, but the header glued to it is found; header names in any case, `\n` line ends
    // and a Content-Type are accepted.
    let at = SMALL.find("DmaCopyOp").expect("op") + 2;
    let hover = json!({"jsonrpc": "2.0", "id": 904, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": u}, "position": position_of(SMALL, at, server.encoding)}})
    .to_string();
    let mut raw = b"Content-Length: 2\r\n\r\n{}}}".to_vec();
    raw.extend(format!("content-length: {}\ncontent-type: application/vscode-jsonrpc; charset=utf-8\n\n{hover}", hover.len()).bytes());
    server.send_raw(&raw);
    server.wait_for(error(-32600, Value::Null));
    server.wait_for(error(-32700, Value::Null));
    let answer = server.wait_for(|m| m["id"] == 904);
    assert!(
        answer["result"]["contents"]["value"].is_string(),
        "{answer}"
    );

    // The server still answers normal requests, and neither skipped `shutdown` ran.
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": position_of(SMALL, at, server.encoding)}),
    );
    assert!(hover["result"]["contents"]["value"].is_string(), "{hover}");
    let unexpected: Vec<&Value> = server
        .unconsumed()
        .iter()
        .filter(|m| m.get("id").is_some() && m.get("method").is_none())
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert_eq!(server.shutdown_and_exit().code(), Some(0));
}

#[test]
fn the_process_ends_when_stdin_closes_inside_a_message() {
    let mut server = Server::start(&["utf-16"], json!({}));
    server.send_raw(&framed("[]"));
    server.wait_for(|m| m["error"]["code"] == -32600);
    server.send_raw(b"Content-Length: 50\r\n\r\n{\"jsonrpc\":");
    server.close_stdin();
    assert_eq!(server.wait_exit().code(), Some(1));
}

#[test]
fn a_lone_cr_ends_a_line_as_the_editor_shows_it() {
    // pir-spec/2 §1: the server counts lines as LSP does (`\n`, `\r\n`, a lone `\r`).
    // pir-spec/1 counted `\n` only, so the P200 below landed on line 1, one line above the
    // `%q` the editor shows on line 2, and an edit on line 2 went to the wrong place.
    let mut server = Server::start(&["utf-16"], json!({}));
    let text = "kernel @k(%x: hbm f32[128, 512]) {\r  tensor %t : sbuf f32[128, 512]\n  DmaCopyOp { dst = %t, src = %q }\n}\n";
    let u = uri("lone-cr.pir");
    server.open(&u, text);
    let diagnostics = server.diagnostics(&u, 1);
    let p200: Vec<&Value> = diagnostics.iter().filter(|d| d["code"] == "P200").collect();
    assert_eq!(p200.len(), 1, "{diagnostics:#?}");
    assert_eq!(
        p200[0]["range"],
        json!({"start": {"line": 2, "character": 30}, "end": {"line": 2, "character": 32}})
    );
    let p103: Vec<&Value> = diagnostics.iter().filter(|d| d["code"] == "P103").collect();
    assert_eq!(
        p103[0]["range"]["start"],
        json!({"line": 0, "character": 34})
    );
    // An edit addressed in the editor's lines lands on `%q`.
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": {"line": 2, "character": 30}, "end": {"line": 2, "character": 32}}, "text": "%x"}]}),
    );
    let diagnostics = server.diagnostics(&u, 2);
    assert!(
        diagnostics.iter().all(|d| d["code"] != "P200"),
        "{diagnostics:#?}"
    );
    // Hover on `%t` in the editor's line 2 finds the tensor.
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": {"line": 2, "character": 21}}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("%t")),
        "{hover:#}"
    );
    assert!(server.shutdown_and_exit().success());
}
