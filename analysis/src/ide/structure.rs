//! Folding ranges and selection ranges: the syntax tree's structure (SPEC §10).

use syntax::Token;
use syntax::ast::{self, TextRange, TextSize};

use crate::db::{Db, SourceFile, parse};
use crate::document::{Document, Shift};
use crate::ide::Site;
use crate::ide::contains_inclusive;

/// What a fold is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldKind {
    /// A block, an op body, a multi-line value.
    Region,
    /// A run of comment lines.
    Comment,
}

/// A foldable range (the caller drops the ones that fit on one line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// From the opening to the closing character.
    pub range: TextRange,
    /// Its kind.
    pub kind: FoldKind,
    /// What it folds: the outer the fold, the lower.
    pub rank: FoldRank,
}

/// What a fold folds, outermost first: a document of more than [`MAX_FOLDS`] folds gets
/// the folds of the first ranks only (see [`folding_ranges`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FoldRank {
    /// A kernel, from its `kernel` line to its `}`.
    Kernel,
    /// A loop's body.
    Loop,
    /// An op's body, or a run of comment lines.
    Op,
    /// A multi-line list or record.
    Value,
}

impl FoldRank {
    /// Every rank, outermost first.
    pub const ALL: [FoldRank; 4] = [
        FoldRank::Kernel,
        FoldRank::Loop,
        FoldRank::Op,
        FoldRank::Value,
    ];
}

/// The most folds a document's folding ranges hold: VS Code's default
/// `editor.foldingMaximumRegions`, beyond which it drops the rest itself. A document with
/// more gets its outer folds (the ranks of [`FoldRank::ALL`] in order, as many whole ranks
/// as fit, kernels always, and at most this many), so that its answer costs the same
/// whatever the file's size (at 100,000 ops all its folds were a 3.8 MB answer and 1.8 s;
/// decision, docs/decisions.md).
pub const MAX_FOLDS: usize = 5_000;

/// A chunk's folds ([`chunk_folds`]), and the folds of its kernels that other chunks
/// continue, so that the document joins them without the chunk's syntax tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkFolds {
    /// Every fold of the chunk, by start (relative to it).
    pub folds: Vec<Fold>,
    /// The fold of its first kernel when that kernel continues one of earlier chunks.
    pub continues: Option<TextRange>,
    /// The fold of its last kernel when that kernel goes on in later chunks.
    pub goes_on: Option<TextRange>,
    /// How many of its folds are of each rank, in [`FoldRank::ALL`]'s order.
    pub counts: [usize; 4],
}

/// The fold of a kernel: from the `kernel` line, so that a signature written over several
/// lines folds with its body (folding from the `{` would leave all but its last line open).
fn kernel_fold(kernel: &ast::Kernel) -> Option<TextRange> {
    kernel
        .body_range
        .map(|body| TextRange::new(kernel.range.start(), body.end()))
}

/// Every fold of a file: kernel and loop bodies, op bodies, lists and records, and runs of
/// two or more comment-only lines. Memoized and kept (the editor asks after every change;
/// for a chunk not edited this is a lookup, not a parse and a walk of its syntax tree).
#[salsa::tracked(returns(ref))]
pub fn chunk_folds(db: &dyn Db, file: SourceFile) -> ChunkFolds {
    let text = file.text(db);
    let mut folds = Vec::new();
    let kernels = &parse(db, file).file.kernels;
    let region = |range: TextRange, rank: FoldRank| Fold {
        range,
        kind: FoldKind::Region,
        rank,
    };
    for kernel in kernels {
        folds.extend(kernel_fold(kernel).map(|r| region(r, FoldRank::Kernel)));
        walk_stmts(&kernel.body, &mut |r, rank| folds.push(region(r, rank)));
    }
    // Runs of comment lines.
    let (tokens, _) = syntax::lex(text);
    let mut run: Option<(TextRange, usize)> = None;
    let index = crate::db::line_index(db, file);
    let mut last_comment_line: Option<u32> = None;
    for (token, range) in tokens.iter().copied() {
        if token != Token::Comment {
            continue;
        }
        // Line lookups through the index: linear in the comments, whatever the line length.
        let line = index.line_col(range.start()).line;
        let line_start = index.line(line).map_or(0, |r| usize::from(r.start()));
        let only_comment = text[line_start..usize::from(range.start())]
            .trim()
            .is_empty();
        let previous_line = last_comment_line.is_some_and(|prev| prev + 1 == line);
        match (&mut run, only_comment && previous_line) {
            (Some((r, n)), true) => {
                *r = r.cover(range);
                *n += 1;
            }
            _ => {
                if let Some((r, n)) = run.take()
                    && n >= 2
                {
                    folds.push(Fold {
                        range: r,
                        kind: FoldKind::Comment,
                        rank: FoldRank::Op,
                    });
                }
                run = only_comment.then_some((range, 1));
            }
        }
        last_comment_line = only_comment.then_some(line);
    }
    if let Some((r, n)) = run
        && n >= 2
    {
        folds.push(Fold {
            range: r,
            kind: FoldKind::Comment,
            rank: FoldRank::Op,
        });
    }
    folds.sort_by_key(|f| f.range.start());
    let mut counts = [0; 4];
    for fold in &folds {
        if let Some(count) = counts.get_mut(fold.rank as usize) {
            *count += 1;
        }
    }
    ChunkFolds {
        folds,
        counts,
        continues: kernels
            .first()
            .filter(|k| k.continues)
            .and_then(kernel_fold),
        goes_on: kernels.last().filter(|k| k.goes_on).and_then(kernel_fold),
    }
}

/// Calls `f` with the foldable ranges below the statements and their ranks (the tree is
/// at most the parser's bracket depth deep, so is this recursion).
fn walk_stmts(stmts: &[ast::Stmt], f: &mut impl FnMut(TextRange, FoldRank)) {
    for stmt in stmts {
        match stmt {
            ast::Stmt::Loop(l) => {
                if let Some(b) = l.body_range {
                    f(b, FoldRank::Loop);
                }
                walk_stmts(&l.body, f);
            }
            ast::Stmt::Op(op) => {
                if let Some(b) = op.body_range {
                    f(b, FoldRank::Op);
                }
                for field in &op.fields {
                    if let Some(v) = &field.value {
                        walk_value(v, f);
                    }
                }
            }
            ast::Stmt::Tensor(_) | ast::Stmt::Reg(_) => {}
        }
    }
}

fn walk_value(value: &ast::Value, f: &mut impl FnMut(TextRange, FoldRank)) {
    match &value.kind {
        ast::ValueKind::List(items) => {
            f(value.range, FoldRank::Value);
            items.iter().for_each(|v| walk_value(v, f));
        }
        ast::ValueKind::Record(fields) => {
            f(value.range, FoldRank::Value);
            fields
                .iter()
                .filter_map(|fl| fl.value.as_ref())
                .for_each(|v| walk_value(v, f));
        }
        _ => {}
    }
}

/// The folding ranges of a document, in its offsets: each chunk's ([`chunk_folds`],
/// memoized and kept), a kernel cut into chunks folding whole from its first chunk; at
/// most [`MAX_FOLDS`], the outer ranks first (O(chunks) to count them, then O(the folds
/// answered)).
pub(crate) fn folding_ranges(db: &dyn Db, doc: &Document) -> Vec<Fold> {
    let mut counts = [0usize; 4];
    for chunk in &doc.chunks {
        db.unwind_if_revision_cancelled();
        for (sum, count) in counts.iter_mut().zip(chunk_folds(db, chunk.source).counts) {
            *sum += count;
        }
    }
    // The ranks answered: as many whole ranks as fit, kernels whatever their number.
    let [kernels, ..] = counts;
    let mut total = kernels;
    let ranks = 1 + FoldRank::ALL
        .iter()
        .zip(counts)
        .skip(1)
        .take_while(|(_, count)| {
            total += count;
            total <= MAX_FOLDS
        })
        .count();
    let deepest = FoldRank::ALL
        .get(ranks - 1)
        .copied()
        .unwrap_or(FoldRank::Kernel);
    let mut out: Vec<Fold> = Vec::new();
    for (index, chunk) in doc.chunks.iter().enumerate() {
        db.unwind_if_revision_cancelled();
        let folds = chunk_folds(db, chunk.source);
        // A kernel cut into chunks folds whole, from its first chunk.
        let skip = folds.continues.map(|r| r + chunk.start);
        let grow = folds.goes_on.map(|r| r + chunk.start);
        for fold in folds.folds.iter().filter(|f| f.rank <= deepest) {
            let mut fold = *fold;
            fold.shift(chunk.start);
            if fold.kind == FoldKind::Region && Some(fold.range) == skip {
                continue;
            }
            if fold.kind == FoldKind::Region
                && Some(fold.range) == grow
                && let Some(whole) = doc.split_kernel_range(db, index)
            {
                fold.range = whole;
            }
            if out.len() == MAX_FOLDS {
                return out;
            }
            out.push(fold);
        }
    }
    out
}

/// The selection ranges at `offset` (the document's), innermost first, each containing the
/// previous: the token, then every enclosing node of the tree (in a kernel cut into
/// chunks, its part's range and body are the whole kernel's), then the whole document.
pub(crate) fn selection_ranges(db: &dyn Db, doc: &Document, offset: TextSize) -> Vec<TextRange> {
    let (site, at) = Site::at(doc, offset);
    let mut ranges = site.to_document(chunk_selection_ranges(db, site.source(), at));
    let parts = doc.split_parts_around(db, site.index);
    if !parts.is_empty() {
        let mut all: Vec<TextRange> = ranges
            .iter()
            .copied()
            .filter(|r| !parts.iter().any(|(part, _)| part == r))
            .collect();
        all.extend(
            parts
                .iter()
                .filter(|(part, _)| part.contains_inclusive(offset) || part.is_empty())
                .map(|(_, whole)| *whole),
        );
        all.sort_by_key(|r| (r.len(), std::cmp::Reverse(r.start())));
        all.dedup();
        ranges.clear();
        for r in all {
            if ranges
                .last()
                .is_none_or(|last: &TextRange| r.contains_range(*last) && r != *last)
            {
                ranges.push(r);
            }
        }
    }
    let whole = TextRange::up_to(doc.len());
    if ranges.last() != Some(&whole) {
        ranges.push(whole);
    }
    ranges
}

/// The selection ranges at `offset` in a chunk, `file` (relative to it), innermost first,
/// without the whole text.
fn chunk_selection_ranges(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<TextRange> {
    let text = file.text(db);
    let mut ranges = Vec::new();
    let (tokens, _) = syntax::lex(text);
    if let Some((_, r)) = tokens
        .iter()
        .find(|(t, r)| *t != Token::Newline && contains_inclusive(*r, offset))
    {
        ranges.push(*r);
    }
    for kernel in &parse(db, file).file.kernels {
        collect_kernel(kernel, &mut ranges);
    }
    ranges.retain(|r| contains_inclusive(*r, offset));
    ranges.sort_by_key(|r| (r.len(), std::cmp::Reverse(r.start())));
    ranges.dedup();
    // Keep a chain: each range must contain the one before.
    let mut chain: Vec<TextRange> = Vec::new();
    for r in ranges {
        if chain
            .last()
            .is_none_or(|last| r.contains_range(*last) && r != *last)
        {
            chain.push(r);
        }
    }
    chain
}

fn collect_kernel(kernel: &ast::Kernel, out: &mut Vec<TextRange>) {
    out.push(kernel.range);
    out.extend(kernel.body_range);
    for p in kernel.params.iter().chain(&kernel.outputs) {
        out.push(p.range);
        out.push(p.name.range);
        if let Some(ty) = &p.ty {
            out.push(ty.range);
        }
    }
    collect_stmts(&kernel.body, out);
}

fn collect_stmts(stmts: &[ast::Stmt], out: &mut Vec<TextRange>) {
    for stmt in stmts {
        match stmt {
            ast::Stmt::Tensor(t) => {
                out.push(t.range);
                out.extend(t.ty.as_ref().map(|ty| ty.range));
            }
            ast::Stmt::Reg(r) => out.push(r.range),
            ast::Stmt::Loop(l) => {
                out.push(l.range);
                out.extend(l.body_range);
                collect_stmts(&l.body, out);
            }
            ast::Stmt::Op(op) => {
                out.push(op.range);
                out.extend(op.body_range);
                collect_fields(&op.fields, out);
            }
        }
    }
}

fn collect_fields(fields: &[ast::Field], out: &mut Vec<TextRange>) {
    for field in fields {
        out.push(field.range);
        out.push(field.name.range);
        if let Some(v) = &field.value {
            collect_value(v, out);
        }
    }
}

fn collect_value(value: &ast::Value, out: &mut Vec<TextRange>) {
    out.push(value.range);
    match &value.kind {
        ast::ValueKind::Access(a) => {
            out.push(a.name.range);
            for index in a.indices.iter().flatten() {
                out.push(index.range);
            }
        }
        ast::ValueKind::List(items) | ast::ValueKind::Call { args: items, .. } => {
            items.iter().for_each(|v| collect_value(v, out));
        }
        ast::ValueKind::Record(fields) => collect_fields(fields, out),
        _ => {}
    }
}

impl Shift for Fold {
    fn shift(&mut self, by: TextSize) {
        self.range.shift(by);
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::fixture::with_cursor;

    #[test]
    fn folds_blocks_ops_and_comment_runs() {
        let (db, doc, _) =
            with_cursor("<|>// one\n// two\nkernel @k(%x: hbm f32[4]) {\n  NoOp {\n  }\n}\n");
        let folds = super::folding_ranges(&db, &doc);
        let kinds: Vec<_> = folds.iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            [
                super::FoldKind::Comment,
                super::FoldKind::Region,
                super::FoldKind::Region
            ]
        );
    }

    /// Over [`super::MAX_FOLDS`] folds, a document gets the outer ranks that fit whole:
    /// here its kernels and loops (2,000 each), not its 2,000 op bodies.
    #[test]
    fn a_document_of_too_many_folds_gets_its_outer_ones() {
        use super::{FoldRank, MAX_FOLDS};
        let kernel = "kernel @k() {\n  for %i in 0..2 {\n    NoOp {\n    }\n  }\n}\n";
        let db = crate::db::RootDatabase::default();
        let doc = crate::ide::fixture::document(&db, &kernel.repeat(2000));
        let folds = super::folding_ranges(&db, &doc);
        let ranks = |rank: FoldRank| folds.iter().filter(|f| f.rank == rank).count();
        assert_eq!(
            FoldRank::ALL.map(ranks),
            [2000, 2000, 0, 0],
            "at most {MAX_FOLDS}, outer ranks first"
        );
        let small = crate::ide::fixture::document(&db, &kernel.repeat(10));
        let all = super::folding_ranges(&db, &small);
        assert_eq!(
            FoldRank::ALL.map(|r| all.iter().filter(|f| f.rank == r).count()),
            [10, 10, 10, 0]
        );
    }

    #[test]
    fn a_kernel_folds_from_its_first_line() {
        let (db, doc, _) = with_cursor(
            "<|>kernel @k(%x: hbm f32[4],\n          %y: hbm f32[4]) {\n  NoOp {}\n}\n",
        );
        let text = doc.text(&db);
        let folds = super::folding_ranges(&db, &doc);
        let kernel = folds.first().expect("a fold");
        assert_eq!(kernel.range.start(), 0.into());
        assert_eq!(
            usize::from(kernel.range.end()),
            text.rfind('}').expect("}") + 1
        );
    }

    #[test]
    fn selection_grows_from_the_token_to_the_file() {
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  DmaCopyOp { dst = %t[0:6<|>4, :], src = %x }\n}\n";
        let (db, doc, offset) = with_cursor(text);
        let clean = doc.text(&db);
        let chain: Vec<&str> = super::selection_ranges(&db, &doc, offset)
            .into_iter()
            .map(|r| &clean[usize::from(r.start())..usize::from(r.end())])
            .collect();
        assert_eq!(chain[0], "64");
        assert_eq!(chain[1], "0:64");
        assert_eq!(chain[2], "%t[0:64, :]");
        assert_eq!(chain[3], "dst = %t[0:64, :]");
        assert_eq!(*chain.last().unwrap(), clean.as_str());
    }
}
