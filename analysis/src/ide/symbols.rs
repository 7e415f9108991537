//! Document symbols (kernels › loops › ops, with parameters, tensors and registers) and
//! workspace symbols (SPEC §10).

use smol_str::{SmolStr, format_smolstr};
use syntax::ast::{self, TextRange};

use crate::db::{Db, SourceFile, parse};
use crate::document::{Document, Shift};

/// What a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A kernel.
    Kernel,
    /// A kernel parameter.
    Param,
    /// A `tensor` declaration.
    Tensor,
    /// A `reg` declaration.
    Register,
    /// A loop.
    Loop,
    /// An op.
    Op,
}

/// One symbol and its children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name shown: `@rmsnorm`, `%t`, `for %i in 0..4`, `MatMulOp #3` (inline up to 23
    /// bytes: each chunk's symbols are memoized and kept, one per op).
    pub name: SmolStr,
    /// Extra text: a type, the BIR opcode.
    pub detail: Option<SmolStr>,
    /// The kind.
    pub kind: SymbolKind,
    /// The whole construct.
    pub range: TextRange,
    /// The name within it.
    pub selection_range: TextRange,
    /// Nested symbols.
    pub children: Vec<Symbol>,
    /// An op of a part that continues a kernel cut into chunks, whose id is implicit: its
    /// id counted from the chunk's first op, with its class. The document names it with
    /// the kernel-wide id (`crate::Analysis::document_symbols`); `None` otherwise.
    pub chunk_op_id: Option<ChunkOpId>,
}

/// See [`Symbol::chunk_op_id`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChunkOpId {
    /// The op's class as written.
    pub class: SmolStr,
    /// Its implicit id, counted from its chunk's first op (1-based).
    pub id: u32,
}

impl ChunkOpId {
    /// The op's name in the outline, its implicit id counted from `ops_before` ops.
    pub fn name(&self, ops_before: u32) -> String {
        format!("{} #{}", self.class, self.id + ops_before)
    }
}

/// The symbols of a document, in its offsets: the whole tree, or, for a document of more
/// than [`MAX_DOCUMENT_SYMBOLS`] symbols, its kernels and their parameters, or its kernels
/// alone when even those are more. Joined from each chunk's: its whole tree
/// ([`chunk_symbols`]) for the whole tree, else its kernels' heads
/// ([`ChunkSymbolCount::heads`]), so that the outline of a big document never builds (or
/// keeps) a chunk's tree. The parts of a kernel cut into chunks join its kernel's symbol,
/// their ops named by their ids in the kernel.
pub(crate) fn document_symbols(db: &dyn Db, doc: &Document) -> Vec<Symbol> {
    // The rest of a kernel cut into chunks joins its kernel's symbol.
    let (mut all, mut outline) = (0, 0);
    for chunk in &doc.chunks {
        let counts = chunk_symbol_count(db, chunk.source);
        all += counts.all;
        outline += counts.outline;
    }
    let whole = all <= MAX_DOCUMENT_SYMBOLS;
    let params = outline <= MAX_DOCUMENT_SYMBOLS;
    let cut = |symbol: &Symbol| {
        if whole || params {
            symbol.clone()
        } else {
            symbol.outline(false)
        }
    };
    let mut out: Vec<Symbol> = Vec::new();
    for chunk in &doc.chunks {
        db.unwind_if_revision_cancelled();
        let counts = chunk_symbol_count(db, chunk.source);
        let mut symbols = if whole {
            chunk_symbols(db, chunk.source).iter()
        } else {
            counts.heads.iter()
        };
        if counts.continues
            && let Some(part) = symbols.next()
        {
            // Its symbols only when the whole tree is answered.
            let mut part = cut(part);
            part.shift(chunk.start);
            if let Some(kernel) = out.last_mut() {
                // An unnamed kernel is selected whole.
                if kernel.selection_range == kernel.range {
                    kernel.selection_range = kernel.range.cover(part.range);
                }
                kernel.range = kernel.range.cover(part.range);
                if whole {
                    let base = part_ops(&kernel.children);
                    for child in &mut part.children {
                        renumber_ops(child, base);
                    }
                    kernel.children.append(&mut part.children);
                }
            }
        }
        for symbol in symbols {
            let mut symbol = cut(symbol);
            symbol.shift(chunk.start);
            out.push(symbol);
        }
    }
    out
}

/// The ops among `symbols` and below them.
fn part_ops(symbols: &[Symbol]) -> u32 {
    symbols
        .iter()
        .map(|s| u32::from(s.kind == SymbolKind::Op) + part_ops(&s.children))
        .sum()
}

/// `symbol` and those below it with their implicit op ids counted from `base` ops
/// ([`Symbol::chunk_op_id`]).
fn renumber_ops(symbol: &mut Symbol, base: u32) {
    if let Some(id) = symbol.chunk_op_id.take() {
        symbol.name = id.name(base).into();
    }
    for child in &mut symbol.children {
        renumber_ops(child, base);
    }
}

/// The symbol tree of a chunk, `file` (relative to it). Memoized (the editor asks after
/// every change; for a chunk not edited this is a lookup, not a walk of its syntax tree),
/// for the [`KEPT_SYMBOL_TREES`] chunks used last. A bigger document's outline reads its
/// chunks' [`ChunkSymbolCount::heads`] instead (keeping every chunk's tree held 30 MB at
/// 100,000 ops).
#[salsa::tracked(returns(ref), lru = 256)]
pub fn chunk_symbols(db: &dyn Db, file: SourceFile) -> Vec<Symbol> {
    symbol_tree(db, file)
}

/// How many chunks keep their symbol tree ([`chunk_symbols`]'s `lru`, which salsa takes
/// as a literal only): 4 MB of 16 KiB chunks,
/// more than any document whose outline is its whole tree ([`MAX_DOCUMENT_SYMBOLS`],
/// about 10,000 ops). A document of no more chunks keeps them from its open on
/// (`crate::AnalysisHost::for_editor`).
pub(crate) const KEPT_SYMBOL_TREES: usize = 256;

/// The symbol tree of a chunk, `file` (relative to it), built from its syntax tree.
fn symbol_tree(db: &dyn Db, file: SourceFile) -> Vec<Symbol> {
    let text = file.text(db);
    parse(db, file)
        .file
        .kernels
        .iter()
        .map(|k| {
            let mut children: Vec<Symbol> = k
                .params
                .iter()
                .chain(&k.outputs)
                .map(|p| Symbol {
                    name: format_smolstr!("%{}", p.name.text),
                    detail: p.ty.as_ref().map(|t| slice(text, t.range)),
                    kind: SymbolKind::Param,
                    range: p.range,
                    selection_range: p.name.range,
                    children: Vec::new(),
                    chunk_op_id: None,
                })
                .collect();
            let mut ordinal = 0;
            children.extend(statements(text, &k.body, &mut ordinal, k.continues));
            let name_range = k.name.as_ref().map_or(k.range, |n| n.range);
            Symbol {
                name: k.name.as_ref().map_or_else(
                    || SmolStr::new_static("kernel"),
                    |n| format_smolstr!("@{}", n.text),
                ),
                detail: None,
                kind: SymbolKind::Kernel,
                range: k.range,
                selection_range: name_range,
                children,
                chunk_op_id: None,
            }
        })
        .collect()
}

/// What the document's outline reads of a chunk without its syntax tree or its symbol
/// tree ([`chunk_symbol_count`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkSymbolCount {
    /// The symbols it adds to the whole tree (a part that continues a kernel adds its
    /// kernel's symbol once, in the first part).
    pub all: usize,
    /// Those of them that are kernels or parameters.
    pub outline: usize,
    /// Its first kernel continues one of earlier chunks.
    pub continues: bool,
    /// Its kernels' symbols with their parameters below them and nothing else
    /// ([`Symbol::outline`]), relative to it: what the outline of a document over
    /// [`MAX_DOCUMENT_SYMBOLS`] shows of it.
    pub heads: Vec<Symbol>,
}

/// How many symbols a chunk, `file`, adds to its document's outline, and its kernels'
/// heads. Memoized and kept; the symbol tree it counts is built for it and dropped at once
/// (kept trees, [`chunk_symbols`], evicted later, left the allocator pages that the kept
/// heads pinned: 20 MB more resident at 100,000 ops).
#[salsa::tracked(returns(ref))]
pub fn chunk_symbol_count(db: &dyn Db, file: SourceFile) -> ChunkSymbolCount {
    let symbols = symbol_tree(db, file);
    let continues = parse(db, file)
        .file
        .kernels
        .first()
        .is_some_and(|k| k.continues);
    let part = usize::from(continues && !symbols.is_empty());
    let params = |s: &Symbol| {
        s.children
            .iter()
            .filter(|c| c.kind == SymbolKind::Param)
            .count()
    };
    ChunkSymbolCount {
        all: symbols.iter().map(Symbol::count).sum::<usize>() - part,
        outline: symbols.iter().map(|s| 1 + params(s)).sum::<usize>() - part,
        continues,
        heads: symbols.iter().map(|s| s.outline(true)).collect(),
    }
}

/// The most symbols a document's outline lists in full (about a 10,000-op file). A bigger
/// document lists its kernels and their parameters only (its kernels alone when those are
/// more: 22,000 at 100,000 ops of the benchmark's kernels, a 6.4 MB answer): its whole tree (185,000 symbols
/// and a 59 MB answer at 100,000 ops, several seconds and a gigabyte for the server to
/// send) would serve no outline (decision, docs/decisions.md).
pub const MAX_DOCUMENT_SYMBOLS: usize = 20_000;

impl Symbol {
    /// How many symbols this one is: itself and all it holds.
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(Symbol::count).sum::<usize>()
    }

    /// This symbol with only its parameters below it (`params`), or nothing below it: a
    /// kernel's entry in the outline of a document over [`MAX_DOCUMENT_SYMBOLS`].
    pub fn outline(&self, params: bool) -> Symbol {
        Symbol {
            name: self.name.clone(),
            detail: self.detail.clone(),
            kind: self.kind,
            range: self.range,
            selection_range: self.selection_range,
            children: self
                .children
                .iter()
                .filter(|c| params && c.kind == SymbolKind::Param)
                .cloned()
                .collect(),
            chunk_op_id: None,
        }
    }
}

/// The symbols of `stmts`; `continues`: they continue a kernel cut into chunks, and an op's
/// implicit id (its place, counted from the chunk's first op) is kept for the document to
/// make it the kernel's ([`Symbol::chunk_op_id`]).
fn statements(text: &str, stmts: &[ast::Stmt], ordinal: &mut u32, continues: bool) -> Vec<Symbol> {
    let mut out = Vec::new();
    for stmt in stmts {
        match stmt {
            ast::Stmt::Tensor(t) => {
                if let Some(name) = &t.name {
                    out.push(Symbol {
                        name: format_smolstr!("%{}", name.text),
                        detail: t.ty.as_ref().map(|ty| slice(text, ty.range)),
                        kind: SymbolKind::Tensor,
                        range: t.range,
                        selection_range: name.range,
                        children: Vec::new(),
                        chunk_op_id: None,
                    });
                }
            }
            ast::Stmt::Reg(r) => {
                if let Some(name) = &r.name {
                    out.push(Symbol {
                        name: format_smolstr!("%{}", name.text),
                        detail: r.dtype.as_ref().map(|d| SmolStr::new(&d.text)),
                        kind: SymbolKind::Register,
                        range: r.range,
                        selection_range: name.range,
                        children: Vec::new(),
                        chunk_op_id: None,
                    });
                }
            }
            ast::Stmt::Loop(l) => {
                let header_end = l.body_range.map_or(l.range.end(), |b| b.start());
                let header = slice(
                    text,
                    TextRange::new(l.range.start(), header_end.max(l.range.start())),
                );
                out.push(Symbol {
                    name: SmolStr::new(header.trim()),
                    detail: None,
                    kind: SymbolKind::Loop,
                    range: l.range,
                    selection_range: l.var.as_ref().map_or(l.range, |v| v.range),
                    children: statements(text, &l.body, ordinal, continues),
                    chunk_op_id: None,
                });
            }
            ast::Stmt::Op(op) => {
                *ordinal += 1;
                let id = op.id.map_or(*ordinal, |(id, _)| id);
                let chunk_op_id = (continues && op.id.is_none()).then(|| ChunkOpId {
                    class: SmolStr::new(&op.class.text),
                    id,
                });
                out.push(Symbol {
                    name: format_smolstr!("{} #{id}", op.class.text),
                    chunk_op_id,
                    detail: lower::lookup(&op.class.text).map(|s| SmolStr::new_static(s.opcode)),
                    kind: SymbolKind::Op,
                    range: op.range,
                    selection_range: op.class.range,
                    children: Vec::new(),
                });
            }
        }
    }
    out
}

fn slice(text: &str, range: TextRange) -> SmolStr {
    SmolStr::new(
        text.get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or_default(),
    )
}

/// Symbols of the documents `docs` (each with its key) whose name contains `query`
/// (case-insensitive; all when empty): kernels, tensors, registers and parameters, in the
/// documents' offsets, by document then position. A kernel cut into chunks is one symbol
/// spanning its chunks. A query that is an instruction name (`I-33`, `I-21-0`) also finds
/// the instructions it names, each a symbol named as in the BIR on its op
/// ([`super::find_instructions`]).
pub(crate) fn workspace_symbols<K: Copy + Ord>(
    db: &dyn Db,
    docs: &[(K, &Document)],
    query: &str,
) -> Vec<(K, Symbol)> {
    let instruction = super::InstructionName::parse(query);
    let query = query.to_lowercase();
    let mut out = Vec::new();
    for &(key, doc) in docs {
        for found in
            instruction.map_or_else(Vec::new, |name| super::find_instructions(db, doc, name))
        {
            out.push((
                key,
                Symbol {
                    name: found.name.into(),
                    detail: Some(format_smolstr!(
                        "{} #{} → {} · @{}",
                        found.class,
                        found.op_id,
                        found.opcode,
                        found.kernel
                    )),
                    kind: SymbolKind::Op,
                    range: found.range,
                    selection_range: found.class_range,
                    children: Vec::new(),
                    chunk_op_id: None,
                },
            ));
        }
        for (index, chunk) in doc.chunks.iter().enumerate() {
            for mut symbol in chunk_workspace_symbols(db, chunk.source, &query) {
                symbol.shift(chunk.start);
                if symbol.kind == SymbolKind::Kernel
                    && chunk.context.goes_on
                    && let Some(whole) = doc.split_kernel_range(db, index)
                    && whole.start() == symbol.range.start()
                {
                    if symbol.selection_range == symbol.range {
                        symbol.selection_range = whole;
                    }
                    symbol.range = whole;
                }
                out.push((key, symbol));
            }
        }
    }
    out.sort_by_key(|(key, s)| (*key, s.range.start()));
    out
}

/// The workspace symbols of a chunk, `file`, matching `query` (already in lower case),
/// relative to it, by position.
fn chunk_workspace_symbols(db: &dyn Db, file: SourceFile, query: &str) -> Vec<Symbol> {
    let mut out = Vec::new();
    // The rest of a kernel cut into chunks is no kernel: its symbols, not it.
    let kernels = &parse(db, file).file.kernels;
    let mut stack: Vec<Symbol> = Vec::new();
    for (symbol, kernel) in chunk_symbols(db, file).iter().zip(kernels) {
        if kernel.continues {
            stack.extend(symbol.children.iter().cloned());
        } else {
            stack.push(symbol.clone());
        }
    }
    while let Some(mut symbol) = stack.pop() {
        stack.append(&mut symbol.children);
        if matches!(symbol.kind, SymbolKind::Loop | SymbolKind::Op) {
            continue;
        }
        if matches_query(&symbol.name, query) {
            out.push(symbol);
        }
    }
    out.sort_by_key(|s| s.range.start());
    out
}

/// Whether a symbol named `name` answers the workspace-symbol `query` (already in lower
/// case): its name holds it, case aside (every name holds the empty query).
pub fn matches_query(name: &str, query: &str) -> bool {
    name.to_lowercase().contains(query)
}

impl Shift for Symbol {
    fn shift(&mut self, by: syntax::ast::TextSize) {
        self.range.shift(by);
        self.selection_range.shift(by);
        self.children.shift(by);
    }
}

#[cfg(test)]
mod tests {
    use crate::db::RootDatabase;

    #[test]
    fn kernels_loops_ops_and_tensors() {
        let db = RootDatabase::default();
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  for %i in 0..2 {\n    DmaCopyOp { dst = %t, src = %x }\n  }\n}\n";
        let doc = crate::ide::fixture::document(&db, text);
        let symbols = super::document_symbols(&db, &doc);
        let render = format!("{symbols:#?}");
        assert_eq!(symbols.len(), 1);
        let names: Vec<&str> = symbols[0]
            .children
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, ["%x", "%t", "for %i in 0..2"], "{render}");
        assert_eq!(symbols[0].children[2].children[0].name, "DmaCopyOp #1");
        assert_eq!(
            symbols[0].children[2].children[0].detail.as_deref(),
            Some("DMACopy")
        );
        let found = super::workspace_symbols(&db, &[(0, &doc)], "T");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1.name, "%t");
    }
}
