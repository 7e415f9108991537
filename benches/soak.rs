//! Issue 23's soak: a long editing session through the real `pir lsp`, on the benchmark
//! file (kernels of 250 ops) and on one unrolled kernel, side by side (two servers, one
//! edit to each in turn), the servers' RSS sampled every `--sample` seconds, and every
//! publish compared with `pir check` of the same text.
//!
//! ```sh
//! cargo bench --bench soak -- [--minutes 20] [--ops 20000] [--sample 60] [--out DIR]
//! ```
//!
//! The edits, each made and then undone (so the session stays near the generated text while
//! the server sees thousands of changes), in a fixed pseudo-random order and place:
//! * the five edits of `pir_gen` near the middle of the file (a keystroke in a field, a
//!   value, an op added and removed, ...);
//! * eight lines that close two loops and open an op, pasted at a random line start (the
//!   re-cut of a kernel cut into chunks that leaked 45 MB a minute in issue 23; in the
//!   benchmark file it closes a kernel early), then deleted;
//! * a comment line at a random line start, then deleted.
//!
//! After each change: the `publishDiagnostics` of its version, and `pir check --format json`
//! of the client's text (written to `--out`; a text checked before, as each undo's, is not
//! checked again: `pir check` is deterministic); the two must list the same diagnostics
//! (code, severity, message, line, column), the cost warnings P420/P421 aside (the server
//! sends at most 100 of them) and the server's notes of what it left out. A difference
//! stops the run with exit 1, the text kept in `--out`. Writes `soak.md` (also printed:
//! RSS per sample and file) and `soak.json` into `--out` (default `target/soak`). Run by
//! `cargo test` (no `--bench`), it makes a 20-second run on 300 ops through the debug
//! binary, sampled every 5 seconds, checked the same way.

#[path = "../tests/lsp/support.rs"]
#[allow(dead_code)]
mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pir_gen::Generated;
use pir_lsp::convert::Encoding;
use serde_json::{Value, json};
use support::Server;

/// The pasted lines (as in `benches/gen/examples/recut.rs`): they end two loops and open an
/// op, closing the kernel early wherever they land outside a loop.
const PASTE: &str =
    "  }\n  }\n  TensorCopyOp {\n    dst = %a,\n    src = %b\n  }\n  for %q in 0..2 {\n  }\n";

struct Options {
    duration: Duration,
    ops: usize,
    sample: Duration,
    out: PathBuf,
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "soak: {problem}\nusage: cargo bench --bench soak -- [--minutes N] [--ops N] \
         [--sample SECONDS] [--out DIR]"
    );
    std::process::exit(2);
}

fn fail(problem: &str) -> ! {
    eprintln!("soak: {problem}");
    std::process::exit(1);
}

impl Options {
    fn parse() -> Options {
        let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
        let args: Vec<String> = std::env::args().skip(1).collect();
        if !args.iter().any(|a| a == "--bench") {
            return Options {
                duration: Duration::from_secs(20),
                ops: 300,
                sample: Duration::from_secs(5),
                out: target.join("soak-smoke"),
            };
        }
        let mut options = Options {
            duration: Duration::from_secs(20 * 60),
            ops: 20_000,
            sample: Duration::from_secs(60),
            out: target.join("soak"),
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
            };
            let number = |v: &str| -> f64 {
                v.replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| usage(&format!("not a number: {v}")))
            };
            match arg.as_str() {
                "--bench" => {}
                "--minutes" => options.duration = Duration::from_secs_f64(number(&value()) * 60.0),
                "--ops" => options.ops = number(&value()) as usize,
                "--sample" => options.sample = Duration::from_secs_f64(number(&value())),
                "--out" => options.out = PathBuf::from(value()),
                other => usage(&format!("unknown argument {other}")),
            }
        }
        if options.ops < pir_gen::pir::MIN_OPS || options.sample.is_zero() {
            usage("--ops is at least 100, --sample positive");
        }
        options
    }
}

/// A tiny deterministic generator (xorshift64*), so that a run's edits are the same
/// every time.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// One file's session: its server, the client's text and what was measured.
struct Session {
    name: &'static str,
    server: Server,
    uri: String,
    text: String,
    original: Generated,
    version: i64,
    changes: usize,
    /// (seconds since the start, changes so far, RSS in MiB).
    samples: Vec<(f64, usize, f64)>,
    /// The slowest change → its publish, ms.
    slowest_ms: f64,
    /// `pir check`'s answer by the digest of the text it checked: each edit is undone,
    /// and the five `pir_gen` edits come back, so most texts were checked before (`pir
    /// check` is deterministic; a check costs 0.5–0.9 s of CPU at 20,000 ops).
    checked: std::collections::HashMap<u64, Vec<Seen>>,
    /// Changes whose text `pir check` read (the others' answer was known).
    checks: usize,
}

/// The server's resident memory, MiB.
fn rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

/// A diagnostic as compared: (code, severity 1–4, message, 0-based line, 0-based column).
type Seen = (String, u64, String, u64, u64);

/// The server's diagnostics as compared (cost warnings and notes without a code aside).
fn from_server(diagnostics: &[Value]) -> Vec<Seen> {
    let mut seen: Vec<Seen> = diagnostics
        .iter()
        .filter(|d| !support::is_cost_warning(d) && d["code"].is_string())
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["severity"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or_default().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(u64::MAX),
                d["range"]["start"]["character"]
                    .as_u64()
                    .unwrap_or(u64::MAX),
            )
        })
        .collect();
    seen.sort();
    seen
}

/// `pir check --format json` of `text` (written to `path`), as compared.
fn from_check(path: &Path, text: &str) -> Vec<Seen> {
    std::fs::write(path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(["check", "--format", "json"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| fail(&format!("pir check: {e}")));
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| fail(&format!("pir check's JSON: {e}")));
    let severity = |s: &Value| match s.as_str() {
        Some("error") => 1,
        Some("warning") => 2,
        Some("info" | "information") => 3,
        Some("hint") => 4,
        _ => 0,
    };
    let mut seen: Vec<Seen> = report["files"][0]["diagnostics"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|d| !support::is_cost_warning(d))
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                severity(&d["severity"]),
                d["message"].as_str().unwrap_or_default().to_string(),
                d["range"]["start"]["line"]
                    .as_u64()
                    .unwrap_or(0)
                    .saturating_sub(1),
                d["range"]["start"]["column"]
                    .as_u64()
                    .unwrap_or(0)
                    .saturating_sub(1),
            )
        })
        .collect();
    seen.sort();
    seen
}

impl Session {
    fn start(name: &'static str, ops: usize, kernel_ops: usize) -> Session {
        let original = pir_gen::pir::generate(ops, kernel_ops);
        let mut server = Server::start(&["utf-16"], json!({}));
        server.timeout = Duration::from_secs(120);
        let uri = support::uri(&format!("soak-{name}.pir"));
        server.open(&uri, &original.text);
        server.diagnostics(&uri, 1);
        Session {
            name,
            server,
            uri,
            text: original.text.clone(),
            original,
            version: 1,
            changes: 0,
            samples: Vec::new(),
            slowest_ms: 0.0,
            checked: std::collections::HashMap::new(),
            checks: 0,
        }
    }

    /// Replaces `delete` bytes at `offset` with `insert`, waits for the publish and checks
    /// it against `pir check`.
    fn change(&mut self, offset: usize, delete: usize, insert: &str, out: &Path) {
        let start = support::position_of(&self.text, offset, Encoding::Utf16);
        let end = support::position_of(&self.text, offset + delete, Encoding::Utf16);
        self.text.replace_range(offset..offset + delete, insert);
        self.version += 1;
        self.changes += 1;
        let started = Instant::now();
        self.server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [{"range": {"start": start, "end": end}, "text": insert}]}),
        );
        let published = from_server(&self.server.diagnostics(&self.uri, self.version));
        self.slowest_ms = self
            .slowest_ms
            .max(started.elapsed().as_secs_f64() * 1000.0);
        let path = out.join(format!("soak-{}.pir", self.name));
        let digest = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            self.text.hash(&mut hasher);
            hasher.finish()
        };
        if !self.checked.contains_key(&digest) {
            if self.checked.len() >= 64 {
                self.checked.clear();
            }
            self.checks += 1;
            self.checked.insert(digest, from_check(&path, &self.text));
        }
        let checked = &self.checked[&digest];
        if published != *checked {
            std::fs::write(&path, &self.text)
                .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            let only = |a: &[Seen], b: &[Seen]| -> Vec<Seen> {
                a.iter().filter(|d| !b.contains(d)).cloned().collect()
            };
            fail(&format!(
                "{} after change {}: the server's diagnostics differ from `pir check {}`\n\
                 only the server's: {:#?}\nonly pir check's: {:#?}",
                self.name,
                self.changes,
                path.display(),
                only(&published, checked),
                only(checked, &published),
            ));
        }
    }

    /// One edit and its undo.
    fn edit(&mut self, rng: &mut Rng, out: &Path) {
        let line_start = |text: &str, rng: &mut Rng| {
            let at = rng.below(text.len());
            text.as_bytes()[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
        };
        let (offset, delete, insert) = match rng.below(4) {
            0 | 1 => {
                let e = &self.original.edits[rng.below(self.original.edits.len())];
                (e.offset, e.delete, e.insert.clone())
            }
            2 => (line_start(&self.text, rng), 0, PASTE.to_string()),
            _ => (
                line_start(&self.text, rng),
                0,
                "  // a comment typed in the soak\n".to_string(),
            ),
        };
        let deleted = self.text[offset..offset + delete].to_string();
        self.change(offset, delete, &insert, out);
        self.change(offset, insert.len(), &deleted, out);
    }
}

fn table(options: &Options, sessions: &[Session]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Soak: {} ops per file, {:.1} minutes, every publish equal to `pir check` of its text\n",
        options.ops,
        options.duration.as_secs_f64() / 60.0
    );
    let _ = write!(md, "| minute |");
    for s in sessions {
        let _ = write!(md, " {} changes | {} RSS MiB |", s.name, s.name);
    }
    let _ = write!(md, "\n|---|");
    for _ in sessions {
        let _ = write!(md, "---|---|");
    }
    md.push('\n');
    let rows = sessions.iter().map(|s| s.samples.len()).min().unwrap_or(0);
    for row in 0..rows {
        let _ = write!(md, "| {:.1} |", sessions[0].samples[row].0 / 60.0);
        for s in sessions {
            let (_, changes, rss) = s.samples[row];
            let _ = write!(md, " {changes} | {rss:.0} |");
        }
        md.push('\n');
    }
    md.push('\n');
    for s in sessions {
        let _ = writeln!(
            md,
            "* {}: {} changes ({} texts read by `pir check`, the others' answer known), \
             slowest change → publish {:.0} ms",
            s.name, s.changes, s.checks, s.slowest_ms
        );
    }
    md
}

fn main() {
    let options = Options::parse();
    std::fs::create_dir_all(&options.out).unwrap_or_else(|e| fail(&format!("--out: {e}")));
    let mut sessions = vec![
        Session::start("kernels", options.ops, pir_gen::pir::DEFAULT_KERNEL_OPS),
        Session::start("unrolled", options.ops, options.ops),
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let started = Instant::now();
    let mut next_sample = Duration::ZERO;
    loop {
        let elapsed = started.elapsed();
        if elapsed >= next_sample {
            for s in &mut sessions {
                let rss = rss_mib(s.server.pid());
                s.samples.push((elapsed.as_secs_f64(), s.changes, rss));
            }
            eprintln!(
                "soak: {:.1} min: {}",
                elapsed.as_secs_f64() / 60.0,
                sessions
                    .iter()
                    .map(|s| format!(
                        "{} {} changes {:.0} MiB",
                        s.name,
                        s.changes,
                        s.samples.last().map_or(0.0, |x| x.2)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if elapsed >= options.duration {
                break;
            }
            next_sample += options.sample;
        }
        for s in &mut sessions {
            s.edit(&mut rng, &options.out);
        }
    }
    let md = table(&options, &sessions);
    println!("{md}");
    let json = json!({
        "ops": options.ops,
        "minutes": options.duration.as_secs_f64() / 60.0,
        "files": sessions.iter().map(|s| json!({
            "name": s.name,
            "changes": s.changes,
            "pir_check_runs": s.checks,
            "slowest_change_ms": s.slowest_ms,
            "samples": s.samples.iter().map(|(t, c, r)| json!({"seconds": t, "changes": c, "rss_mib": r})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let write = |name: &str, contents: &str| {
        let path = options.out.join(name);
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        eprintln!("soak: wrote {}", path.display());
    };
    write("soak.md", &md);
    write(
        "soak.json",
        &serde_json::to_string_pretty(&json).unwrap_or_default(),
    );
    for s in sessions {
        if !s.server.shutdown_and_exit().success() {
            fail("a server did not exit 0");
        }
    }
}
