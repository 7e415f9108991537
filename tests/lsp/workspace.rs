//! The workspace on disk (issues 22 and 23): hostile folders for `workspace/symbol` (a FIFO,
//! a link to `/dev/zero`, a link to `/`, a link out of the workspace, names that are not
//! UTF-8), each bounded in time; `workspace/diagnostic` over 200 files, with result ids,
//! partial results and progress; progress of a 20 MB `didOpen`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::SMALL;
use super::support::Server;

/// A fresh folder under the temp dir.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pir-ws-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

fn kernel(name: &str) -> String {
    format!("kernel @{name}(%x: hbm f32[4]) {{\n  NoOp {{}}\n}}\n")
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// `pir lsp` initialized on the workspace folder `dir`, with `window.workDoneProgress`
/// when `progress`.
fn start(dir: &Path, progress: bool) -> Server {
    let mut server = Server::spawn(&[]);
    let folder = file_uri(dir);
    let init = server.request(
        "initialize",
        json!({"processId": null, "rootUri": folder, "workspaceFolders": [{"uri": folder, "name": "ws"}],
            "capabilities": {"window": {"workDoneProgress": progress},
                "textDocument": {"diagnostic": {"dynamicRegistration": false}}},
            "initializationOptions": {"workspaceDiagnostics": true}}),
    );
    assert_eq!(
        init["result"]["capabilities"]["diagnosticProvider"]["workspaceDiagnostics"], true,
        "{init}"
    );
    server.notify("initialized", json!({}));
    server
}

/// The names of the workspace symbols matching `query`, sorted.
fn symbol_names(server: &mut Server, query: &str) -> Vec<String> {
    let (answer, _) = server.request_answering("workspace/symbol", json!({"query": query}));
    let mut names: Vec<String> = answer["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .filter(|s| s["kind"] == 12)
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// A workspace of `good.pir` and whatever `hostile` adds: workspace symbols answer within
/// a few seconds with `@good` and nothing `hostile` leads to, the workspace diagnostics
/// report `good.pir` alone, and the server goes on serving an open document.
fn survives(name: &str, hostile: impl FnOnce(&Path)) {
    let dir = scratch(name);
    std::fs::write(dir.join("good.pir"), kernel("good")).expect("write");
    hostile(&dir);
    let mut server = start(&dir, false);
    server.timeout = Duration::from_secs(15);
    let started = Instant::now();
    assert_eq!(symbol_names(&mut server, ""), ["@good"], "{name}");
    let (answer, _) =
        server.request_answering("workspace/diagnostic", json!({"previousResultIds": []}));
    let uris: Vec<&str> = answer["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(uris, [file_uri(&dir.join("good.pir"))], "{name}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{name}: {:?}",
        started.elapsed()
    );
    let open = file_uri(&dir.join("open.pir"));
    server.open(&open, SMALL);
    assert_eq!(
        server.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": open}})
        )["result"]["items"],
        json!([])
    );
    assert!(server.shutdown_and_exit().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO named `x.pir`: `workspace/symbol` blocked on its `open` while holding a snapshot,
/// and the whole server stalled until killed.
#[cfg(unix)]
#[test]
fn a_fifo_in_the_workspace_is_skipped() {
    survives("fifo", |dir| {
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join("x.pir"))
            .status()
            .expect("mkfifo");
        assert!(made.success());
    });
}

/// `z.pir` → `/dev/zero`: the size check read `metadata().len()`, 0 for a device, and
/// the read went on (2.5 GB in 9 s). A link out of the workspace is not followed, and a
/// device is no regular file.
#[cfg(unix)]
#[test]
fn a_link_to_dev_zero_is_skipped() {
    survives("zero", |dir| {
        std::os::unix::fs::symlink("/dev/zero", dir.join("z.pir")).expect("link");
    });
}

/// A link to `/`: the walk went over the whole disk (> 180 s), the server frozen.
#[cfg(unix)]
#[test]
fn a_link_to_the_root_folder_is_not_followed() {
    survives("root", |dir| {
        std::os::unix::fs::symlink("/", dir.join("everything")).expect("link");
    });
}

/// A folder link leaving the workspace: the files outside were read and their symbols
/// served. Links are followed only to places inside the workspace folders (one inside is
/// still followed, and its files are listed once).
#[cfg(unix)]
#[test]
fn a_link_leaving_the_workspace_is_not_followed() {
    let outside = scratch("outside");
    std::fs::write(outside.join("out.pir"), kernel("outside")).expect("write");
    survives("leaving", |dir| {
        std::os::unix::fs::symlink(&outside, dir.join("away")).expect("link");
        std::fs::create_dir_all(dir.join("inner")).expect("dir");
        std::os::unix::fs::symlink(dir.join("inner"), dir.join("again")).expect("link");
    });
    let _ = std::fs::remove_dir_all(&outside);
}

/// A file name that is not UTF-8: it was served under a URI with U+FFFD, which names no
/// file. It is skipped (with a log line).
#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_skipped() {
    use std::os::unix::ffi::OsStrExt;
    survives("latin1", |dir| {
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.pir");
        std::fs::write(dir.join(name), kernel("latin")).expect("write");
        let folder = std::ffi::OsStr::from_bytes(b"d\xe9j\xe0");
        std::fs::create_dir_all(dir.join(folder)).expect("dir");
        std::fs::write(dir.join(folder).join("in.pir"), kernel("inside_latin")).expect("write");
    });
}

/// A diagnostic as the tests compare them: (code, severity, message, 0-based line, 0-based
/// start column).
type Seen = (String, u64, String, u64, u64);

/// `pir check --format json` of `dir`: diagnostics by file name, as (code, severity,
/// message, 0-based line, 0-based start column): the LSP fields of an ASCII file.
fn checked(dir: &Path) -> HashMap<String, Vec<Seen>> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(["check", "--format", "json"])
        .arg(dir)
        .output()
        .expect("pir check");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut by_file = HashMap::new();
    for file in report["files"].as_array().expect("files") {
        let path = file["path"].as_str().expect("path");
        let name = Path::new(path)
            .strip_prefix(dir)
            .expect("in the folder")
            .to_string_lossy()
            .to_string();
        let diagnostics = file["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_string(),
                    if d["severity"] == "error" { 1 } else { 2 },
                    d["message"].as_str().unwrap_or_default().to_string(),
                    d["range"]["start"]["line"].as_u64().unwrap_or(0) - 1,
                    d["range"]["start"]["column"].as_u64().unwrap_or(0) - 1,
                )
            })
            .collect();
        by_file.insert(name, diagnostics);
    }
    by_file
}

/// The reports of a `workspace/diagnostic` answer (or of its partial results), by path
/// in the workspace (`sub/k001.pir`): (kind, result id, diagnostics as [`checked`] gives
/// them).
type Reports = HashMap<String, (String, String, Vec<Seen>)>;

fn reports(items: &[Value], dir: &Path) -> Reports {
    let folder = format!("{}/", file_uri(dir));
    items
        .iter()
        .map(|r| {
            let uri = r["uri"].as_str().expect("uri");
            let name = uri
                .strip_prefix(&folder)
                .expect("in the folder")
                .to_string();
            let diagnostics = r["items"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| {
                    (
                        d["code"].as_str().unwrap_or_default().to_string(),
                        d["severity"].as_u64().unwrap_or(0),
                        d["message"].as_str().unwrap_or_default().to_string(),
                        d["range"]["start"]["line"].as_u64().unwrap_or(0),
                        d["range"]["start"]["character"].as_u64().unwrap_or(0),
                    )
                })
                .collect();
            (
                name,
                (
                    r["kind"].as_str().unwrap_or_default().to_string(),
                    r["resultId"].as_str().unwrap_or_default().to_string(),
                    diagnostics,
                ),
            )
        })
        .collect()
}

/// `workspace/diagnostic` with the client's result ids; streamed as partial results when
/// `partial`. Returns the reports and the `$/progress` messages of work-done progress.
fn pull(
    server: &mut Server,
    previous: &Reports,
    dir: &Path,
    partial: bool,
) -> (Reports, Vec<Value>) {
    let previous: Vec<Value> = previous
        .iter()
        .map(|(name, (_, id, _))| json!({"uri": file_uri(&dir.join(name)), "value": id}))
        .collect();
    let mut params = json!({"previousResultIds": previous});
    if partial {
        params["partialResultToken"] = json!("partial-1");
    }
    let (answer, before) = server.request_answering("workspace/diagnostic", params);
    let mut items: Vec<Value> = answer["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .clone();
    let mut progress = Vec::new();
    for m in before {
        if m["method"] != "$/progress" {
            continue;
        }
        if m["params"]["token"] == "partial-1" {
            items.extend(
                m["params"]["value"]["items"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            );
        } else {
            progress.push(m);
        }
    }
    if partial {
        assert_eq!(
            answer["result"]["items"],
            json!([]),
            "partial results: the answer adds none"
        );
    }
    (reports(&items, dir), progress)
}

/// Issue 22: a workspace of 200 files, 3 with errors, one of them open with a fix typed:
/// `workspace/diagnostic` reports every file, the errors exactly as `pir check` of the
/// folder gives them (the open one from its live text), streamed as partial results, with
/// progress; a workspace symbol scan with progress; then `unchanged` for all; then one
/// changed report after an edit on disk.
#[test]
fn workspace_diagnostics_of_200_files() {
    let dir = scratch("diagnostics");
    std::fs::create_dir_all(dir.join("sub")).expect("dir");
    let broken = SMALL.replacen("src = %t", "src = %q", 1);
    for i in 0..200 {
        let path = if i % 2 == 0 {
            dir.join(format!("k{i:03}.pir"))
        } else {
            dir.join("sub").join(format!("k{i:03}.pir"))
        };
        let text = match i {
            7 => broken.clone(),
            42 => SMALL.replacen("DmaCopyOp", "DmaCopyOpp", 1),
            199 => broken.replace("%q", "%r").replace("%x", "%z"),
            _ => SMALL.replace("@k", &format!("@k{i}")),
        };
        std::fs::write(path, text).expect("write");
    }
    // k050 is open, with an error typed into it that the disk does not have.
    let open = dir.join("k050.pir");
    let mut server = start(&dir, true);
    server.timeout = Duration::from_secs(60);
    server.open(&file_uri(&open), &broken);
    let expected = checked(&dir);
    assert_eq!(expected.len(), 200);

    let (first, progress) = pull(&mut server, &Reports::new(), &dir, true);
    assert_eq!(first.len(), 200, "every file reported once");
    let with_errors: Vec<&String> = first
        .iter()
        .filter(|(_, (_, _, d))| !d.is_empty())
        .map(|(name, _)| name)
        .collect();
    let mut with_errors: Vec<&str> = with_errors.iter().map(|s| s.as_str()).collect();
    with_errors.sort_unstable();
    assert_eq!(
        with_errors,
        ["k042.pir", "k050.pir", "sub/k007.pir", "sub/k199.pir"]
    );
    for (name, (kind, _, diagnostics)) in &first {
        assert_eq!(kind, "full", "{name}");
        if name == "k050.pir" {
            // The live text: the editor's error, not the disk's clean file.
            assert_eq!(diagnostics, &expected["sub/k007.pir"], "{name}");
        } else {
            assert_eq!(
                diagnostics, &expected[name],
                "{name}: as pir check gives it"
            );
        }
    }
    // Progress while the files were read: begin, reports with a percentage, end.
    let kinds: Vec<&str> = progress
        .iter()
        .filter_map(|m| m["params"]["value"]["kind"].as_str())
        .collect();
    assert_eq!(kinds.first(), Some(&"begin"), "{progress:#?}");
    assert_eq!(kinds.last(), Some(&"end"), "{progress:#?}");
    assert!(
        progress
            .iter()
            .any(|m| m["params"]["value"]["kind"] == "report"
                && m["params"]["value"]["percentage"] == 100),
        "{progress:#?}"
    );

    // A workspace symbol scan reads the 199 files not open, with progress; a second reads
    // none, and shows none.
    for (scan, reads) in [(1, true), (2, false)] {
        let (answer, before) = server.request_answering("workspace/symbol", json!({"query": "k1"}));
        assert!(
            answer["result"].as_array().is_some_and(|s| s.len() > 10),
            "scan {scan}: {answer}"
        );
        let kinds: Vec<&str> = before
            .iter()
            .filter(|m| m["method"] == "$/progress")
            .filter_map(|m| m["params"]["value"]["kind"].as_str())
            .collect();
        if reads {
            assert_eq!(kinds.first(), Some(&"begin"), "scan {scan}: {before:#?}");
            assert_eq!(kinds.last(), Some(&"end"), "scan {scan}: {before:#?}");
            assert!(kinds.contains(&"report"), "scan {scan}: {before:#?}");
        } else {
            assert!(kinds.is_empty(), "scan {scan}: {before:#?}");
        }
    }

    // Nothing changed: unchanged, every one, and nothing read (no progress).
    let (second, progress) = pull(&mut server, &first, &dir, false);
    assert_eq!(second.len(), 200);
    assert!(
        second.values().all(|(kind, _, _)| kind == "unchanged"),
        "{second:?}"
    );
    assert!(progress.is_empty(), "{progress:#?}");

    // An edit on disk: that file's report is full and new, the others unchanged.
    std::fs::write(dir.join("sub/k199.pir"), SMALL.replace("@k", "@fixed")).expect("write");
    let (third, _) = pull(&mut server, &first, &dir, false);
    let changed: Vec<(&String, &(String, String, Vec<_>))> = third
        .iter()
        .filter(|(_, (kind, _, _))| kind == "full")
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0].0, "sub/k199.pir");
    assert!(changed[0].1.2.is_empty());
    assert_ne!(changed[0].1.1, first["sub/k199.pir"].1);
    assert!(server.shutdown_and_exit().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `workspace/diagnostic` cancelled (`$/cancelRequest`) stops between files and is
/// answered at once, and the server goes on.
#[test]
fn a_workspace_pass_can_be_cancelled() {
    let dir = scratch("cancel");
    let big = format!("kernel @a() {{\n{}}}\n", "  Nop {}\n".repeat(3000));
    for i in 0..40 {
        std::fs::write(dir.join(format!("k{i:02}.pir")), &big).expect("write");
    }
    let mut server = start(&dir, false);
    server.timeout = Duration::from_secs(20);
    server.send(
        &json!({"jsonrpc": "2.0", "id": 5000, "method": "workspace/diagnostic",
        "params": {"previousResultIds": []}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    server.notify("$/cancelRequest", json!({"id": 5000}));
    let answer = server.wait_for(|m| m["id"] == 5000);
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
    let hover_doc = file_uri(&dir.join("open.pir"));
    server.open(&hover_doc, SMALL);
    let pulled = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": hover_doc}}),
    );
    assert_eq!(pulled["result"]["items"], json!([]));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(server.shutdown_and_exit().success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 22: opening a 20 MB document reports work-done progress (begin, a report with a
/// percentage, end) to a client that supports it.
#[test]
fn a_20_mb_did_open_reports_progress() {
    let dir = scratch("big-open");
    let mut server = start(&dir, true);
    server.timeout = Duration::from_secs(120);
    let comment = format!("// {}\n", "x".repeat(97));
    let big = format!("{}{SMALL}", comment.repeat(200_000));
    assert!(big.len() >= 20_000_000);
    let u = file_uri(&dir.join("big.pir"));
    server.open(&u, &big);
    let mut kinds = Vec::new();
    while kinds.last() != Some(&"end".to_string()) {
        let m = server.wait_for(|m| {
            m["method"] == "$/progress" || m["method"] == "window/workDoneProgress/create"
        });
        server.answer_if_request(&m);
        if m["method"] == "$/progress" {
            let value = &m["params"]["value"];
            if value["kind"] != "end" {
                assert!(value["percentage"].is_u64(), "{m}");
            }
            if value["kind"] == "begin" {
                assert!(
                    value["title"]
                        .as_str()
                        .is_some_and(|t| t.contains("big.pir")),
                    "{m}"
                );
            }
            kinds.push(value["kind"].as_str().unwrap_or_default().to_string());
        }
    }
    assert_eq!(kinds, ["begin", "report", "end"]);
    let pulled = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": u}}),
    );
    assert_eq!(pulled["result"]["items"], json!([]));
    assert!(server.shutdown_and_exit().success());
    let _ = std::fs::remove_dir_all(&dir);
}
