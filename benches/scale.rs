//! Issue 9's scale benchmark: how fast the real `pir lsp` answers a keystroke in a file of
//! 1,000 to 100,000 ops, side by side with `mlir-lsp-server` on the MLIR file of as many
//! ops (`benches/README.md` tells how to run it and what each number means).
//!
//! ```sh
//! cargo bench --bench scale -- [--sizes 1000,10000,100000] [--reps 20] [--mlir PATH|none]
//!     [--pir PATH] [--out DIR] [--kernel-ops 250] [--servers pir,mlir] [--check]
//! ```
//!
//! For each size it generates the two files (`pir_gen`), then per server: opens the file
//! (didOpen → the diagnostics of version 1, three times), reads the server's resident
//! memory, and makes each of the five edits of [`EditKind`] followed by its undo, `--reps`
//! times after one warm-up, timing didChange → the `publishDiagnostics` of that version.
//! Every answer is checked against the edit's [`Expect`]: a wrong or missing answer ends
//! the run with an error. Then, on `pir lsp` alone, hover, inlay hints and semantic tokens
//! over 60 lines and completion at the edited op, and the cold `pir check` of the file
//! (wall time and peak memory, by `/usr/bin/time`; `mlir-opt` beside it when found).
//!
//! Writes `scale.md` (the tables, also printed), `scale.json` (every figure) and
//! `scale.svg` (latency against file size for both servers) into `--out` (default
//! `target/scale`). `--check` exits with 1 when a target of issue 9 is missed.

#[path = "../tests/lsp/support.rs"]
#[allow(dead_code)]
mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pir_gen::{Edit, EditKind, Expect, Generated};
use pir_lsp::convert::Encoding;
use serde_json::{Value, json};
use support::Server;

/// The two servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Pir,
    Mlir,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Pir => "pir",
            Which::Mlir => "mlir",
        }
    }
}

/// The command line.
struct Options {
    sizes: Vec<usize>,
    /// Repetitions per size (one number for all, or one per size).
    reps: Vec<usize>,
    mlir: Option<PathBuf>,
    out: PathBuf,
    kernel_ops: usize,
    servers: Vec<Which>,
    /// The `pir` binary measured (`--pir PATH`; default: the one this bench was built
    /// with), so that one bench binary compares two builds in one session.
    pir: PathBuf,
    check: bool,
    /// Run by `cargo test`: a smoke run, not a measurement.
    smoke: bool,
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "scale: {problem}\n\
         usage: cargo bench --bench scale -- [--sizes 1000,10000,100000] [--reps N[,N…]] \
         [--mlir PATH|none] [--pir PATH] [--out DIR] [--kernel-ops N] [--servers pir,mlir] [--check]"
    );
    std::process::exit(2);
}

fn numbers(list: &str) -> Vec<usize> {
    list.split(',')
        .map(|n| {
            n.trim()
                .replace('_', "")
                .parse()
                .unwrap_or_else(|_| usage(&format!("not a number: {n}")))
        })
        .collect()
}

impl Options {
    fn parse() -> Options {
        let mut options = Options {
            sizes: vec![1_000, 10_000, 100_000],
            reps: vec![20],
            mlir: None,
            out: Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/scale"),
            kernel_ops: pir_gen::pir::DEFAULT_KERNEL_OPS,
            servers: vec![Which::Pir, Which::Mlir],
            pir: PathBuf::from(env!("CARGO_BIN_EXE_pir")),
            check: false,
            smoke: false,
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        if !args.iter().any(|a| a == "--bench") {
            // Run by `cargo test` (the bench target has `test = true`), whatever its filter
            // arguments: a smoke run of the whole harness through a debug `pir lsp` on a
            // small file, every answer checked, so that the harness cannot rot.
            options.sizes = vec![300];
            options.reps = vec![1];
            options.servers = vec![Which::Pir];
            options.out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/scale-smoke");
            options.smoke = true;
            return options;
        }
        let mut mlir_given = None;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
            };
            match arg.as_str() {
                // `cargo bench` passes `--bench` to every bench target.
                "--bench" => {}
                "--sizes" => options.sizes = numbers(&value()),
                "--reps" => options.reps = numbers(&value()),
                "--mlir" => mlir_given = Some(value()),
                "--pir" => options.pir = PathBuf::from(value()),
                "--out" => options.out = PathBuf::from(value()),
                "--kernel-ops" => options.kernel_ops = numbers(&value())[0],
                "--servers" => {
                    options.servers = value()
                        .split(',')
                        .map(|s| match s {
                            "pir" => Which::Pir,
                            "mlir" => Which::Mlir,
                            other => usage(&format!("unknown server {other}")),
                        })
                        .collect();
                }
                "--check" => options.check = true,
                other => usage(&format!("unknown argument {other}")),
            }
        }
        if options.sizes.iter().any(|&n| n < pir_gen::pir::MIN_OPS) {
            usage("sizes start at 100 ops");
        }
        if options.reps.len() != 1 && options.reps.len() != options.sizes.len() {
            usage("--reps takes one number, or one per size");
        }
        if options.reps.contains(&0) || options.kernel_ops == 0 {
            usage("--reps and --kernel-ops must be positive");
        }
        if options.servers.contains(&Which::Mlir) {
            options.mlir = match mlir_given.as_deref() {
                Some("none") => None,
                Some(path) => Some(PathBuf::from(path)),
                None => find_mlir(),
            };
            if options.mlir.is_none() {
                eprintln!("scale: no mlir-lsp-server (give --mlir PATH); measuring pir alone");
                options.servers.retain(|&s| s != Which::Mlir);
            }
        }
        options
    }

    fn reps(&self, size_index: usize) -> usize {
        self.reps.get(size_index).copied().unwrap_or(self.reps[0])
    }
}

/// `mlir-lsp-server` on `PATH`, else the newest `/usr/lib/llvm-*/bin/mlir-lsp-server`
/// (Debian's `mlir-N-tools`).
fn find_mlir() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("mlir-lsp-server"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib")
            .ok()?
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let version = name.strip_prefix("llvm-")?.parse().ok()?;
                let path = e.path().join("bin/mlir-lsp-server");
                path.is_file().then_some((version, path))
            })
            .collect();
        found.sort();
        found.pop().map(|(_, p)| p)
    })
}

/// Median and 95th percentile (nearest rank) of `samples`, in milliseconds.
#[derive(Clone, Copy, Debug)]
struct Stats {
    median: f64,
    p95: f64,
    n: usize,
}

fn stats(samples: &[Duration]) -> Stats {
    let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let median = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    let rank = (n * 95).div_ceil(100).max(1);
    Stats {
        median,
        p95: ms[rank - 1],
        n,
    }
}

/// The LSP position `{line, character}` of byte `offset` of `text` in `encoding`.
fn position(text: &str, offset: usize, encoding: Encoding) -> Value {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let character = match encoding {
        Encoding::Utf8 => before.len(),
        Encoding::Utf16 => before.encode_utf16().count(),
    };
    json!({"line": pir_gen::line_of(text, offset), "character": character})
}

/// An edit as an LSP content change of `text` (the text before it).
fn change(text: &str, edit: &Edit, encoding: Encoding) -> Value {
    json!({
        "range": {
            "start": position(text, edit.offset, encoding),
            "end": position(text, edit.offset + edit.delete, encoding),
        },
        "text": edit.insert,
    })
}

/// A server under measurement, with one document open.
struct Session {
    which: Which,
    server: Server,
    /// The server takes whole texts in didChange, not ranges.
    full_sync: bool,
    capabilities: Value,
    uri: String,
    version: i64,
}

impl Session {
    fn start(which: Which, options: &Options) -> Session {
        let (command, name) = match which {
            Which::Pir => {
                let mut command = Command::new(&options.pir);
                command.arg("lsp");
                (command, "pir lsp")
            }
            Which::Mlir => {
                let mut command = Command::new(options.mlir.as_ref().expect("an mlir-lsp-server"));
                command.arg("--log=error");
                (command, "mlir-lsp-server")
            }
        };
        let mut server = Server::spawn_command(command, name);
        // didOpen of 100,000 ops takes seconds today; no answer in ten minutes is a hang.
        server.timeout = Duration::from_secs(600);
        let capabilities = server.initialize(&["utf-8", "utf-16"], json!({}));
        // TextDocumentSyncKind 1 is Full: mlir-lsp-server 19 takes only whole texts.
        let sync = &capabilities["textDocumentSync"];
        let full_sync = sync == 1 || sync["change"] == 1;
        Session {
            which,
            server,
            full_sync,
            capabilities,
            uri: String::new(),
            version: 0,
        }
    }

    fn language(&self) -> &'static str {
        match self.which {
            Which::Pir => "penguin-ir",
            Which::Mlir => "mlir",
        }
    }

    /// Opens `text` as a new document `name`; returns didOpen → diagnostics of version 1.
    fn open(&mut self, name: &str, text: &str) -> Duration {
        self.uri = format!("file:///scale/{name}");
        self.version = 1;
        let began = Instant::now();
        self.server.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": self.uri, "languageId": self.language(), "version": 1, "text": text}}),
        );
        let diagnostics = self.server.diagnostics(&self.uri, 1);
        let took = began.elapsed();
        if let Err(e) = support::verify(&Expect::Clean, &diagnostics) {
            fail(&format!("{} on opening {name}: {e}", self.which.name()));
        }
        took
    }

    fn close(&mut self) {
        self.server.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": self.uri}}),
        );
    }

    /// The content change that makes `edit` of `text`: the whole edited text for a
    /// full-sync server, else the edit's range and text.
    fn content_change(&self, text: &str, edit: &Edit) -> Value {
        if self.full_sync {
            json!({"text": edit.apply(text)})
        } else {
            change(text, edit, self.server.encoding)
        }
    }

    /// Sends `change` (of [`Session::content_change`]) as the next didChange; returns
    /// didChange → the diagnostics of the new version, after checking them against `edit`.
    /// The message is serialized before the clock starts; sending it (the whole text, to a
    /// full-sync server) is timed.
    fn edit(&mut self, change: &Value, edit: &Edit) -> (Duration, Duration) {
        self.version += 1;
        let body = json!({
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [change],
            },
        })
        .to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let cpu = self.cpu();
        let began = Instant::now();
        self.server.send_raw(framed.as_bytes());
        let diagnostics = self.server.diagnostics(&self.uri, self.version);
        let took = began.elapsed();
        let cpu = self.cpu().saturating_sub(cpu);
        if let Err(e) = support::verify(&edit.expect, &diagnostics) {
            fail(&format!(
                "{} answered {} (version {}) wrongly: {e}",
                self.which.name(),
                edit.kind.name(),
                self.version
            ));
        }
        (took, cpu)
    }

    /// The CPU time the server's threads have run so far (the first field of each
    /// `/proc/PID/task/TID/schedstat`, in ns); zero where that is not readable.
    fn cpu(&self) -> Duration {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.server.pid()));
        let ns: u64 = tasks
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
            .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        Duration::from_nanos(ns)
    }

    /// Times `method` with `params` `reps` times; `check` must accept its result.
    fn request(
        &mut self,
        method: &str,
        params: &Value,
        reps: usize,
        check: impl Fn(&Value) -> bool,
    ) -> Stats {
        let mut samples = Vec::new();
        for _ in 0..reps {
            let began = Instant::now();
            let response = self.server.request(method, params.clone());
            samples.push(began.elapsed());
            if !check(&response["result"]) {
                fail(&format!(
                    "{}: unexpected answer to {method}: {}",
                    self.which.name(),
                    truncate(&response.to_string(), 2000)
                ));
            }
        }
        stats(&samples)
    }

    /// The server's resident memory (`VmRSS`), in bytes.
    fn rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.server.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    fn stop(self) {
        let status = self.server.shutdown_and_exit();
        if !status.success() {
            eprintln!("scale: {} exited with {status}", self.which.name());
        }
    }
}

fn truncate(s: &str, n: usize) -> &str {
    &s[..s.len().min(n)]
}

fn fail(message: &str) -> ! {
    eprintln!("scale: FAILED: {message}");
    std::process::exit(1);
}

/// What one server did on one file.
struct ServerRun {
    open: Stats,
    rss_after_open: Option<u64>,
    /// The same, once the server sat idle for [`SETTLE`] after it.
    rss_settled: Option<u64>,
    /// Per edit kind: the edits and their undos together.
    edits: Vec<(EditKind, Stats)>,
    /// Per edit kind: the server's CPU time over the same intervals.
    cpu: Vec<(EditKind, Stats)>,
}

/// What `pir lsp` answered to requests at the edited op (pir only).
struct Features {
    hover: Stats,
    inlay_hints: Stats,
    semantic_tokens: Stats,
    semantic_tokens_range: bool,
    completion: Stats,
}

/// A cold command-line check: wall time and peak resident memory (unknown without
/// `/usr/bin/time`).
struct Cold {
    seconds: Stats,
    peak_rss: Option<u64>,
}

/// Everything measured at one size.
struct SizeRun {
    ops: usize,
    pir_bytes: usize,
    mlir_bytes: usize,
    servers: Vec<(Which, ServerRun)>,
    features: Option<Features>,
    pir_check: Option<Cold>,
    mlir_opt: Option<Cold>,
}

const OPEN_REPS: usize = 3;

/// How long the server sits idle after the first open before its resident memory is read
/// again ([`ServerRun::rss_settled`]): past the allocator's delay before it returns freed
/// pages (mimalloc, 1 s).
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

fn measure_server(
    which: Which,
    options: &Options,
    generated: &Generated,
    reps: usize,
) -> (ServerRun, Session) {
    let mut session = Session::start(which, options);
    let extension = if which == Which::Pir { "pir" } else { "mlir" };
    let mut opens = Vec::new();
    let mut rss_after_open = None;
    let mut rss_settled = None;
    for i in 0..OPEN_REPS {
        if i > 0 {
            session.close();
        }
        let name = format!("{}-{i}.{extension}", generated.ops);
        opens.push(session.open(&name, &generated.text));
        if i == 0 {
            rss_after_open = session.rss();
            std::thread::sleep(SETTLE);
            rss_settled = session.rss();
        }
    }
    let (mut edits, mut cpu) = (Vec::new(), Vec::new());
    for edit in &generated.edits {
        let edited = edit.apply(&generated.text);
        let undo = edit.undo(&generated.text);
        // Made once: finding an edit's line reads the text up to it (10 MB at 100,000
        // ops), which between two keystrokes would flush the server's data out of the
        // caches at the big sizes only, and time that instead of the server's work.
        let forward = session.content_change(&generated.text, edit);
        let back = session.content_change(&edited, &undo);
        let (mut samples, mut cpu_samples) = (Vec::new(), Vec::new());
        // One warm-up pair, then `reps` measured pairs.
        for rep in 0..=reps {
            let (a, a_cpu) = session.edit(&forward, edit);
            let (b, b_cpu) = session.edit(&back, &undo);
            if rep > 0 {
                samples.extend([a, b]);
                cpu_samples.extend([a_cpu, b_cpu]);
            }
        }
        eprintln!(
            "scale: {} {} ops {}: median {:.2} ms (CPU {:.2} ms)",
            which.name(),
            generated.ops,
            edit.kind.name(),
            stats(&samples).median,
            stats(&cpu_samples).median
        );
        edits.push((edit.kind, stats(&samples)));
        cpu.push((edit.kind, stats(&cpu_samples)));
    }
    (
        ServerRun {
            open: stats(&opens),
            rss_after_open,
            rss_settled,
            edits,
            cpu,
        },
        session,
    )
}

/// Hover on the misspelt-field edit's op class, inlay hints and semantic tokens over the
/// 60 lines around it, completion of its field name.
fn measure_features(session: &mut Session, generated: &Generated, reps: usize) -> Features {
    let text = &generated.text;
    let field = generated
        .edits
        .iter()
        .find(|e| e.kind == EditKind::MisspellField)
        .expect("a misspelt field edit");
    let line_start = text[..field.offset].rfind('\n').map_or(0, |i| i + 1);
    let class = line_start + text[line_start..].find(|c: char| c != ' ').unwrap_or(0);
    let line = pir_gen::line_of(text, field.offset);
    let document = json!({"uri": session.uri});
    let range = json!({
        "start": {"line": line.saturating_sub(30), "character": 0},
        "end": {"line": line + 30, "character": 0},
    });
    let hover = session.request(
        "textDocument/hover",
        &json!({"textDocument": document, "position": position(text, class, session.server.encoding)}),
        reps,
        |r| r["contents"].to_string().contains("Activation"),
    );
    let inlay_hints = session.request(
        "textDocument/inlayHint",
        &json!({"textDocument": document, "range": range}),
        reps,
        |r| r.as_array().is_some_and(|h| h.len() >= 10),
    );
    let tokens = &session.capabilities["semanticTokensProvider"];
    let semantic_tokens_range = tokens["range"] == true || tokens["range"].is_object();
    let (method, params) = if semantic_tokens_range {
        (
            "textDocument/semanticTokens/range",
            json!({"textDocument": document, "range": range}),
        )
    } else {
        (
            "textDocument/semanticTokens/full",
            json!({"textDocument": document}),
        )
    };
    let semantic_tokens = session.request(method, &params, reps, |r| {
        r["data"].as_array().is_some_and(|d| d.len() >= 5 * 60)
    });
    // Completion after `fu` of `func`: the fields of ActivationOp not written yet.
    let completion = session.request(
        "textDocument/completion",
        &json!({"textDocument": document, "position": position(text, field.offset + 2, session.server.encoding)}),
        reps,
        |r| {
            let items = r.get("items").unwrap_or(r);
            items
                .as_array()
                .is_some_and(|items| {
                    let has = |label: &str| items.iter().any(|i| i["label"] == label);
                    has("func_args") && has("scale") && !has("func")
                })
        },
    );
    Features {
        hover,
        inlay_hints,
        semantic_tokens,
        semantic_tokens_range,
        completion,
    }
}

/// Runs `program args… file` `reps` times: wall time, and the peak resident memory of the
/// last run when `/usr/bin/time` (Debian package `time`) is there to measure it. `ok` must
/// accept the exit status and stderr.
fn cold(
    program: &Path,
    args: &[&str],
    file: &Path,
    reps: usize,
    ok: impl Fn(bool, &str) -> bool,
) -> Cold {
    const TIME: &str = "/usr/bin/time";
    let measured = Path::new(TIME).is_file();
    if !measured {
        eprintln!("scale: no {TIME} (Debian package `time`): peak memory not measured");
    }
    let mut samples = Vec::new();
    let mut peak_rss = None;
    for _ in 0..reps {
        let mut command = if measured {
            let mut command = Command::new(TIME);
            command.args(["-f", "peak-rss-kb %M"]).arg(program);
            command
        } else {
            Command::new(program)
        };
        command.args(args).arg(file);
        let began = Instant::now();
        let output = command
            .output()
            .unwrap_or_else(|e| fail(&format!("{}: {e}", program.display())));
        samples.push(began.elapsed());
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !ok(output.status.success(), &stderr) {
            fail(&format!(
                "{} {}: {}",
                program.display(),
                file.display(),
                truncate(&stderr, 2000)
            ));
        }
        peak_rss = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("peak-rss-kb "))
            .find_map(|kb| kb.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024);
    }
    Cold {
        seconds: stats(&samples),
        peak_rss,
    }
}

fn measure_size(options: &Options, ops: usize, reps: usize) -> SizeRun {
    let pir = pir_gen::pir::generate(ops, options.kernel_ops);
    let mlir = pir_gen::mlir::generate(ops, options.kernel_ops);
    std::fs::create_dir_all(&options.out).unwrap_or_else(|e| fail(&format!("--out: {e}")));
    let pir_file = options.out.join(format!("scale-{ops}.pir"));
    let mlir_file = options.out.join(format!("scale-{ops}.mlir"));
    for (path, text) in [(&pir_file, &pir.text), (&mlir_file, &mlir.text)] {
        std::fs::write(path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
    let mut run = SizeRun {
        ops,
        pir_bytes: pir.text.len(),
        mlir_bytes: mlir.text.len(),
        servers: Vec::new(),
        features: None,
        pir_check: None,
        mlir_opt: None,
    };
    for &which in &options.servers {
        let generated = if which == Which::Pir { &pir } else { &mlir };
        let (server_run, mut session) = measure_server(which, options, generated, reps);
        if which == Which::Pir {
            run.features = Some(measure_features(&mut session, generated, reps));
        }
        session.stop();
        run.servers.push((which, server_run));
    }
    if options.servers.contains(&Which::Pir) {
        let pir_bin = options.pir.as_path();
        run.pir_check = Some(cold(
            pir_bin,
            &["check"],
            &pir_file,
            OPEN_REPS,
            // The corpus kernels' P420/P421 warnings (SPEC §10.2.10) are the file's.
            |ok, err| ok && err.contains(": 0 errors, "),
        ));
    }
    let mlir_opt = options
        .mlir
        .as_ref()
        .map(|p| p.with_file_name("mlir-opt"))
        .filter(|p| p.is_file());
    if let Some(mlir_opt) = mlir_opt.filter(|_| options.servers.contains(&Which::Mlir)) {
        run.mlir_opt = Some(cold(
            &mlir_opt,
            &["-o", "/dev/null"],
            &mlir_file,
            OPEN_REPS,
            |ok, err| ok && !err.contains("error"),
        ));
    }
    run
}

fn mb(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb < 10.0 {
        format!("{mb:.2} MB")
    } else {
        format!("{mb:.0} MB")
    }
}

fn ms(s: Stats) -> String {
    if s.median >= 100.0 {
        format!("{:.0}", s.median)
    } else {
        format!("{:.2}", s.median)
    }
}

fn p95(s: Stats) -> String {
    if s.p95 >= 100.0 {
        format!("{:.0}", s.p95)
    } else {
        format!("{:.2}", s.p95)
    }
}

fn edit_stats(run: &SizeRun, which: Which, kind: EditKind) -> Option<Stats> {
    kind_stats(&server_run(run, which)?.edits, kind)
}

fn cpu_stats(run: &SizeRun, which: Which, kind: EditKind) -> Option<Stats> {
    kind_stats(&server_run(run, which)?.cpu, kind)
}

fn kind_stats(all: &[(EditKind, Stats)], kind: EditKind) -> Option<Stats> {
    all.iter().find(|(k, _)| *k == kind).map(|(_, s)| *s)
}

fn server_run(run: &SizeRun, which: Which) -> Option<&ServerRun> {
    run.servers
        .iter()
        .find(|(w, _)| *w == which)
        .map(|(_, r)| r)
}

/// The median over the edit kinds of each kind's median didChange latency (for the plot).
fn all_edits_median(run: &SizeRun, which: Which) -> Option<f64> {
    median_of_medians(&server_run(run, which)?.edits)
}

/// The same of the server's CPU time.
fn all_cpu_median(run: &SizeRun, which: Which) -> Option<f64> {
    median_of_medians(&server_run(run, which)?.cpu)
}

fn median_of_medians(all: &[(EditKind, Stats)]) -> Option<f64> {
    let mut medians: Vec<f64> = all.iter().map(|(_, s)| s.median).collect();
    medians.sort_by(f64::total_cmp);
    medians.get(medians.len() / 2).copied()
}

/// A target of issue 9 and whether the run met it.
struct Target {
    what: String,
    measured: String,
    met: bool,
}

fn targets(runs: &[SizeRun]) -> Vec<Target> {
    let mut out = Vec::new();
    let at = |ops: usize| runs.iter().find(|r| r.ops == ops);
    if let Some(big) = at(100_000) {
        for kind in EditKind::ALL {
            if let Some(s) = edit_stats(big, Which::Pir, kind) {
                out.push(Target {
                    what: format!("{}: median ≤ 5 ms, p95 ≤ 10 ms at 100,000 ops", kind.name()),
                    measured: match cpu_stats(big, Which::Pir, kind) {
                        Some(c) => format!("{} / {} ms (CPU {} ms)", ms(s), p95(s), ms(c)),
                        None => format!("{} / {} ms", ms(s), p95(s)),
                    },
                    met: s.median <= 5.0 && s.p95 <= 10.0,
                });
                if let Some(small) = at(1_000).and_then(|r| edit_stats(r, Which::Pir, kind)) {
                    out.push(Target {
                        what: format!("{}: 100,000-op median ≤ 2 × the 1,000-op one", kind.name()),
                        measured: format!("{:.1} ×", s.median / small.median),
                        met: s.median <= 2.0 * small.median,
                    });
                }
            }
        }
        if let Some(f) = &big.features {
            for (name, s, limit) in [
                ("hover", f.hover, 2.0),
                ("inlay hints (60 lines)", f.inlay_hints, 2.0),
                ("semantic tokens (60 lines)", f.semantic_tokens, 2.0),
                ("completion", f.completion, 5.0),
            ] {
                out.push(Target {
                    what: format!("{name} ≤ {limit} ms at 100,000 ops"),
                    measured: format!("{} ms", ms(s)),
                    met: s.median <= limit
                        && (name != "semantic tokens (60 lines)" || f.semantic_tokens_range),
                });
            }
        }
        if let Some(c) = &big.pir_check {
            out.push(Target {
                what: "cold `pir check` < 1 s at 100,000 ops".into(),
                measured: format!("{:.2} s", c.seconds.median / 1e3),
                met: c.seconds.median < 1000.0,
            });
        }
        if let Some(rss) = server_run(big, Which::Pir).and_then(|r| r.rss_after_open) {
            out.push(Target {
                what: "server resident memory after opening < 200 MB at 100,000 ops".into(),
                measured: mb(rss),
                met: rss < 200_000_000,
            });
        }
    }
    if let Some(mid) = at(10_000) {
        for kind in EditKind::ALL {
            if let (Some(p), Some(m)) = (
                edit_stats(mid, Which::Pir, kind),
                edit_stats(mid, Which::Mlir, kind),
            ) {
                out.push(Target {
                    what: format!(
                        "{}: ≥ 20 × faster than mlir-lsp-server at 10,000 ops",
                        kind.name()
                    ),
                    measured: match (
                        cpu_stats(mid, Which::Pir, kind),
                        cpu_stats(mid, Which::Mlir, kind),
                    ) {
                        (Some(pc), Some(mc)) => format!(
                            "{:.2} × (CPU {:.2} ×)",
                            m.median / p.median,
                            mc.median / pc.median
                        ),
                        _ => format!("{:.2} ×", m.median / p.median),
                    },
                    met: m.median >= 20.0 * p.median,
                });
            }
        }
    }
    out
}

fn report(options: &Options, runs: &[SizeRun], mlir_version: &str) -> (String, Vec<Target>) {
    let mut md = String::new();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let _ = writeln!(
        md,
        "Measured by {} on {} cores (load average {}); kernels of \
         about {} ops; {}; median and p95 in ms of didChange → publishDiagnostics of that \
         version, each edit and its undo counted (samples per cell: {}); CPU: the median CPU \
         time of the server's threads over the same intervals (less sensitive to a loaded \
         machine).\n",
        if options.smoke {
            "a smoke run under `cargo test` (debug build: not a measurement)"
        } else {
            "`cargo bench --bench scale`"
        },
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        options.kernel_ops,
        mlir_version,
        runs.iter()
            .enumerate()
            .map(|(i, r)| format!("{} at {} ops", 2 * options.reps(i), r.ops))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let has_mlir = options.servers.contains(&Which::Mlir);
    let _ = writeln!(
        md,
        "| ops | edit | pir median | pir p95 | pir CPU |{}",
        if has_mlir {
            " mlir median | mlir p95 | mlir CPU | mlir ÷ pir | (CPU) |"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "|---:|---|---:|---:|---:|{}",
        if has_mlir {
            "---:|---:|---:|---:|---:|"
        } else {
            ""
        }
    );
    for run in runs {
        for kind in EditKind::ALL {
            let p = edit_stats(run, Which::Pir, kind);
            let m = edit_stats(run, Which::Mlir, kind);
            let cell = |s: Option<Stats>, f: fn(Stats) -> String| s.map_or("–".into(), f);
            let _ = write!(
                md,
                "| {} | {} | {} | {} | {} |",
                run.ops,
                kind.name(),
                cell(p, ms),
                cell(p, p95),
                cell(cpu_stats(run, Which::Pir, kind), ms),
            );
            if has_mlir {
                let ratio = match (p, m) {
                    (Some(p), Some(m)) => format!("{:.2}", m.median / p.median),
                    _ => "–".into(),
                };
                let (pir_cpu, mlir_cpu) = (
                    cpu_stats(run, Which::Pir, kind),
                    cpu_stats(run, Which::Mlir, kind),
                );
                let cpu_ratio = match (pir_cpu, mlir_cpu) {
                    (Some(p), Some(m)) => format!("{:.2}", m.median / p.median),
                    _ => "–".into(),
                };
                let _ = write!(
                    md,
                    " {} | {} | {} | {ratio} | {cpu_ratio} |",
                    cell(m, ms),
                    cell(m, p95),
                    cell(mlir_cpu, ms)
                );
            }
            md.push('\n');
        }
    }
    let _ = writeln!(
        md,
        "\n| ops | file (pir / mlir) | didOpen → diagnostics (pir / mlir) | RSS after open (pir / mlir) | 2 s later | cold `pir check` | its peak RSS | cold `mlir-opt` | its peak RSS |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for run in runs {
        let open = |w| server_run(run, w).map_or("–".into(), |r| format!("{} ms", ms(r.open)));
        let rss = |w| {
            server_run(run, w)
                .and_then(|r| r.rss_after_open)
                .map_or("–".into(), mb)
        };
        let settled = |w| {
            server_run(run, w)
                .and_then(|r| r.rss_settled)
                .map_or("–".into(), mb)
        };
        let cold = |c: &Option<Cold>| {
            c.as_ref().map_or(("–".into(), "–".into()), |c| {
                let peak = c.peak_rss.map_or("–".into(), mb);
                (format!("{:.2} s", c.seconds.median / 1e3), peak)
            })
        };
        let (check_s, check_m) = cold(&run.pir_check);
        let (opt_s, opt_m) = cold(&run.mlir_opt);
        let _ = writeln!(
            md,
            "| {} | {} / {} | {} / {} | {} / {} | {} / {} | {check_s} | {check_m} | {opt_s} | {opt_m} |",
            run.ops,
            mb(run.pir_bytes as u64),
            mb(run.mlir_bytes as u64),
            open(Which::Pir),
            open(Which::Mlir),
            rss(Which::Pir),
            rss(Which::Mlir),
            settled(Which::Pir),
            settled(Which::Mlir),
        );
    }
    if runs.iter().any(|r| r.features.is_some()) {
        let semantic = runs
            .iter()
            .filter_map(|r| r.features.as_ref())
            .all(|f| f.semantic_tokens_range);
        let _ = writeln!(
            md,
            "\n`pir lsp` requests at the edited op, median / p95 ms:\n\n| ops | hover | inlay hints (60 lines) | semantic tokens ({}) | completion |\n|---:|---:|---:|---:|---:|",
            if semantic {
                "60 lines"
            } else {
                "whole file: the server has no range request"
            }
        );
        for run in runs {
            if let Some(f) = &run.features {
                let cell = |s: Stats| format!("{} / {}", ms(s), p95(s));
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} |",
                    run.ops,
                    cell(f.hover),
                    cell(f.inlay_hints),
                    cell(f.semantic_tokens),
                    cell(f.completion)
                );
            }
        }
    }
    let targets = targets(runs);
    if !targets.is_empty() {
        let _ = writeln!(
            md,
            "\nIssue 9's targets:\n\n| target | measured | |\n|---|---:|---|"
        );
        for t in &targets {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                t.what,
                t.measured,
                if t.met { "met" } else { "**missed**" }
            );
        }
    }
    (md, targets)
}

fn to_json(runs: &[SizeRun]) -> Value {
    let s = |s: Stats| json!({"median_ms": s.median, "p95_ms": s.p95, "samples": s.n});
    let cold = |c: &Option<Cold>| {
        c.as_ref()
            .map(|c| json!({"seconds": c.seconds.median / 1e3, "peak_rss_bytes": c.peak_rss}))
    };
    Value::Array(
        runs.iter()
            .map(|run| {
                let servers: serde_json::Map<String, Value> = run
                    .servers
                    .iter()
                    .map(|(w, r)| {
                        let by_kind = |all: &[(EditKind, Stats)]| -> serde_json::Map<String, Value> {
                            all.iter().map(|(k, st)| (k.name().to_string(), s(*st))).collect()
                        };
                        let (edits, cpu) = (by_kind(&r.edits), by_kind(&r.cpu));
                        (
                            w.name().to_string(),
                            json!({"did_open": s(r.open), "rss_after_open_bytes": r.rss_after_open, "rss_settled_bytes": r.rss_settled, "did_change": edits, "did_change_cpu": cpu}),
                        )
                    })
                    .collect();
                json!({
                    "ops": run.ops,
                    "pir_bytes": run.pir_bytes,
                    "mlir_bytes": run.mlir_bytes,
                    "servers": servers,
                    "features": run.features.as_ref().map(|f| json!({
                        "hover": s(f.hover),
                        "inlay_hints": s(f.inlay_hints),
                        "semantic_tokens": s(f.semantic_tokens),
                        "semantic_tokens_range": f.semantic_tokens_range,
                        "completion": s(f.completion),
                    })),
                    "pir_check": cold(&run.pir_check),
                    "mlir_opt": cold(&run.mlir_opt),
                })
            })
            .collect(),
    )
}

/// A log-log plot of latency (ms) against ops: didChange (the median over the edit kinds
/// of each kind's median) and didOpen, for both servers, with the 5 ms target.
fn plot(runs: &[SizeRun]) -> String {
    let (width, height) = (720.0, 440.0);
    let (left, right, top, bottom) = (70.0, 190.0, 30.0, 50.0);
    // (legend, colour, SVG dash pattern, points)
    type Series<'a> = (String, &'a str, &'a str, Vec<(f64, f64)>);
    let mut series: Vec<Series> = Vec::new();
    for (which, label, colour) in [
        (Which::Pir, "pir lsp", "#c0392b"),
        (Which::Mlir, "mlir-lsp-server", "#2c6fbb"),
    ] {
        let change: Vec<(f64, f64)> = runs
            .iter()
            .filter_map(|r| Some((r.ops as f64, all_edits_median(r, which)?)))
            .collect();
        let cpu: Vec<(f64, f64)> = runs
            .iter()
            .filter_map(|r| Some((r.ops as f64, all_cpu_median(r, which)?)))
            .collect();
        let open: Vec<(f64, f64)> = runs
            .iter()
            .filter_map(|r| Some((r.ops as f64, server_run(r, which)?.open.median)))
            .collect();
        if !change.is_empty() {
            series.push((format!("{label} didChange"), colour, "", change));
            series.push((format!("{label} its CPU"), colour, "1 3", cpu));
            series.push((format!("{label} didOpen"), colour, "6 4", open));
        }
    }
    let xs: Vec<f64> = runs.iter().map(|r| r.ops as f64).collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.3.iter().map(|p| p.1))
        .chain([5.0])
        .collect();
    let decade = |v: f64, up: bool| {
        let e = v.max(1e-3).log10();
        10f64.powf(if up { e.ceil() } else { e.floor() })
    };
    let (x0, x1) = (
        decade(xs.iter().copied().fold(f64::MAX, f64::min), false),
        decade(xs.iter().copied().fold(0.0, f64::max), true),
    );
    let (y0, y1) = (
        decade(ys.iter().copied().fold(f64::MAX, f64::min), false),
        decade(ys.iter().copied().fold(0.0, f64::max), true),
    );
    let x1 = if x1 <= x0 { x0 * 10.0 } else { x1 };
    let y1 = if y1 <= y0 { y0 * 10.0 } else { y1 };
    let px = |x: f64| {
        left + (x.log10() - x0.log10()) / (x1.log10() - x0.log10()) * (width - left - right)
    };
    let py = |y: f64| {
        height
            - bottom
            - (y.log10() - y0.log10()) / (y1.log10() - y0.log10()) * (height - top - bottom)
    };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"18\" font-size=\"14\">Latency against file size (log-log; median ms; the edits' median)</text>\n"
    );
    let mut x = x0;
    while x <= x1 * 1.001 {
        let _ = writeln!(
            svg,
            "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
            px(x),
            top,
            height - bottom,
            height - bottom + 16.0,
            thousands(x as u64)
        );
        x *= 10.0;
    }
    let mut y = y0;
    while y <= y1 * 1.001 {
        let _ = writeln!(
            svg,
            "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1}\" text-anchor=\"end\">{5}</text>",
            left,
            py(y),
            width - right,
            left - 6.0,
            py(y) + 4.0,
            if y >= 1.0 {
                thousands(y as u64)
            } else {
                y.to_string()
            }
        );
        y *= 10.0;
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">ops in the file</text>\n\
         <text x=\"16\" y=\"{:.1}\" transform=\"rotate(-90 16 {:.1})\" text-anchor=\"middle\">ms</text>\n\
         <line x1=\"{left}\" y1=\"{:.1}\" x2=\"{}\" y2=\"{:.1}\" stroke=\"#27ae60\" stroke-dasharray=\"2 3\"/>",
        (left + width - right) / 2.0,
        height - 12.0,
        (top + height - bottom) / 2.0,
        (top + height - bottom) / 2.0,
        py(5.0),
        width - right,
        py(5.0)
    );
    let mut legend_y = top + 10.0;
    for (label, colour, dash, points) in &series {
        let path: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"{dash}\"/>",
            path.join(" ")
        );
        for &(x, y) in points {
            let _ = writeln!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                px(x),
                py(y)
            );
        }
        let _ = writeln!(
            svg,
            "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"{dash}\"/><text x=\"{3}\" y=\"{4:.1}\">{label}</text>",
            width - right + 10.0,
            legend_y,
            width - right + 36.0,
            width - right + 42.0,
            legend_y + 4.0
        );
        legend_y += 18.0;
    }
    let _ = writeln!(
        svg,
        "<line x1=\"{0}\" y1=\"{1:.1}\" x2=\"{2}\" y2=\"{1:.1}\" stroke=\"#27ae60\" stroke-dasharray=\"2 3\"/><text x=\"{3}\" y=\"{4:.1}\">5 ms target</text>\n</svg>",
        width - right + 10.0,
        legend_y,
        width - right + 36.0,
        width - right + 42.0,
        legend_y + 4.0
    );
    svg
}

/// `n` with thousands separators: `100,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn main() {
    let options = Options::parse();
    let mlir_version = match &options.mlir {
        Some(path) if options.servers.contains(&Which::Mlir) => {
            let version = path
                .ancestors()
                .filter_map(|p| {
                    p.file_name()?
                        .to_str()?
                        .strip_prefix("llvm-")
                        .map(String::from)
                })
                .next()
                .unwrap_or_else(|| "?".into());
            format!("mlir-lsp-server {version} ({})", path.display())
        }
        _ => "no mlir-lsp-server".into(),
    };
    let mut runs = Vec::new();
    for (i, &ops) in options.sizes.iter().enumerate() {
        eprintln!("scale: {ops} ops, {} repetitions", options.reps(i));
        runs.push(measure_size(&options, ops, options.reps(i)));
    }
    let (md, targets) = report(&options, &runs, &mlir_version);
    println!("{md}");
    let write = |name: &str, contents: &str| {
        let path = options.out.join(name);
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        eprintln!("scale: wrote {}", path.display());
    };
    write("scale.md", &md);
    write(
        "scale.json",
        &serde_json::to_string_pretty(&to_json(&runs)).unwrap_or_default(),
    );
    write("scale.svg", &plot(&runs));
    if options.check && targets.iter().any(|t| !t.met) {
        eprintln!(
            "scale: {} of {} targets missed",
            targets.iter().filter(|t| !t.met).count(),
            targets.len()
        );
        std::process::exit(1);
    }
}
