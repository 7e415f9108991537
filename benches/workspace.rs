//! Issue 22's workspace benchmark: `workspace/diagnostic` of the real `pir lsp` over a
//! folder of generated files, cold (a new server: every file read and analysed) and warm
//! (nothing changed: every file `unchanged`, and again without result ids: every report
//! full, from what the server kept), against a cold `pir check` of the same folder.
//!
//! ```sh
//! cargo bench --bench workspace -- [--files 1000] [--ops 1000] [--reps 3] [--out DIR]
//! ```
//!
//! Every answer is checked, so that the run fails rather than times a wrong one: `pir
//! check` must report every file and no diagnostic, each pass must report every file once
//! (full and empty cold, `unchanged` warm with the ids, full and empty warm without).
//! Writes `workspace.md` (the table, also printed) and `workspace.json` into `--out`
//! (default `target/workspace`). Run by `cargo test` (no `--bench`), it makes a smoke run
//! on 5 files of 100 ops through the debug binary, checked the same way.

#[path = "../tests/lsp/support.rs"]
#[allow(dead_code)]
mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::Server;

struct Options {
    files: usize,
    ops: usize,
    reps: usize,
    out: PathBuf,
    smoke: bool,
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "workspace: {problem}\nusage: cargo bench --bench workspace -- [--files N] [--ops N] \
         [--reps N] [--out DIR]"
    );
    std::process::exit(2);
}

impl Options {
    fn parse() -> Options {
        let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
        let args: Vec<String> = std::env::args().skip(1).collect();
        if !args.iter().any(|a| a == "--bench") {
            return Options {
                files: 5,
                ops: 100,
                reps: 1,
                out: target.join("workspace-smoke"),
                smoke: true,
            };
        }
        let mut options = Options {
            files: 1000,
            ops: 1000,
            reps: 3,
            out: target.join("workspace"),
            smoke: false,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut number = || {
                args.next()
                    .and_then(|v| v.replace('_', "").parse().ok())
                    .unwrap_or_else(|| usage(&format!("{arg} needs a number")))
            };
            match arg.as_str() {
                "--bench" => {}
                "--files" => options.files = number(),
                "--ops" => options.ops = number(),
                "--reps" => options.reps = number(),
                "--out" => {
                    options.out = args
                        .next()
                        .map(PathBuf::from)
                        .unwrap_or_else(|| usage("--out needs a folder"));
                }
                other => usage(&format!("unknown argument {other}")),
            }
        }
        if options.files == 0 || options.reps == 0 || options.ops < pir_gen::pir::MIN_OPS {
            usage("--files and --reps are positive, --ops at least 100");
        }
        options
    }
}

/// Writes `files` files of `ops` ops each into `dir` (half in a subfolder), each with its
/// own names, so that no two files share a text (nor a piece of one the analysis could
/// reuse). Returns the bytes written.
fn generate(dir: &Path, files: usize, ops: usize) -> usize {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("sub")).expect("the workspace folder");
    let text = pir_gen::pir::generate(ops, pir_gen::pir::DEFAULT_KERNEL_OPS).text;
    let mut bytes = 0;
    for i in 0..files {
        let own = renamed(&text, i);
        let path = if i % 2 == 0 {
            dir.join(format!("k{i:05}.pir"))
        } else {
            dir.join("sub").join(format!("k{i:05}.pir"))
        };
        bytes += own.len();
        std::fs::write(path, own).expect("write a file");
    }
    bytes
}

/// `text` with each generated name's copy suffix `_c<N>` made `_f<file>c<N>` (field names
/// such as `is_causal` have no digit after their `_c`).
fn renamed(text: &str, file: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut rest = text;
    while let Some(at) = rest.find("_c") {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        if after[2..].starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&format!("_f{file}c"));
        } else {
            out.push_str("_c");
        }
        rest = &after[2..];
    }
    out.push_str(rest);
    out
}

/// Median of `samples`, in seconds.
fn median(samples: &mut [Duration]) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64()
}

/// A cold `pir check` of `dir`; fails unless every file is checked without an error (the
/// corpus kernels' P420/P421 warnings, SPEC §10.2.10, are the files').
fn pir_check(dir: &Path, files: usize) -> Duration {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_pir"))
        .arg("check")
        .arg(dir)
        .output()
        .expect("pir check runs");
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "checked {files} file{}: 0 errors, ",
        if files == 1 { "" } else { "s" }
    );
    assert!(
        out.status.success() && stderr.contains(&expected),
        "pir check: {stderr}"
    );
    elapsed
}

/// `pir lsp` initialized on the workspace folder `dir`, announcing workspace diagnostics.
fn start(dir: &Path) -> Server {
    let mut server = Server::spawn(&[]);
    server.timeout = Duration::from_secs(1200);
    let folder = format!("file://{}", dir.display());
    let init = server.request(
        "initialize",
        json!({"processId": null, "rootUri": folder,
            "workspaceFolders": [{"uri": folder, "name": "bench"}],
            "capabilities": {"textDocument": {"diagnostic": {"dynamicRegistration": false}}},
            "initializationOptions": {"workspaceDiagnostics": true}}),
    );
    assert_eq!(
        init["result"]["capabilities"]["diagnosticProvider"]["workspaceDiagnostics"], true,
        "{init}"
    );
    server.notify("initialized", json!({}));
    server
}

/// One `workspace/diagnostic` with the result ids `previous`: its time and its reports,
/// checked to be `files` reports of kind `kind` with no diagnostic.
fn pass(
    server: &mut Server,
    previous: &[Value],
    files: usize,
    kind: &str,
) -> (Duration, Vec<Value>) {
    let started = Instant::now();
    let answer = server.request(
        "workspace/diagnostic",
        json!({"previousResultIds": previous}),
    );
    let elapsed = started.elapsed();
    let items = answer["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no reports: {answer}"))
        .clone();
    assert_eq!(items.len(), files, "one report per file");
    let mut uris: Vec<&str> = items.iter().filter_map(|r| r["uri"].as_str()).collect();
    uris.sort_unstable();
    uris.dedup();
    assert_eq!(uris.len(), files, "each file reported once");
    for report in &items {
        assert_eq!(report["kind"], kind, "{report}");
        if kind == "full" {
            // As `pir check`: no error (the corpus kernels' P420/P421 are the files').
            let errors = report["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| !support::is_cost_warning(d))
                .count();
            assert_eq!(errors, 0, "pir check found nothing: {report}");
        }
    }
    (elapsed, items)
}

/// The client's result ids after `reports`.
fn ids(reports: &[Value]) -> Vec<Value> {
    reports
        .iter()
        .map(|r| json!({"uri": r["uri"], "value": r["resultId"]}))
        .collect()
}

/// The resident memory of process `pid`, in MiB.
fn rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() {
    let options = Options::parse();
    std::fs::create_dir_all(&options.out).expect("the output folder");
    let dir = options.out.join("files");
    eprintln!(
        "workspace: writing {} files of {} ops into {}",
        options.files,
        options.ops,
        dir.display()
    );
    let bytes = generate(&dir, options.files, options.ops);
    let (files, reps) = (options.files, options.reps);

    let mut check: Vec<Duration> = (0..reps).map(|_| pir_check(&dir, files)).collect();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut warm_full = Vec::new();
    let mut rss = 0.0f64;
    for _ in 0..reps {
        let mut server = start(&dir);
        let (elapsed, reports) = pass(&mut server, &[], files, "full");
        cold.push(elapsed);
        rss = rss.max(rss_mib(server.pid()));
        let previous = ids(&reports);
        for _ in 0..reps {
            warm.push(pass(&mut server, &previous, files, "unchanged").0);
            warm_full.push(pass(&mut server, &[], files, "full").0);
        }
        assert!(server.shutdown_and_exit().success());
    }
    let (check, cold, warm, warm_full) = (
        median(&mut check),
        median(&mut cold),
        median(&mut warm),
        median(&mut warm_full),
    );
    let mut table = String::new();
    let _ = writeln!(
        table,
        "# Workspace diagnostics: {files} files × {} ops ({:.0} MB){}\n",
        options.ops,
        bytes as f64 / 1e6,
        if options.smoke {
            " (smoke run, debug build)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        table,
        "| pass | seconds (median of {reps}) | ÷ `pir check` |"
    );
    let _ = writeln!(table, "|---|---|---|");
    for (name, secs) in [
        ("cold `pir check` of the folder", check),
        ("`workspace/diagnostic`, cold (a new server)", cold),
        (
            "`workspace/diagnostic`, warm, with result ids (all `unchanged`)",
            warm,
        ),
        (
            "`workspace/diagnostic`, warm, without ids (all full, kept)",
            warm_full,
        ),
    ] {
        let _ = writeln!(table, "| {name} | {secs:.3} | {:.3} |", secs / check);
    }
    let _ = writeln!(table, "\nServer RSS after the cold pass: {rss:.0} MiB.");
    println!("{table}");
    std::fs::write(options.out.join("workspace.md"), &table).expect("workspace.md");
    let figures = json!({
        "files": files, "ops_per_file": options.ops, "bytes": bytes, "reps": reps,
        "pir_check_s": check, "cold_s": cold, "warm_unchanged_s": warm,
        "warm_full_s": warm_full, "server_rss_mib": rss, "smoke": options.smoke,
    });
    std::fs::write(
        options.out.join("workspace.json"),
        serde_json::to_string_pretty(&figures).expect("JSON"),
    )
    .expect("workspace.json");
    if options.smoke {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
