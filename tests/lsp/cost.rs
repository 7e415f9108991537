//! Targets and the cost estimate through the server (SPEC §4 [3], §10 [3], §10.2.9): the
//! `target` setting changed at run time with `workspace/didChangeConfiguration` (pushed, and
//! pulled with `workspace/configuration`) re-diagnoses and changes the lenses without a
//! restart; the inlay cost suffix and its setting.

use super::*;

/// Two tensors of 100,000 bytes per partition live together: 200,000 bytes, over trn1's
/// usable 180,224 (P416), under trn2's 212,984. By hand (SPEC §10.2): two Pool memsets of
/// 150 + 100,000 cycles and a DVE copy of 100,000 (u8: no perf mode); on trn2 Pool 200,300
/// cycles ÷ 1,200 MHz = 166,917 ns, DVE ÷ 960 = 104,167 ns (62%); on trn1 ÷ 1,400 =
/// 143,071 ns and ÷ 1,120 = 89,286 ns (62%).
const TWO_TENSORS: &str = "kernel @k() {
  tensor %a : sbuf u8[128, 100000]
  tensor %b : sbuf u8[128, 100000]
  MemsetOp { dst = %a, value = 0 }
  MemsetOp { dst = %b, value = 0 }
  TensorCopyOp { dst = %b, src = %a }
}
";

fn titles(server: &mut Server, u: &str) -> Vec<String> {
    let lenses = server.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
    lenses["result"]
        .as_array()
        .expect("lenses")
        .iter()
        .map(|l| {
            l["command"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Waits for the next `publishDiagnostics` of `u`, answering `workspace/configuration`
/// with `configuration` on the way (other messages wait in the backlog).
fn next_diagnostics(server: &mut Server, u: &str, configuration: &Value) -> Vec<Value> {
    loop {
        let m = server.wait_for(|m| {
            m["method"] == "workspace/configuration"
                || (m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u)
        });
        if m["method"] == "workspace/configuration" {
            server.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": [configuration]}));
            continue;
        }
        return m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default();
    }
}

/// Answers the refreshes a change of target asks for (code lenses, then inlay hints).
fn answer_refreshes(server: &mut Server) {
    for method in ["workspace/codeLens/refresh", "workspace/inlayHint/refresh"] {
        let m = server.wait_for(|m| m["method"] == method);
        server.answer_if_request(&m);
    }
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn switching_the_target_rediagnoses_and_changes_the_lenses() {
    let mut server = Server::spawn(&[]);
    server.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {
                "general": {"positionEncodings": ["utf-16"]},
                "workspace": {
                    "configuration": true,
                    "codeLens": {"refreshSupport": true},
                    "inlayHint": {"refreshSupport": true},
                },
            },
            "initializationOptions": {},
        }),
    );
    server.notify("initialized", json!({}));
    let u = uri("target.pir");
    server.open(&u, TWO_TENSORS);
    assert!(server.diagnostics(&u, 1).is_empty());
    assert_eq!(
        titles(&mut server, &u),
        [
            "DVE 1 · Pool 2 · SBUF 195.3/208.0 KiB · PSUM 0.0/16.0 KiB",
            "trn2 ≥ 167 µs · Pool-bound · DVE 62%",
        ]
    );
    // Pushed: `settings.pir`.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pir": {"target": "trn1"}}}),
    );
    let diagnostics = next_diagnostics(&mut server, &u, &Value::Null);
    // And the copy reads and writes 200,000 bytes per partition at once: over trn1's
    // physical 196,608 (P417, per target), under trn2's 229,376.
    assert_eq!(codes(&diagnostics), ["P416", "P417"], "{diagnostics:?}");
    answer_refreshes(&mut server);
    // A refresh was asked for the lenses; they follow the target.
    assert_eq!(
        titles(&mut server, &u),
        [
            "DVE 1 · Pool 2 · SBUF 195.3/176.0 KiB (P416) · PSUM 0.0/16.0 KiB",
            "trn1 ≥ 143 µs · Pool-bound · DVE 62%",
        ]
    );
    // Pulled (VS Code sends `null`): the server asks for the section `pir`.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    let diagnostics = next_diagnostics(&mut server, &u, &json!({"target": "trn2"}));
    assert!(codes(&diagnostics).is_empty(), "{diagnostics:?}");
    answer_refreshes(&mut server);
    assert_eq!(
        titles(&mut server, &u)[1],
        "trn2 ≥ 167 µs · Pool-bound · DVE 62%"
    );
    // An unknown name: a warning naming the three, and the target stays.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pir": {"target": "trn9"}}}),
    );
    let warning = server.wait_for(|m| m["method"] == "window/showMessage");
    let message = warning["params"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`trn1`, `trn2` or `trn3`"), "{message}");
    assert_eq!(
        titles(&mut server, &u)[1],
        "trn2 ≥ 167 µs · Pool-bound · DVE 62%"
    );
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn the_inlay_suffix_follows_its_setting() {
    let mut server = Server::spawn(&[]);
    server.initialize(&["utf-16"], json!({"target": "trn1"}));
    let u = uri("inlay.pir");
    server.open(&u, TWO_TENSORS);
    server.diagnostics(&u, 1);
    let hints = |server: &mut Server| {
        let r = server.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 7, "character": 0}}}),
        );
        r["result"]
            .as_array()
            .expect("hints")
            .iter()
            .map(|h| h["label"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    // 150 + 100,000 on Pool; 100,000 on DVE.
    assert_eq!(
        hints(&mut server),
        [
            "→ Memset · Pool · 100,150 cyc",
            "→ Memset · Pool · 100,150 cyc",
            "→ TensorCopy · DVE · 100,000 cyc",
        ]
    );
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pir": {"inlayHints.cost": false}}}),
    );
    let want = ["→ Memset · Pool", "→ Memset · Pool", "→ TensorCopy · DVE"];
    // The setting applies to the next request (no document event to wait for).
    let mut seen = hints(&mut server);
    for _ in 0..50 {
        if seen == want {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        seen = hints(&mut server);
    }
    assert_eq!(seen, want);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn the_profile_request_draws_the_kernels() {
    let mut server = Server::spawn(&[]);
    server.initialize(&["utf-16"], json!({}));
    let u = uri("profile.pir");
    server.open(&u, TWO_TENSORS);
    server.diagnostics(&u, 1);
    let r = server.request("pir/profile", json!({"textDocument": {"uri": u}}));
    let svg = r["result"]["svg"].as_str().unwrap_or_default();
    assert!(svg.starts_with("<svg"), "{r}");
    assert!(svg.contains("@k — trn2 ≥ 167 µs, Pool-bound"), "{svg}");
    assert!(
        svg.contains("SBUF: peak 200,000 of 212,984 bytes per partition at line 5 (#2 MemsetOp)"),
        "{svg}"
    );
    assert!(server.shutdown_and_exit().success());
}
