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
use lower::target::Target;

use crate::resolve::{self, Entry, FileItems, OpItem};

/// A source text analysed alone: a whole file, or a chunk of a document (its whole
/// kernels from one kernel line to the next, see [`crate::document`]). Every query and IDE
/// function of this crate that takes a `SourceFile` answers in byte offsets into its
/// `text`; the [`crate::Analysis`] façade makes a chunk's offsets the document's.
#[salsa::input(debug)]
pub struct SourceFile {
    /// The text (UTF-8; CRLF allowed).
    #[returns(ref)]
    pub text: String,
    /// Look-ahead: the first line of the next chunk of its document (a `kernel @name`
    /// line), so that the end of `text` reads as in the whole file; empty when `text` ends
    /// the file (see [`syntax::parse_part`]).
    #[default]
    #[returns(ref)]
    pub look_ahead: String,
    /// Lower its ops together, without a memo per op ([`coarse_lowerings`]): for the
    /// chunks of a document that were never edited, so that a big file keeps no per-op
    /// state where nobody types. An edit makes its chunk fine-grained (false): from then
    /// on each op's lowering is memoized by its interned value ([`lower_op`]), and a
    /// keystroke re-lowers only the ops it changed. Both give the same answers.
    #[default]
    pub coarse: bool,
    /// Where the chunk stands among its kernels: it starts inside a kernel cut at a
    /// statement line of its body (the header is in an earlier chunk), or its last kernel
    /// goes on in the next chunk (`crate::document` cuts it). Default: whole kernels.
    #[default]
    pub context: syntax::Context,
    /// For a chunk that starts inside a kernel: what the kernel's earlier chunks define
    /// that it mentions ([`Entry`]).
    #[default]
    #[returns(ref)]
    pub entry: Option<Arc<Entry>>,
}

/// Client settings (SPEC §10 initialization options) that change the analysis.
#[salsa::input(debug)]
pub struct Settings {
    /// `tkgSeqlenThreshold`; 0 means the default (96).
    #[returns(copy)]
    pub tkg_seqlen_threshold: u64,
    /// The target (SPEC §4 [3]): the capacities of P304 and P416, the BIR `arch`, and
    /// which of the estimates kept with each lowering (for every target) is shown.
    #[returns(copy)]
    pub target: Target,
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
    /// The chunk inputs no document holds any more, emptied, for the next chunk a document
    /// makes ([`RootDatabase::take_spare`]): salsa keeps an input for good, with the memos of
    /// its last text, so a session of re-cuts that made new inputs grew without end (2 MB an
    /// edit, issue 23).
    spare: Vec<SourceFile>,
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
            spare: Vec::new(),
        };
        // Settings rarely change: at high durability, they do not make every query of low
        // durability (see `document::new_source`).
        db.settings = Some(
            Settings::builder(0, Target::default())
                .tkg_seqlen_threshold_durability(salsa::Durability::HIGH)
                .target_durability(salsa::Durability::HIGH)
                .new(&db),
        );
        db
    }

    /// Keeps `source`, an emptied chunk input no document holds, for [`take_spare`](Self::take_spare).
    pub(crate) fn put_spare(&mut self, source: SourceFile) {
        self.spare.push(source);
    }

    /// A chunk input no document holds (emptied by [`put_spare`](Self::put_spare)'s caller), if any.
    pub(crate) fn take_spare(&mut self) -> Option<SourceFile> {
        self.spare.pop()
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
///
/// Memory: the syntax trees, names and line indexes of the 16 chunks (about 16 × 16 KiB of
/// text, far more than a screen) used last stay memoized between revisions; the others are evicted when a revision
/// starts or the host collects garbage ([`crate::AnalysisHost::warm`]) and recomputed if
/// asked for again. What the document-wide answers gather (each chunk's diagnostics, kernel
/// names, folds, symbols, resources) is memoized apart and stays, so a big file keeps a
/// small summary per chunk and its trees only where an editor looks (`docs/scale.md`).
///
/// An edited chunk (not [`SourceFile::coarse`]) of [`PIECES_FROM`] bytes or more is read
/// in pieces cut at statement lines ([`syntax::piece_starts`]), each piece's statements
/// memoized by its text ([`piece_statements`]): a keystroke re-reads the piece it touched,
/// and the others are shifted into place ([`syntax::read_in_pieces`]).
#[salsa::tracked(returns(ref), no_eq, lru = 16)]
pub fn parse(db: &dyn Db, file: SourceFile) -> syntax::Parse {
    let check = || db.unwind_if_revision_cancelled();
    let look_ahead = file.look_ahead(db);
    let text = file.text(db);
    let whole;
    let piece = if look_ahead.is_empty() {
        text.as_str()
    } else {
        whole = format!("{text}{look_ahead}");
        whole.as_str()
    };
    let context = *file.context(db);
    // A text nested near the parser's depth guard is read whole: each piece would start
    // the guard afresh and nest what the file's guard cuts off (issue 24).
    if *file.coarse(db) || text.len() < PIECES_FROM || syntax::may_nest_too_deep(text) {
        return if look_ahead.is_empty() && context == syntax::Context::default() {
            syntax::parse_cancellable(text, &check)
        } else {
            syntax::parse_part(piece, text.len(), context, &check)
        };
    }
    let starts = syntax::piece_starts(piece, text.len());
    let read = syntax::read_in_pieces(piece, text.len(), &starts, &mut |p, end| {
        check();
        piece_statements(db, Piece::new(db, p.to_string(), end as u32)).clone()
    });
    syntax::assemble_part(piece, text.len(), context, read)
}

/// The size (bytes) from which an edited chunk is read in pieces (see [`parse`]).
pub const PIECES_FROM: usize = 4096;

/// A piece of an edited chunk (see [`parse`]): its text with its look-ahead, and where the
/// piece proper ends (bytes). Interned by value: the same text anywhere is one piece.
#[salsa::interned(debug)]
pub struct Piece<'db> {
    /// The piece and its look-ahead.
    #[returns(ref)]
    pub text: String,
    /// The end of the piece proper in `text` (UTF-8 bytes).
    pub end: u32,
}

/// The statements of a piece, read flat, ranges relative to it
/// ([`syntax::read_statements`]). The 16,384 pieces used last stay (about 130,000 ops:
/// every piece of a fully unrolled 100,000-op kernel being edited, whose pieces would
/// otherwise be evicted and re-read at every keystroke).
#[salsa::tracked(returns(ref), no_eq, lru = 16384)]
pub fn piece_statements<'db>(db: &'db dyn Db, piece: Piece<'db>) -> syntax::Statements {
    syntax::read_statements(piece.text(db), *piece.end(db) as usize, &|| {
        db.unwind_if_revision_cancelled();
    })
}

/// The line index of a file (offsets ↔ lines and columns).
#[salsa::tracked(returns(ref), lru = 16)]
pub fn line_index(db: &dyn Db, file: SourceFile) -> LineIndex {
    LineIndex::new(file.text(db))
}

/// The resolved file: kernels, ops, definitions, name diagnostics.
#[salsa::tracked(returns(ref), no_eq, lru = 16)]
pub fn file_items(db: &dyn Db, file: SourceFile) -> FileItems {
    let settings = OpSettings {
        tkg_seqlen_threshold: db.settings().tkg_seqlen_threshold(db),
    };
    let entry = file.entry(db).as_deref();
    let target = db.settings().target(db);
    resolve::resolve(&parse(db, file).file, entry, settings, target, &|| {
        db.unwind_if_revision_cancelled();
    })
}

/// A resolved op as a salsa key: equal ops are one key, wherever they stand (interned by
/// value; the `Arc` is the op's own, [`OpItem::resolved`], so it is held once).
#[salsa::interned(debug)]
pub struct OpKey<'db> {
    /// The position-free op.
    #[returns(ref)]
    pub op: Arc<ResolvedOp>,
}

/// The lowering of one op: its BIR instructions and diagnostics (SPEC §6), for the ops of
/// edited chunks (the others are lowered together, [`coarse_lowerings`]). The 131,072 used
/// last stay: every op of a fully unrolled 100,000-op kernel being edited, whose
/// lowerings would otherwise be evicted and redone at every keystroke.
#[salsa::tracked(returns(ref), lru = 131072)]
pub fn lower_op<'db>(db: &'db dyn Db, key: OpKey<'db>) -> Lowered {
    lower::lower_op(key.op(db))
}

/// The lowering of the op `item` (memoized per resolved op).
pub fn op_lowering<'db>(db: &'db dyn Db, item: &OpItem) -> &'db Lowered {
    lower_op(db, OpKey::new(db, item.resolved.clone()))
}

/// The lowering of every op of a coarse `file` ([`SourceFile::coarse`]), at each op's
/// [`OpItem::index`]: one memo for the file, evicted with its syntax tree.
#[salsa::tracked(returns(ref), lru = 16)]
pub fn coarse_lowerings(db: &dyn Db, file: SourceFile) -> Vec<Lowered> {
    let mut out = Vec::new();
    for kernel in &file_items(db, file).kernels {
        crate::check::for_each_op(&kernel.body, &mut |op| {
            out.push(lower::lower_op(&op.resolved));
        });
    }
    out
}

/// The interned key of every op of `file` ([`OpKey`]), at each op's [`OpItem::index`]:
/// each op interned once per revision of the file, whatever reads its lowering (the
/// findings, the parts' summaries, the resources), and the same keys when no op changed.
#[salsa::tracked(returns(ref), lru = 16)]
pub fn op_keys<'db>(db: &'db dyn Db, file: SourceFile) -> Vec<OpKey<'db>> {
    let mut out = Vec::new();
    for kernel in &file_items(db, file).kernels {
        crate::check::for_each_op(&kernel.body, &mut |op| {
            out.push(OpKey::new(db, op.resolved.clone()));
        });
    }
    out
}

/// The lowering of `op`, an op of `file`: from the file's [`coarse_lowerings`] when it is
/// coarse, else memoized per op ([`lower_op`] of its key, [`op_keys`]). A walk over many
/// ops of one file reads them through [`Lowerings`] instead.
pub fn lowering<'db>(db: &'db dyn Db, file: SourceFile, op: &OpItem) -> &'db Lowered {
    Lowerings::of(db, file).get(op)
}

/// The lowerings of a file's ops, read op by op ([`lowering`]) with the file's memos
/// fetched once.
#[derive(Clone, Copy)]
pub struct Lowerings<'db> {
    db: &'db dyn Db,
    coarse: Option<&'db [Lowered]>,
    keys: &'db [OpKey<'db>],
}

impl<'db> Lowerings<'db> {
    /// The lowerings of `file`'s ops.
    pub fn of(db: &'db dyn Db, file: SourceFile) -> Lowerings<'db> {
        if *file.coarse(db) {
            Lowerings {
                db,
                coarse: Some(coarse_lowerings(db, file)),
                keys: &[],
            }
        } else {
            Lowerings {
                db,
                coarse: None,
                keys: op_keys(db, file),
            }
        }
    }

    /// The lowering of `op`, an op of the file.
    pub fn get(&self, op: &OpItem) -> &'db Lowered {
        let at = op.index as usize;
        if let Some(lowered) = self.coarse.and_then(|all| all.get(at)) {
            return lowered;
        }
        match self.keys.get(at) {
            Some(&key) => lower_op(self.db, key),
            None => op_lowering(self.db, op),
        }
    }
}
