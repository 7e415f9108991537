//! What a part that continues a kernel must know of the kernel's earlier parts (its
//! [`Entry`]), made from small, position-free per-chunk queries ([`outline`], [`mentions`])
//! so that editing an op changes no other chunk's entry.
//!
//! A kernel of at least `crate::document::SPLIT_FACTOR` chunk targets is cut at statement
//! lines directly in its body: its first chunk holds the header and
//! [`syntax::Kernel::goes_on`], the others [`syntax::Kernel::continues`]. Each chunk is
//! resolved alone with its entry: the first definition, in the kernel before it, of each
//! name its text mentions ([`KernelIndex`] joins the outlines of a kernel's parts).

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use lower::model::OpSettings;
use syntax::ast;

use crate::db::{Db, SourceFile, parse};
use crate::resolve::{self, Entry, PreludeDef};

/// What a chunk defines for the chunks after it that continue its last kernel: nothing
/// unless that kernel goes on ([`syntax::Kernel::goes_on`]). Position-free: an edit that
/// changes no declaration leaves it equal, and no entry after it changes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Outline {
    /// The kernel's name, when this chunk holds its header (else empty).
    pub kernel: String,
    /// Its parameters and declarations in this chunk, in source order (every one, also
    /// a name defined twice: the kernel's first definition is the first in chunk order).
    pub defs: Vec<PreludeDef>,
    /// Its loops in this chunk: each variable name with how many loops use it, by name.
    pub loops: Vec<(String, u32)>,
}

/// The [`Outline`] of `file`'s last kernel, if it goes on into the next chunk.
#[salsa::tracked(returns(ref))]
pub fn outline(db: &dyn Db, file: SourceFile) -> Outline {
    let parse = parse(db, file);
    let Some(kernel) = parse.file.kernels.last().filter(|k| k.goes_on) else {
        return Outline::default();
    };
    let mut out = Outline {
        kernel: kernel
            .name
            .as_ref()
            .map(|n| n.text.to_string())
            .unwrap_or_default(),
        defs: resolve::declarations(kernel, settings(db)),
        loops: Vec::new(),
    };
    let mut loops: HashMap<String, u32> = HashMap::default();
    count_loops(&kernel.body, &mut loops);
    out.loops = loops.into_iter().collect();
    out.loops.sort_unstable();
    out
}

fn settings(db: &dyn Db) -> OpSettings {
    OpSettings {
        tkg_seqlen_threshold: db.settings().tkg_seqlen_threshold(db),
    }
}

fn count_loops(body: &[ast::Stmt], out: &mut HashMap<String, u32>) {
    for stmt in body {
        if let ast::Stmt::Loop(lp) = stmt {
            let name = lp
                .var
                .as_ref()
                .map(|v| v.text.to_string())
                .unwrap_or_default();
            *out.entry(name).or_default() += 1;
            count_loops(&lp.body, out);
        }
    }
}

/// The names (`%name`, without `%`) that `file`'s text mentions, sorted, each once.
#[salsa::tracked(returns(ref))]
pub fn mentions(db: &dyn Db, file: SourceFile) -> Arc<[String]> {
    let text = file.text(db);
    let (tokens, _) = syntax::lex(text);
    let mut names: Vec<String> = tokens
        .iter()
        .filter(|(kind, _)| *kind == syntax::Token::Local)
        .map(|(_, range)| text[*range].trim_start_matches('%').to_string())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.into()
}

/// The definitions of a split kernel's chunks, joined: for each name, the chunk (index
/// among the kernel's chunks) and the definition that defines it first; for each loop
/// variable name, the running count of its loops after each chunk that has some.
#[derive(Debug, Default)]
pub struct KernelIndex {
    /// The kernel's name.
    pub kernel: String,
    defs: HashMap<String, (usize, PreludeDef)>,
    loops: HashMap<String, Vec<(usize, u32)>>,
    /// The first definitions in scope after their chunk (see [`PreludeDef::visible`]), in
    /// source order, each with its chunk (index among the kernel's).
    visible: Vec<(String, usize)>,
    /// The outlines pushed.
    chunks: usize,
}

impl KernelIndex {
    /// The index of a kernel's chunks (their outlines, in order, the first with the
    /// header).
    pub fn new<'a>(outlines: impl IntoIterator<Item = &'a Outline>) -> KernelIndex {
        let mut index = KernelIndex::default();
        for outline in outlines {
            index.push(outline);
        }
        index
    }

    /// Adds the outline of the kernel's next chunk (the first: the one with the header).
    /// The entry of a chunk reads the outlines before it only: an index of the first `n`
    /// chunks gives the entries of the first `n + 1`.
    pub fn push(&mut self, outline: &Outline) {
        let i = self.chunks;
        self.chunks += 1;
        if i == 0 {
            self.kernel = outline.kernel.clone();
        }
        for def in &outline.defs {
            if let std::collections::hash_map::Entry::Vacant(slot) =
                self.defs.entry(def.name.clone())
            {
                slot.insert((i, def.clone()));
                if def.visible {
                    self.visible.push((def.name.clone(), i));
                }
            }
        }
        for (name, count) in &outline.loops {
            let counts = self.loops.entry(name.clone()).or_default();
            let before = counts.last().map_or(0, |c| c.1);
            counts.push((i, before + count));
        }
    }

    /// The names in scope where the kernel's `i`-th chunk starts, in source order (the
    /// candidates of its P200 "did you mean").
    pub fn visible_before(&self, i: usize) -> impl Iterator<Item = &str> {
        self.visible
            .iter()
            .take_while(move |(_, at)| *at < i)
            .map(|(name, _)| name.as_str())
    }

    /// The chunk (index among the kernel's) that first defines `name`.
    pub fn home(&self, name: &str) -> Option<usize> {
        self.defs.get(name).map(|(at, _)| *at)
    }

    /// The entry of the kernel's `i`-th chunk (0-based; `i > 0`), which mentions `mentions`.
    pub fn entry(&self, i: usize, mentions: &[String]) -> Entry {
        let mut entry = Entry {
            kernel: self.kernel.clone(),
            ..Entry::default()
        };
        for name in mentions {
            if let Some((at, def)) = self.defs.get(name)
                && *at < i
            {
                entry.prelude.push(def.clone());
            }
            if let Some(counts) = self.loops.get(name) {
                let before = counts.partition_point(|c| c.0 < i);
                if let Some(&(_, count)) = before.checked_sub(1).and_then(|b| counts.get(b)) {
                    entry.loops.push((name.clone(), count));
                }
            }
        }
        entry
    }
}
