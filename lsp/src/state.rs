//! The one owner of the documents and of the database's writes.
//!
//! Architecture Invariant: every `didOpen`/`didChange`/`didClose` and every snapshot
//! request goes through one FIFO channel to one dedicated thread, so edits apply strictly
//! in order and a request always sees every edit sent before it. Salsa writes (which wait
//! for all snapshots to drop) therefore happen on that thread, never on an async worker.
//! Requests run on an analysis snapshot (a [`Snapshot`]) on a blocking thread; an edit
//! cancels them (their queries return `Cancelled`, answered as `ContentModified`).
//!
//! Architecture Invariant: a panic on the document thread ends neither the thread nor the
//! session. Each message, and each write to the database, runs under `catch_unwind`; after a
//! panic the owner builds a new database from the texts it holds (the editor's, every change
//! applied), reports every document again, and tells the user. The document whose message
//! panicked half-way is treated as lost ([`Doc::lost`]). Only when that rebuild panics too
//! does the process exit, non-zero, for the client to restart it (`docs/decisions.md`).
//!
//! Architecture Invariant: the server's text of a document never silently differs from the
//! editor's. A change that cannot be applied (its range ends before it starts, or the
//! framework could not decode it: [`Msg::Lost`]) makes the document lost: its diagnostics
//! are withdrawn and requests about it are answered `ContentModified` until the editor sends
//! its whole text again (a change without a range, or `didOpen`).
//!
//! Architecture Invariant: nothing on the keystroke path is proportional to the file. Each
//! content change is applied to the document's rope and recorded as a byte-range edit
//! (found through the rope, O(log n)), and the database gets those edits
//! ([`AnalysisHost::edit_file`]), never the whole text; requests convert positions through
//! the rope of the text the snapshot holds ([`Doc::rope`]).

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use analysis::{Analysis, AnalysisHost, FileId, TextRange};
use ropey::Rope;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

use crate::convert::{self, Encoding};

/// Client settings (SPEC §10 initialization options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `tkgSeqlenThreshold`: 0 means the default (96).
    pub tkg_seqlen_threshold: u64,
    /// `inlayHints.enabled` (default true).
    pub inlay_hints: bool,
    /// `workspaceDiagnostics` (default false): whether the server announces
    /// `workspace/diagnostic`, which a client such as VS Code then pulls every few seconds
    /// for every `*.pir` file of the workspace (the request is answered either way).
    pub workspace_diagnostics: bool,
    /// `markdownTables` (default true): whether the client renders Markdown tables; when
    /// false, a hover's tables come as aligned text in a code block (Neovim 0.11 renders
    /// none: its plugin sets it false).
    pub markdown_tables: bool,
    /// Whether the client ends lines at `\n` only, a lone `\r` being a character of its
    /// line (Neovim): `lineEnds: "lf"` in the initialization options, or a client that
    /// names itself `Neovim` (`clientInfo`) unless `lineEnds` is `"lsp"`. Its positions
    /// count lines so (`convert::lf`; `docs/decisions.md`).
    pub lf_lines: bool,
    /// Whether the client runs VS Code's commands (its `clientInfo.name` holds `Code`: VS
    /// Code, code-server, VSCodium): a field's completion then asks for the values after
    /// it (`editor.action.triggerSuggest`), which other clients would send back to the
    /// server as an unknown command.
    pub vscode_commands: bool,
    /// Whether the client takes snippets in completions (its capabilities, not an option):
    /// an op class then comes with its required fields.
    pub snippets: bool,
    /// `target` (SPEC §4 [3], §10; default `trn2`).
    pub target: lower::target::Target,
    /// `inlayHints.cost` (default true): the cost suffix of the inlay hints (SPEC §10.2.9).
    pub inlay_cost: bool,
    /// `maxDocumentBytes` (default [`MAX_DOCUMENT_BYTES`]): the largest open document, in
    /// UTF-8 bytes, that is analysed ([`Doc::too_big`]).
    pub max_document_bytes: usize,
}

/// The default `maxDocumentBytes`: 32 MiB. An open document over it is kept in step with
/// the editor but not analysed: its one diagnostic says so, requests about it are answered
/// `ContentModified`, and it is analysed again once an edit brings it under the limit.
/// The analysis keeps about 1.6 KB per kernel besides the text (1,000,000 empty kernels,
/// 22 MB: 1.6 GB): a 200 MB document of one-line kernels took the server past 20 GB. At
/// this limit the worst case (empty kernels) stays near 2.5 GB, while the 100,000-op
/// benchmark file (19.6 MB) and a 160,000-op kernel written on one line (11.6 MB) are
/// analysed; VS Code sends an extension no document over 50 MB at all
/// (`docs/decisions.md`).
pub const MAX_DOCUMENT_BYTES: usize = 32 << 20;

impl Default for Config {
    fn default() -> Config {
        Config {
            tkg_seqlen_threshold: 0,
            inlay_hints: true,
            workspace_diagnostics: false,
            markdown_tables: true,
            lf_lines: false,
            vscode_commands: false,
            snippets: false,
            target: lower::target::Target::default(),
            inlay_cost: true,
            max_document_bytes: MAX_DOCUMENT_BYTES,
        }
    }
}

impl Config {
    /// Reads the initialization options: the settings, and a sentence for each value it
    /// cannot use (of a known key; that setting keeps its default). Unknown keys are
    /// ignored: they may be another tool's.
    pub fn from_options(options: Option<&serde_json::Value>) -> (Config, Vec<String>) {
        let mut config = Config::default();
        let problems = match options {
            Some(options) => config.apply(options),
            None => Vec::new(),
        };
        (config, problems)
    }

    /// Applies the settings `options` holds (the initialization options, or the `pir`
    /// section of `workspace/didChangeConfiguration` or `workspace/configuration`, SPEC §10
    /// [3]): each key present changes its setting, nested (`{"inlayHints": {"cost": …}}`)
    /// or dotted (`"inlayHints.cost"`); an absent key keeps its value. Returns a sentence
    /// for each value it cannot use (that setting keeps its value).
    pub fn apply(&mut self, options: &serde_json::Value) -> Vec<String> {
        let config = self;
        let mut problems = Vec::new();
        if let Some(target) = options.get("target") {
            match target.as_str().and_then(lower::target::Target::from_name) {
                Some(target) => config.target = target,
                None => problems.push(format!(
                    "`target` must be {}, not {target}; the target stays {}",
                    lower::target::Target::NAMES,
                    config.target
                )),
            }
        }
        let cost = options
            .get("inlayHints")
            .and_then(|h| h.get("cost"))
            .or_else(|| options.get("inlayHints.cost"));
        if let Some(cost) = cost {
            match cost.as_bool() {
                Some(cost) => config.inlay_cost = cost,
                None => problems.push(format!(
                    "`inlayHints.cost` must be true or false, not {cost}; it stays {}",
                    config.inlay_cost
                )),
            }
        }
        if let Some(t) = options.get("tkgSeqlenThreshold") {
            match t.as_u64() {
                Some(t) => config.tkg_seqlen_threshold = t,
                None => problems.push(format!(
                    "`tkgSeqlenThreshold` must be a whole number of tokens, not {t}; \
                     using the default (96)"
                )),
            }
        }
        let inlay = options
            .get("inlayHints")
            .and_then(|h| {
                if h.is_object() {
                    h.get("enabled")
                } else {
                    Some(h)
                }
            })
            .or_else(|| options.get("inlayHints.enabled"));
        if let Some(enabled) = inlay {
            match enabled.as_bool() {
                Some(enabled) => config.inlay_hints = enabled,
                None => problems.push(format!(
                    "`inlayHints.enabled` must be true or false, not {enabled}; \
                     inlay hints stay on"
                )),
            }
        }
        if let Some(enabled) = options.get("markdownTables") {
            match enabled.as_bool() {
                Some(enabled) => config.markdown_tables = enabled,
                None => problems.push(format!(
                    "`markdownTables` must be true or false, not {enabled}; hovers keep \
                     their Markdown tables"
                )),
            }
        }
        if let Some(ends) = options.get("lineEnds") {
            match ends.as_str() {
                Some("lf") => config.lf_lines = true,
                Some("lsp") => config.lf_lines = false,
                _ => problems.push(format!(
                    "`lineEnds` must be \"lf\" (lines end at `\\n` only, as in Neovim) or \
                     \"lsp\", not {ends}; lines end as LSP says"
                )),
            }
        }
        if let Some(max) = options.get("maxDocumentBytes") {
            match max.as_u64().and_then(|max| usize::try_from(max).ok()) {
                Some(max) => config.max_document_bytes = max,
                None => problems.push(format!(
                    "`maxDocumentBytes` must be a whole number of bytes, not {max}; it stays {}",
                    config.max_document_bytes
                )),
            }
        }
        if let Some(enabled) = options.get("workspaceDiagnostics") {
            match enabled.as_bool() {
                Some(enabled) => config.workspace_diagnostics = enabled,
                None => problems.push(format!(
                    "`workspaceDiagnostics` must be true or false, not {enabled}; \
                     workspace diagnostics stay off"
                )),
            }
        }
        problems
    }
}

/// An open document as requests see it.
#[derive(Clone, Debug)]
pub struct Doc {
    /// The analysis' file holding its text.
    pub file: FileId,
    /// The client's version of the text.
    pub version: i32,
    /// The URI as the client spelt it in `didOpen` (what answers about the document use).
    pub uri: Uri,
    /// The text the analysis snapshot holds (a clone shares the tree: O(1)), lines as LSP
    /// counts them: what converts the document's byte offsets to positions and back.
    pub rope: Rope,
    /// Its lone `\r`s (char indices, ascending) for a client that ends lines at `\n` only
    /// ([`Config::lf_lines`]; its positions then go through `convert::lf`), else empty.
    pub lone_crs: Vec<usize>,
    /// The server no longer knows the editor's text (a change could not be applied): no
    /// diagnostics, requests answered `ContentModified`, until the whole text comes again.
    pub lost: bool,
    /// The text is over [`Config::max_document_bytes`]: the database holds an empty text
    /// for it, its one diagnostic says why ([`crate::handlers::diagnostics`]), and requests
    /// about it are answered `ContentModified`, until an edit brings it under the limit.
    pub too_big: bool,
}

/// The key of the document `uri` names: URIs that name the same file give the same key
/// (`file:///C:/p/a.pir` and `file:///c%3A/p/a.pir`; `%C3%BC` and `%c3%bc`).
///
/// RFC 3986 §6.2.2 normalization (case of the scheme, host and percent-encodings; the
/// unreserved characters decoded; dot segments removed), and for `file:` URIs a
/// percent-encoded `:` decoded and a Windows drive letter in lower case, as VS Code
/// writes them. A URI that does not normalize is its own key.
pub fn document_key(uri: &Uri) -> Uri {
    let normalized = uri.normalize();
    let text = normalized.as_str();
    let Some(rest) = text.strip_prefix("file:") else {
        return Uri::from(normalized);
    };
    let rest = rest.replace("%3A", ":");
    let mut key = format!("file:{rest}");
    // `file:///C:/…` or `file:/C:/…`: the drive letter follows the path's first `/`.
    let path_start = match rest.strip_prefix("//") {
        Some(authority_and_path) => authority_and_path.find('/').map(|i| i + 2),
        None => Some(0),
    };
    if let Some(start) = path_start {
        let drive = rest.as_bytes().get(start + 1..start + 3);
        if let Some([letter, b':']) = drive
            && letter.is_ascii_alphabetic()
        {
            let at = "file:".len() + start + 1;
            key.replace_range(at..=at, &letter.to_ascii_lowercase().to_string());
        }
    }
    key.parse().unwrap_or_else(|_| Uri::from(normalized))
}

/// A consistent view for one request: a database handle and the open documents.
#[derive(Clone)]
pub struct Snapshot {
    /// The analysis as of this snapshot (cancelled by the next edit).
    pub analysis: Analysis,
    /// The open documents.
    pub docs: Arc<HashMap<Uri, Doc>>,
    /// The negotiated position encoding.
    pub encoding: Encoding,
    /// The client settings.
    pub config: Config,
}

/// Messages to the owner thread.
pub enum Msg {
    /// `didOpen`.
    Open {
        /// The document.
        uri: Uri,
        /// Its text.
        text: String,
        /// Its version.
        version: i32,
    },
    /// `didChange`: the changes apply in order.
    Change {
        /// The document.
        uri: Uri,
        /// The new version.
        version: i32,
        /// The content changes, in order.
        changes: Vec<TextDocumentContentChangeEvent>,
    },
    /// `didClose`.
    Close {
        /// The document.
        uri: Uri,
    },
    /// A `didChange` of `uri` that could not be applied (the transport could not decode it):
    /// the document is lost until its whole text comes again.
    Lost {
        /// The document.
        uri: Uri,
        /// Its version after the change, if known.
        version: Option<i32>,
    },
    /// The client settings changed (`workspace/didChangeConfiguration`): the new ones. A
    /// change of `target` or `tkgSeqlenThreshold` reports every open document again.
    Configure(Config),
    /// Panics on the document thread (`pir/debugPanicDocuments`, only with
    /// `PIR_LSP_DEBUG=1`): to test that the owner recovers.
    DebugPanic,
    /// A request wants a snapshot; `None` when an edit already queued behind the request
    /// makes its answer stale (answered with `ContentModified`).
    Snapshot(tokio::sync::oneshot::Sender<Option<Snapshot>>),
}

impl Msg {
    /// Whether this message changes a document.
    fn is_edit(&self) -> bool {
        !matches!(self, Msg::Snapshot(_) | Msg::DebugPanic)
    }

    /// The key of the document the message is about, if any.
    fn document(&self) -> Option<Uri> {
        match self {
            Msg::Open { uri, .. }
            | Msg::Change { uri, .. }
            | Msg::Close { uri }
            | Msg::Lost { uri, .. } => Some(document_key(uri)),
            Msg::Snapshot(_) | Msg::DebugPanic | Msg::Configure(_) => None,
        }
    }
}

/// What the owner tells the server.
pub enum Event {
    /// A document's diagnostics to publish or withdraw (boxed: a snapshot is big).
    Changed(Box<Changed>),
    /// A warning for the user (`window/showMessage`).
    Warn(String),
    /// Progress of opening a big document (`window/workDoneProgress`).
    Progress(Progress),
}

/// One step of the progress of opening a document of [`PROGRESS_FROM`] bytes or more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Names the progress (one per open).
    pub id: u64,
    /// What happens.
    pub step: ProgressStep,
}

/// A step of a [`Progress`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgressStep {
    /// Started: its title.
    Begin(String),
    /// Part done: the percentage and what happens now.
    Report(u32, String),
    /// Done.
    End(String),
}

/// The size from which opening a document reports progress (bytes): 1 MiB, a document
/// whose analysis takes long enough (tens of milliseconds to seconds) to be seen waiting.
pub const PROGRESS_FROM: usize = 1 << 20;

/// What the owner reports after each document event: publish (`Some` snapshot) or clear
/// (`None`) diagnostics of `uri`. `generation` grows with every event of the document, so
/// a stale report can be told from a fresh one.
pub struct Changed {
    /// The document.
    pub uri: Uri,
    /// The document's version, if open.
    pub version: Option<i32>,
    /// A snapshot to compute diagnostics on; `None` when the document was closed.
    pub snapshot: Option<Snapshot>,
    /// Monotonic per document.
    pub generation: u64,
    /// To settle once the diagnostics are published (or cannot be computed).
    pub report: Report,
}

/// A report of a document's diagnostics in flight, settled by whoever computes them. Any
/// write to the database cancels every snapshot, so a report can be cancelled by an edit
/// of another document, or by opening one, which report only themselves: after each write,
/// the owner reports again every document whose last report is not settled (`Changed`
/// says which is fresh), so that no open document is left without its diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Report(Arc<AtomicBool>);

impl Report {
    /// The diagnostics are published, or cannot be computed (a panic): no need to compute
    /// them again. A report whose computation was cancelled is left unsettled. Call it
    /// while the snapshot is alive: a write waits for the snapshot to be dropped, and then
    /// sees the report settled.
    pub fn settle(&self) {
        self.0.store(true, Ordering::Release);
    }

    fn is_settled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Lets the allocator give the system back the pages freed by an open or a close once
/// they are old enough, even if the server then sits idle. mimalloc (the `pir` binary's
/// allocator) returns a freed range only after a delay (1 s) and only when some thread
/// next allocates, frees a page or exits; an open's batches free hundreds of megabytes
/// of trees and lowerings, and an editor then often sends nothing for seconds. A thread
/// that waits out the delay, allocates and exits has the allocator visit every arena and
/// return what is due: at 100,000 ops, 15–20 MB less resident after opening. Costs one
/// sleeping thread per open or close; no unsafe call into the allocator.
fn return_freed_memory_soon() {
    /// mimalloc's `purge_delay` (1,000 ms), and a margin.
    const AFTER: std::time::Duration = std::time::Duration::from_millis(1_100);
    let _ = std::thread::Builder::new()
        .name("pir-return-memory".into())
        .spawn(|| {
            std::thread::sleep(AFTER);
            drop(std::hint::black_box(vec![0u8; 1 << 16]));
        });
}

/// Starts the owner thread; returns the channel to it.
pub fn spawn_owner(
    encoding: Encoding,
    config: Config,
    on_event: impl Fn(Event) + Send + 'static,
) -> mpsc::Sender<Msg> {
    let (tx, rx) = mpsc::channel::<Msg>();
    std::thread::Builder::new()
        .name("pir-documents".into())
        .spawn(move || {
            let mut owner = Owner {
                host: AnalysisHost::new().for_editor(),
                documents: HashMap::new(),
                docs: Arc::new(HashMap::new()),
                generations: HashMap::new(),
                reports: HashMap::new(),
                wrote: false,
                dirty: Vec::new(),
                closed: Vec::new(),
                opening: Vec::new(),
                next_progress: 0,
                encoding,
                config,
            };
            owner
                .host
                .set_tkg_seqlen_threshold(config.tkg_seqlen_threshold);
            owner.host.set_target(config.target);
            // Everything queued is handled as one batch: its edits are applied to the texts
            // one by one, but written to the database (which waits for the requests running
            // on the previous text to stop) and analysed once, and a request with edits
            // queued behind it is answered as stale at once instead of computed. Each
            // message, and the flush, is caught apart: a panic loses nothing of the rest.
            while let Ok(first) = rx.recv() {
                let mut batch: Vec<Msg> = std::iter::once(first).chain(rx.try_iter()).collect();
                let last_edit = batch.iter().rposition(Msg::is_edit);
                for (i, msg) in batch.drain(..).enumerate() {
                    let stale = last_edit.is_some_and(|last| i < last);
                    let about = msg.document();
                    let handled = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        owner.handle(msg, stale, &on_event);
                    }));
                    if let Err(payload) = handled {
                        owner.recover(&*payload, about, &on_event);
                    }
                }
                let flushed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    owner.flush(&on_event);
                }));
                if let Err(payload) = flushed {
                    owner.recover(&*payload, None, &on_event);
                }
            }
        })
        .expect("spawning the document thread");
    tx
}

/// A change to write to the database, in the order the client sent it.
enum Edit {
    /// The whole text (a change without a range, or `didOpen` of an open document).
    Full(String),
    /// The UTF-8 byte range `range` of the text before it (on char boundaries) replaced
    /// with `insert`.
    Range { range: TextRange, insert: String },
}

/// An open document as the owner keeps it.
struct Document {
    /// The text with every change received applied (ahead of the database until the next
    /// [`Owner::flush`]).
    rope: Rope,
    /// Its lone `\r`s, as [`Doc::lone_crs`].
    lone_crs: Vec<usize>,
    /// The changes received since the last flush, in order.
    edits: Vec<Edit>,
    /// Whether a flush analyses it at once when it is cold ([`AnalysisHost::warm`]): not
    /// after a rebuild (its text may be what panicked there), until a new whole text comes.
    warm: bool,
}

struct Owner {
    host: AnalysisHost,
    /// By [`document_key`], as are `docs` and `generations`.
    documents: HashMap<Uri, Document>,
    docs: Arc<HashMap<Uri, Doc>>,
    generations: HashMap<Uri, u64>,
    /// The last report of each open document.
    reports: HashMap<Uri, Report>,
    /// Whether the database was written since the last [`Owner::flush`] (which cancelled
    /// the snapshots of the reports in flight).
    wrote: bool,
    /// Documents opened or changed since their changes were last written to the database.
    dirty: Vec<Uri>,
    /// The database files of closed documents, emptied, for the next documents opened (so
    /// that opening and closing files does not grow the database).
    closed: Vec<FileId>,
    /// Big documents being opened, with the progress that reports it, until their flush.
    opening: Vec<(Uri, u64)>,
    /// The id of the next [`Progress`].
    next_progress: u64,
    encoding: Encoding,
    config: Config,
}

/// The message of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

impl Owner {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            analysis: self.host.snapshot(),
            docs: self.docs.clone(),
            encoding: self.encoding,
            config: self.config,
        }
    }

    fn next_generation(&mut self, uri: &Uri) -> u64 {
        let g = self.generations.entry(uri.clone()).or_insert(0);
        *g += 1;
        *g
    }

    /// Handles one message. Edits change the ropes at once and the database at the next
    /// [`Owner::flush`]; a `stale` snapshot request (an edit is queued behind it) gets `None`.
    fn handle(&mut self, msg: Msg, stale: bool, on_event: &impl Fn(Event)) {
        match msg {
            Msg::Open { uri, text, version } => {
                let key = document_key(&uri);
                if text.len() >= PROGRESS_FROM {
                    let id = self.next_progress;
                    self.next_progress += 1;
                    on_event(Event::Progress(Progress {
                        id,
                        step: ProgressStep::Begin(format!(
                            "Opening {} ({:.1} MB)",
                            file_name(&uri),
                            text.len() as f64 / 1e6
                        )),
                    }));
                    self.opening.push((key.clone(), id));
                }
                let rope = Rope::from_str(&text);
                let lone_crs = if self.config.lf_lines {
                    convert::lone_crs(&rope)
                } else {
                    Vec::new()
                };
                // A new file holds its text at once; an open one gets it at the flush.
                let (file, written, written_crs, edits) =
                    match (self.docs.get(&key), self.closed.pop()) {
                        (Some(doc), closed) => {
                            self.closed.extend(closed);
                            let (rope, crs) = (doc.rope.clone(), doc.lone_crs.clone());
                            (doc.file, rope, crs, vec![Edit::Full(text)])
                        }
                        // A closed document's file, empty: it gets the text at the flush.
                        (None, Some(file)) => {
                            (file, Rope::new(), Vec::new(), vec![Edit::Full(text)])
                        }
                        // Too big to analyse: the flush decides what the database holds.
                        (None, None) if text.len() > self.config.max_document_bytes => (
                            self.host.add_file(""),
                            rope.clone(),
                            lone_crs.clone(),
                            vec![Edit::Full(text)],
                        ),
                        (None, None) => (
                            self.host.add_file(&text),
                            rope.clone(),
                            lone_crs.clone(),
                            Vec::new(),
                        ),
                    };
                self.documents.insert(
                    key.clone(),
                    Document {
                        rope,
                        lone_crs,
                        edits,
                        warm: true,
                    },
                );
                let doc = Doc {
                    file,
                    version,
                    uri,
                    rope: written,
                    lone_crs: written_crs,
                    lost: false,
                    too_big: false,
                };
                Arc::make_mut(&mut self.docs).insert(key.clone(), doc);
                self.mark_dirty(key);
            }
            Msg::Change {
                uri,
                version,
                changes,
            } => {
                let key = document_key(&uri);
                let (Some(document), Some(doc)) = (
                    self.documents.get_mut(&key),
                    Arc::make_mut(&mut self.docs).get_mut(&key),
                ) else {
                    eprintln!(
                        "pir lsp: didChange for a document that is not open: {}",
                        uri.as_str()
                    );
                    return;
                };
                let mut lost = doc.lost;
                let mut skipped = 0;
                for change in changes {
                    if lost && change.range.is_some() {
                        // Of a text the server does not know: it cannot be applied.
                        skipped += 1;
                        continue;
                    }
                    let applied = if self.config.lf_lines {
                        convert::lf::apply_change(
                            &mut document.rope,
                            &mut document.lone_crs,
                            &change,
                            self.encoding,
                        )
                    } else {
                        convert::apply_change(&mut document.rope, &change, self.encoding)
                    };
                    match applied {
                        Ok(Some(range)) => document.edits.push(Edit::Range {
                            range,
                            insert: change.text,
                        }),
                        Ok(None) => {
                            // The whole text: what came before it is replaced too, and a
                            // lost document is known again.
                            document.edits.clear();
                            document.edits.push(Edit::Full(change.text));
                            document.warm = true;
                            lost = false;
                        }
                        Err(e) => {
                            eprintln!(
                                "pir lsp: a change of {} cannot be applied ({e}): its text \
                                 is unknown until the editor sends it whole",
                                uri.as_str()
                            );
                            lost = true;
                        }
                    }
                }
                if skipped > 0 {
                    eprintln!(
                        "pir lsp: {skipped} change(s) of {} ignored: its text is unknown until \
                         the editor sends it whole (close and reopen it)",
                        uri.as_str()
                    );
                }
                if version <= doc.version {
                    // LSP versions only grow; the change is applied all the same (the text
                    // is the client's), but a client that drops stale diagnostics by
                    // version may drop these.
                    eprintln!(
                        "pir lsp: didChange of {} has version {version}, not above {}",
                        uri.as_str(),
                        doc.version
                    );
                }
                doc.version = version;
                if lost && !doc.lost {
                    self.lose(&key);
                } else {
                    doc.lost = lost;
                }
                self.mark_dirty(key);
            }
            Msg::Close { uri } => {
                let key = document_key(&uri);
                self.documents.remove(&key);
                self.dirty.retain(|k| *k != key);
                self.end_progress(&key, on_event);
                let removed = Arc::make_mut(&mut self.docs).remove(&key);
                if let Some(doc) = &removed {
                    // Its text and trees are let go of; the file serves the next open.
                    self.host.set_file_text(doc.file, "");
                    return_freed_memory_soon();
                    self.wrote = true;
                    self.closed.push(doc.file);
                }
                self.reports.remove(&key);
                let uri = removed.map_or(uri, |doc| doc.uri);
                let generation = self.next_generation(&key);
                on_event(Event::Changed(Box::new(Changed {
                    uri,
                    version: None,
                    snapshot: None,
                    generation,
                    report: Report::default(),
                })));
            }
            Msg::Lost { uri, version } => {
                let key = document_key(&uri);
                if let Some(doc) = Arc::make_mut(&mut self.docs).get_mut(&key) {
                    doc.version = version.unwrap_or(doc.version);
                    self.lose(&key);
                    self.mark_dirty(key);
                }
            }
            Msg::Snapshot(reply) => {
                if stale {
                    let _ = reply.send(None);
                } else {
                    self.flush(on_event);
                    let _ = reply.send(Some(self.snapshot()));
                }
            }
            Msg::DebugPanic => panic!("requested by pir/debugPanicDocuments"),
            Msg::Configure(config) => {
                let old = self.config;
                self.config = config;
                if (old.target, old.tkg_seqlen_threshold, old.max_document_bytes)
                    != (
                        config.target,
                        config.tkg_seqlen_threshold,
                        config.max_document_bytes,
                    )
                {
                    self.host
                        .set_tkg_seqlen_threshold(config.tkg_seqlen_threshold);
                    self.host.set_target(config.target);
                    // Every open document is reported again (P304 and P416 follow the
                    // target; whether it is analysed, the limit): at the flush, as a
                    // document with no edit.
                    self.wrote = true;
                    let keys: Vec<Uri> = self.docs.keys().cloned().collect();
                    for key in keys {
                        if !self.dirty.contains(&key) {
                            self.dirty.push(key);
                        }
                    }
                }
            }
        }
    }

    /// Marks the open document `key` lost: its text is unknown from now on (the database
    /// gets an empty one at the next flush) until the editor sends it whole.
    fn lose(&mut self, key: &Uri) {
        if let Some(doc) = Arc::make_mut(&mut self.docs).get_mut(key) {
            doc.lost = true;
            doc.rope = Rope::new();
            doc.lone_crs.clear();
        }
        if let Some(document) = self.documents.get_mut(key) {
            document.rope = Rope::new();
            document.lone_crs.clear();
            document.edits = vec![Edit::Full(String::new())];
        }
    }

    fn mark_dirty(&mut self, key: Uri) {
        if !self.dirty.contains(&key) {
            self.dirty.push(key);
        }
    }

    /// Ends the progress of opening `key`, if one is running.
    fn end_progress(&mut self, key: &Uri, on_event: &impl Fn(Event)) {
        if let Some(i) = self.opening.iter().position(|(k, _)| k == key) {
            let (_, id) = self.opening.remove(i);
            on_event(Event::Progress(Progress {
                id,
                step: ProgressStep::End("analysed".into()),
            }));
        }
    }

    /// Writes the recorded changes to the database, in order (a byte-range edit each, the
    /// whole text only for a change without a range), gives the snapshot's document the
    /// rope of that text, and reports each document for diagnostics once all are written:
    /// the documents changed, and those whose last report a write cancelled ([`Report`]).
    fn flush(&mut self, on_event: &impl Fn(Event)) {
        let mut flushed = Vec::new();
        for key in std::mem::take(&mut self.dirty) {
            let (Some(document), Some(doc)) = (
                self.documents.get_mut(&key),
                Arc::make_mut(&mut self.docs).get_mut(&key),
            ) else {
                continue;
            };
            self.wrote = true;
            let too_big = document.rope.len_bytes() > self.config.max_document_bytes;
            if too_big {
                // Its text stays in the rope; the database lets go of it.
                document.edits.clear();
                if !doc.too_big {
                    self.host.set_file_text(doc.file, "");
                }
            } else if doc.too_big {
                // Under the limit again: the whole text, analysed as a new one.
                document.edits.clear();
                self.host
                    .set_file_text(doc.file, &document.rope.to_string());
            } else {
                for edit in document.edits.drain(..) {
                    match edit {
                        Edit::Full(text) => self.host.set_file_text(doc.file, &text),
                        Edit::Range { range, insert } => {
                            self.host.edit_file(doc.file, range, &insert);
                        }
                    }
                }
            }
            doc.too_big = too_big;
            doc.rope = document.rope.clone();
            doc.lone_crs.clone_from(&document.lone_crs);
            let file = doc.file;
            let warm = document.warm;
            if let Some(&(_, id)) = self.opening.iter().find(|(k, _)| *k == key) {
                on_event(Event::Progress(Progress {
                    id,
                    step: ProgressStep::Report(10, "analysing".into()),
                }));
            }
            // A document opened or given a whole new text is analysed here, on every core
            // and in batches that keep memory to a few of them (an edit is not: the next
            // diagnostics re-analyse its chunk alone).
            if warm && !too_big {
                self.host.warm(file);
                return_freed_memory_soon();
            }
            self.end_progress(&key, on_event);
            flushed.push(key);
        }
        if std::mem::take(&mut self.wrote) {
            let cancelled = self
                .reports
                .iter()
                .filter(|(key, report)| !report.is_settled() && !flushed.contains(key))
                .map(|(key, _)| key.clone())
                .collect::<Vec<_>>();
            flushed.extend(cancelled);
        }
        for key in flushed {
            self.changed(key, on_event);
        }
    }

    fn changed(&mut self, key: Uri, on_event: &impl Fn(Event)) {
        let generation = self.next_generation(&key);
        let Some(doc) = self.docs.get(&key) else {
            return;
        };
        let report = Report::default();
        // A lost document's diagnostics are withdrawn: there is no text to compute them on.
        let snapshot = (!doc.lost).then(|| self.snapshot());
        let (uri, version) = (doc.uri.clone(), doc.version);
        if snapshot.is_none() {
            report.settle();
        }
        self.reports.insert(key, report.clone());
        on_event(Event::Changed(Box::new(Changed {
            uri,
            version: Some(version),
            snapshot,
            generation,
            report,
        })));
    }

    /// After a panic on the document thread: the document the message was `about` is lost
    /// (its message may have been applied in part), the database is built again from the
    /// texts of the others, every document is reported again, and the user is told. If
    /// that panics too, the process exits (70, EX_SOFTWARE) for the client to restart it.
    fn recover(
        &mut self,
        payload: &(dyn std::any::Any + Send),
        about: Option<Uri>,
        on_event: &impl Fn(Event),
    ) {
        let message = panic_message(payload);
        eprintln!("pir lsp: the document thread panicked: {message}; rebuilding its analysis");
        let rebuilt = std::panic::catch_unwind(AssertUnwindSafe(|| {
            if let Some(key) = &about {
                self.lose(key);
            }
            self.rebuild();
            self.flush(on_event);
        }));
        if let Err(again) = rebuilt {
            eprintln!(
                "pir lsp: rebuilding the analysis panicked too ({}); exiting for the editor \
                 to restart the server",
                panic_message(&*again)
            );
            std::process::exit(70);
        }
        let lost = about
            .as_ref()
            .and_then(|key| self.docs.get(key))
            .filter(|doc| doc.lost)
            .map(|doc| {
                format!(
                    "; {} is out of step with the editor until it is sent whole again \
                     (close and reopen it)",
                    file_name(&doc.uri)
                )
            })
            .unwrap_or_default();
        on_event(Event::Warn(format!(
            "pir: an internal error ({message}); pir rebuilt its analysis of the {} open \
             document(s) from their texts{lost}",
            self.docs.len()
        )));
    }

    /// A new database holding the text of every open document (the lost ones empty), each
    /// reported at the next flush but not analysed there ([`Document::warm`]).
    fn rebuild(&mut self) {
        let mut host = AnalysisHost::new().for_editor();
        host.set_tkg_seqlen_threshold(self.config.tkg_seqlen_threshold);
        host.set_target(self.config.target);
        let docs = Arc::make_mut(&mut self.docs);
        let mut keys: Vec<Uri> = docs.keys().cloned().collect();
        keys.sort();
        for key in keys {
            let (Some(doc), Some(document)) = (docs.get_mut(&key), self.documents.get_mut(&key))
            else {
                continue;
            };
            let text = if doc.lost || doc.too_big {
                String::new()
            } else {
                document.rope.to_string()
            };
            doc.file = host.add_file(&text);
            doc.rope = document.rope.clone();
            doc.lone_crs.clone_from(&document.lone_crs);
            document.edits.clear();
            document.warm = false;
            if !self.dirty.contains(&key) {
                self.dirty.push(key);
            }
        }
        // The old database (it may be what panicked) is let go of; so are its snapshots'
        // reports, which the flush makes again.
        let old = std::mem::replace(&mut self.host, host);
        if std::panic::catch_unwind(AssertUnwindSafe(move || drop(old))).is_err() {
            eprintln!("pir lsp: dropping the old analysis panicked");
        }
        self.closed.clear();
        self.reports.clear();
        self.wrote = true;
    }
}

/// The last segment of a URI's path, for messages.
fn file_name(uri: &Uri) -> String {
    let path = uri.path().as_str();
    path.rsplit('/').next().unwrap_or(path).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::tests::{encoding, text};
    use proptest::prelude::*;
    use tower_lsp_server::ls_types::{Position, Range};

    fn key(uri: &str) -> String {
        document_key(&uri.parse().expect("a URI"))
            .as_str()
            .to_string()
    }

    #[test]
    fn spellings_of_one_file_have_one_key() {
        let same = [
            [
                "file:///C:/p/a.pir",
                "file:///c%3A/p/a.pir",
                "file:///c%3a/p/a.pir",
            ],
            [
                "file:///p/%C3%BC.pir",
                "file:///p/%c3%bc.pir",
                "FILE:///p/%C3%bc.pir",
            ],
            [
                "file:///p/a%2Db.pir",
                "file:///p/a-b.pir",
                "file:///p/./q/../a-b.pir",
            ],
        ];
        for spellings in same {
            let keys: Vec<String> = spellings.iter().map(|s| key(s)).collect();
            assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
        }
        assert_ne!(key("file:///p/a.pir"), key("file:///p/A.pir"));
        assert_ne!(key("file:///p/a%2Fb.pir"), key("file:///p/a/b.pir"));
        assert_eq!(key("untitled:Untitled-1"), "untitled:Untitled-1");
    }

    /// The byte offset of an edit's position in `text`, counted naively: lines end at
    /// `\n`, `\r\n` or a lone `\r`; a column past the line's end is its end, one inside a
    /// character that character's start; a line past the last one is the end of the text.
    fn naive_offset(text: &str, pos: Position, encoding: Encoding) -> usize {
        let mut line_start = 0;
        for _ in 0..pos.line {
            let rest = &text[line_start..];
            match rest.find(['\n', '\r']) {
                Some(i) if rest[i..].starts_with("\r\n") => line_start += i + 2,
                Some(i) => line_start += i + 1,
                None => return text.len(),
            }
        }
        let line = &text[line_start..];
        let line = &line[..line.find(['\n', '\r']).unwrap_or(line.len())];
        let mut units = 0;
        for (i, ch) in line.char_indices() {
            units += match encoding {
                Encoding::Utf8 => ch.len_utf8(),
                Encoding::Utf16 => ch.len_utf16(),
            };
            if units > pos.character as usize {
                return line_start + i;
            }
        }
        line_start + line.len()
    }

    /// One content change: a range of positions (ordered) and its text, or a whole text.
    fn change() -> impl Strategy<Value = TextDocumentContentChangeEvent> {
        let position =
            (0u32..8, 0u32..12).prop_map(|(line, character)| Position { line, character });
        prop_oneof![
            8 => (position.clone(), position, text()).prop_map(|(a, b, text)| {
                let (start, end) = if (a.line, a.character) <= (b.line, b.character) {
                    (a, b)
                } else {
                    (b, a)
                };
                TextDocumentContentChangeEvent {
                    range: Some(Range { start, end }),
                    range_length: None,
                    text,
                }
            }),
            1 => text().prop_map(|text| TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text,
            }),
        ]
    }

    proptest! {
        /// The owner's path (each change applied to the rope and recorded as a byte-range
        /// edit of the database) gives the analysis, and the snapshot's rope, the text that
        /// applying the changes to a `String` gives.
        #[test]
        fn ranged_changes_reach_the_analysis_as_applied_to_a_string(
            initial in text(),
            messages in prop::collection::vec(prop::collection::vec(change(), 1..4), 1..6),
            encoding in encoding(),
        ) {
            let owner = spawn_owner(encoding, Config::default(), |_| {});
            let uri: Uri = "file:///p/a.pir".parse().expect("a URI");
            owner
                .send(Msg::Open { uri: uri.clone(), text: initial.clone(), version: 0 })
                .expect("the owner runs");
            let mut expected = initial;
            for (version, changes) in messages.into_iter().enumerate() {
                for change in &changes {
                    match change.range {
                        Some(r) => {
                            let start = naive_offset(&expected, r.start, encoding);
                            let end = naive_offset(&expected, r.end, encoding);
                            expected.replace_range(start..end, &change.text);
                        }
                        None => expected.clone_from(&change.text),
                    }
                }
                owner
                    .send(Msg::Change { uri: uri.clone(), version: version as i32 + 1, changes })
                    .expect("the owner runs");
            }
            let (reply, answer) = tokio::sync::oneshot::channel();
            owner.send(Msg::Snapshot(reply)).expect("the owner runs");
            let snapshot = answer.blocking_recv().expect("an answer").expect("not stale");
            let doc = &snapshot.docs[&document_key(&uri)];
            prop_assert_eq!(snapshot.analysis.file_text(doc.file), expected.as_str());
            prop_assert_eq!(doc.rope.to_string(), expected);
        }
    }
}
