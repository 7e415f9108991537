//! The stdio transport of `pir lsp`: `Content-Length` framing that survives malformed input.
//!
//! `tower-lsp-server` stops reading after the first message it cannot decode (its
//! `FramedRead` ends on a decode error), so one bad frame would end the session. This layer
//! stands between the real stdio and the framework, which only ever sees well-formed input:
//!
//! ```text
//! stdin ─▶ reader thread ──well-formed messages──▶ FrameSource (the framework's "stdin")
//!               │ error responses
//!               ▼
//! stdout ◀─ writer thread ◀──whole frames──────── FrameSink (the framework's "stdout")
//! ```
//!
//! - The **reader thread** reads `Content-Length`-framed messages from stdin (buffered).
//!   Header names are case-insensitive, lines may end in `\r\n` or `\n`, and `Content-Type`
//!   and unknown headers are ignored. A header block without a valid `Content-Length`
//!   (missing, not a number, conflicting, above [`MAX_CONTENT_LENGTH`]) and a stray line that
//!   is not a header are answered with a parse error (-32700, id null); the reader then skips
//!   input up to the next `Content-Length` (also in the middle of a line, where a client that
//!   miscounted a body leaves the next header), so it resynchronizes on the next header
//!   block. A body that is not JSON is a parse error; JSON that is not a JSON-RPC 2.0 message
//!   is an invalid request (-32600) with the request's id when it can be read, else null.
//!   Each rejection is logged to stderr in one line. Well-formed messages are re-encoded
//!   and forwarded, so the framework's decoder never fails (and never ends the session).
//! - The **writer thread** is the only one writing to stdout: whole frames (the framework's,
//!   cut out of its output stream by [`FrameSink`], and the reader's error responses), each
//!   flushed, so frames never interleave.
//! - A big `didOpen` or `didChange` (from [`STASH_FROM`] bytes) is not forwarded: the reader
//!   thread reads its parameters into the [`Stash`] and forwards a small [`STASHED_OPEN`] or
//!   [`STASHED_CHANGE`] notification naming them, which the server handles as that message
//!   (the framework reads every message whole into one buffer that grows to the largest and
//!   never shrinks).
//! - The end of stdin ends the reader thread, which closes [`FrameSource`], so `serve`
//!   returns; after `exit` the framework returns by itself. [`Transport::finish`] then waits
//!   (bounded) until every queued frame is written.
//!
//! - The output queue ([`OutQueue`]) is bounded in bytes ([`MAX_QUEUED_BYTES`]), not in
//!   frames; a `publishDiagnostics` waiting in it is replaced by a newer one of the same
//!   document (responses are never dropped); requests wait for room in it before they start
//!   and before they answer ([`OutQueue::room`], [`OutQueue::hand_over`]).
//! - An `exit` read right after a `shutdown` is held back until the `shutdown` is answered
//!   ([`Shutdown`]): the framework would cancel it.
//!
//! Plain threads do the blocking stdio (as `tokio::io::stdin`/`stdout` do internally) and
//! bounded queues carry the data, so a client that does not read slows the server down
//! instead of growing its memory.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, BufRead, Read, Write};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc::{self, Receiver, Sender};
use tower_lsp_server::jsonrpc::{ErrorCode, Request, Response};
use tower_lsp_server::ls_types::{DidChangeTextDocumentParams, DidOpenTextDocumentParams};

/// The largest body accepted; a larger `Content-Length` is rejected without reading the body.
pub(crate) const MAX_CONTENT_LENGTH: u64 = 256 << 20;

/// The longest header line. Of a longer line (garbage, not a header) only the last
/// `MAX_LINE` bytes are kept: where a header glued to the garbage would be.
const MAX_LINE: usize = 8 << 10;

/// What the reader looks for to resynchronize after garbage (compared case-insensitively).
const CONTENT_LENGTH: &[u8] = b"content-length";

/// The size (bytes of the message) from which a `didOpen` or a `didChange` goes to the
/// [`Stash`] instead of through the framework. `tower-lsp-server` reads each message whole
/// into one buffer that grows to hold the largest one and never shrinks: a 20 MB file opened
/// once kept 20 MB resident (of a 32 MiB buffer) for the rest of the session, and a 200 MB
/// text sent whole in a `didChange` kept 200 MB after a small text replaced it.
pub(crate) const STASH_FROM: usize = 1 << 20;

/// The largest message other than a `didOpen` or `didChange` that is forwarded to the
/// framework (4 MiB). Beyond it, a request is answered with InvalidRequest (-32600), a
/// response to one of the server's requests becomes an error response with the same id (so
/// the request it answers ends), and a notification is dropped with a log line: no message
/// of LSP's that `pir` reads needs 4 MiB except an open or a change (which go to the
/// [`Stash`] from [`STASH_FROM`] bytes), and the framework's read buffer grows to the
/// largest message it is given and never shrinks (a 200 MB field in a hover kept 718 MB).
pub(crate) const MAX_FORWARDED: usize = 4 << 20;

/// The notification forwarded in place of a stashed `didOpen` ([`StashedOpen`] its params).
pub(crate) const STASHED_OPEN: &str = "pir/didOpenStashed";

/// The notification forwarded in place of a stashed `didChange` ([`StashedOpen`] its
/// params, the number of the change).
pub(crate) const STASHED_CHANGE: &str = "pir/didChangeStashed";

/// The notification forwarded in place of a `didChange` the framework could not decode
/// (`line: -1`, `character: 2^32`, `rangeLength: -3`…), which it would drop without a word:
/// [`LostChange`] its params. The server treats the document's text as unknown.
pub(crate) const LOST_CHANGE: &str = "pir/didChangeUndecodable";

/// The params of [`LOST_CHANGE`].
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct LostChange {
    /// The document the change was for.
    pub uri: tower_lsp_server::ls_types::Uri,
    /// Its version after the change, when that could be read.
    pub version: Option<i32>,
}

/// When `params` (of a `textDocument/didChange` notification) do not decode as the
/// framework decodes them: the [`LOST_CHANGE`] notification to forward instead (if the
/// document can be named) and the warning for the user; `None` when they decode.
fn lost_change(params: Option<Value>) -> Option<Checked> {
    let params = params.unwrap_or(Value::Null);
    let uri = params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .and_then(|uri| uri.parse::<tower_lsp_server::ls_types::Uri>().ok());
    let version = params
        .pointer("/textDocument/version")
        .and_then(Value::as_i64)
        .and_then(|v| i32::try_from(v).ok());
    let error = serde_json::from_value::<DidChangeTextDocumentParams>(params).err()?;
    let Some(uri) = uri else {
        return Some(Checked {
            message: Vec::new(),
            warning: Some(format!(
                "a textDocument/didChange could not be read ({error}) and names no document; \
                 it was ignored"
            )),
        });
    };
    let warning = format!(
        "a change to {} could not be read ({error}): pir no longer knows the document's text, \
         so it withdraws its diagnostics and answers no request about it until the editor \
         sends the whole text again (close and reopen the file)",
        uri.as_str()
    );
    let notification = json!({
        "jsonrpc": "2.0",
        "method": LOST_CHANGE,
        "params": LostChange { uri, version },
    });
    Some(Checked {
        message: notification.to_string().into_bytes(),
        warning: Some(warning),
    })
}

/// The parameters of big `didOpen`s and `didChange`s, numbered in arrival order, on their
/// way from the reader thread to the server's [`STASHED_OPEN`] and [`STASHED_CHANGE`]
/// handlers (see [`STASH_FROM`]).
#[derive(Clone, Default)]
pub(crate) struct Stash {
    kept: Arc<Mutex<Kept>>,
}

/// What a [`Stash`] holds.
#[derive(Default)]
struct Kept {
    /// The number of the next message kept (never reused).
    next: u64,
    opens: BTreeMap<u64, Stashed>,
}

/// A big notification's parameters, kept aside ([`Stash`]).
#[derive(Debug)]
pub(crate) enum Stashed {
    /// A `didOpen`'s.
    Open(DidOpenTextDocumentParams),
    /// A `didChange`'s.
    Change(DidChangeTextDocumentParams),
}

impl Stash {
    /// Keeps `params`; returns the number that takes them.
    fn put(&self, params: Stashed) -> u64 {
        let Ok(mut kept) = self.kept.lock() else {
            return u64::MAX;
        };
        let id = kept.next;
        kept.next += 1;
        kept.opens.insert(id, params);
        id
    }

    /// Takes the parameters kept as `id`, and lets go of any kept before them: the
    /// notifications come in order, so theirs never reached the handler (the framework
    /// drops notifications before `initialize`).
    pub(crate) fn take(&self, id: u64) -> Option<Stashed> {
        let mut kept = self.kept.lock().ok()?;
        kept.opens = kept.opens.split_off(&id);
        kept.opens.remove(&id)
    }
}

/// The params of [`STASHED_OPEN`] and [`STASHED_CHANGE`]: the number of the stashed
/// message.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StashedOpen {
    /// The number [`Stash::take`] takes.
    pub id: u64,
}

/// The parameters of `body` if it is a `didOpen` or `didChange` notification of
/// [`STASH_FROM`] bytes or more that the framework would accept as it is (anything else
/// takes the usual way: a `didChange` the framework cannot decode is [`check`]'s).
fn big_notification(body: &[u8]) -> Option<Stashed> {
    /// Whether a field is there, whatever its value (`null` too).
    #[derive(Default)]
    struct Present(bool);
    impl<'de> Deserialize<'de> for Present {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Present, D::Error> {
            serde::de::IgnoredAny::deserialize(d).map(|_| Present(true))
        }
    }
    #[derive(Deserialize)]
    struct Method {
        method: String,
    }
    #[derive(Deserialize)]
    struct Notification<P> {
        jsonrpc: String,
        #[serde(default)]
        id: Present,
        params: P,
    }
    fn read<P: serde::de::DeserializeOwned>(body: &[u8]) -> Option<P> {
        let n: Notification<P> = serde_json::from_slice(body).ok()?;
        (n.jsonrpc == "2.0" && !n.id.0).then_some(n.params)
    }
    if body.len() < STASH_FROM {
        return None;
    }
    match serde_json::from_slice::<Method>(body).ok()?.method.as_str() {
        "textDocument/didOpen" => read(body).map(Stashed::Open),
        "textDocument/didChange" => read(body).map(Stashed::Change),
        _ => None,
    }
}

/// What to do with `body` when it is bigger than [`MAX_FORWARDED`] and not a stashed open
/// or change ([`big_notification`]): `None` when it is small enough to forward; else the
/// error response that answers it, or an empty message (nothing forwarded) with the
/// warning for the log. The body is scanned for its `method` and `id` only, never kept as
/// a JSON tree.
fn too_big(body: &[u8]) -> Option<Result<Checked, Rejection>> {
    #[derive(Deserialize)]
    struct Probe {
        method: Option<String>,
        id: Option<Value>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    if body.len() <= MAX_FORWARDED {
        return None;
    }
    let size = body.len();
    let Ok(probe) = serde_json::from_slice::<Probe>(body) else {
        // Not a JSON-RPC object: `check` says why, as for a small one (and it is not kept).
        return None;
    };
    let id = probe.id.filter(|id| id.is_string() || id.is_i64());
    let why =
        format!("{size} bytes, over the {MAX_FORWARDED} pir reads outside an open or a change");
    Some(match (probe.method, id) {
        (Some(method), Some(id)) => Err(Rejection::invalid_request(
            id,
            format!("the request {method} is too big: {why}"),
        )),
        (None, Some(id)) if probe.result.is_some() || probe.error.is_some() => {
            // A response: the server's request it answers ends with an error.
            let response = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {
                    "code": ErrorCode::InvalidRequest.code(),
                    "message": format!("the response is too big: {why}"),
                },
            });
            Ok(Checked {
                message: response.to_string().into_bytes(),
                warning: None,
            })
        }
        (method, _) => Ok(Checked {
            message: Vec::new(),
            warning: Some(format!(
                "ignored {}: {why}",
                method.map_or_else(
                    || "a message".to_string(),
                    |m| format!("the notification {m}")
                )
            )),
        }),
    })
}

/// `shutdown` and `exit` as the transport sees them. The framework cancels every request in
/// flight when it reads `exit` (its `shutdown` too, answered `Canceled`, and the exit code
/// was then 1): so the reader holds an `exit` back until the response to the `shutdown`
/// before it is written (at most [`SHUTDOWN_ANSWER_TIMEOUT`]), and the exit code is 0
/// whenever a `shutdown` came before the end (LSP 3.17 `exit`).
#[derive(Default)]
pub(crate) struct Shutdown {
    /// A `shutdown` request was read.
    requested: std::sync::atomic::AtomicBool,
    /// The id of the `shutdown` whose response is not written yet.
    pending: Mutex<Option<Value>>,
    answered: std::sync::Condvar,
}

/// How long an `exit` waits for the response to the `shutdown` before it.
const SHUTDOWN_ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

impl Shutdown {
    /// Whether a `shutdown` request was read.
    pub(crate) fn requested(&self) -> bool {
        self.requested.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn read_shutdown(&self, id: Value) {
        self.requested
            .store(true, std::sync::atomic::Ordering::SeqCst);
        if let Ok(mut pending) = self.pending.lock() {
            *pending = Some(id);
        }
    }

    /// Waits (bounded) until the `shutdown` read last is answered.
    fn wait_answered(&self) {
        let Ok(pending) = self.pending.lock() else {
            return;
        };
        let _ = self
            .answered
            .wait_timeout_while(pending, SHUTDOWN_ANSWER_TIMEOUT, |p| p.is_some());
    }

    /// Called with each frame the framework writes: notes the `shutdown`'s response.
    fn wrote(&self, frame: &[u8]) {
        let Ok(mut pending) = self.pending.lock() else {
            return;
        };
        let Some(id) = pending.as_ref() else {
            return;
        };
        let body = frame
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(frame, |at| &frame[at + 4..]);
        #[derive(Deserialize)]
        struct Answer {
            id: Option<Value>,
            method: Option<serde::de::IgnoredAny>,
        }
        if let Ok(answer) = serde_json::from_slice::<Answer>(body)
            && answer.method.is_none()
            && answer.id.as_ref() == Some(id)
        {
            *pending = None;
            self.answered.notify_all();
        }
    }
}

/// The `shutdown` request (its id) or the `exit` notification a small forwarded message is.
fn control(message: &[u8]) -> Option<Result<Value, ()>> {
    // Both are tiny; nothing bigger is read again.
    if message.len() > 512 {
        return None;
    }
    #[derive(Deserialize)]
    struct Probe {
        method: Option<String>,
        id: Option<Value>,
    }
    let probe: Probe = serde_json::from_slice(message).ok()?;
    match (probe.method.as_deref(), probe.id) {
        (Some("shutdown"), Some(id)) if !id.is_null() => Some(Ok(id)),
        (Some("exit"), _) => Some(Err(())),
        _ => None,
    }
}

/// Messages queued for the framework.
const INPUT_QUEUE: usize = 16;

/// The bytes of frames queued for stdout beyond which the framework waits to write more
/// (16 MiB: a few big answers, a 100,000-op file's semantic tokens; one frame bigger than
/// that is still queued, alone). Bounded in bytes, not frames: 64 frames of big answers
/// kept 2.5 GB for a client that had stopped reading.
pub(crate) const MAX_QUEUED_BYTES: usize = 16 << 20;

/// How long [`Transport::finish`] waits for the last frames to be written.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Starts the reader thread on stdin and the writer thread on stdout. Returns the
/// framework's "stdin" and "stdout" and the handle to drain the output at the end.
pub(crate) fn stdio() -> io::Result<(FrameSource, FrameSink, Transport)> {
    let output = Arc::new(OutQueue::default());
    let (input, messages) = mpsc::channel(INPUT_QUEUE);
    let frames = Arc::clone(&output);
    std::thread::Builder::new()
        .name("pir-lsp-stdout".into())
        .spawn(move || write_frames(io::stdout(), &frames))?;
    let errors = Arc::clone(&output);
    let stash = Stash::default();
    let stashed = stash.clone();
    let shutdown = Arc::new(Shutdown::default());
    let read_shutdown = Arc::clone(&shutdown);
    std::thread::Builder::new()
        .name("pir-lsp-stdin".into())
        .spawn(move || {
            read_frames(
                io::stdin().lock(),
                &input,
                &errors,
                &stashed,
                &read_shutdown,
            );
        })?;
    let source = FrameSource {
        messages,
        current: Vec::new(),
        read: 0,
    };
    let sink = FrameSink {
        output: Arc::clone(&output),
        partial: Vec::new(),
        frames: VecDeque::new(),
        shutdown: Arc::clone(&shutdown),
    };
    Ok((
        source,
        sink,
        Transport {
            output,
            stash,
            shutdown,
        },
    ))
}

/// The running transport (its threads end with the process).
pub(crate) struct Transport {
    output: Arc<OutQueue>,
    /// Where the reader thread keeps big `didOpen`s.
    pub stash: Stash,
    /// Whether a `shutdown` came.
    pub shutdown: Arc<Shutdown>,
}

impl Transport {
    /// The output queue, for [`OutQueue::room`].
    pub(crate) fn output(&self) -> Arc<OutQueue> {
        Arc::clone(&self.output)
    }

    /// Waits until the writer has written every frame queued so far, but at most
    /// [`DRAIN_TIMEOUT`] (the client may not be reading). Call it after `serve` returned, so
    /// the framework's last responses reach the client before the process ends.
    pub(crate) fn finish(self) {
        let (done, written) = std::sync::mpsc::channel();
        // A barrier is queued whatever the queue holds; the wait is bounded.
        self.output.push_barrier(done);
        let _ = written.recv_timeout(DRAIN_TIMEOUT);
    }
}

/// An item for the writer thread.
enum Out {
    /// A whole frame, header and body, and the document whose diagnostics it publishes (a
    /// newer one of the same document replaces it while it waits).
    Frame(Vec<u8>, Option<String>),
    /// Acknowledge once every earlier frame is written.
    Barrier(std::sync::mpsc::Sender<()>),
}

/// The frames waiting for stdout, bounded in bytes ([`MAX_QUEUED_BYTES`]), with the
/// writer thread (a condition variable) and the framework's sink (a waker) waiting on it.
pub(crate) struct OutQueue {
    state: Mutex<Queued>,
    /// Signalled when an item is queued (the writer waits) or written (a blocked producer
    /// waits).
    changed: std::sync::Condvar,
    /// Notified when frames are written, for [`OutQueue::room`].
    room: tokio::sync::Notify,
    /// One answer at a time on its way from a handler to this queue ([`OutQueue::hand_over`]).
    answer: Arc<tokio::sync::Semaphore>,
}

impl Default for OutQueue {
    fn default() -> OutQueue {
        OutQueue {
            state: Mutex::default(),
            changed: std::sync::Condvar::new(),
            room: tokio::sync::Notify::new(),
            answer: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }
}

#[derive(Default)]
struct Queued {
    items: VecDeque<Out>,
    /// The bytes of the frames in `items`.
    bytes: usize,
    /// The writer has stopped (stdout is gone): frames are dropped.
    closed: bool,
    /// The framework's sink, waiting for room.
    waker: Option<std::task::Waker>,
    /// Frames replaced by a newer `publishDiagnostics` of their document before written.
    coalesced: u64,
    /// The answer handed over last ([`OutQueue::hand_over`]), until the next frame comes.
    handed: Option<tokio::sync::OwnedSemaphorePermit>,
    /// How many `$/progress` notifications were queued ([`OutQueue::progress_queued`]).
    progress: u64,
}

impl Queued {
    fn full(&self) -> bool {
        self.bytes >= MAX_QUEUED_BYTES && !self.items.is_empty()
    }

    /// Queues `frame`; a `publishDiagnostics` waiting for the same document is dropped (a
    /// stale notification: the newer one replaces it). Responses are never dropped.
    fn push(&mut self, frame: Vec<u8>) {
        if self.closed {
            return;
        }
        let document = published_document(&frame);
        if is_progress(&frame) {
            self.progress += 1;
        }
        if let Some(uri) = &document
            && let Some(i) = self
                .items
                .iter()
                .position(|item| matches!(item, Out::Frame(_, Some(u)) if u == uri))
            && let Some(Out::Frame(old, _)) = self.items.remove(i)
        {
            self.bytes -= old.len();
            self.coalesced += 1;
        }
        self.bytes += frame.len();
        self.items.push_back(Out::Frame(frame, document));
    }
}

impl OutQueue {
    fn is_full(&self) -> bool {
        self.state
            .lock()
            .is_ok_and(|state| state.full() && !state.closed)
    }

    /// Waits until the queue has room. Requests wait here before they start and again before
    /// they hand their answer to the framework (which turns it into a JSON tree of several
    /// times its size): a client that stops reading then stops the work, instead of the
    /// server holding an answer for each request it sends.
    pub(crate) async fn room(&self) {
        loop {
            let mut notified = std::pin::pin!(self.room.notified());
            notified.as_mut().enable();
            if !self.is_full() {
                return;
            }
            notified.await;
        }
    }

    /// Waits for room, then for the answer handed over before to reach the queue: so of
    /// the answers that are done, one at a time becomes the framework's JSON tree (about
    /// eight times the answer's JSON for semantic tokens) and then a frame, while the others
    /// wait as they are. Bounded (a second) in case no frame follows.
    pub(crate) async fn hand_over(&self) {
        self.room().await;
        let permit = tokio::time::timeout(
            Duration::from_secs(1),
            Arc::clone(&self.answer).acquire_owned(),
        )
        .await;
        if let (Ok(Ok(permit)), Ok(mut state)) = (permit, self.state.lock()) {
            state.handed = Some(permit);
        }
    }

    /// The number of `$/progress` notifications queued so far.
    pub(crate) fn progress_queued(&self) -> u64 {
        self.state.lock().map_or(0, |state| state.progress)
    }

    /// Waits (at most a second) until `count` `$/progress` notifications were queued: a
    /// request that streamed partial results answers after the last of them, which the
    /// framework would otherwise write in either order (it picks at random between its
    /// responses and its notifications when both are ready).
    pub(crate) async fn progress_reached(&self, count: u64) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
        loop {
            let mut notified = std::pin::pin!(self.room.notified());
            notified.as_mut().enable();
            if self.progress_queued() >= count {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }

    /// Queues a frame from a thread, waiting while the queue is full.
    fn push_blocking(&self, frame: Vec<u8>) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        while state.full() && !state.closed {
            state = match self.changed.wait(state) {
                Ok(state) => state,
                Err(_) => return false,
            };
        }
        if state.closed {
            return false;
        }
        state.push(frame);
        self.changed.notify_all();
        true
    }

    /// Queues `frame` unless the queue is full: then the sink is woken when there is room.
    fn poll_push(&self, cx: &Context<'_>, frame: &mut Option<Vec<u8>>) -> Poll<io::Result<()>> {
        let Ok(mut state) = self.state.lock() else {
            return Poll::Ready(Err(io::Error::other("the output queue is poisoned")));
        };
        if state.closed {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the stdout writer has stopped",
            )));
        }
        if state.full() {
            state.waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        if let Some(frame) = frame.take() {
            // The answer handed over last has become a frame (this one, or it follows):
            // the next may go.
            state.handed = None;
            state.push(frame);
            self.changed.notify_all();
            drop(state);
            self.room.notify_waiters();
        }
        Poll::Ready(Ok(()))
    }

    /// Queues the notification `method` with `params`, serialized once straight into a
    /// frame, beside the framework (whose path builds a JSON tree of the params, then
    /// serializes it: for the 101 diagnostics a keystroke publishes at 100,000 ops, 9 % of
    /// the server's time per keystroke). Waits for room as the framework's frames do.
    /// Errors: the writer has stopped, or the params do not serialize.
    pub(crate) async fn notify(
        &self,
        method: &str,
        params: &impl serde::Serialize,
    ) -> io::Result<()> {
        #[derive(serde::Serialize)]
        struct Notification<'a, P> {
            jsonrpc: &'static str,
            method: &'a str,
            params: &'a P,
        }
        let body = serde_json::to_vec(&Notification {
            jsonrpc: "2.0",
            method,
            params,
        })
        .map_err(io::Error::other)?;
        let mut frame = Some(frame(&body));
        drop(body);
        loop {
            self.room().await;
            let Ok(mut state) = self.state.lock() else {
                return Err(io::Error::other("the output queue is poisoned"));
            };
            if state.closed {
                return Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the stdout writer has stopped",
                ));
            }
            // Another producer filled it since `room`: wait again.
            if state.full() {
                continue;
            }
            if let Some(frame) = frame.take() {
                state.push(frame);
            }
            self.changed.notify_all();
            drop(state);
            self.room.notify_waiters();
            return Ok(());
        }
    }

    fn push_barrier(&self, done: std::sync::mpsc::Sender<()>) {
        if let Ok(mut state) = self.state.lock() {
            if state.closed {
                let _ = done.send(());
                return;
            }
            state.items.push_back(Out::Barrier(done));
            self.changed.notify_all();
        }
    }

    /// The next item for the writer (waiting for one); `None` once poisoned.
    fn pop(&self) -> Option<Out> {
        let mut state = self.state.lock().ok()?;
        loop {
            if let Some(item) = state.items.pop_front() {
                return Some(item);
            }
            state = self.changed.wait(state).ok()?;
        }
    }

    /// `bytes` of a frame were written: room for more.
    fn written(&self, bytes: usize) {
        if let Ok(mut state) = self.state.lock() {
            state.bytes -= bytes.min(state.bytes);
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
            self.changed.notify_all();
        }
        self.room.notify_waiters();
    }

    /// The writer has stopped: everything queued and to come is dropped.
    fn close(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.closed = true;
            for item in state.items.drain(..) {
                if let Out::Barrier(done) = item {
                    let _ = done.send(());
                }
            }
            state.bytes = 0;
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
            self.changed.notify_all();
        }
        self.room.notify_waiters();
    }
}

/// Whether a frame is a `$/progress` notification (as the framework writes it).
fn is_progress(frame: &[u8]) -> bool {
    const PREFIX: &[u8] = br#"{"jsonrpc":"2.0","method":"$/progress""#;
    frame
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .is_some_and(|at| frame[at + 4..].starts_with(PREFIX))
}

/// The document of a `textDocument/publishDiagnostics` frame (as the framework writes it:
/// `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":…`).
fn published_document(frame: &[u8]) -> Option<String> {
    const PREFIX: &[u8] =
        br#"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":"#;
    let at = frame.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let body = frame.get(at..)?;
    if !body.starts_with(PREFIX) {
        return None;
    }
    #[derive(Deserialize)]
    struct Params {
        uri: String,
    }
    // The params object alone (what follows it, the message's `}`, is not read); its
    // other fields are skipped.
    let mut params = serde_json::Deserializer::from_slice(&body[PREFIX.len()..]);
    Params::deserialize(&mut params).ok().map(|p| p.uri)
}

/// `Content-Length: N\r\n\r\n` and `body`.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    frame
}

/// The writer thread: writes each frame whole and flushes it.
fn write_frames(mut stdout: impl Write, frames: &OutQueue) {
    while let Some(item) = frames.pop() {
        match item {
            Out::Frame(frame, _) => {
                let written = stdout.write_all(&frame).and_then(|()| stdout.flush());
                frames.written(frame.len());
                if let Err(e) = written {
                    eprintln!("pir lsp: cannot write to stdout: {e}");
                    frames.close();
                    return;
                }
            }
            Out::Barrier(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// The reader thread: forwards well-formed messages to the framework and answers the rest.
fn read_frames(
    stdin: impl BufRead,
    messages: &Sender<Vec<u8>>,
    output: &OutQueue,
    stash: &Stash,
    shutdown: &Shutdown,
) {
    let mut reader = FrameReader::new(stdin);
    loop {
        let checked = match reader.next() {
            Ok(Some(Incoming::Body(body))) => match big_notification(&body) {
                Some(params) => {
                    drop(body);
                    let method = match params {
                        Stashed::Open(_) => STASHED_OPEN,
                        Stashed::Change(_) => STASHED_CHANGE,
                    };
                    let params = json!({"id": stash.put(params)});
                    let notification = json!({
                        "jsonrpc": "2.0",
                        "method": method,
                        "params": params,
                    });
                    Ok(Checked {
                        message: notification.to_string().into_bytes(),
                        warning: None,
                    })
                }
                None => too_big(&body).unwrap_or_else(|| check(body)),
            },
            Ok(Some(Incoming::Garbage(reason))) => Err(Rejection::parse_error(reason)),
            Ok(None) => return,
            Err(e) => {
                eprintln!("pir lsp: cannot read stdin: {e}");
                return;
            }
        };
        let sent = match checked {
            Ok(checked) => {
                let warned = checked.warning.is_none_or(|warning| {
                    eprintln!("pir lsp: {warning}");
                    output.push_blocking(show_warning(&warning))
                });
                match control(&checked.message) {
                    Some(Ok(id)) => shutdown.read_shutdown(id),
                    Some(Err(())) => shutdown.wait_answered(),
                    None => {}
                }
                // The header and the body as two pieces: no copy of a big body. An empty
                // message is nothing to forward (the warning said why).
                let header = format!("Content-Length: {}\r\n\r\n", checked.message.len());
                warned
                    && (checked.message.is_empty()
                        || (messages.blocking_send(header.into_bytes()).is_ok()
                            && messages.blocking_send(checked.message).is_ok()))
            }
            Err(rejection) => {
                if rejection.code == ErrorCode::MethodNotFound {
                    eprintln!("pir lsp: {}", rejection.reason);
                } else {
                    eprintln!(
                        "pir lsp: ignoring a malformed message: {}",
                        rejection.reason
                    );
                }
                output.push_blocking(rejection.response())
            }
        };
        if !sent {
            // The framework has ended (`exit`) or stdout is gone.
            return;
        }
    }
}

/// A message the transport answers with an error instead of forwarding.
#[derive(Debug)]
struct Rejection {
    code: ErrorCode,
    /// The id to answer with: the request's, or null.
    id: Value,
    /// Why, for the log and the error's `data`.
    reason: String,
}

impl Rejection {
    fn parse_error(reason: String) -> Rejection {
        Rejection {
            code: ErrorCode::ParseError,
            id: Value::Null,
            reason,
        }
    }

    fn invalid_request(id: Value, reason: String) -> Rejection {
        Rejection {
            code: ErrorCode::InvalidRequest,
            id,
            reason,
        }
    }

    /// The error response, framed.
    fn response(&self) -> Vec<u8> {
        let response = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {
                "code": self.code.code(),
                "message": self.code.description(),
                "data": self.reason,
            },
        });
        frame(response.to_string().as_bytes())
    }
}

/// A `window/showMessage` notification of type Warning, framed.
fn show_warning(message: &str) -> Vec<u8> {
    let notification = json!({
        "jsonrpc": "2.0",
        "method": "window/showMessage",
        "params": {"type": 2, "message": format!("pir: {message}")},
    });
    frame(notification.to_string().as_bytes())
}

/// A message to forward to the framework, and what to tell the user about it.
#[derive(Debug, PartialEq)]
struct Checked {
    /// The re-encoded message.
    message: Vec<u8>,
    /// A warning for the user (`window/showMessage`), e.g. that a lone surrogate was replaced.
    warning: Option<String>,
}

/// Replaces each unpaired UTF-16 surrogate in the strings of a JSON text — an escape
/// `\uD800`…`\uDFFF` without its pair, or the three bytes `ED A0..BF 80..BF` that encode a
/// surrogate in WTF-8 — with U+FFFD. Both are one UTF-16 code unit, so positions an editor
/// computes over its own text (which keeps the lone surrogate) still agree with the
/// server's. Returns the repaired text and how many surrogates were replaced (0: unchanged).
fn replace_lone_surrogates(body: &[u8]) -> (Vec<u8>, usize) {
    fn escape_at(body: &[u8], at: usize) -> Option<u16> {
        let hex = body.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    }
    let mut out = Vec::with_capacity(body.len());
    let mut replaced = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < body.len() {
        let byte = body[i];
        if !in_string {
            in_string = byte == b'"';
            out.push(byte);
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = false;
                out.push(byte);
                i += 1;
            }
            b'\\' => match escape_at(body, i) {
                Some(0xD800..=0xDBFF)
                    if matches!(escape_at(body, i + 6), Some(0xDC00..=0xDFFF)) =>
                {
                    out.extend_from_slice(&body[i..i + 12]);
                    i += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.extend_from_slice(b"\\uFFFD");
                    replaced += 1;
                    i += 6;
                }
                _ => {
                    out.extend_from_slice(&body[i..(i + 2).min(body.len())]);
                    i += 2;
                }
            },
            0xED if matches!(body.get(i + 1..i + 3), Some([0xA0..=0xBF, 0x80..=0xBF])) => {
                out.extend_from_slice("\u{FFFD}".as_bytes());
                replaced += 1;
                i += 3;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    (out, replaced)
}

/// Checks that `body` is a JSON-RPC 2.0 message the framework accepts and re-encodes it: a
/// request or notification (`method` a string; `id`, if any, an integer, a string or null;
/// `params`, if any, an object, an array or null) or a response (an `id` and a `result` or
/// an `error`). Re-encoding drops what the framework's stricter decoder would reject in
/// otherwise good JSON (such as a repeated key).
///
/// Also: an unpaired UTF-16 surrogate in a string (which JSON allows as an escape and
/// `serde_json` rejects) becomes U+FFFD, with a warning; a request whose method starts with
/// `$/` is answered with MethodNotFound (-32601, LSP 3.17 "$ Notifications and Requests");
/// `shutdown` and `exit`, which take no parameters, are forwarded without theirs (some
/// clients send `{}`).
fn check(body: Vec<u8>) -> Result<Checked, Rejection> {
    // The common case, a well-formed request or notification that needs no change, goes
    // on as it came: read once as the framework will read it (field names checked, no
    // duplicate keys, `"jsonrpc": "2.0"`, a valid id), neither kept as a JSON tree nor
    // re-encoded, which for the didOpen of a big file were two more copies of its text.
    if let Ok(request) = serde_json::from_slice::<Request>(&body) {
        let (method, id, params) = request.into_parts();
        if method == "textDocument/didChange" && id.is_none() {
            return Ok(lost_change(params).unwrap_or(Checked {
                message: body,
                warning: None,
            }));
        }
        let special = method.is_empty()
            || (method.starts_with("$/") && id.is_some())
            || method == "shutdown"
            || method == "exit";
        let params_ok = params
            .as_ref()
            .is_none_or(|p| p.is_object() || p.is_array() || p.is_null());
        if !special && params_ok {
            return Ok(Checked {
                message: body,
                warning: None,
            });
        }
    }
    let body = body.as_slice();
    let mut warning = None;
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => {
            let (repaired, count) = replace_lone_surrogates(body);
            let value: Value = (count > 0)
                .then(|| serde_json::from_slice(&repaired).ok())
                .flatten()
                .ok_or_else(|| {
                    Rejection::parse_error(format!("invalid JSON ({e}): {}", preview(body)))
                })?;
            let method = value
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("a message");
            warning = Some(format!(
                "{method} held {count} unpaired UTF-16 surrogate{} (a lone \\uD800–\\uDFFF); \
                 pir reads each as U+FFFD, also one UTF-16 unit, so positions stay in step \
                 but the server sees � where the editor has the lone surrogate",
                if count == 1 { "" } else { "s" }
            ));
            value
        }
    };
    let Value::Object(fields) = &value else {
        return Err(Rejection::invalid_request(
            Value::Null,
            format!("not a JSON object: {}", preview(body)),
        ));
    };
    let response = !fields.contains_key("method")
        && (fields.contains_key("result") || fields.contains_key("error"));
    // A request's id can be answered; a response's id is in the server's own id space.
    let valid_id = |id: &Value| id.is_string() || id.is_i64();
    let id = match fields.get("id") {
        Some(id) if !response && valid_id(id) => id.clone(),
        _ => Value::Null,
    };
    let problem = if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        Some("no \"jsonrpc\": \"2.0\"")
    } else if response {
        None
    } else if !fields.contains_key("method") {
        Some("no method")
    } else if !fields.get("method").is_some_and(Value::is_string) {
        Some("the method is not a string")
    } else if !fields
        .get("id")
        .is_none_or(|id| id.is_null() || valid_id(id))
    {
        Some("the id is not an integer, a string or null")
    } else if !fields
        .get("params")
        .is_none_or(|p| p.is_object() || p.is_array() || p.is_null())
    {
        Some("the params are not an object or an array")
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(Rejection::invalid_request(
            id,
            format!("{problem}: {}", preview(body)),
        ));
    }
    let method = fields
        .get("method")
        .and_then(Value::as_str)
        .filter(|_| !response)
        .map(str::to_owned);
    let is_request = fields.get("id").is_some_and(|id| !id.is_null());
    let mut value = value;
    if let Some(method) = method {
        if method.starts_with("$/") && is_request {
            return Err(Rejection {
                code: ErrorCode::MethodNotFound,
                id,
                reason: format!("the request {method} is not handled"),
            });
        }
        if (method == "shutdown" || method == "exit")
            && let Value::Object(fields) = &mut value
        {
            fields.remove("params");
        }
        if method == "textDocument/didChange"
            && !is_request
            && let Some(lost) = lost_change(value.get("params").cloned())
        {
            return Ok(Checked {
                warning: match (lost.warning, warning) {
                    (Some(lost), Some(first)) => Some(format!("{first}; {lost}")),
                    (lost, first) => lost.or(first),
                },
                ..lost
            });
        }
    }
    let encoded = if response {
        serde_json::from_value::<Response>(value).and_then(|r| serde_json::to_vec(&r))
    } else {
        serde_json::from_value::<Request>(value).and_then(|r| serde_json::to_vec(&r))
    };
    let message = encoded.map_err(|e| {
        Rejection::invalid_request(
            id,
            format!("not a JSON-RPC message ({e}): {}", preview(body)),
        )
    })?;
    Ok(Checked { message, warning })
}

/// The start of `bytes` on one line, for the log: control characters escaped.
fn preview(bytes: &[u8]) -> String {
    const SHOWN: usize = 80;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
    let mut shown = String::from("`");
    for c in text.chars() {
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown.push_str(if bytes.len() > SHOWN { "…`" } else { "`" });
    shown
}

/// One step of reading stdin.
#[derive(Debug, PartialEq)]
enum Incoming {
    /// The body of a well-framed message (not checked yet).
    Body(Vec<u8>),
    /// Input that is not a well-framed message, and why.
    Garbage(String),
}

/// Reads `Content-Length`-framed messages, resynchronizing after garbage.
struct FrameReader<R> {
    input: R,
    /// After garbage: skipping input up to the next `Content-Length`.
    skipping: bool,
    /// A header found in the middle of a garbage line, to read next.
    pending: Option<Vec<u8>>,
}

/// One line of input, without its line end.
struct Line {
    bytes: Vec<u8>,
    /// Only the last [`MAX_LINE`] bytes were kept.
    cut: bool,
}

/// What a header block said so far.
#[derive(Default)]
struct Headers {
    length: Option<u64>,
    problem: Option<String>,
}

impl Headers {
    fn add(&mut self, name: &[u8], value: &[u8]) {
        // `Content-Type` (always UTF-8 JSON in practice) and unknown headers are tolerated.
        if !name.eq_ignore_ascii_case(CONTENT_LENGTH) || self.problem.is_some() {
            return;
        }
        if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
            self.problem = Some(format!("a Content-Length of {}", preview(value)));
            return;
        }
        // Digits only: parsing fails only on overflow, which is over the limit anyway.
        let length = std::str::from_utf8(value)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX);
        match self.length {
            Some(earlier) if earlier != length => {
                self.problem = Some(format!(
                    "conflicting Content-Length headers ({earlier} and {length})"
                ));
            }
            _ => self.length = Some(length),
        }
    }

    fn length(self) -> Result<usize, String> {
        if let Some(problem) = self.problem {
            return Err(problem);
        }
        match self.length {
            None => Err("a header block without Content-Length".into()),
            Some(length) if length > MAX_CONTENT_LENGTH => Err(format!(
                "a Content-Length of {length} bytes, over the limit of {} MiB",
                MAX_CONTENT_LENGTH >> 20
            )),
            Some(length) => usize::try_from(length).map_err(|e| e.to_string()),
        }
    }
}

/// Splits a header line `Name: value` (the name an HTTP token), trimming the value.
fn header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    (!name.is_empty() && name.iter().all(token)).then(|| (name, value.trim_ascii()))
}

/// Where `needle` (lowercase) first occurs in `haystack`, ignoring ASCII case.
fn find_ignoring_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

impl<R: BufRead> FrameReader<R> {
    fn new(input: R) -> Self {
        FrameReader {
            input,
            skipping: false,
            pending: None,
        }
    }

    /// The next message body or piece of garbage; `None` at the end of the input.
    fn next(&mut self) -> io::Result<Option<Incoming>> {
        let mut headers: Option<Headers> = None;
        loop {
            let line = match self.pending.take() {
                Some(bytes) => Line { bytes, cut: false },
                None => match self.read_line()? {
                    Some(line) => line,
                    None => {
                        if headers.is_some() {
                            eprintln!("pir lsp: the input ended inside a message header");
                        }
                        return Ok(None);
                    }
                },
            };
            let mut bytes = line.bytes.as_slice();
            let mut cut = line.cut;
            if self.skipping {
                let Some(at) = find_ignoring_case(bytes, CONTENT_LENGTH) else {
                    continue;
                };
                self.skipping = false;
                bytes = &bytes[at..];
                cut = false;
            }
            if bytes.is_empty() {
                let Some(block) = headers.take() else {
                    // Blank lines between messages are tolerated.
                    continue;
                };
                return match block.length() {
                    Ok(length) => self.read_body(length),
                    Err(reason) => {
                        self.skipping = true;
                        Ok(Some(Incoming::Garbage(reason)))
                    }
                };
            }
            if !cut && let Some((name, value)) = header(bytes) {
                headers.get_or_insert_default().add(name, value);
                continue;
            }
            // Not a header: garbage, with the block so far. A header glued to its end (after
            // a body longer than its `Content-Length`) starts the next block.
            let reason = format!(
                "{}{} is not a header line",
                if cut { "…" } else { "" },
                preview(bytes)
            );
            match find_ignoring_case(bytes.get(1..).unwrap_or_default(), CONTENT_LENGTH) {
                Some(at) => self.pending = Some(bytes[at + 1..].to_vec()),
                None => self.skipping = true,
            }
            return Ok(Some(Incoming::Garbage(reason)));
        }
    }

    /// Reads one line without its line end (`\n` or `\r\n`), keeping its last [`MAX_LINE`]
    /// bytes; `None` at the end of the input (a last line without a line end is dropped).
    fn read_line(&mut self) -> io::Result<Option<Line>> {
        let mut bytes = Vec::new();
        let mut cut = false;
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                if !bytes.is_empty() {
                    eprintln!("pir lsp: the input ended inside a message header");
                }
                return Ok(None);
            }
            let end = buffer.iter().position(|&b| b == b'\n');
            let used = end.map_or(buffer.len(), |end| end + 1);
            bytes.extend_from_slice(&buffer[..end.unwrap_or(buffer.len())]);
            self.input.consume(used);
            if bytes.len() > MAX_LINE {
                bytes.drain(..bytes.len() - MAX_LINE);
                cut = true;
            }
            if end.is_some() {
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
                return Ok(Some(Line { bytes, cut }));
            }
        }
    }

    /// Reads a body of `length` bytes (allocating as they arrive, not up front).
    fn read_body(&mut self, length: usize) -> io::Result<Option<Incoming>> {
        let mut body = Vec::with_capacity(length.min(1 << 20));
        (&mut self.input)
            .take(length as u64)
            .read_to_end(&mut body)?;
        if body.len() < length {
            eprintln!("pir lsp: the input ended inside a message body");
            return Ok(None);
        }
        Ok(Some(Incoming::Body(body)))
    }
}

/// The framework's "stdin": the (re-framed) messages the reader thread forwards, each as
/// its header and its body. Ends when the reader thread does.
pub(crate) struct FrameSource {
    messages: Receiver<Vec<u8>>,
    /// The piece being read (empty once read whole).
    current: Vec<u8>,
    read: usize,
}

impl AsyncRead for FrameSource {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        while this.read == this.current.len() {
            match ready!(this.messages.poll_recv(cx)) {
                Some(frame) => {
                    this.current = frame;
                    this.read = 0;
                }
                // The end of the input.
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = buf.remaining().min(this.current.len() - this.read);
        buf.put_slice(&this.current[this.read..this.read + n]);
        this.read += n;
        if this.read == this.current.len() {
            // Read whole: let go of it now (a didOpen of a big file is tens of megabytes),
            // not when the next message arrives.
            this.current = Vec::new();
            this.read = 0;
        }
        Poll::Ready(Ok(()))
    }
}

/// The framework's "stdout": cuts what it writes into whole frames for the writer thread
/// (waiting while the writer's queue is full, [`MAX_QUEUED_BYTES`]).
pub(crate) struct FrameSink {
    output: Arc<OutQueue>,
    /// Written bytes not yet making a whole frame.
    partial: Vec<u8>,
    /// Whole frames not yet queued.
    frames: VecDeque<Vec<u8>>,
    /// Told of each frame, for the response to `shutdown`.
    shutdown: Arc<Shutdown>,
}

impl FrameSink {
    /// Queues the whole frames for the writer thread.
    fn poll_queue(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some(frame) = self.frames.pop_front() {
            self.shutdown.wrote(&frame);
            let mut slot = Some(frame);
            let queued = self.output.poll_push(cx, &mut slot);
            if let Some(frame) = slot {
                self.frames.push_front(frame);
            }
            ready!(queued)?;
        }
        Poll::Ready(Ok(()))
    }
}

/// Cuts the whole frames off the front of `partial` (the framework writes
/// `Content-Length: N\r\n\r\n` and the body).
fn cut_frames(partial: &mut Vec<u8>, frames: &mut VecDeque<Vec<u8>>) -> io::Result<()> {
    while let Some(end) = partial.windows(4).position(|w| w == b"\r\n\r\n") {
        let length = partial[..end]
            .split(|&b| b == b'\n')
            .filter_map(|line| header(line.trim_ascii()))
            .find(|(name, _)| name.eq_ignore_ascii_case(CONTENT_LENGTH))
            .and_then(|(_, value)| std::str::from_utf8(value).ok()?.parse::<usize>().ok())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the framework wrote a frame without Content-Length",
                )
            })?;
        let total = end + 4 + length;
        if partial.len() < total {
            break;
        }
        let rest = partial.split_off(total);
        frames.push_back(std::mem::replace(partial, rest));
    }
    Ok(())
}

impl AsyncWrite for FrameSink {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_queue(cx))?;
        this.partial.extend_from_slice(buf);
        cut_frames(&mut this.partial, &mut this.frames)?;
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_queue(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_queue(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8]) -> Vec<Incoming> {
        let mut reader = FrameReader::new(input);
        let mut all = Vec::new();
        while let Some(incoming) = reader.next().expect("in-memory input") {
            all.push(incoming);
        }
        all
    }

    fn body(text: &str) -> Incoming {
        Incoming::Body(text.as_bytes().to_vec())
    }

    fn is_garbage(incoming: &Incoming) -> bool {
        matches!(incoming, Incoming::Garbage(_))
    }

    #[test]
    fn headers_are_case_insensitive_with_either_line_end() {
        let input = b"content-length: 2\n\n{}CONTENT-LENGTH:2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[]";
        assert_eq!(read_all(input), [body("{}"), body("[]")]);
    }

    #[test]
    fn resynchronizes_after_bad_header_blocks() {
        let input = b"Content-Type: x\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}\
            Content-Length: 99999999999999999999999\r\n\r\n{}Content-Length: 1\r\n\r\n1\
            Content-Length: x\r\n\r\nContent-Length: 1\r\n\r\n2";
        let all = read_all(input);
        assert_eq!(all.len(), 6, "{all:?}");
        assert!(is_garbage(&all[0]) && is_garbage(&all[2]) && is_garbage(&all[4]));
        assert_eq!(all[1], body("{}"));
        assert_eq!(all[3], body("1"));
        assert_eq!(all[5], body("2"));
    }

    #[test]
    fn a_header_glued_to_garbage_is_found() {
        let mut input = b"Content-Length: 3\r\n\r\n{}}}}".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        input.extend(b"Content-Length: 2\r\n\r\n{}");
        let all = read_all(&input);
        assert_eq!(all.len(), 3, "{all:?}");
        assert_eq!(all[0], body("{}}"));
        assert!(is_garbage(&all[1]));
        assert_eq!(all[2], body("{}"));
    }

    #[test]
    fn a_truncated_last_message_ends_the_input() {
        assert_eq!(read_all(b"Content-Length: 10\r\n\r\n{}"), []);
        assert_eq!(read_all(b"Content-Length: 10\r\n"), []);
    }

    #[test]
    fn checks_json_rpc_messages() {
        let code = |body: &str| check(body.as_bytes().to_vec()).map_err(|r| (r.code.code(), r.id));
        assert!(code(r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{}}"#).is_ok());
        assert!(code(r#"{"jsonrpc":"2.0","method":"a","method":"b"}"#).is_ok());
        assert!(code(r#"{"jsonrpc":"2.0","id":"x","result":null}"#).is_ok());
        assert_eq!(code(r#"{"jsonrpc":"2.0""#), Err((-32700, Value::Null)));
        assert_eq!(code("[1,2,3]"), Err((-32600, Value::Null)));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":9,"method":5}"#),
            Err((-32600, json!(9)))
        );
        assert_eq!(
            code(r#"{"id":"s","method":"a"}"#),
            Err((-32600, json!("s")))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#),
            Err((-32600, Value::Null))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"a","params":3}"#),
            Err((-32600, json!(2)))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":3,"error":{}}"#),
            Err((-32600, Value::Null))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":4,"method":"$/x"}"#),
            Err((-32601, json!(4)))
        );
        assert!(code(r#"{"jsonrpc":"2.0","method":"$/x"}"#).is_ok());
        let shutdown =
            check(br#"{"jsonrpc":"2.0","id":5,"method":"shutdown","params":{}}"#.to_vec());
        let forwarded: Value =
            serde_json::from_slice(&shutdown.expect("accepted").message).expect("JSON");
        assert!(forwarded.get("params").is_none(), "{forwarded}");
    }

    /// A didOpen of `text`, with `extra` fields.
    fn open(text: &str, extra: &str) -> Vec<u8> {
        format!(
            r#"{{"jsonrpc":"2.0",{extra}"method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"file:///a.pir","languageId":"penguin-ir","version":1,"text":"{text}"}}}}}}"#
        )
        .into_bytes()
    }

    #[test]
    fn only_big_did_opens_and_changes_are_kept_aside() {
        let big = "x".repeat(STASH_FROM);
        let Some(Stashed::Open(params)) = big_notification(&open(&big, "")) else {
            panic!("a big didOpen");
        };
        assert_eq!(params.text_document.text, big);
        assert!(big_notification(&open("x", "")).is_none());
        // A request of that name, and a duplicate field, are the framework's to answer.
        assert!(big_notification(&open(&big, r#""id":1,"#)).is_none());
        assert!(big_notification(&open(&big, r#""id":null,"#)).is_none());
        assert!(big_notification(&open(&big, r#""jsonrpc":"2.0","#)).is_none());
        // A didChange with these params is not one the framework can decode: its way.
        let open_params = String::from_utf8(open(&big, "")).expect("UTF-8");
        let change = open_params.replace("didOpen", "didChange");
        assert!(big_notification(change.as_bytes()).is_none());
        let whole = format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"file:///a.pir","version":2}},"contentChanges":[{{"text":"{big}"}}]}}}}"#
        );
        let Some(Stashed::Change(params)) = big_notification(whole.as_bytes()) else {
            panic!("a big didChange");
        };
        assert_eq!(params.content_changes[0].text, big);
        let other = whole.replace("didChange", "didSave");
        assert!(big_notification(other.as_bytes()).is_none());
    }

    #[test]
    fn a_message_too_big_to_forward_is_answered_or_dropped() {
        let junk = "x".repeat(MAX_FORWARDED);
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{{"junk":"{junk}"}}}}"#
        );
        let Some(Err(rejection)) = too_big(request.as_bytes()) else {
            panic!("a big request is answered");
        };
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::InvalidRequest, json!(7))
        );
        assert!(rejection.reason.contains("textDocument/hover is too big"));
        let response = format!(r#"{{"jsonrpc":"2.0","id":3,"result":{{"junk":"{junk}"}}}}"#);
        let Some(Ok(checked)) = too_big(response.as_bytes()) else {
            panic!("a big response becomes an error response");
        };
        let answer: Value = serde_json::from_slice(&checked.message).unwrap();
        assert_eq!(answer["id"], 3);
        assert_eq!(answer["error"]["code"], -32600);
        let notification =
            format!(r#"{{"jsonrpc":"2.0","method":"$/junk","params":{{"junk":"{junk}"}}}}"#);
        let Some(Ok(checked)) = too_big(notification.as_bytes()) else {
            panic!("a big notification is dropped");
        };
        assert!(checked.message.is_empty());
        assert!(checked.warning.unwrap().contains("$/junk"));
        // Up to the limit, and anything that is not JSON, takes the usual way.
        assert!(too_big(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#).is_none());
        assert!(too_big(junk.as_bytes()).is_none());
    }

    #[test]
    fn a_stashed_open_is_taken_once_and_lets_go_of_those_before_it() {
        let stash = Stash::default();
        let params = |version| {
            serde_json::from_value::<DidOpenTextDocumentParams>(json!({"textDocument":
                {"uri": "file:///a.pir", "languageId": "", "version": version, "text": ""}}))
            .map(Stashed::Open)
            .expect("params")
        };
        let version = |s: Option<Stashed>| match s {
            Some(Stashed::Open(open)) => open.text_document.version,
            other => panic!("{other:?}"),
        };
        let ids: Vec<u64> = (0..3).map(|v| stash.put(params(v))).collect();
        assert_eq!(ids, [0, 1, 2]);
        assert_eq!(version(stash.take(1)), 1);
        assert!(stash.take(1).is_none());
        assert!(stash.take(0).is_none(), "let go of when 1 was taken");
        assert_eq!(version(stash.take(2)), 2);
        assert_eq!(stash.put(params(3)), 3, "numbers are not reused");
    }

    #[test]
    fn replaces_lone_surrogates_only() {
        let replaced = |json: &[u8]| {
            let (text, n) = replace_lone_surrogates(json);
            (String::from_utf8(text).expect("UTF-8"), n)
        };
        // A lone high, a lone low, a pair, an escaped backslash before `ud800`, a key.
        assert_eq!(
            replaced(br#"{"a\ud800":"\udc00x\ud83d\ude00\\ud800\ud800\n"}"#),
            (
                r#"{"a\uFFFD":"\uFFFDx\ud83d\ude00\\ud800\uFFFD\n"}"#.to_string(),
                3
            )
        );
        // A surrogate in WTF-8 bytes.
        assert_eq!(
            replaced(b"[\"a\xED\xA0\x80b\"]"),
            ("[\"a\u{FFFD}b\"]".to_string(), 1)
        );
        let (_, none) = replace_lone_surrogates(br#"["\u00e9", 1]"#);
        assert_eq!(none, 0);
        let message = check(br#"{"jsonrpc":"2.0","method":"m","params":{"t":"\ud800"}}"#.to_vec())
            .expect("repaired");
        assert!(
            message
                .warning
                .is_some_and(|w| w.contains("m held 1 unpaired"))
        );
    }

    fn publish(uri: &str, n: usize) -> Vec<u8> {
        let body = json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
            "params": {"uri": uri, "diagnostics": vec![json!({"message": "m"}); n]}});
        frame(body.to_string().as_bytes())
    }

    #[test]
    fn a_stale_publish_is_replaced_and_responses_never_dropped() {
        assert_eq!(
            published_document(&publish("file:///a.pir", 2)).as_deref(),
            Some("file:///a.pir")
        );
        assert_eq!(
            published_document(&frame(br#"{"jsonrpc":"2.0","id":1,"result":null}"#)),
            None
        );
        let mut queued = Queued::default();
        let response = frame(br#"{"jsonrpc":"2.0","result":[],"id":1}"#);
        queued.push(publish("file:///a.pir", 3));
        queued.push(response.clone());
        queued.push(publish("file:///b.pir", 1));
        queued.push(response.clone());
        queued.push(publish("file:///a.pir", 1));
        let frames: Vec<&Vec<u8>> = queued
            .items
            .iter()
            .map(|item| match item {
                Out::Frame(frame, _) => frame,
                Out::Barrier(_) => unreachable!(),
            })
            .collect();
        assert_eq!(
            frames,
            [
                &response,
                &publish("file:///b.pir", 1),
                &response,
                &publish("file:///a.pir", 1)
            ]
        );
        assert_eq!(queued.coalesced, 1);
        assert_eq!(queued.bytes, frames.iter().map(|f| f.len()).sum::<usize>());
    }

    #[test]
    fn the_queue_is_full_in_bytes_not_frames() {
        let mut queued = Queued::default();
        assert!(!queued.full());
        queued.push(vec![b'x'; MAX_QUEUED_BYTES + 1]);
        assert!(
            queued.full(),
            "one frame bigger than the bound is queued alone"
        );
        let mut small = Queued::default();
        for _ in 0..10_000 {
            small.push(frame(b"{}"));
        }
        assert!(!small.full(), "ten thousand small frames are not 16 MiB");
    }

    #[test]
    fn cuts_the_framework_output_into_frames() {
        let mut partial = Vec::new();
        let mut frames = VecDeque::new();
        let output = [frame(b"{}"), frame(b"[1]")].concat();
        for byte in output {
            partial.push(byte);
            cut_frames(&mut partial, &mut frames).expect("framed");
        }
        assert_eq!(frames, [frame(b"{}"), frame(b"[1]")]);
        assert!(partial.is_empty());
    }
}
