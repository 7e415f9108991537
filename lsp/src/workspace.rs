//! The `*.pir` files of the workspace folders that are not open in the editor: their
//! symbols (`workspace/symbol`) and diagnostics (`workspace/diagnostic`), read from disk.
//!
//! Architecture Invariant: the disk is never on the path of an edit or of a request about
//! an open document, and never blocks. The files are found by [`crate::files::walk`]
//! (regular files only, links followed inside the folders, each folder once, capped) and
//! read by [`crate::files::read_regular`] (without blocking, at most [`MAX_DISK_FILE`]
//! bytes), on a blocking thread, with no analysis snapshot held (the open documents'
//! answers are computed first, on a snapshot, which is then let go of), checking for
//! cancellation between files. They are analysed in a database of their own ([`Disk`]),
//! never the document thread's, one file at a time, each emptied after it. What each file
//! gave is kept by its modification time and length ([`crate::files::Stamp`]), so a pass
//! over unchanged files reads nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use analysis::{AnalysisHost, FileId};
use ropey::Rope;
use tower_lsp_server::ls_types::{self as lsp, Location, Uri};

use crate::convert::{self, Encoding};
use crate::files::{self, Found, Stamp};
use crate::handlers;
use crate::state::document_key;

/// The largest file read from disk: 32 MiB (a 100,000-op file is 20 MB). A bigger one is
/// left out, with a log line: analysing it takes seconds and hundreds of megabytes, for a
/// file the user has not opened.
pub const MAX_DISK_FILE: u64 = 32 << 20;

/// A flag a request's work checks between files; set when the request is cancelled (its
/// future dropped: see [`CancelOnDrop`]).
#[derive(Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Whether the work should stop.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Sets its [`Cancel`] when dropped: held by the request's future, which the framework
/// drops on `$/cancelRequest`.
pub struct CancelOnDrop(pub Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        (self.0).0.store(true, Ordering::Relaxed);
    }
}

/// What a pass tells the client as it goes.
pub enum Step {
    /// Files read so far: the percentage of the files to read, and a message. The first
    /// step of a pass that reads anything (a pass over unchanged files reports nothing).
    Progress(u32, String),
    /// Workspace-diagnostic reports ready to stream (partial results).
    Reports(Vec<lsp::WorkspaceDocumentDiagnosticReport>),
}

/// One file's workspace diagnostics as last computed.
struct Report {
    stamp: Stamp,
    result_id: String,
    items: Arc<Vec<lsp::Diagnostic>>,
}

/// One file's workspace symbols (all of them: a query filters them) as last read.
struct Symbols {
    stamp: Stamp,
    symbols: Arc<Vec<lsp::SymbolInformation>>,
}

/// The database the files on disk are analysed in: one file at a time, in one slot.
struct Disk {
    host: AnalysisHost,
    slot: Option<FileId>,
    threshold: u64,
}

impl Disk {
    /// Runs `f` on `text` analysed (`warm`: every chunk, in batches) or not, then empties
    /// the slot (the text and its trees are let go of).
    fn with<T>(
        &mut self,
        text: &str,
        threshold: u64,
        warm: bool,
        f: impl FnOnce(&analysis::Analysis, FileId) -> T,
    ) -> T {
        if threshold != self.threshold {
            self.host.set_tkg_seqlen_threshold(threshold);
            self.threshold = threshold;
        }
        let file = match self.slot {
            Some(file) => {
                self.host.set_file_text(file, text);
                file
            }
            None => {
                let file = self.host.add_file(text);
                self.slot = Some(file);
                file
            }
        };
        if warm {
            self.host.warm(file);
        }
        let snapshot = self.host.snapshot();
        let answer = f(&snapshot, file);
        drop(snapshot);
        self.host.set_file_text(file, "");
        answer
    }
}

/// The workspace folders and what their files gave.
pub struct Workspace {
    roots: Vec<PathBuf>,
    disk: Mutex<Disk>,
    reports: Mutex<HashMap<PathBuf, Report>>,
    symbols: Mutex<HashMap<PathBuf, Symbols>>,
    /// The log lines written once already (a pass runs every few seconds).
    logged: Mutex<HashSet<String>>,
    /// Whether the user was told of a walk's limit.
    told_cap: AtomicBool,
}

/// What a pass needs to know of the server.
pub struct Context<'a> {
    /// The keys ([`document_key`]) of the open documents: answered from their live text.
    pub open: &'a HashSet<Uri>,
    /// The position encoding.
    pub encoding: Encoding,
    /// `tkgSeqlenThreshold`.
    pub threshold: u64,
    /// Checked between files.
    pub cancel: &'a Cancel,
}

/// What a pass found that the user must hear of: a walk's limit, the first time.
pub type Tell = Option<String>;

impl Workspace {
    /// The workspace of the folders `roots`.
    pub fn new(roots: Vec<PathBuf>) -> Workspace {
        Workspace {
            roots,
            disk: Mutex::new(Disk {
                host: AnalysisHost::new(),
                slot: None,
                threshold: 0,
            }),
            reports: Mutex::default(),
            symbols: Mutex::default(),
            logged: Mutex::default(),
            told_cap: AtomicBool::new(false),
        }
    }

    /// The workspace folders.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Logs `line` (stderr: the client's log) once per session.
    fn log_once(&self, line: String) {
        let mut logged = self.logged.lock().unwrap_or_else(PoisonError::into_inner);
        if logged.len() < 10_000 && logged.insert(line.clone()) {
            eprintln!("pir lsp: {line}");
        }
    }

    /// The `*.pir` files to read (not open), with their URIs; logs what the walk left out.
    fn files(&self, context: &Context<'_>) -> (Vec<(PathBuf, Uri)>, Tell) {
        let cancel = context.cancel.clone();
        let found: Found = files::walk(&self.roots, files::WORKSPACE, &move || cancel.is_set());
        for note in &found.notes {
            self.log_once(format!("workspace: {note}"));
        }
        for (dir, e) in &found.errors {
            self.log_once(format!(
                "workspace: {}: cannot be listed: {e}",
                dir.display()
            ));
        }
        let mut tell = None;
        if let Some(capped) = &found.capped {
            self.log_once(format!("workspace: the walk {capped}"));
            if !self.told_cap.swap(true, Ordering::Relaxed) {
                tell = Some(format!(
                    "pir: the workspace walk {capped}; workspace symbols and diagnostics \
                     cover only what it saw"
                ));
            }
        }
        let files = found
            .files
            .into_iter()
            .filter_map(|path| {
                let uri = Uri::from_file_path(&path)?;
                (!context.open.contains(&document_key(&uri))).then_some((path, uri))
            })
            .collect();
        (files, tell)
    }

    /// The bytes of `path` decoded, or `None` (logged) when it cannot be read.
    fn read(&self, path: &Path) -> Option<(String, Vec<analysis::Diagnostic>)> {
        match files::read_regular(path, MAX_DISK_FILE) {
            Ok(bytes) => Some(files::decode(&bytes)),
            Err(e) => {
                self.log_once(format!("workspace: {}: not read: {e}", path.display()));
                None
            }
        }
    }

    /// The workspace-diagnostic reports of the files on disk that are not open, in walk
    /// order, streamed to `step` as they are ready (and returned); `previous` holds the
    /// result ids the client has, by document key. A file that cannot be read gets no
    /// report (and a log line). Stops early when cancelled.
    pub fn diagnostics(
        &self,
        context: &Context<'_>,
        previous: &HashMap<String, String>,
        step: &mut dyn FnMut(Step),
    ) -> (Vec<lsp::WorkspaceDocumentDiagnosticReport>, Tell) {
        let (files, tell) = self.files(context);
        let walked: HashSet<&PathBuf> = files.iter().map(|(p, _)| p).collect();
        self.reports
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|path, _| walked.contains(path));
        let stamps: Vec<Option<Stamp>> = files.iter().map(|(p, _)| files::stamp(p)).collect();
        let to_read = {
            let reports = self.reports.lock().unwrap_or_else(PoisonError::into_inner);
            files
                .iter()
                .zip(&stamps)
                .filter(|((path, _), stamp)| {
                    reports.get(path).map(|r| Some(r.stamp)) != Some(**stamp)
                })
                .count()
        };
        let mut all = Vec::new();
        let mut batch = Vec::new();
        let mut read = 0usize;
        let mut last_flush = std::time::Instant::now();
        for ((path, uri), stamp) in files.into_iter().zip(stamps) {
            if context.cancel.is_set() {
                break;
            }
            let Some(stamp) = stamp else {
                self.log_once(format!("workspace: {}: gone or not a file", path.display()));
                continue;
            };
            let cached = {
                let reports = self.reports.lock().unwrap_or_else(PoisonError::into_inner);
                reports
                    .get(&path)
                    .filter(|r| r.stamp == stamp)
                    .map(|r| (r.result_id.clone(), Arc::clone(&r.items)))
            };
            let (result_id, items) = match cached {
                Some(cached) => cached,
                None => {
                    if read == 0 {
                        step(Step::Progress(0, format!("0/{to_read} files")));
                    }
                    read += 1;
                    let report = self.check(&path, &uri, stamp, context);
                    step(Step::Progress(
                        u32::try_from(read * 100 / to_read.max(1)).unwrap_or(100),
                        format!("{read}/{to_read} files"),
                    ));
                    let Some(report) = report else {
                        continue;
                    };
                    report
                }
            };
            let key = document_key(&uri);
            let report = handlers::workspace_report_with_id(
                uri,
                None,
                items.as_ref().clone(),
                result_id,
                previous.get(key.as_str()),
            );
            batch.push(report.clone());
            all.push(report);
            if batch.len() >= 64 || last_flush.elapsed() >= std::time::Duration::from_millis(200) {
                step(Step::Reports(std::mem::take(&mut batch)));
                last_flush = std::time::Instant::now();
            }
        }
        if !batch.is_empty() {
            step(Step::Reports(batch));
        }
        (all, tell)
    }

    /// Reads and checks one file (as `pir check` does: the analysis' diagnostics and those
    /// of its bytes), keeps the report; `None` when it cannot be read.
    fn check(
        &self,
        path: &Path,
        uri: &Uri,
        stamp: Stamp,
        context: &Context<'_>,
    ) -> Option<(String, Arc<Vec<lsp::Diagnostic>>)> {
        let (text, decoding) = self.read(path)?;
        let mut disk = self.disk.lock().unwrap_or_else(PoisonError::into_inner);
        let all = disk.with(&text, context.threshold, true, |analysis, file| {
            analysis.capped_diagnostics(file)
        });
        drop(disk);
        // Never cancelled: nothing writes to this database while the lock is held.
        let mut all = all.unwrap_or_default();
        all.diagnostics = files::with_decoding(std::mem::take(&mut all.diagnostics), &decoding);
        let rope = Rope::from_str(&text);
        let items = Arc::new(handlers::lsp_diagnostics(
            &all,
            uri,
            &rope,
            context.encoding,
        ));
        let result_id = handlers::result_id(&items);
        self.reports
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                path.to_path_buf(),
                Report {
                    stamp,
                    result_id: result_id.clone(),
                    items: Arc::clone(&items),
                },
            );
        Some((result_id, items))
    }

    /// The workspace symbols of the files on disk that are not open matching `query`, each
    /// file read once until it changes (an editor asks as the user types a query).
    pub fn symbols(
        &self,
        query: &str,
        context: &Context<'_>,
        step: &mut dyn FnMut(Step),
    ) -> (Vec<lsp::SymbolInformation>, Tell) {
        let (files, tell) = self.files(context);
        let walked: HashSet<&PathBuf> = files.iter().map(|(p, _)| p).collect();
        let mut cache = self.symbols.lock().unwrap_or_else(PoisonError::into_inner);
        cache.retain(|path, _| walked.contains(path));
        let stamps: Vec<Option<Stamp>> = files.iter().map(|(p, _)| files::stamp(p)).collect();
        let to_read = files
            .iter()
            .zip(&stamps)
            .filter(|((path, _), stamp)| cache.get(path).map(|c| Some(c.stamp)) != Some(**stamp))
            .count();
        let query = query.to_lowercase();
        let mut out = Vec::new();
        let mut read = 0usize;
        for ((path, uri), stamp) in files.iter().zip(stamps) {
            if context.cancel.is_set() {
                break;
            }
            let Some(stamp) = stamp else {
                continue;
            };
            if cache.get(path).is_none_or(|c| c.stamp != stamp) {
                if read == 0 {
                    step(Step::Progress(0, format!("0/{to_read} files")));
                }
                read += 1;
                let symbols = self
                    .read(path)
                    .map(|(text, _)| self.file_symbols(&text, uri, context))
                    .unwrap_or_default();
                step(Step::Progress(
                    u32::try_from(read * 100 / to_read.max(1)).unwrap_or(100),
                    format!("{read}/{to_read} files"),
                ));
                cache.insert(
                    path.clone(),
                    Symbols {
                        stamp,
                        symbols: Arc::new(symbols),
                    },
                );
            }
            if let Some(cached) = cache.get(path) {
                out.extend(
                    cached
                        .symbols
                        .iter()
                        .filter(|s| analysis::ide::matches_query(&s.name, &query))
                        .cloned(),
                );
            }
        }
        (out, tell)
    }

    /// Every workspace symbol of `text`, the file `uri`.
    fn file_symbols(
        &self,
        text: &str,
        uri: &Uri,
        context: &Context<'_>,
    ) -> Vec<lsp::SymbolInformation> {
        let mut disk = self.disk.lock().unwrap_or_else(PoisonError::into_inner);
        let symbols = disk.with(text, context.threshold, false, |analysis, file| {
            analysis.workspace_symbols(&[file], "")
        });
        drop(disk);
        let rope = Rope::from_str(text);
        symbols
            .unwrap_or_default()
            .into_iter()
            .map(|(_, s)| {
                let range = convert::range(&rope, s.selection_range, context.encoding);
                handlers::symbol_information(
                    s,
                    Location {
                        uri: uri.clone(),
                        range,
                    },
                )
            })
            .collect()
    }
}
