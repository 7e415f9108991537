//! A *part* is one kernel's share of one chunk: every kernel of a chunk is a part, and a
//! kernel cut into chunks has one part per chunk it spans (its first chunk's last kernel,
//! then the first kernel of each chunk after it). This module summarizes each part for the
//! kernel-wide rules ([`super::rules`]): what they read of it, position-free, and where
//! their findings are placed in it.
//!
//! Position-free means an edit that moves text, or changes an op without changing what it
//! reads, writes or declares, gives an equal summary: salsa backdates it, and no rule over
//! the kernel runs again. Each rule reads its own projection ([`part_reads`],
//! [`part_decls`], [`part_ids`], [`part_writes`]), so an edit that changes what an op reads updates P501
//! only.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smol_str::SmolStr;
use std::sync::Arc;

use lower::diag::Anchor;
use lower::model::TensorKind;
use syntax::ast::{self, TextRange};

use crate::db::{Db, Lowerings, SourceFile, file_items, parse};
use crate::resolve::{self, Allocation, DefKind};

/// One part's summary and places (see the module docs), as [`parts`] gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Part {
    /// What the kernel-wide rules read of it (position-free).
    pub summary: PartSummary,
    /// Where their findings are in it.
    pub places: PartPlaces,
}

/// What the kernel-wide rules read of one part, position-free, in one field per rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartSummary {
    /// What P501 reads.
    pub reads: Arc<PartReads>,
    /// What P500 reads.
    pub decls: PartDecls,
    /// What P208 (and the implicit op ids of later parts) read.
    pub ids: PartIds,
    /// What P419 reads.
    pub writes: PartWrites,
}

/// What P419 ("output never written") reads of a part.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartWrites {
    /// The kernel's output parameters (after `->`), in signature order: first part only.
    pub outputs: Vec<SmolStr>,
    /// The names an op of the part writes when it runs (any output operand, errors or
    /// not; every name an unknown op names), sorted, without duplicates.
    pub written: Vec<SmolStr>,
    /// The names written only by ops inside a loop that runs 0 times (`lb ≥ ub`), with the
    /// first such op's place in the part (0-based, as [`PartPlaces::ids`]), sorted by name.
    pub written_in_empty_loops: Vec<(SmolStr, u32)>,
}

/// What P501 ("read before any op writes it") reads of a part.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartReads {
    /// The tensors the part allocates (its parameters, in the kernel's first part, and
    /// its declarations), by name as declared.
    pub tensors: Vec<SmolStr>,
    /// The parameters that are inputs or outputs (written before any op): first part only.
    pub params: Vec<SmolStr>,
    /// Each name the part's ops read or write, in the order the ops first name it.
    pub names: Vec<NameUse>,
}

/// What a part's ops do with one name (see [`PartReads::names`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameUse {
    /// The name without `%` (inline up to 23 bytes: a part keeps thousands).
    pub name: SmolStr,
    /// An op of the part reads it.
    pub read: bool,
    /// An op of the part writes it.
    pub written: bool,
    /// An op of the part reads it before any op of the part writes it.
    pub read_first: bool,
}

/// What P500 ("declared but never used") reads of a part.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartDecls {
    /// The declarations of the part (first definitions in the kernel) that no op of the
    /// part names, sorted by name: P500 unless a later part names them.
    pub unused: Vec<UnusedDecl>,
    /// The names the part uses that earlier parts declare (its prelude's, used), sorted.
    pub uses_before: Vec<SmolStr>,
}

/// A declaration no op of its part names (see [`PartDecls::unused`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnusedDecl {
    /// The name without `%` (inline up to 23 bytes: a part keeps thousands).
    pub name: SmolStr,
    /// It declares a register (else a tensor).
    pub register: bool,
}

/// What P208 ("duplicate op id") and the implicit op ids read of a part.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartIds {
    /// Its ops (loop bodies included).
    pub ops: u32,
    /// The ops with a written id (`#N`): each op's place in the part (0-based) and its id,
    /// in source order.
    pub written: Vec<WrittenId>,
}

/// An op whose id is written (`#N`), see [`PartIds::written`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WrittenId {
    /// The op's place in its part (0-based, source order, loop bodies in place).
    pub op: u32,
    /// The id written.
    pub id: u32,
}

/// Where the kernel-wide rules' findings stand in a part (UTF-8 bytes, relative to its
/// chunk): what [`PartSummary`] leaves out because it moves with every edit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartPlaces {
    /// The part's range in the chunk (its kernel's, from `kernel` or the chunk's start to
    /// its `}` or the chunk's end).
    pub range: TextRange,
    /// The kernel's name (`@name`), or the `kernel` keyword when it has none; empty at the
    /// part's start in a part that continues a kernel.
    pub name: TextRange,
    /// Each name's first read by an op of the part (the P501 range), in the order of the
    /// reads (a part's names are bounded by its chunk: looked up by a walk).
    pub first_reads: Vec<(SmolStr, TextRange)>,
    /// Each declared name of the part (its first definition in the part): the name token
    /// and the whole declaration (the parameter, or the `tensor`/`reg` statement), sorted
    /// by name.
    pub declarations: Vec<Declaration>,
    /// Each op's id (its `#N`, else its class name), in source order.
    pub ids: Vec<TextRange>,
    /// Each op's class name, in source order.
    pub classes: Vec<ast::Name>,
}

/// A name a part declares, with its places (see [`PartPlaces::declarations`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The name without `%` (inline up to 23 bytes: a part keeps thousands).
    pub name: SmolStr,
    /// What it declares: a parameter, a tensor or a register.
    pub kind: DefKind,
    /// The name token.
    pub name_range: TextRange,
    /// The whole declaration (a parameter from its name to its type; a statement).
    pub range: TextRange,
}

impl PartPlaces {
    /// The declaration of `name` in the part, if the part declares it.
    pub fn declaration(&self, name: &str) -> Option<&Declaration> {
        let i = self
            .declarations
            .binary_search_by(|d| d.name.as_str().cmp(name))
            .ok()?;
        self.declarations.get(i)
    }

    /// The first read of `name` by an op of the part.
    pub fn first_read(&self, name: &str) -> Option<TextRange> {
        self.first_reads
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| *r)
    }
}

/// The parts of `file`, one per kernel it holds (in source order, as
/// [`crate::resolve::FileItems::kernels`]), each with its summary and places.
#[salsa::tracked(returns(ref))]
pub fn parts(db: &dyn Db, file: SourceFile) -> Vec<Part> {
    let items = file_items(db, file);
    let parsed = &parse(db, file).file;
    // Used: named anywhere (resolution's use table), whatever else is wrong with the use.
    let used: HashSet<usize> = items.references.iter().map(|(_, d)| *d).collect();
    let lowerings = Lowerings::of(db, file);
    items
        .kernels
        .iter()
        .zip(&parsed.kernels)
        .map(|(kernel, syntax)| part(lowerings, items, &used, kernel, syntax))
        .collect()
}

/// The summary and places of one part (see [`parts`]).
fn part(
    lowerings: Lowerings<'_>,
    items: &resolve::FileItems,
    used: &HashSet<usize>,
    kernel: &resolve::KernelItems,
    syntax: &ast::Kernel,
) -> Part {
    let mut reads = PartReads::default();
    let mut ids = PartIds::default();
    let mut writes = PartWrites::default();
    let keyword = TextRange::at(syntax.range.start(), 6.into()).intersect(syntax.range);
    let mut places = PartPlaces {
        range: syntax.range,
        name: syntax
            .name
            .as_ref()
            .map(|n| n.range)
            .or(keyword)
            .filter(|_| !syntax.continues)
            .unwrap_or(TextRange::empty(syntax.range.start())),
        ..PartPlaces::default()
    };
    for allocation in &kernel.allocations {
        if let Allocation::Tensor(t) = allocation {
            reads.tensors.push(t.name.as_str().into());
            if t.kind != TensorKind::Internal {
                reads.params.push(t.name.as_str().into());
            }
            if t.kind == TensorKind::Output {
                writes.outputs.push(t.name.as_str().into());
            }
        }
    }
    // Reads and writes, op by op, in source order.
    let mut names: HashMap<&str, usize> = HashMap::default();
    // The names written (each once: most ops write a name an earlier op wrote).
    let mut written: HashSet<&str> = HashSet::default();
    crate::check::for_each_op(&kernel.body, &mut |op| {
        if let Some((id, _)) = op.syntax.id {
            ids.written.push(WrittenId { op: ids.ops, id });
        }
        ids.ops += 1;
        places
            .ids
            .push(op.syntax.id.map_or(op.syntax.class.range, |(_, r)| r));
        places.classes.push(op.syntax.class.clone());
        let known = lower::lookup(&op.resolved.class).is_some();
        let unknown_writes;
        let (op_reads, op_writes): (&[String], Vec<&str>) = if known {
            let lowered = lowerings.get(op);
            (
                &lowered.reads,
                lowered.writes.iter().map(String::as_str).collect(),
            )
        } else {
            // An unknown op (P202) says nothing of what it reads or writes: every name it
            // names counts as written, so that its mistake does not make later reads warn.
            unknown_writes = crate::check::accesses(op);
            (
                &[],
                unknown_writes
                    .iter()
                    .map(|(_, a)| a.name.as_str())
                    .collect(),
            )
        };
        for name in op_reads.iter().map(String::as_str) {
            let at = *names.entry(name).or_insert_with(|| {
                reads.names.push(NameUse {
                    name: SmolStr::new(name),
                    ..NameUse::default()
                });
                reads.names.len() - 1
            });
            let Some(name_use) = reads.names.get_mut(at) else {
                continue;
            };
            if !name_use.read {
                name_use.read = true;
                name_use.read_first = !name_use.written;
                // Where the op first names it (its first read's range), looked up only here.
                let accesses = crate::check::accesses(op);
                let first = accesses.iter().find(|(_, a)| a.name == name);
                let anchor = first.map_or(Anchor::Class, |(path, _)| Anchor::Value(path.clone()));
                let range = crate::diagnostic::anchor_range(op, &anchor);
                places.first_reads.push((SmolStr::new(name), range));
            }
        }
        // An op in a loop that runs 0 times writes nothing (an invalid loop, P414, counts
        // as running: one diagnostic per mistake).
        let runs = !op
            .resolved
            .loops
            .iter()
            .any(|l| l.bounds.is_some() && l.trip_count() == 0);
        for &name in &op_writes {
            if runs {
                if written.insert(name) {
                    writes.written.push(SmolStr::new(name));
                }
            } else {
                writes
                    .written_in_empty_loops
                    .push((SmolStr::new(name), ids.ops - 1));
            }
        }
        for name in op_writes {
            let at = *names.entry(name).or_insert_with(|| {
                reads.names.push(NameUse {
                    name: SmolStr::new(name),
                    ..NameUse::default()
                });
                reads.names.len() - 1
            });
            if let Some(name_use) = reads.names.get_mut(at) {
                name_use.written = true;
            }
        }
    });

    let decls = declarations(items, used, kernel, syntax, &mut places);
    writes.written.sort_unstable();
    // Kept for the life of the part's memo: no room left over from pushing.
    writes.written.shrink_to_fit();
    reads.names.shrink_to_fit();
    ids.written.shrink_to_fit();
    places.ids.shrink_to_fit();
    places.classes.shrink_to_fit();
    places.first_reads.shrink_to_fit();
    places.declarations.shrink_to_fit();
    // The first op of each name (a stable sort keeps source order among equal names).
    writes.written_in_empty_loops.sort_by(|a, b| a.0.cmp(&b.0));
    writes.written_in_empty_loops.dedup_by(|b, a| a.0 == b.0);
    let summary = PartSummary {
        reads: Arc::new(reads),
        decls,
        ids,
        writes,
    };
    Part { summary, places }
}

/// What P500 reads of a part, and the places of its declarations (into `places`).
fn declarations(
    items: &resolve::FileItems,
    used: &HashSet<usize>,
    kernel: &resolve::KernelItems,
    syntax: &ast::Kernel,
    places: &mut PartPlaces,
) -> PartDecls {
    let mut decls = PartDecls::default();
    let definitions = items
        .definitions
        .get(kernel.definitions.clone())
        .unwrap_or_default();
    // The names an earlier part declares (the prelude's): this part's definition of one
    // is a second definition (P201), never unused on its own.
    let prelude: HashSet<&str> = definitions
        .iter()
        .filter(|d| d.prelude)
        .map(|d| d.name.as_str())
        .collect();
    let statements = declaration_ranges(syntax);
    let mut seen: HashSet<&str> = HashSet::default();
    for (offset, def) in definitions.iter().enumerate() {
        let index = kernel.definitions.start + offset;
        if !matches!(
            def.kind,
            DefKind::Tensor | DefKind::Register | DefKind::Param
        ) {
            continue;
        }
        if def.prelude {
            if used.contains(&index) {
                decls.uses_before.push(def.name.as_str().into());
            }
            continue;
        }
        // A second definition of a name is P201 already: one diagnostic per mistake.
        if !seen.insert(def.name.as_str()) {
            continue;
        }
        places.declarations.push(Declaration {
            name: def.name.as_str().into(),
            kind: def.kind,
            name_range: def.range,
            range: statements
                .get(def.name.as_str())
                .copied()
                .unwrap_or(def.range),
        });
        // A declaration with an error (its type) is that one mistake: no P500 as well.
        if def.kind != DefKind::Param
            && !def.flawed
            && !used.contains(&index)
            && !prelude.contains(def.name.as_str())
        {
            decls.unused.push(UnusedDecl {
                name: def.name.as_str().into(),
                register: def.kind == DefKind::Register,
            });
        }
    }
    decls.unused.sort_unstable();
    decls.uses_before.sort_unstable();
    decls.uses_before.dedup();
    places
        .declarations
        .sort_unstable_by(|a, b| a.name.cmp(&b.name));
    decls
}

/// The declaration of each name `kernel` declares: the parameter (name to type) or the
/// `tensor` / `reg` statement (loop bodies included); the first one of a name, as
/// resolution keeps it. One walk over the kernel's statements.
fn declaration_ranges(kernel: &ast::Kernel) -> HashMap<&str, TextRange> {
    fn walk<'a>(stmts: &'a [ast::Stmt], out: &mut HashMap<&'a str, TextRange>) {
        for stmt in stmts {
            let (name, range) = match stmt {
                ast::Stmt::Tensor(t) => (t.name.as_ref(), t.range),
                ast::Stmt::Reg(r) => (r.name.as_ref(), r.range),
                ast::Stmt::Loop(l) => {
                    walk(&l.body, out);
                    continue;
                }
                ast::Stmt::Op(_) => continue,
            };
            if let Some(name) = name {
                out.entry(name.text.as_str()).or_insert(range);
            }
        }
    }
    let mut out = HashMap::default();
    for param in kernel.params.iter().chain(&kernel.outputs) {
        out.entry(param.name.text.as_str()).or_insert(param.range);
    }
    walk(&kernel.body, &mut out);
    out
}

/// Each part's [`PartReads`] (P501), as [`parts`] lists them.
#[salsa::tracked(returns(ref))]
pub fn part_reads(db: &dyn Db, file: SourceFile) -> Vec<Arc<PartReads>> {
    parts(db, file)
        .iter()
        .map(|p| p.summary.reads.clone())
        .collect()
}

/// Each part's [`PartDecls`] (P500), as [`parts`] lists them.
#[salsa::tracked(returns(ref))]
pub fn part_decls(db: &dyn Db, file: SourceFile) -> Vec<PartDecls> {
    parts(db, file)
        .iter()
        .map(|p| p.summary.decls.clone())
        .collect()
}

/// Each part's [`PartWrites`] (P419), as [`parts`] lists them.
#[salsa::tracked(returns(ref))]
pub fn part_writes(db: &dyn Db, file: SourceFile) -> Vec<PartWrites> {
    parts(db, file)
        .iter()
        .map(|p| p.summary.writes.clone())
        .collect()
}

/// Each part's [`PartIds`] (P208, and the implicit op ids of the parts after it), as
/// [`parts`] lists them.
#[salsa::tracked(returns(ref))]
pub fn part_ids(db: &dyn Db, file: SourceFile) -> Vec<PartIds> {
    parts(db, file)
        .iter()
        .map(|p| p.summary.ids.clone())
        .collect()
}
