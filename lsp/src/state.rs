//! The one owner of the documents and of the database's writes.
//!
//! Architecture Invariant: every `didOpen`/`didChange`/`didClose` and every snapshot
//! request goes through one FIFO channel to one dedicated thread, so edits apply strictly
//! in order and a request always sees every edit sent before it. Salsa writes (which wait
//! for all snapshots to drop) therefore happen on that thread, never on an async worker.
//! Requests run on a cloned database handle (a [`Snapshot`]) on a blocking thread; a write
//! cancels them (salsa's `Cancelled`, answered as `ContentModified`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc;

use analysis::{RootDatabase, SourceFile};
use ropey::Rope;
use salsa::Setter;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

use crate::convert::{self, Encoding};

/// Client settings (SPEC §10 initialization options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `tkgSeqlenThreshold`: 0 means the default (96).
    pub tkg_seqlen_threshold: u64,
    /// `inlayHints.enabled` (default true).
    pub inlay_hints: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            tkg_seqlen_threshold: 0,
            inlay_hints: true,
        }
    }
}

impl Config {
    /// Reads the initialization options (unknown keys and wrong types are ignored).
    pub fn from_options(options: Option<&serde_json::Value>) -> Config {
        let mut config = Config::default();
        let Some(options) = options else {
            return config;
        };
        if let Some(t) = options
            .get("tkgSeqlenThreshold")
            .and_then(serde_json::Value::as_u64)
        {
            config.tkg_seqlen_threshold = t;
        }
        let inlay = options
            .get("inlayHints")
            .and_then(|h| h.get("enabled"))
            .or_else(|| options.get("inlayHints.enabled"));
        if let Some(enabled) = inlay.and_then(serde_json::Value::as_bool) {
            config.inlay_hints = enabled;
        }
        config
    }
}

/// An open document as requests see it.
#[derive(Clone, Debug)]
pub struct Doc {
    /// The database input holding its text.
    pub file: SourceFile,
    /// The client's version of the text.
    pub version: i32,
}

/// A consistent view for one request: a database handle and the open documents.
#[derive(Clone)]
pub struct Snapshot {
    /// A clone of the database (cancelled by the next write).
    pub db: RootDatabase,
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
    /// A request wants a snapshot.
    Snapshot(tokio::sync::oneshot::Sender<Snapshot>),
}

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
}

/// Starts the owner thread; returns the channel to it.
pub fn spawn_owner(
    encoding: Encoding,
    config: Config,
    on_change: impl Fn(Changed) + Send + 'static,
) -> mpsc::Sender<Msg> {
    let (tx, rx) = mpsc::channel::<Msg>();
    std::thread::Builder::new()
        .name("pir-documents".into())
        .spawn(move || {
            let mut owner = Owner {
                db: RootDatabase::default(),
                ropes: HashMap::new(),
                docs: Arc::new(HashMap::new()),
                generations: HashMap::new(),
                encoding,
                config,
            };
            let settings = analysis::Db::settings(&owner.db);
            settings
                .set_tkg_seqlen_threshold(&mut owner.db)
                .to(config.tkg_seqlen_threshold);
            for msg in rx {
                owner.handle(msg, &on_change);
            }
        })
        .expect("spawning the document thread");
    tx
}

struct Owner {
    db: RootDatabase,
    ropes: HashMap<Uri, Rope>,
    docs: Arc<HashMap<Uri, Doc>>,
    generations: HashMap<Uri, u64>,
    encoding: Encoding,
    config: Config,
}

impl Owner {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            db: self.db.clone(),
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

    fn handle(&mut self, msg: Msg, on_change: &impl Fn(Changed)) {
        match msg {
            Msg::Open { uri, text, version } => {
                let file = match self.docs.get(&uri) {
                    Some(doc) => {
                        let file = doc.file;
                        file.set_text(&mut self.db).to(text.clone());
                        file
                    }
                    None => SourceFile::new(&self.db, text.clone()),
                };
                self.ropes.insert(uri.clone(), Rope::from_str(&text));
                Arc::make_mut(&mut self.docs).insert(uri.clone(), Doc { file, version });
                self.changed(uri, on_change);
            }
            Msg::Change {
                uri,
                version,
                changes,
            } => {
                let Some(rope) = self.ropes.get_mut(&uri) else {
                    eprintln!(
                        "pir lsp: didChange for a document that is not open: {}",
                        uri.as_str()
                    );
                    return;
                };
                for change in &changes {
                    if let Err(e) = convert::apply_change(rope, change, self.encoding) {
                        eprintln!("pir lsp: ignoring a change of {}: {e}", uri.as_str());
                    }
                }
                let text = rope.to_string();
                let Some(doc) = Arc::make_mut(&mut self.docs).get_mut(&uri) else {
                    return;
                };
                doc.version = version;
                let file = doc.file;
                file.set_text(&mut self.db).to(text);
                self.changed(uri, on_change);
            }
            Msg::Close { uri } => {
                self.ropes.remove(&uri);
                Arc::make_mut(&mut self.docs).remove(&uri);
                let generation = self.next_generation(&uri);
                on_change(Changed {
                    uri,
                    version: None,
                    snapshot: None,
                    generation,
                });
            }
            Msg::Snapshot(reply) => {
                let _ = reply.send(self.snapshot());
            }
        }
    }

    fn changed(&mut self, uri: Uri, on_change: &impl Fn(Changed)) {
        let generation = self.next_generation(&uri);
        let version = self.docs.get(&uri).map(|d| d.version);
        on_change(Changed {
            uri,
            version,
            snapshot: Some(self.snapshot()),
            generation,
        });
    }
}
