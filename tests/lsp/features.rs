//! The navigation, editing and structure features over the protocol (SPEC §10).

use serde_json::{Value, json};

use crate::support::{Server, cursors, uri};

const KERNEL: &str = "kernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  for %i in 0..2 {\n    DmaCopyOp { dst = %t, src = %x }\n  }\n  DmaCopyOp { dst = %y, src = %t }\n}\n";

fn open(
    marked: &str,
) -> (
    Server,
    String,
    Vec<tower_lsp_server::ls_types::Position>,
    String,
) {
    let mut server = Server::start(&["utf-16"], json!({}));
    let (text, marks) = cursors(marked, server.encoding);
    let u = uri("features.pir");
    server.open(&u, &text);
    server.diagnostics(&u, 1);
    (server, u, marks, text)
}

#[test]
fn definition_references_highlight_and_rename() {
    let (mut server, u, marks, _) = open(&KERNEL.replacen("src = %t", "src = %<|>t", 1));
    let at = json!({"textDocument": {"uri": u}, "position": marks[0]});
    let def = server.request("textDocument/definition", at.clone());
    assert_eq!(
        def["result"]["range"]["start"],
        json!({"line": 1, "character": 9}),
        "{def}"
    );
    let mut refs_params = at.clone();
    refs_params["context"] = json!({"includeDeclaration": true});
    let refs = server.request("textDocument/references", refs_params);
    assert_eq!(refs["result"].as_array().map(Vec::len), Some(3), "{refs}");
    let highlights = server.request("textDocument/documentHighlight", at.clone());
    assert_eq!(highlights["result"][0]["kind"], 3, "{highlights}");
    let prepare = server.request("textDocument/prepareRename", at.clone());
    assert_eq!(prepare["result"]["placeholder"], "t", "{prepare}");
    let mut rename_params = at.clone();
    rename_params["newName"] = json!("tile");
    let rename = server.request("textDocument/rename", rename_params);
    assert_eq!(
        rename["result"]["changes"][&u].as_array().map(Vec::len),
        Some(3),
        "{rename}"
    );
    let mut bad = at;
    bad["newName"] = json!("x");
    let clash = server.request("textDocument/rename", bad);
    assert_eq!(clash["error"]["code"], -32602, "{clash}");
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn symbols_folding_and_selection() {
    let (mut server, u, marks, _) = open(&KERNEL.replacen("dst = %y", "dst = %<|>y", 1));
    let doc = json!({"textDocument": {"uri": u}});
    let symbols = server.request("textDocument/documentSymbol", doc.clone());
    let kernel = &symbols["result"][0];
    assert_eq!(kernel["name"], "@k", "{symbols}");
    let names: Vec<&str> = kernel["children"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(names, ["%x", "%y", "%t", "for %i in 0..2", "DmaCopyOp #2"]);
    let workspace = server.request("workspace/symbol", json!({"query": "t"}));
    assert_eq!(workspace["result"][0]["name"], "%t", "{workspace}");
    let folds = server.request("textDocument/foldingRange", doc.clone());
    let lines: Vec<(u64, u64)> = folds["result"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap_or(0),
                f["endLine"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(lines, [(0, 6), (2, 4)]);
    let mut sel = doc;
    sel["positions"] = json!([marks[0]]);
    let selection = server.request("textDocument/selectionRange", sel);
    let mut depth = 0;
    let mut node = &selection["result"][0];
    while node.is_object() {
        depth += 1;
        node = &node["parent"];
    }
    assert!(depth >= 5, "{selection}");
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn completion_of_fields_and_enum_values() {
    let (mut server, u, marks, _) = open(
        "kernel @k() {\n  tensor %p : psum f32[128, 512]\n  MatMulOp { dst = %p, <|> }\n  MatMulOp { perf_mode = <|> }\n}\n",
    );
    let fields = server.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": marks[0]}),
    );
    let labels: Vec<&str> = fields["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["label"].as_str())
        .collect();
    assert!(
        labels.contains(&"stationary") && !labels.contains(&"dst"),
        "{labels:?}"
    );
    let values = server.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": u}, "position": marks[1]}),
    );
    let labels: Vec<&str> = values["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["label"].as_str())
        .collect();
    assert_eq!(labels, ["none", "double_row"]);
    assert!(server.shutdown_and_exit().success());
}

/// Issue 25: completion flows from `{` to a field to its value without asking: `{` and
/// `,` are trigger characters, a field inserts `name = ` and asks again (VS Code's
/// `editor.action.triggerSuggest`), an op class comes with its required fields as a
/// snippet for a client that takes snippets, a space lists no op classes, and signature
/// help shows the op's fields with the one being written active.
#[test]
fn completion_flows_and_signature_help() {
    let mut server = Server::spawn(&[]);
    let capabilities = server.initialize_as(
        json!({"capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": true}}}},
               "clientInfo": {"name": "Visual Studio Code", "version": "1.139.1"}}),
        json!({}),
    );
    let triggers = &capabilities["completionProvider"]["triggerCharacters"];
    for c in [" ", ",", "%", "="] {
        assert!(
            triggers.as_array().is_some_and(|t| t.contains(&json!(c))),
            "{capabilities}"
        );
    }
    // Not `{`: Enter right after it starts a new line, and VS Code would take that Enter
    // for a suggestion shown there.
    assert!(
        triggers
            .as_array()
            .is_some_and(|t| !t.contains(&json!("{"))),
        "{capabilities}"
    );
    assert!(
        capabilities["signatureHelpProvider"].is_object(),
        "{capabilities}"
    );
    let (text, marks) = cursors(
        "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  DmaCopyOp { <|>}\n  DmaCopyOp { dst = %t, src = <|> }\n  Dma<|>\n  DmaCopyOp { dst = %t, <|>src = %x }\n  DmaCopyOp {<|>}\n}\n",
        server.encoding,
    );
    let u = uri("flow.pir");
    server.open(&u, &text);
    server.diagnostics(&u, 1);
    let complete = |server: &mut Server, at: usize, trigger: &str| {
        let result = server.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": u}, "position": marks[at],
                   "context": {"triggerKind": 2, "triggerCharacter": trigger}}),
        );
        result["result"].as_array().cloned().unwrap_or_default()
    };
    let dst_of = |items: &[Value]| {
        items
            .iter()
            .find(|c| c["label"] == "dst")
            .cloned()
            .unwrap_or_default()
    };
    let fields = complete(&mut server, 0, " ");
    let dst = dst_of(&fields);
    assert_eq!(dst["textEdit"]["newText"], "dst = ", "{fields:?}");
    // Asked right after `{` (Ctrl+Space): with the space `pir fmt` writes there.
    let tight = complete(&mut server, 4, "");
    assert_eq!(
        dst_of(&tight)["textEdit"]["newText"],
        " dst = ",
        "{tight:?}"
    );
    assert_eq!(
        dst["command"]["command"], "editor.action.triggerSuggest",
        "{dst}"
    );
    let values = complete(&mut server, 1, " ");
    assert!(values.iter().any(|c| c["label"] == "%x"), "{values:?}");
    let classes = complete(&mut server, 2, "a");
    let copy = classes
        .iter()
        .find(|c| c["label"] == "DmaCopyOp")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        copy["textEdit"]["newText"], "DmaCopyOp { dst = $1, src = $2 }$0",
        "{copy}"
    );
    assert_eq!(copy["insertTextFormat"], 2, "{copy}");
    // A space at a statement start lists no op classes.
    assert_eq!(complete(&mut server, 2, " "), Vec::<Value>::new());
    let help = server.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": u}, "position": marks[1]}),
    );
    let signature = &help["result"]["signatures"][0];
    assert!(
        signature["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("DmaCopyOp { dst: ")),
        "{help}"
    );
    let active = help["result"]["activeParameter"].as_u64().unwrap_or(99) as usize;
    assert!(
        signature["parameters"][active]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("src: ")),
        "{help}"
    );
    let help = server.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": u}, "position": marks[3]}),
    );
    assert!(help["result"]["signatures"][0].is_object(), "{help}");
    assert!(server.shutdown_and_exit().success());
}

/// Issue 25: a client that ends lines at `\n` only (Neovim, by its `clientInfo` or
/// `lineEnds: "lf"`) gets positions in its lines after a lone `\r`, edits included; others
/// keep LSP's.
#[test]
fn lines_as_the_client_counts_them() {
    let text = "kernel @k(%x: hbm f32[128, 4]) {\n  // a stray \r here\n  DmaCopyOp { dst = %x, scr = %x }\n}\n";
    let p203_line = |client: Value, options: Value| {
        let mut server = Server::spawn(&[]);
        server.initialize_as(client, options);
        let u = uri("lone_cr.pir");
        server.open(&u, text);
        let line = |diagnostics: &[Value]| {
            diagnostics.iter().find(|d| d["code"] == "P203").map(|d| {
                (
                    d["range"]["start"]["line"].clone(),
                    d["range"]["start"]["character"].clone(),
                )
            })
        };
        let first = line(&server.diagnostics(&u, 1));
        // An edit in the client's lines: `scr` → `src` on its line 2.
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{
                "range": {"start": {"line": 2, "character": 24}, "end": {"line": 2, "character": 27}},
                "text": "src"}]}),
        );
        let after = server.diagnostics(&u, 2);
        assert!(server.shutdown_and_exit().success());
        (first, after.iter().any(|d| d["code"] == "P203"))
    };
    // Neovim: the line it shows (2), and its edit fixes the field.
    let neovim = json!({"clientInfo": {"name": "Neovim", "version": "0.11.4"}});
    assert_eq!(
        p203_line(neovim, json!({})),
        (Some((json!(2), json!(24))), false)
    );
    let lf = json!({"capabilities": {}});
    assert_eq!(
        p203_line(lf, json!({"lineEnds": "lf"})),
        (Some((json!(2), json!(24))), false)
    );
    // LSP's lines: the lone `\r` ends line 1 (the edit on line 2 then misses the field).
    let lsp = json!({"capabilities": {}});
    assert_eq!(p203_line(lsp, json!({})).0, Some((json!(3), json!(24))));
}

#[test]
fn semantic_tokens_decode_to_the_right_words() {
    let (mut server, u, _, text) = open(&format!("{KERNEL}<|>"));
    let tokens = server.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": u}}),
    );
    let data: Vec<u64> = tokens["result"]["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(data.len() % 5, 0);
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut start) = (0usize, 0usize);
    let mut words = Vec::new();
    for chunk in data.chunks(5) {
        if chunk[0] > 0 {
            line += chunk[0] as usize;
            start = chunk[1] as usize;
        } else {
            start += chunk[1] as usize;
        }
        words.push(lines[line][start..start + chunk[2] as usize].to_string());
    }
    assert_eq!(&words[..4], ["kernel", "@k", "%x", "hbm"]);
    assert!(words.contains(&"DmaCopyOp".to_string()) && words.contains(&"dst".to_string()));
    assert!(server.shutdown_and_exit().success());
}

/// Decodes semantic tokens (LSP's relative encoding) to `(line, start, length, type)`.
fn absolute_tokens(result: &Value) -> Vec<[u64; 4]> {
    let data: Vec<u64> = result["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    let (mut line, mut start) = (0u64, 0u64);
    data.chunks(5)
        .map(|c| {
            if c[0] > 0 {
                line += c[0];
                start = c[1];
            } else {
                start += c[1];
            }
            [line, start, c[2], c[3]]
        })
        .collect()
}

/// The `data` of a semantic tokens answer, in `u32`s.
fn token_data(result: &Value) -> Vec<u64> {
    result["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect()
}

/// `semanticTokens/full` answers with a result id; `…/full/delta` naming it answers, after
/// an edit, with one edit that turns the data sent into a fresh full answer's; an id the
/// server does not keep (unknown, replaced, or of a closed document) gets the whole data.
#[test]
fn semantic_tokens_delta_edits_the_last_answer() {
    let mut server = Server::spawn(&[]);
    let capabilities = server.initialize(&["utf-16"], json!({}));
    assert_eq!(
        capabilities["semanticTokensProvider"]["full"],
        json!({"delta": true})
    );
    // Two hundred kernels: about 50 KB, several chunks of the analysis.
    let text: String = (0..200)
        .map(|i| KERNEL.replace("@k(", &format!("@k{i}(")))
        .collect();
    let u = uri("delta.pir");
    server.open(&u, &text);
    server.diagnostics(&u, 1);
    let doc = json!({"textDocument": {"uri": u}});
    let full = |server: &mut Server| {
        server.request("textDocument/semanticTokens/full", doc.clone())["result"].clone()
    };
    let delta = |server: &mut Server, previous: &Value| {
        let mut params = doc.clone();
        params["previousResultId"] = previous.clone();
        server.request("textDocument/semanticTokens/full/delta", params)["result"].clone()
    };
    let first = full(&mut server);
    let (mut data, mut id) = (token_data(&first), first["resultId"].clone());
    assert!(
        id.is_string() && data.len() > 5000,
        "{id}, {} u32s",
        data.len()
    );
    // A line inserted in the middle, a number made longer in the first kernel, a line
    // deleted at the end: each time the edit applied to the data sent is the next full
    // answer.
    // The line after the middle kernel's first (the text is seven-line kernels).
    let middle = text.lines().count() as u32 / 2 + 1;
    let line_end = |line: u32| text.lines().nth(line as usize).map_or(0, str::len) as u32;
    let last = text.lines().count() as u32 - 1;
    let changes = [
        json!({"range": {"start": {"line": middle, "character": 0}, "end": {"line": middle, "character": 0}}, "text": "  tensor %u : sbuf f32[128, 4]\n"}),
        json!({"range": {"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 15}}, "text": "1"}),
        json!({"range": {"start": {"line": last - 1, "character": line_end(last - 1)}, "end": {"line": last, "character": line_end(last)}}, "text": ""}),
    ];
    for (version, change) in (2..).zip(changes) {
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [change]}),
        );
        let answer = delta(&mut server, &id);
        let edits = answer["edits"].as_array().cloned().unwrap_or_default();
        assert_eq!(edits.len(), 1, "{answer}");
        let start = edits[0]["start"].as_u64().unwrap_or_default() as usize;
        let deleted = edits[0]["deleteCount"].as_u64().unwrap_or_default() as usize;
        let inserted = token_data(&edits[0]);
        assert!(inserted.len() <= 50 && deleted <= 50, "{answer}");
        data.splice(start..start + deleted, inserted);
        assert!(answer["resultId"].is_string() && answer["resultId"] != id);
        let fresh = full(&mut server);
        assert_eq!(data, token_data(&fresh), "after change {version}");
        id = fresh["resultId"].clone();
    }
    // Nothing changed: no edit.
    assert_eq!(delta(&mut server, &id)["edits"], json!([]));
    // An id the server does not keep: the whole data, with an id.
    for unknown in [json!("unknown"), first["resultId"].clone()] {
        let answer = delta(&mut server, &unknown);
        assert_eq!(token_data(&answer), data);
        assert!(answer["resultId"].is_string() && answer.get("edits").is_none());
    }
    // Closing the document lets go of its last answer.
    let id = full(&mut server)["resultId"].clone();
    server.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    server.open(&u, &text);
    let answer = delta(&mut server, &id);
    assert!(answer.get("edits").is_none(), "{answer}");
    assert_eq!(token_data(&answer), token_data(&first));
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn semantic_tokens_of_a_range_leave_out_a_token_at_its_end() {
    let (mut server, u, _, text) = open(&format!("{KERNEL}<|>"));
    let full = server.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": u}}),
    );
    let full = absolute_tokens(&full["result"]);
    let last_line = text.lines().count() as u64;
    for first in 0..last_line {
        let range = server.request(
            "textDocument/semanticTokens/range",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": first, "character": 0}, "end": {"line": first + 1, "character": 0}}}),
        );
        let got = absolute_tokens(&range["result"]);
        // The line the range covers; not the one its (exclusive) end stands at the start of.
        let want: Vec<[u64; 4]> = full.iter().filter(|t| t[0] == first).copied().collect();
        assert_eq!(got, want, "lines from {first}");
    }
    // A range ending inside a line: a token starting at its end is left out, one starting
    // before it is in (the tokens of the range's first line before its start may be too:
    // LSP lets a server answer for more than the range).
    for (line, end) in [(3u64, 5u64), (3, 16), (3, 17), (3, 20), (3, 21)] {
        let range = server.request(
            "textDocument/semanticTokens/range",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": end}}}),
        );
        let got = absolute_tokens(&range["result"]);
        let want: Vec<[u64; 4]> = full
            .iter()
            .filter(|t| t[0] == line && t[1] < end)
            .copied()
            .collect();
        assert!(!want.is_empty() && want.len() < full.iter().filter(|t| t[0] == line).count());
        assert_eq!(got, want, "line {line} up to {end}");
    }
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn quick_fix_and_formatting() {
    let (mut server, u, _, text) = open(&format!(
        "{}<|>",
        KERNEL.replacen("DmaCopyOp { dst = %y", "DmaCopyOpp { dst = %y", 1)
    ));
    let end = crate::support::position_of(&text, text.len(), server.encoding);
    let actions = server.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": end}, "context": {"diagnostics": []}}),
    );
    let action = &actions["result"][0];
    assert_eq!(action["title"], "Replace with `DmaCopyOp`", "{actions}");
    assert_eq!(action["edit"]["changes"][&u][0]["newText"], "DmaCopyOp");
    let messy = "kernel @k(%x: hbm f32[4]) {\n      NoOp   {}\n}\n";
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": messy}]}),
    );
    server.diagnostics(&u, 2);
    let edits = server.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(
        edits["result"][0]["newText"], "kernel @k(%x: hbm f32[4]) {\n  NoOp {}\n}\n",
        "{edits}"
    );
    // With a syntax error (known from the diagnostics, not a parse of the whole text
    // again), nothing is formatted.
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"text": "kernel @k(%x: hbm f32[4]) {\n      NoOp   {\n}\n"}]}),
    );
    assert!(!server.diagnostics(&u, 3).is_empty());
    let edits = server.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(edits["result"], Value::Null, "{edits}");
    assert!(server.shutdown_and_exit().success());
}

/// SPEC §10.1: a code lens above each kernel (on its `@name`, running no command) with the
/// engine counts and SBUF/PSUM peaks; an edit that pushes PSUM over its capacity gives
/// P416 on the kernel name, with the op and the largest tensors as related locations, and
/// the lens follows the edit.
#[test]
fn code_lens_per_kernel_and_p416_after_an_edit() {
    let mut server = Server::spawn(&[]);
    let capabilities = server.initialize(&["utf-16"], json!({}));
    assert_eq!(
        capabilities["codeLensProvider"],
        json!({"resolveProvider": false}),
        "{capabilities}"
    );
    // By hand: %p0 and %p1 are 8,192 bytes each (u8 × 8,192), both live at the second copy:
    // 16,384 bytes, the PSUM capacity; %s is 8,192 bytes of SBUF.
    let text = "// two kernels\nkernel @a(%x: hbm u8[128, 8192]) -> (%y: hbm u8[128, 8192]) {\n  tensor %s  : sbuf u8[128, 8192]\n  tensor %p0 : psum u8[128, 8192]\n  tensor %p1 : psum u8[128, 8192]\n  DmaCopyOp { dst = %s, src = %x }\n  TensorCopyOp { dst = %p0, src = %s }\n  TensorCopyOp { dst = %p1, src = %p0 }\n  TensorCopyOp { dst = %s, src = %p1 }\n  DmaCopyOp { dst = %y, src = %s }\n}\nkernel @b() {\n  NoOp {}\n}\n";
    let u = uri("lens.pir");
    server.open(&u, text);
    assert!(server.diagnostics(&u, 1).is_empty());
    let doc = json!({"textDocument": {"uri": u}});
    let lenses = server.request("textDocument/codeLens", doc.clone());
    assert_eq!(
        lenses["result"],
        json!([
            {
                "range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 9}},
                "command": {"title": "DVE 3 · DMA 2 · SBUF 8.0/208.0 KiB · PSUM 16.0/16.0 KiB", "command": ""},
            },
            // By hand (SPEC §10.2, trn2): three u8 copies of 8,192 on DVE, 24,576 cycles ÷
            // 960 MHz = 25,600 ns; two DMAs of 1,048,576 bytes, 2 × (1,300,000 +
            // ⌈1,048,576,000 / 23⌉) ps ÷ 16,000 = 5,861 ns (23%).
            {
                "range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 9}},
                "command": {"title": "trn2 ≥ 25.6 µs · DVE-bound · DMA 23%", "command": ""},
            },
            {
                "range": {"start": {"line": 11, "character": 7}, "end": {"line": 11, "character": 9}},
                "command": {"title": "SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB", "command": ""},
            },
        ]),
        "{lenses}"
    );
    // %p1 one byte larger (the copy writes its first 8,192): 16,385 bytes > 16,384.
    let (_, marks) = cursors(
        &text.replacen(
            "psum u8[128, 8192]\n  DmaCopyOp",
            "psum u8[128, 81<|>92]\n  DmaCopyOp",
            1,
        ),
        server.encoding,
    );
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [
            {"range": {"start": marks[0], "end": {"line": marks[0].line, "character": marks[0].character + 2}}, "text": "93"},
            {"range": {"start": {"line": 7, "character": 23}, "end": {"line": 7, "character": 26}}, "text": "%p1[:, 0:8192]"},
            {"range": {"start": {"line": 8, "character": 33}, "end": {"line": 8, "character": 36}}, "text": "%p1[:, 0:8192]"},
        ]}),
    );
    let diagnostics = server.diagnostics(&u, 2);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let p416 = &diagnostics[0];
    assert_eq!(p416["code"], "P416");
    assert_eq!(p416["severity"], 2);
    assert_eq!(
        p416["range"],
        json!({"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 9}})
    );
    let related: Vec<(u64, &str)> = p416["relatedInformation"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["location"]["range"]["start"]["line"]
                    .as_u64()
                    .unwrap_or(0),
                r["message"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        related,
        [
            (7, "PSUM peak of 16,385 bytes reached here"),
            (4, "`%p1` is live there: 8,193 bytes per partition"),
            (3, "`%p0` is live there: 8,192 bytes per partition"),
        ],
        "{p416}"
    );
    // One byte over still rounds to 16.0 KiB: the lens says P416.
    let lenses = server.request("textDocument/codeLens", doc);
    assert_eq!(
        lenses["result"][0]["command"]["title"],
        "DVE 3 · DMA 2 · SBUF 8.0/208.0 KiB · PSUM 16.0/16.0 KiB (P416)",
        "{lenses}"
    );
    assert!(server.shutdown_and_exit().success());
}

/// Issue 20, "which instruction was I-33?": an instruction name from the compiler's log, or
/// from the Show BIR view, leads to its op. `workspace/symbol` with `I-3-0` answers the op
/// (as VS Code's Show BIR view resolves the names it links); go to definition on `I-3-0` in
/// any text of the document (here a pasted log line in a comment) jumps to the op.
#[test]
fn an_instruction_name_leads_to_its_op() {
    let marked = "// neuronx-cc: ERROR [GCA035] Instruction: I-<|>3-0 couldn't be allocated\nkernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  DmaCopyOp { dst = %t, src = %x }\n  NoOp {}\n  ActivationOp { dst = %t, src = %t, func = exp }\n  DmaCopyOp { dst = %y, src = %t }\n}\n";
    let (mut server, u, marks, _) = open(marked);
    // The Show BIR view names the op's instruction `I-3-0`, on line 6 (1-based).
    let bir = server.request("pir/showBir", json!({"textDocument": {"uri": u}}));
    let text = bir["result"]["text"].as_str().expect("text");
    assert!(text.contains("\"name\": \"I-3-0\""), "{text}");
    let instructions = &bir["result"]["bir"]["functions"][0]["blocks"][0]["instructions"];
    let shown = instructions
        .as_array()
        .into_iter()
        .flatten()
        .find(|i| i["name"] == "I-3-0")
        .expect("I-3-0 in Show BIR");
    assert_eq!(shown["debuginfo"]["line"], 6);
    // That name, through workspace symbols: the op's class name on that line (0-based 5).
    let found = server.request("workspace/symbol", json!({"query": "I-3-0"}));
    let symbol = &found["result"][0];
    assert_eq!(symbol["name"], "I-3-0", "{found}");
    assert_eq!(symbol["location"]["uri"], u.as_str());
    assert_eq!(
        symbol["location"]["range"],
        json!({"start": {"line": 5, "character": 2}, "end": {"line": 5, "character": 14}}),
        "{found}"
    );
    assert_eq!(symbol["containerName"], "ActivationOp #3 → Activation · @k");
    // Go to definition on the name in the pasted log.
    let def = server.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": u}, "position": marks[0]}),
    );
    assert_eq!(def["result"]["range"], symbol["location"]["range"], "{def}");
    assert!(server.shutdown_and_exit().success());
}
