//! `pir lsp`: the language server over stdio (SPEC §10), on `tower-lsp-server`.
//!
//! The framework runs handlers concurrently. Document events go to the owner thread
//! ([`crate::state`]) in arrival order; requests take a snapshot from it (so they see every
//! earlier edit) and run on a blocking thread, where a panic is caught and answered with an
//! internal error, and a cancelled analysis is answered with `ContentModified`.
//!
//! The framework reads and writes stdio through [`crate::transport`], which answers
//! malformed messages itself (the framework would stop reading after one) and forwards the
//! rest.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

use crate::convert::Encoding;
use crate::handlers::{self, ShowBirParams};
use crate::state::{
    Changed, Config, Event, Msg, ProgressStep, Snapshot, document_key, panic_message, spawn_owner,
};
use crate::tokens::SentTokens;
use crate::transport::{
    self, LOST_CHANGE, LostChange, STASHED_CHANGE, STASHED_OPEN, Stash, Stashed, StashedOpen,
};
use crate::workspace::{self, Cancel, CancelOnDrop, Step, Workspace};

/// The server's state shared by the framework's handler tasks.
pub struct Backend {
    client: Client,
    owner: OnceLock<mpsc::Sender<Msg>>,
    shutdown: Arc<AtomicBool>,
    /// The workspace folders (or root) of `initialize` and what their files on disk gave:
    /// workspace symbols and diagnostics of the `*.pir` files that are not open.
    workspace: OnceLock<Arc<Workspace>>,
    /// Whether the client supports `window/workDoneProgress`.
    progress: OnceLock<bool>,
    /// The big `didOpen`s the transport kept out of the framework.
    stash: Stash,
    /// The last whole-document semantic tokens sent for each open document.
    sent_tokens: Arc<SentTokens>,
    /// The frames waiting for stdout: requests wait for room in it.
    output: Arc<transport::OutQueue>,
    /// The client settings as last applied (initialization options, then each
    /// `workspace/didChangeConfiguration`), and what the client declared it supports for
    /// changing them at run time.
    settings: Mutex<Config>,
    /// `workspace.configuration`, and the refreshes (diagnostics, code lens, inlay hints).
    client_can: OnceLock<ClientCan>,
}

/// What the client declared it supports, of what a settings change uses (SPEC §10 [3]).
#[derive(Clone, Copy, Debug, Default)]
struct ClientCan {
    configuration: bool,
    diagnostic_refresh: bool,
    code_lens_refresh: bool,
    inlay_hint_refresh: bool,
}

impl ClientCan {
    fn of(capabilities: &ClientCapabilities) -> ClientCan {
        let workspace = capabilities.workspace.as_ref();
        ClientCan {
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            diagnostic_refresh: workspace
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
            code_lens_refresh: workspace
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            inlay_hint_refresh: workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|i| i.refresh_support)
                .unwrap_or(false),
        }
    }
}

/// The LSP error for a request made stale by an edit.
pub(crate) fn content_modified() -> Error {
    Error {
        code: ErrorCode::ServerError(-32801),
        message: "content modified".into(),
        data: None,
    }
}

impl Backend {
    fn owner(&self) -> Result<&mpsc::Sender<Msg>> {
        self.owner.get().ok_or_else(Error::invalid_request)
    }

    fn send(&self, msg: Msg) {
        match self.owner.get() {
            Some(owner) => {
                if owner.send(msg).is_err() {
                    eprintln!("pir lsp: the document thread has stopped");
                }
            }
            None => eprintln!("pir lsp: a document event before initialize was ignored"),
        }
    }

    async fn snapshot(&self) -> Result<Snapshot> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.owner()?
            .send(Msg::Snapshot(tx))
            .map_err(|_| Error::internal_error())?;
        // A reply dropped unanswered: the owner panicked while handling the batch it came
        // in, and rebuilt its state; the request is stale, not failed.
        rx.await
            .map_err(|_| content_modified())?
            .ok_or_else(content_modified)
    }

    /// Runs `handler` on a fresh snapshot on a blocking thread; panics become internal
    /// errors (and are logged), cancellation becomes `ContentModified`.
    async fn run<T, F>(&self, name: &'static str, handler: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Snapshot) -> Result<T> + Send + 'static,
    {
        // No work while the client is not reading what was already answered.
        self.output.room().await;
        let snapshot = self.snapshot().await?;
        let joined = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| handler(&snapshot)))
        })
        .await;
        // Nor an answer handed on (the framework makes a JSON tree of it) until there is
        // room, one at a time.
        self.output.hand_over().await;
        match joined {
            Ok(Ok(result)) => result,
            Ok(Err(payload)) => {
                let message = panic_message(payload.as_ref());
                eprintln!("pir lsp: {name} panicked: {message}");
                Err(Error {
                    code: ErrorCode::InternalError,
                    message: format!("{name} failed: {message}").into(),
                    data: None,
                })
            }
            Err(e) => {
                eprintln!("pir lsp: {name} did not finish: {e}");
                Err(Error::internal_error())
            }
        }
    }

    /// Runs a pass over the files on disk (`work`, on a blocking thread, with no snapshot)
    /// and forwards its steps as they come: work-done progress on `work_token` (or one
    /// created, when the client supports it), partial results on `partial`. Answers once
    /// every step has been queued for the client.
    async fn pass<T: Send + 'static>(
        &self,
        title: &'static str,
        work_token: Option<ProgressToken>,
        partial: Option<ProgressToken>,
        work: impl FnOnce(&mut dyn FnMut(Step)) -> T + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Step>();
        let supported = self.progress.get().copied().unwrap_or(false);
        // The request's own token, or one the server creates when the client supports it.
        let token = match work_token {
            Some(token) => Some((token, false)),
            None => supported.then(|| {
                let n = PASSES.fetch_add(1, Ordering::Relaxed);
                (ProgressToken::String(format!("pir/workspace/{n}")), true)
            }),
        };
        let forwarder = tokio::spawn(forward_steps(
            self.client.clone(),
            title,
            token,
            partial,
            rx,
            Arc::clone(&self.output),
        ));
        let done = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                work(&mut |step| {
                    let _ = tx.send(step);
                })
            }))
        })
        .await;
        let _ = forwarder.await;
        match done {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(payload)) => {
                let message = panic_message(payload.as_ref());
                eprintln!("pir lsp: {title} panicked: {message}");
                Err(Error {
                    code: ErrorCode::InternalError,
                    message: format!("{title} failed: {message}").into(),
                    data: None,
                })
            }
            Err(e) => {
                eprintln!("pir lsp: {title} did not finish: {e}");
                Err(Error::internal_error())
            }
        }
    }

    /// Tells the user what a pass found they must hear of.
    async fn tell(&self, tell: workspace::Tell) {
        if let Some(message) = tell {
            self.client
                .show_message(MessageType::WARNING, message)
                .await;
        }
    }

    /// `pir/showBir`.
    async fn show_bir(&self, params: ShowBirParams) -> Result<serde_json::Value> {
        self.run("pir/showBir", move |s| handlers::show_bir(s, params))
            .await
    }

    /// `pir/profile`: the kernels' profile drawing as SVG (see [`handlers::profile`]).
    async fn profile(&self, params: handlers::ProfileParams) -> Result<serde_json::Value> {
        self.run("pir/profile", move |s| handlers::profile(s, params))
            .await
    }

    /// [`STASHED_OPEN`] and [`STASHED_CHANGE`]: a big `didOpen` or `didChange`, whose
    /// parameters the transport kept aside, handled as it came.
    async fn did_stashed(&self, params: StashedOpen) {
        match self.stash.take(params.id) {
            Some(Stashed::Open(open)) => self.did_open(open).await,
            Some(Stashed::Change(change)) => self.did_change(change).await,
            None => eprintln!(
                "pir lsp: {STASHED_OPEN}/{STASHED_CHANGE} {} names nothing kept aside",
                params.id
            ),
        }
    }

    /// [`LOST_CHANGE`]: a `didChange` the framework could not decode (the transport told the
    /// user): the document's text is unknown until it comes whole again.
    async fn did_change_lost(&self, params: LostChange) {
        self.send(Msg::Lost {
            uri: params.uri,
            version: params.version,
        });
    }

    /// `pir/debugPanicDocuments` (registered only with `PIR_LSP_DEBUG=1`): the document
    /// thread panics, to test that it recovers (`state::Owner::recover`).
    async fn debug_panic_documents(&self, _params: serde_json::Value) {
        self.send(Msg::DebugPanic);
    }

    /// `pir/debugPanic` (registered only with `PIR_LSP_DEBUG=1`): panics inside a request,
    /// to test that the server survives it.
    async fn debug_panic(&self, _params: serde_json::Value) -> Result<serde_json::Value> {
        self.run("pir/debugPanic", |_| -> Result<serde_json::Value> {
            panic!("requested by pir/debugPanic")
        })
        .await
    }
}

/// One document's diagnostics to publish: its version and the report's generation.
type Publish = (Option<i32>, u64, Vec<Diagnostic>);

/// The diagnostics waiting to be published: the latest of each document only, so a client
/// that reads slowly (or not at all) holds the server to one report per open document,
/// however many edits come meanwhile (an unbounded channel held every report since).
#[derive(Default)]
pub(crate) struct Publisher {
    waiting: Mutex<(HashMap<Uri, Publish>, std::collections::VecDeque<Uri>)>,
    ready: tokio::sync::Notify,
}

impl Publisher {
    /// Queues `uri`'s diagnostics, replacing any waiting ones of an older generation (a
    /// slow, stale computation never overwrites a newer result).
    fn send(&self, uri: Uri, version: Option<i32>, generation: u64, diagnostics: Vec<Diagnostic>) {
        let Ok(mut waiting) = self.waiting.lock() else {
            return;
        };
        let (reports, order) = &mut *waiting;
        match reports.get(&uri) {
            Some((_, newer, _)) if *newer > generation => return,
            Some(_) => {}
            None => order.push_back(uri.clone()),
        }
        reports.insert(uri, (version, generation, diagnostics));
        self.ready.notify_one();
    }

    fn take(&self) -> Option<(Uri, Publish)> {
        let mut waiting = self.waiting.lock().ok()?;
        let (reports, order) = &mut *waiting;
        let uri = order.pop_front()?;
        let report = reports.remove(&uri)?;
        Some((uri, report))
    }
}

/// Publishes diagnostics in the order the owner reported changes, dropping reports older
/// than the latest one of the same document (so a slow, stale computation can never
/// overwrite a newer result or resurrect a closed document's diagnostics). Each
/// `publishDiagnostics` is serialized once, straight onto `output`
/// ([`transport::OutQueue::notify`]), not through the framework.
fn spawn_publisher(output: Arc<transport::OutQueue>) -> Arc<Publisher> {
    let publisher = Arc::new(Publisher::default());
    let waiting = Arc::clone(&publisher);
    tokio::spawn(async move {
        let mut latest: HashMap<Uri, u64> = HashMap::new();
        loop {
            while let Some((uri, (version, generation, diagnostics))) = waiting.take() {
                let seen = latest.entry(uri.clone()).or_insert(0);
                if generation < *seen {
                    continue;
                }
                *seen = generation;
                let params = PublishDiagnosticsParams::new(uri, diagnostics, version);
                if let Err(e) = output
                    .notify("textDocument/publishDiagnostics", &params)
                    .await
                {
                    eprintln!("pir lsp: diagnostics not published: {e}");
                    return;
                }
            }
            waiting.ready.notified().await;
        }
    });
    publisher
}

/// Reports the progress of opening big documents (`state::Progress`) to a client that
/// supports `window/workDoneProgress`, in the order the owner sends the steps: a token
/// created (`window/workDoneProgress/create`) for each, then begin, report and end.
fn spawn_open_progress(
    client: Client,
    supported: bool,
) -> tokio::sync::mpsc::UnboundedSender<crate::state::Progress> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<crate::state::Progress>();
    tokio::spawn(async move {
        let mut running: HashMap<u64, ProgressToken> = HashMap::new();
        while let Some(progress) = rx.recv().await {
            if !supported {
                continue;
            }
            match progress.step {
                ProgressStep::Begin(title) => {
                    let token = ProgressToken::String(format!("pir/open/{}", progress.id));
                    if create_progress(&client, token.clone()).await {
                        send_progress(&client, &token, begin(title)).await;
                        running.insert(progress.id, token);
                    }
                }
                ProgressStep::Report(percentage, message) => {
                    if let Some(token) = running.get(&progress.id) {
                        send_progress(&client, token, report(percentage, message)).await;
                    }
                }
                ProgressStep::End(message) => {
                    if let Some(token) = running.remove(&progress.id) {
                        send_progress(&client, &token, end(message)).await;
                    }
                }
            }
        }
    });
    tx
}

/// The open documents as a pass over the disk needs them (their keys), and the settings.
struct Open {
    keys: std::collections::HashSet<Uri>,
    encoding: Encoding,
    threshold: u64,
}

impl Open {
    fn of(snapshot: &Snapshot) -> Open {
        Open {
            keys: snapshot.docs.keys().cloned().collect(),
            encoding: snapshot.encoding,
            threshold: snapshot.config.tkg_seqlen_threshold,
        }
    }

    fn context<'a>(&'a self, cancel: &'a Cancel) -> workspace::Context<'a> {
        workspace::Context {
            open: &self.keys,
            encoding: self.encoding,
            threshold: self.threshold,
            cancel,
        }
    }
}

/// Numbers the progress tokens of passes.
static PASSES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// `$/progress` carrying a partial result (`ls_types` knows only work-done progress).
enum PartialResult {}

impl notification::Notification for PartialResult {
    type Params = serde_json::Value;
    const METHOD: &'static str = "$/progress";
}

/// Forwards a pass's steps: work-done progress on `work` (a token, and whether it must be
/// created first), begun at the first progress step and ended when the pass ends;
/// reports as partial results on `partial`. Returns once all it sent is queued.
async fn forward_steps(
    client: Client,
    title: &'static str,
    work: Option<(ProgressToken, bool)>,
    partial: Option<ProgressToken>,
    mut steps: tokio::sync::mpsc::UnboundedReceiver<Step>,
    output: Arc<transport::OutQueue>,
) {
    let base = output.progress_queued();
    let mut sent = 0u64;
    let mut begun: Option<ProgressToken> = None;
    let mut tried = false;
    let mut last = None;
    while let Some(step) = steps.recv().await {
        match step {
            Step::Progress(percentage, message) => {
                if !tried {
                    tried = true;
                    if let Some((token, create)) = &work
                        && (!create || create_progress(&client, token.clone()).await)
                    {
                        send_progress(&client, token, begin(title.to_string())).await;
                        sent += 1;
                        begun = Some(token.clone());
                    }
                }
                if let Some(token) = &begun
                    && last != Some(percentage)
                {
                    last = Some(percentage);
                    send_progress(&client, token, report(percentage, message)).await;
                    sent += 1;
                }
            }
            Step::Reports(items) => {
                if let Some(token) = &partial {
                    let value = serde_json::json!({"token": token, "value": {"items": items}});
                    client.send_notification::<PartialResult>(value).await;
                    sent += 1;
                }
            }
        }
    }
    if let Some(token) = begun {
        send_progress(&client, &token, end("done".into())).await;
        sent += 1;
    }
    output.progress_reached(base + sent).await;
}

/// How long the client has to answer `window/workDoneProgress/create`.
const PROGRESS_CREATE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Asks the client to create the progress `token`; whether it did in time.
pub(crate) async fn create_progress(client: &Client, token: ProgressToken) -> bool {
    matches!(
        tokio::time::timeout(
            PROGRESS_CREATE_TIMEOUT,
            client.create_work_done_progress(token)
        )
        .await,
        Ok(Ok(()))
    )
}

/// Sends one `$/progress` of a work-done progress.
pub(crate) async fn send_progress(client: &Client, token: &ProgressToken, step: WorkDoneProgress) {
    client
        .send_notification::<notification::Progress>(ProgressParams {
            token: token.clone(),
            value: ProgressParamsValue::WorkDone(step),
        })
        .await;
}

/// A progress's begin, at 0%.
pub(crate) fn begin(title: String) -> WorkDoneProgress {
    WorkDoneProgress::Begin(WorkDoneProgressBegin {
        title,
        cancellable: Some(false),
        message: None,
        percentage: Some(0),
    })
}

/// A progress's report.
pub(crate) fn report(percentage: u32, message: String) -> WorkDoneProgress {
    WorkDoneProgress::Report(WorkDoneProgressReport {
        cancellable: Some(false),
        message: Some(message),
        percentage: Some(percentage.min(100)),
    })
}

/// A progress's end.
pub(crate) fn end(message: String) -> WorkDoneProgress {
    WorkDoneProgress::End(WorkDoneProgressEnd {
        message: Some(message),
    })
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = Encoding::negotiate(&params.capabilities);
        // A client that pulls diagnostics (`textDocument/diagnostic`) would show pushed ones
        // a second time (VS Code and Neovim keep the two apart), so push only to the others.
        let push = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.diagnostic.as_ref())
            .is_none();
        let (mut config, problems) = Config::from_options(params.initialization_options.as_ref());
        // Neovim ends lines at `\n` only: its positions count lines so, unless it says
        // otherwise (`lineEnds`).
        let says = params
            .initialization_options
            .as_ref()
            .is_some_and(|o| o.get("lineEnds").is_some());
        if !says
            && params
                .client_info
                .as_ref()
                .is_some_and(|c| c.name == "Neovim")
        {
            config.lf_lines = true;
        }
        config.vscode_commands = params
            .client_info
            .as_ref()
            .is_some_and(|c| c.name.contains("Code") || c.name.contains("code-server"));
        config.snippets = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        let _ = self.client_can.set(ClientCan::of(&params.capabilities));
        if let Ok(mut settings) = self.settings.lock() {
            *settings = config;
        }
        for problem in problems {
            // Allowed during initialize (LSP 3.17): the user sees why a setting is not used.
            eprintln!("pir lsp: initialization options: {problem}");
            self.client
                .show_message(MessageType::WARNING, format!("pir: {problem}"))
                .await;
        }
        #[allow(deprecated)]
        let root_uri = params.root_uri.clone();
        let roots: Vec<std::path::PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .map(|f| f.uri.clone())
            .chain(root_uri)
            .filter(|uri| uri.scheme().as_str() == "file")
            .filter_map(|uri| uri.to_file_path().map(std::borrow::Cow::into_owned))
            .collect();
        let _ = self.workspace.set(Arc::new(Workspace::new(roots)));
        let publisher = spawn_publisher(Arc::clone(&self.output));
        let runtime = tokio::runtime::Handle::current();
        let progress = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        let _ = self.progress.set(progress);
        let progress = Mutex::new(spawn_open_progress(self.client.clone(), progress));
        let client = self.client.clone();
        let owner = spawn_owner(encoding, config, move |event: Event| {
            let changed = match event {
                Event::Changed(changed) => *changed,
                Event::Warn(message) => {
                    let client = client.clone();
                    runtime.spawn(async move {
                        client.show_message(MessageType::WARNING, message).await;
                    });
                    return;
                }
                Event::Progress(step) => {
                    if let Ok(progress) = progress.lock() {
                        let _ = progress.send(step);
                    }
                    return;
                }
            };
            let Changed {
                uri,
                version,
                snapshot,
                generation,
                report,
            } = changed;
            if !push {
                report.settle();
                return;
            }
            let publisher = Arc::clone(&publisher);
            // Closed (no version) or lost: the diagnostics are withdrawn.
            let Some(snapshot) = snapshot else {
                publisher.send(uri, version, generation, Vec::new());
                return;
            };
            runtime.spawn_blocking(move || {
                let computed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    handlers::diagnostics(&snapshot, &uri)
                }));
                match computed {
                    // Sent while the snapshot is alive: a later edit waits for it, so
                    // reports reach the publisher in edit order.
                    Ok(Ok(diagnostics)) => {
                        publisher.send(uri, version, generation, diagnostics);
                    }
                    // Cancelled by a write: the owner reports the document again (unsettled).
                    Ok(Err(e)) if e.code == content_modified().code => return,
                    // An invalid request.
                    Ok(Err(_)) => {}
                    Err(payload) => eprintln!(
                        "pir lsp: diagnostics panicked: {}",
                        panic_message(payload.as_ref())
                    ),
                }
                report.settle();
                drop(snapshot);
            });
        });
        if self.owner.set(owner).is_err() {
            return Err(Error::invalid_request());
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding.kind()),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                inlay_hint_provider: Some(OneOf::Left(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                diagnostic_provider: Some(DiagnosticServerCapabilities::Options(
                    DiagnosticOptions {
                        identifier: Some("pir".into()),
                        inter_file_dependencies: false,
                        workspace_diagnostics: config.workspace_diagnostics,
                        work_done_progress_options: WorkDoneProgressOptions::default(),
                    },
                )),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                document_highlight_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                })),
                document_symbol_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                // `,` and a space: an op body's fields come after `{ ` and after each field,
                // without asking (VS Code shows nothing for an empty answer). Not `{` itself:
                // Enter right after it must start a new line, and a list shown there took
                // the Enter (VS Code accepts a suggestion on Enter), writing an op into a
                // kernel's new body.
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(
                        ["%", "=", ":", "[", ",", " "].map(String::from).to_vec(),
                    ),
                    ..CompletionOptions::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(["{", ",", "="].map(String::from).to_vec()),
                    retrigger_characters: Some(vec![" ".into()]),
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                semantic_tokens_provider: Some(
                    SemanticTokensServerCapabilities::SemanticTokensOptions(
                        SemanticTokensOptions {
                            legend: handlers::semantic_tokens_legend(),
                            full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                            range: Some(true),
                            work_done_progress_options: WorkDoneProgressOptions::default(),
                        },
                    ),
                ),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..CodeActionOptions::default()
                    },
                )),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec!["pir.showBir".into()],
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "pir".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.sent_tokens.open(document_key(&doc.uri));
        self.send(Msg::Open {
            uri: doc.uri,
            text: doc.text,
            version: doc.version,
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // A range that ends before it starts cannot be applied (the document thread logs it
        // and goes on): the editor's text and pir's differ from then on, so say so (after
        // handing the change on: nothing may come between two changes).
        let reversed = params.content_changes.iter().find_map(|c| {
            let r = c.range?;
            let key = |p: Position| (p.line, p.character);
            (key(r.end) < key(r.start)).then_some(r)
        });
        let warning = reversed.map(|r| {
            format!(
                "pir: a change to {} ends ({}:{}) before it starts ({}:{}) and was not \
                 applied: pir no longer knows the document's text, so it withdraws its \
                 diagnostics and answers no request about it until the editor sends the \
                 whole text again (close and reopen the file)",
                params.text_document.uri.as_str(),
                r.end.line + 1,
                r.end.character + 1,
                r.start.line + 1,
                r.start.character + 1,
            )
        });
        self.send(Msg::Change {
            uri: params.text_document.uri,
            version: params.text_document.version,
            changes: params.content_changes,
        });
        if let Some(warning) = warning {
            self.client
                .show_message(MessageType::WARNING, warning)
                .await;
        }
    }

    /// `workspace/didChangeConfiguration` (SPEC §10 [3]): the keys of `settings.pir` change
    /// their settings; without a `pir` object (VS Code's pull model sends `null`), the
    /// section `pir` is asked for with `workspace/configuration` when the client supports
    /// it. An invalid value is reported once and leaves its setting as it was. After a
    /// change of the target every open document is diagnosed again and the client asked
    /// to refresh its diagnostics, code lenses and inlay hints; no restart.
    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let can = self.client_can.get().copied().unwrap_or_default();
        let section = match params.settings.get("pir").filter(|s| s.is_object()) {
            Some(section) => Some(section.clone()),
            None if can.configuration => self
                .client
                .configuration(vec![ConfigurationItem {
                    scope_uri: None,
                    section: Some("pir".into()),
                }])
                .await
                .ok()
                .and_then(|answers| answers.into_iter().next())
                .filter(serde_json::Value::is_object),
            None => None,
        };
        let Some(section) = section else {
            return;
        };
        let (old, new, problems) = {
            let Ok(mut settings) = self.settings.lock() else {
                return;
            };
            let old = *settings;
            let problems = settings.apply(&section);
            (old, *settings, problems)
        };
        for problem in problems {
            self.client
                .show_message(MessageType::WARNING, format!("pir: {problem}"))
                .await;
        }
        if new == old {
            return;
        }
        self.send(Msg::Configure(new));
        if new.target != old.target
            || new.tkg_seqlen_threshold != old.tkg_seqlen_threshold
            || new.inlay_cost != old.inlay_cost
            || new.inlay_hints != old.inlay_hints
            || new.max_document_bytes != old.max_document_bytes
        {
            // Not awaited here: a client that does not answer must not hold up the next
            // notification.
            let client = self.client.clone();
            tokio::spawn(async move {
                if can.diagnostic_refresh {
                    let _ = client.workspace_diagnostic_refresh().await;
                }
                if can.code_lens_refresh {
                    let _ = client.code_lens_refresh().await;
                }
                if can.inlay_hint_refresh {
                    let _ = client.inlay_hint_refresh().await;
                }
            });
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.sent_tokens
            .close(&document_key(&params.text_document.uri));
        self.send(Msg::Close {
            uri: params.text_document.uri,
        });
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        self.run("hover", move |s| handlers::hover(s, params)).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.run("inlayHint", move |s| handlers::inlay_hints(s, params))
            .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.run("codeLens", move |s| handlers::code_lenses(s, params))
            .await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        self.run("diagnostic", move |s| handlers::pull_diagnostics(s, params))
            .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.run("definition", move |s| handlers::definition(s, params))
            .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.run("references", move |s| handlers::references(s, params))
            .await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        self.run("documentHighlight", move |s| {
            handlers::document_highlight(s, params)
        })
        .await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        self.run("prepareRename", move |s| {
            handlers::prepare_rename(s, params)
        })
        .await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        self.run("rename", move |s| handlers::rename(s, params))
            .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.run("documentSymbol", move |s| {
            handlers::document_symbols(s, params)
        })
        .await
    }

    /// `workspace/symbol`: the open documents' symbols on a snapshot, then (the snapshot let
    /// go of) those of the files on disk, read on a blocking thread, cancellable between
    /// files, with progress while files are read.
    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let cancel = CancelOnDrop(Cancel::default());
        let query = params.query.clone();
        let (mut symbols, open) = self
            .run("workspace/symbol", move |s| {
                Ok((handlers::open_workspace_symbols(s, &query)?, Open::of(s)))
            })
            .await?;
        let Some(ws) = self.workspace.get().cloned() else {
            return Ok(Some(WorkspaceSymbolResponse::Flat(symbols)));
        };
        let flag = cancel.0.clone();
        let query = params.query;
        let (disk, tell) = self
            .pass(
                "Reading the workspace's symbols",
                params.work_done_progress_params.work_done_token,
                None,
                move |step| {
                    let context = open.context(&flag);
                    ws.symbols(&query, &context, step)
                },
            )
            .await?;
        self.tell(tell).await;
        symbols.extend(disk);
        Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
    }

    /// `workspace/diagnostic` (pull): a report for every `*.pir` file of the workspace
    /// folders — the open ones from their live text, the others from disk — each
    /// `unchanged` when the client's result id is still right; streamed as partial results
    /// when the client gives a token for them; cancellable between files; with progress
    /// while files are read.
    async fn workspace_diagnostic(
        &self,
        params: WorkspaceDiagnosticParams,
    ) -> Result<WorkspaceDiagnosticReportResult> {
        let cancel = CancelOnDrop(Cancel::default());
        let previous: HashMap<String, String> = params
            .previous_result_ids
            .iter()
            .map(|p| (document_key(&p.uri).as_str().to_string(), p.value.clone()))
            .collect();
        let Some(ws) = self.workspace.get().cloned() else {
            return Ok(WorkspaceDiagnosticReportResult::Report(
                WorkspaceDiagnosticReport { items: Vec::new() },
            ));
        };
        let roots = ws.roots().to_vec();
        let previous = Arc::new(previous);
        let before = Arc::clone(&previous);
        let (open_reports, open) = self
            .run("workspace/diagnostic", move |s| {
                Ok((
                    handlers::open_workspace_reports(s, &roots, &before)?,
                    Open::of(s),
                ))
            })
            .await?;
        let partial = params.partial_result_params.partial_result_token;
        let flag = cancel.0.clone();
        let first = open_reports.clone();
        let (disk, tell) = self
            .pass(
                "Checking the workspace",
                params.work_done_progress_params.work_done_token,
                partial.clone(),
                move |step| {
                    if !first.is_empty() {
                        step(Step::Reports(first));
                    }
                    let context = open.context(&flag);
                    ws.diagnostics(&context, &previous, step)
                },
            )
            .await?;
        self.tell(tell).await;
        let items = if partial.is_some() {
            // Every report went as a partial result: the answer adds none (LSP 3.17).
            Vec::new()
        } else {
            open_reports.into_iter().chain(disk).collect()
        };
        Ok(WorkspaceDiagnosticReportResult::Report(
            WorkspaceDiagnosticReport { items },
        ))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        self.run("completion", move |s| handlers::completion(s, params))
            .await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        self.run("signatureHelp", move |s| {
            handlers::signature_help(s, params)
        })
        .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        let sent = Arc::clone(&self.sent_tokens);
        self.run("semanticTokens/full", move |s| {
            handlers::semantic_tokens(s, params, &sent)
        })
        .await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let sent = Arc::clone(&self.sent_tokens);
        self.run("semanticTokens/full/delta", move |s| {
            handlers::semantic_tokens_delta(s, params, &sent)
        })
        .await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        self.run("semanticTokens/range", move |s| {
            handlers::semantic_tokens_range(s, params)
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.run("codeAction", move |s| handlers::code_actions(s, params))
            .await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.run("formatting", move |s| handlers::formatting(s, params))
            .await
    }

    async fn range_formatting(
        &self,
        params: DocumentRangeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        self.run("rangeFormatting", move |s| {
            handlers::range_formatting(s, params)
        })
        .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.run("foldingRange", move |s| handlers::folding_ranges(s, params))
            .await
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        self.run("selectionRange", move |s| {
            handlers::selection_ranges(s, params)
        })
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command != "pir.showBir" {
            return Err(Error::invalid_params(format!(
                "unknown command {}",
                params.command
            )));
        }
        let argument = params.arguments.into_iter().next().unwrap_or_default();
        let show: ShowBirParams =
            serde_json::from_value(argument).map_err(|e| Error::invalid_params(e.to_string()))?;
        self.show_bir(show).await.map(Some)
    }
}

/// Serves LSP on stdin/stdout until `exit` or the end of stdin. Returns the process exit
/// code: 0 when `shutdown` came first, 1 otherwise (LSP 3.17 `exit`).
pub fn run() -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pir lsp: {e}");
            return 2;
        }
    };
    // Between stdio and the framework, so that a malformed message cannot end the session.
    let (input, output, stdio) = match transport::stdio() {
        Ok(parts) => parts,
        Err(e) => {
            eprintln!("pir lsp: {e}");
            return 2;
        }
    };
    let shutdown = Arc::new(AtomicBool::new(false));
    let flag = shutdown.clone();
    let stash = stdio.stash.clone();
    let requested = Arc::clone(&stdio.shutdown);
    let queue = stdio.output();
    runtime.block_on(async move {
        let mut builder = LspService::build(move |client| Backend {
            client,
            owner: OnceLock::new(),
            shutdown: flag,
            workspace: OnceLock::new(),
            progress: OnceLock::new(),
            sent_tokens: Arc::default(),
            stash,
            output: queue,
            settings: Mutex::new(Config::default()),
            client_can: OnceLock::new(),
        })
        .custom_method("pir/showBir", Backend::show_bir)
        .custom_method("pir/profile", Backend::profile)
        .custom_method(STASHED_OPEN, Backend::did_stashed)
        .custom_method(STASHED_CHANGE, Backend::did_stashed)
        .custom_method(LOST_CHANGE, Backend::did_change_lost);
        if std::env::var_os("PIR_LSP_DEBUG").is_some_and(|v| v == "1") {
            builder = builder
                .custom_method("pir/debugPanic", Backend::debug_panic)
                .custom_method("pir/debugPanicDocuments", Backend::debug_panic_documents);
        }
        let (service, socket) = builder.finish();
        Server::new(input, output, socket).serve(service).await;
    });
    // The framework's last responses (to `shutdown`, say) must reach the client.
    stdio.finish();
    // Blocking tasks (a diagnostics computation) must not keep the process alive.
    runtime.shutdown_background();
    // 0 when a `shutdown` came before the end, whether or not the framework answered it.
    if shutdown.load(Ordering::SeqCst) || requested.requested() {
        0
    } else {
        1
    }
}
