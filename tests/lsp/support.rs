//! A minimal LSP client for protocol tests: spawns the real `pir lsp`, frames JSON-RPC
//! over its stdio, and turns `<|>` cursor markers (`test_utils::CURSOR`) into positions
//! with the server's own
//! conversion code (never counted by hand).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use analysis::TextSize;
use pir_lsp::convert::{self, Encoding};
use ropey::Rope;
use serde_json::{Value, json};
use tower_lsp_server::ls_types::Position;

/// How long any single wait may take before the test fails (see [`Server::timeout`]).
const TIMEOUT: Duration = Duration::from_secs(20);

/// A running `pir lsp` (or another language server over stdio) and the messages it sent
/// that no one consumed yet.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    backlog: Vec<Value>,
    next_id: i64,
    /// How long one wait may take before it panics (20 s unless changed).
    pub timeout: Duration,
    /// The encoding the server announced.
    pub encoding: Encoding,
}

/// Text with its `<|>` cursor markers removed, and the markers' positions in `encoding`.
pub fn cursors(marked: &str, encoding: Encoding) -> (String, Vec<Position>) {
    let (text, offsets) = test_utils::cursors(marked);
    let rope = Rope::from_str(&text);
    let positions = offsets
        .into_iter()
        .map(|o| convert::position(&rope, o, encoding))
        .collect();
    (text, positions)
}

/// The position of byte offset `offset` of `text`.
pub fn position_of(text: &str, offset: usize, encoding: Encoding) -> Position {
    convert::position(
        &Rope::from_str(text),
        TextSize::from(offset as u32),
        encoding,
    )
}

/// A `file:///` URI for a test document.
pub fn uri(name: &str) -> String {
    format!("file:///test/{name}")
}

impl Server {
    /// Starts `pir lsp` without initializing it.
    pub fn spawn(envs: &[(&str, &str)]) -> Server {
        Server::spawn_args(&["lsp"], envs)
    }

    /// Starts `pir` with `args` (e.g. `["lsp", "--stdio"]`) without initializing it.
    pub fn spawn_args(args: &[&str], envs: &[(&str, &str)]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pir"));
        command.args(args);
        for (k, v) in envs {
            command.env(k, v);
        }
        Server::spawn_command(command, "pir lsp")
    }

    /// Starts `command`, any language server speaking LSP over stdio, without initializing
    /// it; its stderr lines are shown prefixed with `[name]`.
    pub fn spawn_command(mut command: Command, name: &str) -> Server {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("{name} starts: {e}"));
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let name = name.to_string();
        std::thread::spawn(move || {
            // Keep stderr drained (the server logs there) and visible in test output.
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[{name}] {line}");
            }
        });
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            incoming: rx,
            backlog: Vec::new(),
            next_id: 1,
            timeout: TIMEOUT,
            encoding: Encoding::Utf16,
        }
    }

    /// The server's process id.
    #[allow(
        dead_code,
        reason = "used by benches/scale.rs, not by the protocol tests"
    )]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts and initializes `pir lsp`, offering `encodings` (e.g. `["utf-8", "utf-16"]`).
    pub fn start(encodings: &[&str], options: Value) -> Server {
        Server::start_with_env(encodings, options, &[])
    }

    /// [`Server::start`] with environment variables.
    pub fn start_with_env(encodings: &[&str], options: Value, envs: &[(&str, &str)]) -> Server {
        let mut server = Server::spawn(envs);
        server.initialize(encodings, options);
        server
    }

    /// Sends `initialize` (offering `encodings`, with initialization `options`) and
    /// `initialized`, and keeps the position encoding the server chose; returns the
    /// server's capabilities.
    pub fn initialize(&mut self, encodings: &[&str], options: Value) -> Value {
        self.initialize_as(
            json!({"capabilities": {"general": {"positionEncodings": encodings}}}),
            options,
        )
    }

    /// [`Server::initialize`] with the `initialize` parameters `client` (its
    /// `capabilities`, `clientInfo`, …) and initialization `options`.
    pub fn initialize_as(&mut self, client: Value, options: Value) -> Value {
        let mut params = json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "initializationOptions": options,
        });
        if let (Some(params), Some(client)) = (params.as_object_mut(), client.as_object()) {
            for (key, value) in client {
                params.insert(key.clone(), value.clone());
            }
        }
        let result = self.request("initialize", params);
        let capabilities = result["result"]["capabilities"].clone();
        self.encoding = if capabilities["positionEncoding"] == "utf-8" {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        self.notify("initialized", json!({}));
        capabilities
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (the whole response object).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m["id"] == id && m.get("method").is_none())
    }

    /// Sends a request and waits for its response, answering every request the server
    /// sends meanwhile (`window/workDoneProgress/create`…) with a `null` result; returns the
    /// response and every other message that came before it, in order.
    #[allow(
        dead_code,
        reason = "used by the workspace tests, not by the benchmarks"
    )]
    pub fn request_answering(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut before = Vec::new();
        loop {
            let m = self.wait_for(|_| true);
            if m["id"] == id && m.get("method").is_none() {
                return (m, before);
            }
            self.answer_if_request(&m);
            before.push(m);
        }
    }

    /// Answers `m` with a `null` result if it is a request from the server.
    pub fn answer_if_request(&mut self, m: &Value) {
        if m.get("method").is_some() && m.get("id").is_some_and(|id| !id.is_null()) {
            self.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": null}));
        }
    }

    /// Sends raw JSON.
    pub fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to pir lsp");
        stdin.flush().expect("flush");
    }

    /// Sends raw bytes (for malformed input).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to pir lsp");
        stdin.flush().expect("flush");
    }

    /// Waits for the first message (in arrival order, backlog first) matching `pred`.
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if pred(&m) => return m,
                Ok(m) => self.backlog.push(m),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out; unconsumed: {:#?}", self.backlog)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the server closed its output; unconsumed: {:#?}",
                        self.backlog
                    )
                }
            }
        }
    }

    /// Every message received and not consumed so far (without waiting).
    pub fn unconsumed(&mut self) -> &[Value] {
        while let Ok(m) = self.incoming.try_recv() {
            self.backlog.push(m);
        }
        &self.backlog
    }

    /// Opens a document.
    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "penguin-ir", "version": 1, "text": text}}),
        );
    }

    /// Waits for the `publishDiagnostics` of `uri` at `version` and returns its items.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        m["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Sends `shutdown` (with `null` params) and `exit`, and returns the exit status.
    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        let response = self.request("shutdown", Value::Null);
        assert!(response.get("error").is_none(), "{response}");
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    /// Waits for the process to end.
    pub fn wait_exit(mut self) -> ExitStatus {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes the server's stdin.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one `Content-Length`-framed message.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Whether the LSP diagnostic `d` is a cost warning (P420, P421: SPEC §10.2.10), which the
/// corpus kernels' small tiles in loops carry wherever a generated file copies them, or
/// the server's note of the cost warnings past its cap that it left out (an Information
/// without a code, `lsp/src/handlers.rs`).
#[allow(dead_code)] // the benchmarks' (`benches/`), which share this file
pub fn is_cost_warning(d: &Value) -> bool {
    d["code"] == "P420"
        || d["code"] == "P421"
        || (d["severity"] == 3
            && d["code"].is_null()
            && d["message"]
                .as_str()
                .is_some_and(|m| m.contains(" more cost warnings (P420, P421) ")))
}

/// Whether `diagnostics` are what `expect` says, but for the cost warnings P420 and P421
/// (SPEC §10.2.10) that the corpus kernels' small tiles in loops carry wherever the
/// generator copies them; `Err` describes the difference.
#[allow(dead_code)] // the benchmarks' (`benches/`), which share this file
pub fn verify(expect: &pir_gen::Expect, diagnostics: &[Value]) -> Result<(), String> {
    let diagnostics: Vec<Value> = diagnostics
        .iter()
        .filter(|d| !is_cost_warning(d))
        .cloned()
        .collect();
    let diagnostics = diagnostics.as_slice();
    let line = |d: &Value| d["range"]["start"]["line"].as_u64().unwrap_or(u64::MAX);
    let is_error = |d: &Value| d["severity"] == 1;
    let ok = match expect {
        pir_gen::Expect::Clean => diagnostics.is_empty(),
        pir_gen::Expect::One {
            line: at,
            code_or_message,
        } => {
            diagnostics.len() == 1 && {
                let d = &diagnostics[0];
                is_error(d)
                    && line(d) == u64::from(*at)
                    && (d["code"] == *code_or_message
                        || d["message"]
                            .as_str()
                            .is_some_and(|m| m.contains(code_or_message)))
            }
        }
        pir_gen::Expect::Near { first, last } => {
            diagnostics.iter().any(is_error)
                && diagnostics
                    .iter()
                    .all(|d| (u64::from(*first)..=u64::from(*last)).contains(&line(d)))
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "expected {expect:?}, got {}",
            serde_json::to_string_pretty(diagnostics).unwrap_or_default()
        ))
    }
}
