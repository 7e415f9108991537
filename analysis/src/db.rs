//! The salsa database: inputs, the per-file queries and the per-op lowering query.
//!
//! Architecture Invariant: the only tracked function that calls `lower::lower_op` is
//! [`lower_op`], keyed by an interned, position-free [`ResolvedOp`]. An edit re-parses and
//! re-resolves the file (cheap, linear), but an op whose resolved value did not change
//! hashes to the same key and is not lowered again — so an edit re-lowers exactly the ops
//! it touched, and moving text around re-lowers none.

// salsa's macros generate constructors and setters without doc comments.
#![allow(missing_docs)]

use std::sync::{Arc, Mutex};

use ::line_index::LineIndex;
use lower::Lowered;
use lower::model::{OpSettings, ResolvedOp};

use crate::resolve::{self, FileItems, OpItem};

/// A source file: its text (the salsa input a client edits).
#[salsa::input(debug)]
pub struct SourceFile {
    /// The whole text (UTF-8; CRLF allowed).
    #[returns(ref)]
    pub text: String,
}

/// Client settings (SPEC §10 initialization options) that change lowering.
#[salsa::input(debug)]
pub struct Settings {
    /// `tkgSeqlenThreshold`; 0 means the default (96).
    #[returns(copy)]
    pub tkg_seqlen_threshold: u64,
}

/// The database trait the queries take.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The settings input.
    fn settings(&self) -> Settings;
}

/// The one database implementation: storage, the settings input and, for tests, a log
/// of query executions.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    settings: Option<Settings>,
    executions: Option<Arc<Mutex<Vec<String>>>>,
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn settings(&self) -> Settings {
        self.settings
            .expect("RootDatabase::new creates the settings input")
    }
}

impl Default for RootDatabase {
    fn default() -> RootDatabase {
        RootDatabase::new(false)
    }
}

impl RootDatabase {
    /// A new, empty database. With `log_executions`, every query execution is recorded
    /// and [`take_executions`](Self::take_executions) returns them (tests of
    /// incrementality read this log).
    pub fn new(log_executions: bool) -> RootDatabase {
        let executions = log_executions.then(|| Arc::new(Mutex::new(Vec::new())));
        let log = executions.clone();
        let storage = salsa::Storage::new(log.map(|log| {
            Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::WillExecute { database_key } = event.kind
                    && let Ok(mut log) = log.lock()
                {
                    log.push(format!("{database_key:?}"));
                }
            }) as Box<dyn Fn(salsa::Event) + Send + Sync + 'static>
        }));
        let mut db = RootDatabase {
            storage,
            settings: None,
            executions,
        };
        db.settings = Some(Settings::new(&db, 0));
        db
    }

    /// The query executions logged since the last call (empty unless logging is on): one
    /// `Debug` string of the database key per execution, e.g. `lower_op(Id(3))`.
    pub fn take_executions(&self) -> Vec<String> {
        self.executions
            .as_ref()
            .and_then(|log| log.lock().ok().map(|mut l| std::mem::take(&mut *l)))
            .unwrap_or_default()
    }
}

/// The parse of a file (never fails).
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse(db: &dyn Db, file: SourceFile) -> syntax::Parse {
    syntax::parse(file.text(db))
}

/// The line index of a file (offsets ↔ lines and columns).
#[salsa::tracked(returns(ref))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> LineIndex {
    LineIndex::new(file.text(db))
}

/// The line index of a file with lines as editors count them (SPEC §1 [2]): `\n`, `\r\n`
/// and a lone `\r` each end a line, whatever the language makes of a lone `\r` (the
/// lexer reads it as part of its line, P103). Offsets are the text's UTF-8 bytes; a line
/// ending at a lone `\r` includes it, as a line ending at `\n` does. The language server
/// converts positions with this index; [`line_index`] (lines end at `\n`) serves the CLI.
#[salsa::tracked(returns(ref))]
pub fn editor_line_index(db: &dyn Db, file: SourceFile) -> LineIndex {
    let text = file.text(db);
    let bytes = text.as_bytes();
    let lone_cr = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone_cr) {
        return line_index(db, file).clone();
    }
    // A lone `\r` becomes `\n`: the same byte length, so every offset stays put.
    let patched: String = text
        .char_indices()
        .map(|(i, c)| if c == '\r' && lone_cr(i) { '\n' } else { c })
        .collect();
    LineIndex::new(&patched)
}

/// The resolved file: kernels, ops, definitions, name diagnostics.
#[salsa::tracked(returns(ref), no_eq)]
pub fn file_items(db: &dyn Db, file: SourceFile) -> FileItems {
    let settings = OpSettings {
        tkg_seqlen_threshold: db.settings().tkg_seqlen_threshold(db),
    };
    resolve::resolve(&parse(db, file).file, settings)
}

/// A resolved op as a salsa key: equal ops are one key, wherever they stand.
#[salsa::interned(debug)]
pub struct OpKey<'db> {
    /// The position-free op.
    #[returns(ref)]
    pub op: ResolvedOp,
}

/// The lowering of one op: its BIR instructions and diagnostics (SPEC §6).
#[salsa::tracked(returns(ref))]
pub fn lower_op<'db>(db: &'db dyn Db, key: OpKey<'db>) -> Lowered {
    lower::lower_op(key.op(db))
}

/// The lowering of the op `item` (memoized per resolved op).
pub fn op_lowering<'db>(db: &'db dyn Db, item: &OpItem) -> &'db Lowered {
    lower_op(db, OpKey::new(db, item.resolved.clone()))
}
