//! Issue 24's benchmark: a keystroke as a real editor makes it. After each change, the six
//! requests Neovim and VS Code send (pull diagnostics, inlay hints for the 60 visible
//! lines, semantic tokens as a delta, code lens, document symbols, folding ranges), through
//! the real `pir lsp`, on the benchmark file (kernels of 250 ops), on one unrolled
//! kernel, and on one kernel written on one line (`one-line`, not run unless asked for),
//! at each size.
//!
//! ```sh
//! cargo bench --bench keystroke -- [--sizes 1000,100000] [--layouts kernels,unrolled,one-line] \
//!     [--reps 5] [--soak SECONDS] [--out DIR]
//! ```
//!
//! Per file: didOpen, then the five edits of `pir_gen` (each made and undone `--reps`
//! times after one warm-up pair). After each change, first the six requests one at a time
//! (each timed from sending it to its answer; the first of them pays for the change's
//! analysis, as in an editor), then, after the same change made again, the six sent
//! together (timed until the last answers), then `semanticTokens/full` alone. `--soak`
//! repeats the mix for that many seconds more. Reported: the median and p95 of each,
//! the answers' sizes (JSON bytes; the largest semantic-token answer after a change), and
//! the server's RSS after open and at the end. Every answer is checked (the diagnostics
//! are each edit's `pir_gen::Expect`; hints, lenses, symbols and folds are not empty).
//! Writes `keystroke.md` (also printed) and `keystroke.json` into `--out` (default
//! `target/keystroke`). Run by `cargo test` (no `--bench`), it makes a smoke run on 300
//! ops of each layout through the debug binary, checked the same way.

#[path = "../tests/lsp/support.rs"]
#[allow(dead_code)]
mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pir_gen::{Edit, Expect, Generated};
use pir_lsp::convert::Encoding;
use serde_json::{Value, json};
use support::Server;

/// The six requests of a keystroke, in the order an editor sends them.
const REQUESTS: [&str; 6] = [
    "pull diagnostics",
    "inlay hints (60 lines)",
    "semantic tokens delta",
    "code lens",
    "document symbols",
    "folding ranges",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The benchmark file: kernels of `pir_gen::pir::DEFAULT_KERNEL_OPS` ops.
    Kernels,
    /// One kernel of every op.
    Unrolled,
    /// One kernel of every op, all on one line (`pir_gen::pir::generate_one_line`).
    OneLine,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Kernels => "kernels",
            Layout::Unrolled => "unrolled",
            Layout::OneLine => "one-line",
        }
    }

    fn generate(self, ops: usize) -> Generated {
        match self {
            Layout::Kernels => pir_gen::pir::generate(ops, pir_gen::pir::DEFAULT_KERNEL_OPS),
            Layout::Unrolled => pir_gen::pir::generate(ops, ops),
            Layout::OneLine => pir_gen::pir::generate_one_line(ops),
        }
    }
}

struct Options {
    sizes: Vec<usize>,
    layouts: Vec<Layout>,
    reps: usize,
    soak: Duration,
    out: PathBuf,
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "keystroke: {problem}\nusage: cargo bench --bench keystroke -- [--sizes N,N] \
         [--layouts kernels,unrolled,one-line] [--reps N] [--soak SECONDS] [--out DIR]"
    );
    std::process::exit(2);
}

impl Options {
    fn parse() -> Options {
        let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
        let args: Vec<String> = std::env::args().skip(1).collect();
        if !args.iter().any(|a| a == "--bench") {
            return Options {
                sizes: vec![300],
                layouts: vec![Layout::Kernels, Layout::Unrolled, Layout::OneLine],
                reps: 1,
                soak: Duration::ZERO,
                out: target.join("keystroke-smoke"),
            };
        }
        let mut options = Options {
            sizes: vec![1000, 100_000],
            layouts: vec![Layout::Kernels, Layout::Unrolled],
            reps: 5,
            soak: Duration::ZERO,
            out: target.join("keystroke"),
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
            };
            let number = |v: &str| -> usize {
                v.replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| usage(&format!("not a number: {v}")))
            };
            match arg.as_str() {
                "--bench" => {}
                "--sizes" => options.sizes = value().split(',').map(number).collect(),
                "--layouts" => {
                    options.layouts = value()
                        .split(',')
                        .map(|l| match l {
                            "kernels" => Layout::Kernels,
                            "unrolled" => Layout::Unrolled,
                            "one-line" => Layout::OneLine,
                            other => usage(&format!("unknown layout {other}")),
                        })
                        .collect();
                }
                "--reps" => options.reps = number(&value()),
                "--soak" => options.soak = Duration::from_secs(number(&value()) as u64),
                "--out" => options.out = PathBuf::from(value()),
                other => usage(&format!("unknown argument {other}")),
            }
        }
        if options.reps == 0 || options.sizes.iter().any(|&s| s < pir_gen::pir::MIN_OPS) {
            usage("--reps is positive, every size at least 100");
        }
        options
    }
}

/// A median and a 95th percentile (nearest rank), in ms.
#[derive(Clone, Copy, Default)]
struct Stats {
    median: f64,
    p95: f64,
}

fn stats(samples: &[Duration]) -> Stats {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    if ms.is_empty() {
        return Stats::default();
    }
    ms.sort_by(f64::total_cmp);
    let rank = (ms.len() * 95).div_ceil(100).max(1);
    Stats {
        median: ms[ms.len() / 2],
        p95: ms[rank - 1],
    }
}

fn fail(message: &str) -> ! {
    eprintln!("keystroke: FAILED: {message}");
    std::process::exit(1);
}

/// The LSP position of byte `offset` of `text`.
fn position(text: &str, offset: usize, encoding: Encoding) -> Value {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let character = match encoding {
        Encoding::Utf8 => before.len(),
        Encoding::Utf16 => before.encode_utf16().count(),
    };
    json!({"line": pir_gen::line_of(text, offset), "character": character})
}

/// `pir lsp` with one document open, as an editor that pulls diagnostics and asks for
/// semantic-token deltas.
struct Session {
    server: Server,
    uri: String,
    version: i64,
    /// The last pull's result id and items.
    pulled: (Option<String>, Vec<Value>),
    /// The last semantic tokens' result id.
    tokens_id: Option<String>,
    /// Whether the document is one line (which has nothing to fold).
    one_line: bool,
    /// The 60 lines around the edits, as an inlay-hint range.
    visible: Value,
    /// The requests sent together so far (their ids are `together-N`).
    sent: u64,
}

impl Session {
    fn start(generated: &Generated, name: &str) -> (Session, Duration) {
        let mut server = Server::spawn(&[]);
        server.timeout = Duration::from_secs(600);
        let init = server.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": {
                    "general": {"positionEncodings": ["utf-16"]},
                    "textDocument": {
                        "diagnostic": {"dynamicRegistration": false},
                        "semanticTokens": {"requests": {"full": {"delta": true}, "range": true},
                            "tokenTypes": [], "tokenModifiers": [], "formats": ["relative"]},
                    },
                },
            }),
        );
        let capabilities = &init["result"]["capabilities"];
        if capabilities["diagnosticProvider"].is_null() {
            fail("the server offers no pull diagnostics");
        }
        server.notify("initialized", json!({}));
        let text = &generated.text;
        let line = pir_gen::line_of(text, generated.edits[0].offset);
        let visible = json!({
            "start": {"line": line.saturating_sub(30), "character": 0},
            "end": {"line": line + 30, "character": 0},
        });
        let mut session = Session {
            server,
            uri: format!("file:///keystroke/{name}"),
            version: 1,
            pulled: (None, Vec::new()),
            tokens_id: None,
            visible,
            sent: 0,
            one_line: text.trim_end_matches('\n').lines().count() == 1,
        };
        let began = Instant::now();
        session.server.open(&session.uri, text);
        session.pull(&Expect::Clean);
        let took = began.elapsed();
        (session, took)
    }

    fn document(&self) -> Value {
        json!({"uri": self.uri})
    }

    /// Sends `change` as the next didChange.
    fn change(&mut self, change: &Value) {
        self.version += 1;
        let params = json!({
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [change],
        });
        self.server.notify("textDocument/didChange", params);
    }

    /// The method and parameters of request `i` of [`REQUESTS`].
    fn params(&self, i: usize) -> (&'static str, Value) {
        let document = self.document();
        match i {
            0 => (
                "textDocument/diagnostic",
                json!({"textDocument": document, "previousResultId": self.pulled.0}),
            ),
            1 => (
                "textDocument/inlayHint",
                json!({"textDocument": document, "range": self.visible}),
            ),
            2 => match &self.tokens_id {
                Some(id) => (
                    "textDocument/semanticTokens/full/delta",
                    json!({"textDocument": document, "previousResultId": id}),
                ),
                None => (
                    "textDocument/semanticTokens/full",
                    json!({"textDocument": document}),
                ),
            },
            3 => ("textDocument/codeLens", json!({"textDocument": document})),
            4 => (
                "textDocument/documentSymbol",
                json!({"textDocument": document}),
            ),
            _ => (
                "textDocument/foldingRange",
                json!({"textDocument": document}),
            ),
        }
    }

    /// Checks the answer to request `i` (keeping what the next request needs of it);
    /// returns its size in JSON bytes.
    fn take(&mut self, i: usize, answer: &Value, expect: &Expect) -> usize {
        let result = &answer["result"];
        // A document too big for whole-document semantic tokens gets `null` for them.
        if answer.get("error").is_some() || (result.is_null() && i != 2) {
            fail(&format!("{} answered {answer}", REQUESTS[i]));
        }
        let ok = match i {
            0 => {
                if result["kind"] == "full" {
                    self.pulled = (
                        result["resultId"].as_str().map(String::from),
                        result["items"].as_array().cloned().unwrap_or_default(),
                    );
                }
                support::verify(expect, &self.pulled.1).is_ok()
            }
            1 => result.as_array().is_some_and(|h| !h.is_empty()),
            2 => {
                self.tokens_id = result["resultId"].as_str().map(String::from);
                self.tokens_id.is_some() || result.is_null()
            }
            5 if self.one_line => result.is_array(),
            _ => result.as_array().is_some_and(|a| !a.is_empty()),
        };
        if !ok {
            let text = answer.to_string();
            fail(&format!(
                "unexpected answer to {} (expected {expect:?}): {}",
                REQUESTS[i],
                &text[..text.len().min(2000)]
            ));
        }
        result.to_string().len()
    }

    /// Pulls the diagnostics and checks them against `expect`.
    fn pull(&mut self, expect: &Expect) {
        let (method, params) = self.params(0);
        let answer = self.server.request(method, params);
        self.take(0, &answer, expect);
    }

    /// The six requests one at a time: each one's time and answer size.
    fn one_by_one(&mut self, expect: &Expect) -> [(Duration, usize); 6] {
        std::array::from_fn(|i| {
            let (method, params) = self.params(i);
            let began = Instant::now();
            let answer = self.server.request(method, params);
            let took = began.elapsed();
            (took, self.take(i, &answer, expect))
        })
    }

    /// The six requests sent together: the time until the last answers.
    fn together(&mut self, expect: &Expect) -> Duration {
        let began = Instant::now();
        let mut ids = Vec::new();
        for i in 0..REQUESTS.len() {
            let (method, params) = self.params(i);
            self.sent += 1;
            let id = format!("together-{}", self.sent);
            self.server
                .send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            ids.push(id);
        }
        let answers: Vec<Value> = ids
            .iter()
            .map(|id| {
                self.server
                    .wait_for(|m| m["id"] == id.as_str() && m.get("method").is_none())
            })
            .collect();
        let took = began.elapsed();
        for (i, answer) in answers.iter().enumerate() {
            self.take(i, answer, expect);
        }
        took
    }

    /// `semanticTokens/full` alone: its time and size.
    fn full_tokens(&mut self) -> (Duration, usize) {
        let began = Instant::now();
        let answer = self.server.request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": self.document()}),
        );
        let took = began.elapsed();
        (took, self.take(2, &answer, &Expect::Clean))
    }

    /// The server's resident memory (`VmRSS`), in bytes.
    fn rss(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.server.pid()))
            .ok()
            .and_then(|status| {
                let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .map_or(0, |kb| kb * 1024)
    }
}

/// What one file gave.
struct Run {
    layout: Layout,
    ops: usize,
    bytes: usize,
    open: Duration,
    rss_open: u64,
    rss_end: u64,
    /// Per request: its times, and the largest and the median answer.
    requests: Vec<(Vec<Duration>, Vec<usize>)>,
    together: Vec<Duration>,
    full: Vec<Duration>,
    full_bytes: usize,
    soaked: usize,
}

/// Each edit and its undo, as content changes, with what each must be diagnosed as.
fn changes(session: &Session, generated: &Generated) -> Vec<(Value, Expect)> {
    let encoding = session.server.encoding;
    let mut out = Vec::new();
    for edit in &generated.edits {
        let edited = edit.apply(&generated.text);
        let undo = edit.undo(&generated.text);
        let change = |text: &str, e: &Edit| {
            json!({"range": {"start": position(text, e.offset, encoding),
                "end": position(text, e.offset + e.delete, encoding)}, "text": e.insert})
        };
        out.push((change(&generated.text, edit), edit.expect.clone()));
        out.push((change(&edited, &undo), undo.expect));
    }
    out
}

fn measure(options: &Options, layout: Layout, ops: usize) -> Run {
    let generated = layout.generate(ops);
    let name = format!("{}-{ops}.pir", layout.name());
    let (mut session, open) = Session::start(&generated, &name);
    let rss_open = session.rss();
    let (_, full_bytes) = session.full_tokens();
    let changes = changes(&session, &generated);
    let mut requests = vec![(Vec::new(), Vec::new()); REQUESTS.len()];
    let (mut together, mut full) = (Vec::new(), Vec::new());
    for rep in 0..=options.reps {
        for (change, expect) in &changes {
            session.change(change);
            let answers = session.one_by_one(expect);
            if rep > 0 {
                for ((times, sizes), (took, size)) in requests.iter_mut().zip(answers) {
                    times.push(took);
                    sizes.push(size);
                }
            }
        }
        for (change, expect) in &changes {
            session.change(change);
            let took = session.together(expect);
            let (full_took, _) = session.full_tokens();
            if rep > 0 {
                together.push(took);
                full.push(full_took);
            }
        }
    }
    let soak_until = Instant::now() + options.soak;
    let mut soaked = 0;
    while Instant::now() < soak_until {
        for (change, expect) in &changes {
            session.change(change);
            session.one_by_one(expect);
            soaked += 1;
        }
    }
    let rss_end = session.rss();
    let status = session.server.shutdown_and_exit();
    if !status.success() {
        fail(&format!("pir lsp exited with {status}"));
    }
    let run = Run {
        layout,
        ops,
        bytes: generated.text.len(),
        open,
        rss_open,
        rss_end,
        requests,
        together,
        full,
        full_bytes,
        soaked,
    };
    eprintln!("{}", table(std::slice::from_ref(&run)));
    run
}

fn kb(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

fn cell(s: Stats) -> String {
    format!("{:.1} / {:.1}", s.median, s.p95)
}

fn median_size(sizes: &[usize]) -> usize {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied().unwrap_or(0)
}

fn table(runs: &[Run]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "| file | ops | request after a change | median / p95 ms | answer (median, largest) |\n|---|---:|---|---:|---:|"
    );
    for run in runs {
        let file = run.layout.name();
        for (name, (times, sizes)) in REQUESTS.iter().zip(&run.requests) {
            let largest = sizes.iter().copied().max().unwrap_or(0);
            let _ = writeln!(
                md,
                "| {file} | {} | {name} | {} | {}, {} |",
                run.ops,
                cell(stats(times)),
                kb(median_size(sizes)),
                kb(largest)
            );
        }
        let _ = writeln!(
            md,
            "| {file} | {} | the six sent together, until the last answers | {} | |",
            run.ops,
            cell(stats(&run.together))
        );
        let _ = writeln!(
            md,
            "| {file} | {} | semantic tokens full (not asked after a change) | {} | {} |",
            run.ops,
            cell(stats(&run.full)),
            kb(run.full_bytes)
        );
    }
    let _ = writeln!(
        md,
        "\n| file | ops | bytes | didOpen → diagnostics | RSS after open | RSS at the end | changes soaked |\n|---|---:|---:|---:|---:|---:|---:|"
    );
    for run in runs {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.0} ms | {} | {} | {} |",
            run.layout.name(),
            run.ops,
            kb(run.bytes),
            run.open.as_secs_f64() * 1e3,
            kb(run.rss_open as usize),
            kb(run.rss_end as usize),
            run.soaked
        );
    }
    md
}

fn to_json(runs: &[Run]) -> Value {
    let s = |samples: &[Duration]| {
        let st = stats(samples);
        json!({"median_ms": st.median, "p95_ms": st.p95, "n": samples.len()})
    };
    Value::Array(
        runs.iter()
            .map(|run| {
                json!({
                    "layout": run.layout.name(),
                    "ops": run.ops,
                    "bytes": run.bytes,
                    "open_ms": run.open.as_secs_f64() * 1e3,
                    "rss_after_open": run.rss_open,
                    "rss_at_end": run.rss_end,
                    "requests": REQUESTS.iter().zip(&run.requests).map(|(name, (times, sizes))| json!({
                        "request": name,
                        "time": s(times),
                        "median_bytes": median_size(sizes),
                        "largest_bytes": sizes.iter().copied().max().unwrap_or(0),
                    })).collect::<Vec<_>>(),
                    "together": s(&run.together),
                    "semantic_tokens_full": s(&run.full),
                    "semantic_tokens_full_bytes": run.full_bytes,
                    "changes_soaked": run.soaked,
                })
            })
            .collect(),
    )
}

fn main() {
    let options = Options::parse();
    let mut runs = Vec::new();
    for &layout in &options.layouts {
        for &ops in &options.sizes {
            eprintln!("keystroke: {} {ops} ops", layout.name());
            runs.push(measure(&options, layout, ops));
        }
    }
    let md = table(&runs);
    println!("{md}");
    std::fs::create_dir_all(&options.out).unwrap_or_else(|e| fail(&format!("--out: {e}")));
    let write = |name: &str, contents: &str| {
        let path = options.out.join(name);
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        eprintln!("keystroke: wrote {}", path.display());
    };
    write("keystroke.md", &md);
    write(
        "keystroke.json",
        &serde_json::to_string_pretty(&to_json(&runs)).unwrap_or_default(),
    );
}
