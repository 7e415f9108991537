//! The one owner of the documents and of the database's writes.
//!
//! Architecture Invariant: every `didOpen`/`didChange`/`didClose` and every snapshot
//! request goes through one FIFO channel to one dedicated thread, so edits apply strictly
//! in order and a request always sees every edit sent before it. Salsa writes (which wait
//! for all snapshots to drop) therefore happen on that thread, never on an async worker.
//! Requests run on an analysis snapshot (a [`Snapshot`]) on a blocking thread; an edit
//! cancels them (their queries return `Cancelled`, answered as `ContentModified`).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc;

use analysis::{Analysis, AnalysisHost, FileId};
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
    /// The analysis' file holding its text.
    pub file: FileId,
    /// The client's version of the text.
    pub version: i32,
    /// The URI as the client spelt it in `didOpen` (what answers about the document use).
    pub uri: Uri,
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
    /// A request wants a snapshot; `None` when an edit already queued behind the request
    /// makes its answer stale (answered with `ContentModified`).
    Snapshot(tokio::sync::oneshot::Sender<Option<Snapshot>>),
}

impl Msg {
    /// Whether this message changes a document.
    fn is_edit(&self) -> bool {
        !matches!(self, Msg::Snapshot(_))
    }
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
                host: AnalysisHost::new(),
                ropes: HashMap::new(),
                docs: Arc::new(HashMap::new()),
                generations: HashMap::new(),
                dirty: Vec::new(),
                encoding,
                config,
            };
            owner
                .host
                .set_tkg_seqlen_threshold(config.tkg_seqlen_threshold);
            // Everything queued is handled as one batch: its edits are applied to the texts
            // one by one, but written to the database (which waits for the requests running
            // on the previous text to stop) and analysed once, and a request with edits
            // queued behind it is answered as stale at once instead of computed.
            while let Ok(first) = rx.recv() {
                let mut batch: Vec<Msg> = std::iter::once(first).chain(rx.try_iter()).collect();
                let last_edit = batch.iter().rposition(Msg::is_edit);
                for (i, msg) in batch.drain(..).enumerate() {
                    let stale = last_edit.is_some_and(|last| i < last);
                    owner.handle(msg, stale, &on_change);
                }
                owner.flush(&on_change);
            }
        })
        .expect("spawning the document thread");
    tx
}

struct Owner {
    host: AnalysisHost,
    /// By [`document_key`], as are `docs` and `generations`.
    ropes: HashMap<Uri, Rope>,
    docs: Arc<HashMap<Uri, Doc>>,
    generations: HashMap<Uri, u64>,
    /// Documents whose rope changed since their text was last written to the database.
    dirty: Vec<Uri>,
    encoding: Encoding,
    config: Config,
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
    fn handle(&mut self, msg: Msg, stale: bool, on_change: &impl Fn(Changed)) {
        match msg {
            Msg::Open { uri, text, version } => {
                let key = document_key(&uri);
                let file = match self.docs.get(&key) {
                    Some(doc) => doc.file,
                    None => self.host.add_file(&text),
                };
                self.ropes.insert(key.clone(), Rope::from_str(&text));
                Arc::make_mut(&mut self.docs).insert(key.clone(), Doc { file, version, uri });
                self.mark_dirty(key);
            }
            Msg::Change {
                uri,
                version,
                changes,
            } => {
                let key = document_key(&uri);
                let Some(rope) = self.ropes.get_mut(&key) else {
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
                let Some(doc) = Arc::make_mut(&mut self.docs).get_mut(&key) else {
                    return;
                };
                doc.version = version;
                self.mark_dirty(key);
            }
            Msg::Close { uri } => {
                let key = document_key(&uri);
                self.ropes.remove(&key);
                self.dirty.retain(|k| *k != key);
                let uri = Arc::make_mut(&mut self.docs)
                    .remove(&key)
                    .map_or(uri, |doc| doc.uri);
                let generation = self.next_generation(&key);
                on_change(Changed {
                    uri,
                    version: None,
                    snapshot: None,
                    generation,
                });
            }
            Msg::Snapshot(reply) => {
                if stale {
                    let _ = reply.send(None);
                } else {
                    self.flush(on_change);
                    let _ = reply.send(Some(self.snapshot()));
                }
            }
        }
    }

    fn mark_dirty(&mut self, key: Uri) {
        if !self.dirty.contains(&key) {
            self.dirty.push(key);
        }
    }

    /// Writes the changed texts to the database (one write per document, however many
    /// edits it had) and reports each document for diagnostics.
    fn flush(&mut self, on_change: &impl Fn(Changed)) {
        for key in std::mem::take(&mut self.dirty) {
            let (Some(rope), Some(doc)) = (self.ropes.get(&key), self.docs.get(&key)) else {
                continue;
            };
            let text = rope.to_string();
            let file = doc.file;
            self.host.set_file_text(file, &text);
            self.changed(key, on_change);
        }
    }

    fn changed(&mut self, key: Uri, on_change: &impl Fn(Changed)) {
        let generation = self.next_generation(&key);
        let Some(doc) = self.docs.get(&key) else {
            return;
        };
        on_change(Changed {
            uri: doc.uri.clone(),
            version: Some(doc.version),
            snapshot: Some(self.snapshot()),
            generation,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
