//! The document's diagnostics, gathered from its chunks' findings and the kernel-wide
//! rules of its kernels cut into chunks, each placed once in the document's offsets.

use rustc_hash::{FxBuildHasher, FxHashMap as HashMap, FxHashSet as HashSet};
use std::hash::BuildHasher;
use std::sync::Arc;

/// What [`Document::place`] knows across the findings of one gathering.
#[derive(Default)]
struct Placing {
    /// Each kernel name's first definition in the document (when two chunks' kernel names
    /// meet), for P201's related note.
    kernels: HashMap<String, TextRange>,
    /// The ops before the last chunk asked for ([`Document::op_base`]): the chunk and the
    /// count.
    op_base: Option<(usize, u32)>,
}

impl Placing {
    /// The ops of its kernel before chunk `index` of `doc` (memoized for the chunk).
    fn op_base(&mut self, doc: &Document, db: &dyn Db, index: usize) -> u32 {
        match self.op_base {
            Some((i, base)) if i == index => base,
            _ => {
                let base = doc.op_base(db, index);
                self.op_base = Some((index, base));
                base
            }
        }
    }
}

use lower::diag::Code;

use super::{Chunk, Document, Shift};
use crate::db::{Db, SourceFile};
use crate::diagnostic::{
    CappedDiagnostics, Diagnostic, Finding, LeftOut, MAX_COST_WARNINGS, Message, RelatedAt,
};
use crate::kernel::rules::{self, p208, p416};
use crate::kernel::view::KernelView;
use crate::kernel::{SplitKernel, summary};
use crate::{TextRange, TextSize};

/// What [`Document::diagnostics`] must know of a chunk to pass over it: whether it has
/// anything to report, and its kernel names (hashed, for P201 across chunks).
///
/// Kept in the document, beside its chunk, and not only in the database: a keystroke's
/// diagnostics then read one small array for the chunks it did not touch, instead of two
/// memos per chunk scattered over the heap. Those reads cost little in a loop of
/// keystrokes but one or more cache misses each after the editor has been idle, which at
/// 100,000 ops (about 400 chunks) was a third of a keystroke through the server.
/// A chunk's digest stays valid while its inputs and the settings do (everything a chunk
/// reports is a function of them, see the module's invariant): [`Document::replace_chunks`]
/// gives every chunk whose input it sets a new, empty one, and so does
/// [`Document::forget_digests`] to every chunk when the settings change.
#[derive(Clone, Debug)]
pub(super) struct Digest {
    /// The chunk has diagnostics other than cost warnings, or syntax errors past the
    /// parser's cap.
    reports: bool,
    /// How many cost warnings ([`Code::is_cost_advice`]) the chunk has: counted, not read,
    /// once an editor has been given [`MAX_COST_WARNINGS`].
    cost_warnings: u32,
    /// The hashes of its kernel names ([`ChunkSummary::kernels`]), in order.
    kernels: KernelHashes,
}

/// The hashes of a chunk's kernel names: most chunks hold one kernel, stored inline.
#[derive(Clone, Debug)]
enum KernelHashes {
    One(u64),
    Other(Arc<[u64]>),
}

impl KernelHashes {
    fn as_slice(&self) -> &[u64] {
        match self {
            KernelHashes::One(hash) => std::slice::from_ref(hash),
            KernelHashes::Other(hashes) => hashes,
        }
    }
}

impl Digest {
    /// The digest of `source`, from its memoized diagnostics and [`ChunkSummary`].
    fn of(db: &dyn Db, source: SourceFile) -> Digest {
        let summary = chunk_summary(db, source);
        let findings = crate::check::findings(db, source);
        let cost_warnings = findings.iter().filter(|f| f.code.is_cost_advice()).count();
        let reports = summary.left_out > 0 || findings.len() > cost_warnings;
        let hashes: Vec<u64> = summary
            .kernels
            .iter()
            .map(|(name, _)| FxBuildHasher.hash_one(name.as_str()))
            .collect();
        let kernels = match hashes[..] {
            [hash] => KernelHashes::One(hash),
            _ => KernelHashes::Other(hashes.into()),
        };
        Digest {
            reports,
            cost_warnings: u32::try_from(cost_warnings).unwrap_or(u32::MAX),
            kernels,
        }
    }
}

impl Document {
    /// Every diagnostic of the document, sorted by range (then code), in its offsets: each
    /// chunk's findings (memoized per chunk) placed in the document ([`Document::place`]),
    /// the kernel-wide rules of each kernel cut into chunks, and P201 on a kernel named as
    /// one in an earlier chunk, with at most [`syntax::MAX_ERRORS`] syntax errors in all
    /// (then one P100 saying how many more there were).
    ///
    /// The chunks are passed over by their [`Digest`]s: only those with something to
    /// report are read from the database, and kernel names only when two chunks' hashes
    /// meet (a name defined twice, or a collision).
    pub fn diagnostics(&self, db: &dyn Db) -> Vec<Diagnostic> {
        self.gather(db, usize::MAX).diagnostics
    }

    /// [`Document::diagnostics`] with at most [`MAX_COST_WARNINGS`] cost warnings (the
    /// first, in that order), as an editor is given them: the chunks past the first
    /// [`MAX_COST_WARNINGS`] + 1 cost warnings are not read for theirs, only counted by
    /// their digests, so that a keystroke does not place thousands of warnings the editor
    /// never shows.
    pub fn capped_diagnostics(&self, db: &dyn Db) -> CappedDiagnostics {
        self.gather(db, MAX_COST_WARNINGS)
    }

    /// The document's diagnostics with at most `cost_limit` cost warnings, and those left
    /// out. Cost warnings are chunk findings, never kernel-wide ones, so in document order
    /// they come chunk by chunk: once more than `cost_limit` have been read, the later
    /// chunks' are counted from their digests.
    fn gather(&self, db: &dyn Db, cost_limit: usize) -> CappedDiagnostics {
        let mut out = Vec::new();
        // Cost warnings read (placed in `out`) and those only counted.
        let mut cost_read = 0usize;
        let mut cost_counted = 0usize;
        let enough = cost_limit.saturating_add(1);
        let mut syntax_errors = 0;
        let mut left_out: Option<(TextRange, usize)> = None;
        // Lone carriage returns: one P103 for the document, at the first, counting all
        // (each chunk's parse reports its own, as if it were a file): where it is in
        // `out` (`None`: left out by a cap) and the count so far. A chunk with some
        // reports them, so its digest has it read.
        let mut lone: Option<(Option<usize>, usize)> = None;
        let mut hashes: HashSet<u64> =
            HashSet::with_capacity_and_hasher(self.chunks.len(), FxBuildHasher);
        let mut names_meet = false;
        let mut reporting = Vec::new();
        for (index, (chunk, digest)) in self.chunks.iter().zip(&self.digests).enumerate() {
            let computed;
            let digest = match digest.get() {
                Some(digest) => digest,
                // Computed on a snapshot, and kept without waiting: two snapshots may both
                // compute it (the same value, memoized), and a computation cancelled by an
                // edit leaves it empty.
                None => {
                    computed = Digest::of(db, chunk.source);
                    let _ = digest.set(computed.clone());
                    &computed
                }
            };
            for &hash in digest.kernels.as_slice() {
                names_meet |= !hashes.insert(hash);
            }
            let costs = digest.cost_warnings as usize;
            let read_costs = costs > 0 && cost_read < enough;
            if read_costs {
                cost_read += costs;
            } else {
                cost_counted += costs;
            }
            if digest.reports || read_costs {
                reporting.push((index, read_costs));
            }
        }
        let mut placing = Placing::default();
        if names_meet {
            let kernels = self.kernel_names(db);
            let (twice, first) =
                rules::p201::kernels_defined_twice(kernels.iter().map(|(n, r)| (n.as_str(), *r)));
            out.extend(twice.iter().map(|f| self.place(db, None, f, &mut placing)));
            placing.kernels = first
                .into_iter()
                .map(|(name, range)| (name.to_string(), range))
                .collect();
        }
        for (index, read_costs) in reporting {
            let source = self.chunk(index).source;
            let summary = chunk_summary(db, source);
            let crs = lone_carriage_returns(db, source);
            for f in crate::check::findings(db, source) {
                if f.code.is_cost_advice() && !read_costs {
                    continue;
                }
                if let Some((first, count)) = crs
                    && f.code == Code::P103
                    && f.range == first
                {
                    match &mut lone {
                        Some((_, total)) => {
                            *total += count;
                            continue;
                        }
                        None => lone = Some((Some(out.len()), count)),
                    }
                }
                let d = self.place(db, Some(index), f, &mut placing);
                if d.code.is_syntax() {
                    if summary.left_out > 0 && d.message.starts_with("too many syntax errors") {
                        left_out.get_or_insert((d.range, 0)).1 += summary.left_out;
                        continue;
                    }
                    if syntax_errors >= syntax::MAX_ERRORS {
                        left_out.get_or_insert((d.range, 0)).1 += 1;
                        if let Some((shown @ Some(_), _)) = &mut lone
                            && *shown == Some(out.len())
                        {
                            *shown = None;
                        }
                        continue;
                    }
                    syntax_errors += 1;
                }
                out.push(d);
            }
            // A chunk's lone carriage returns whose P103 its own cap left out still count.
            if let (Some((_, count)), None) = (crs, &lone) {
                lone = Some((None, count));
            }
        }
        if let Some((Some(i), total)) = lone
            && let Some(d) = out.get_mut(i)
        {
            d.message = syntax::lone_carriage_return_error(d.range, total).message;
        }
        for finding in self.split_kernel_checks(db) {
            out.push(self.place(db, None, &finding, &mut placing));
        }
        if let Some((at, n)) = left_out {
            let e = syntax::too_many_errors(at, n);
            out.push(Diagnostic::new(Code::P100, e.range, e.message));
        }
        out.sort_by(|a, b| {
            (a.range.start(), a.range.end(), a.code).cmp(&(b.range.start(), b.range.end(), b.code))
        });
        out.dedup();
        // The cost warnings past the limit, in document order, left out.
        let mut cost_left_out: Option<LeftOut> = None;
        let mut shown = 0usize;
        out.retain(|d| {
            if !d.code.is_cost_advice() {
                return true;
            }
            shown += 1;
            if shown <= cost_limit {
                return true;
            }
            cost_left_out
                .get_or_insert(LeftOut {
                    first: d.range,
                    count: 0,
                })
                .count += 1;
            false
        });
        if let Some(left_out) = &mut cost_left_out {
            left_out.count += cost_counted;
        }
        CappedDiagnostics {
            diagnostics: out,
            cost_left_out,
        }
    }

    /// The diagnostics of chunk `index` as the document reports them, in the document's
    /// offsets (the kernel-wide rules of a kernel cut into chunks aside).
    pub(crate) fn chunk_diagnostics(&self, db: &dyn Db, index: usize) -> Vec<Diagnostic> {
        let Some(chunk) = self.chunks.get(index) else {
            return Vec::new();
        };
        let mut placing = Placing::default();
        crate::check::findings(db, chunk.source)
            .iter()
            .map(|f| self.place(db, Some(index), f, &mut placing))
            .collect()
    }

    /// `finding` placed in the document: a finding of chunk `index` (relative to it), or
    /// with `None` one already in the document's offsets. Its message is worded here once:
    /// P200's suggestion among the names of the kernel's earlier parts too, an implicit op
    /// id counted from the kernel's first op, a first definition in another chunk.
    fn place(
        &self,
        db: &dyn Db,
        index: Option<usize>,
        finding: &Finding,
        placing: &mut Placing,
    ) -> Diagnostic {
        let chunk = index.and_then(|i| self.chunks.get(i));
        let start = chunk.map_or(TextSize::from(0), |c| c.start);
        let (message, fix) = match &finding.message {
            Message::Text(text) => (text.clone(), finding.fix.clone()),
            Message::Undefined { name, local, axis } => {
                let earlier = index
                    .filter(|_| !*axis)
                    .and_then(|i| self.earlier_suggestion(db, i, finding, name));
                rules::p200::word(
                    name,
                    rules::p200::best(name, local.as_deref(), earlier.as_deref()),
                    *axis,
                )
            }
            Message::NamesOp {
                diag,
                class,
                local_id,
            } => {
                let base = index.map_or(0, |i| placing.op_base(self, db, i));
                (
                    diag.message_for(class, local_id + base),
                    finding.fix.clone(),
                )
            }
        };
        let related = finding
            .related
            .iter()
            .filter_map(|(at, note)| {
                let range = match at {
                    RelatedAt::Here(range) => *range + start,
                    RelatedAt::FirstKernel { name, here } => {
                        placing.kernels.get(name).copied().unwrap_or(*here + start)
                    }
                    RelatedAt::EarlierDefinition(name) => {
                        let index = index?;
                        let head = self.head(index);
                        let cached = self.indexes.get(&self.chunks.get(head)?.source)?;
                        self.home_definition(db, head, &cached.index, name)?
                    }
                };
                Some((range, note.clone()))
            })
            .collect();
        Diagnostic {
            code: finding.code,
            severity: finding.code.severity(),
            range: finding.range + start,
            message,
            related,
            fix,
        }
    }

    /// The closest name to `name` (a P200 `finding` of chunk `index`) among those the
    /// earlier parts of the kernel the chunk continues put in scope, when the finding is
    /// in that part.
    fn earlier_suggestion(
        &self,
        db: &dyn Db,
        index: usize,
        finding: &Finding,
        name: &str,
    ) -> Option<String> {
        let chunk = self.chunks.get(index)?;
        if !chunk.context.inside {
            return None;
        }
        let part = summary::parts(db, chunk.source).first()?;
        if !part.places.range.contains_range(finding.range) {
            return None;
        }
        let head = self.head(index);
        let cached = self.indexes.get(&self.chunks.get(head)?.source)?;
        let part = index - head;
        self.suggestions
            .earlier((cached.generation, part as u32, name), || {
                rules::p200::closest(name, cached.index.visible_before(part)).map(str::to_string)
            })
    }

    /// The kernel-wide rules' findings of each kernel cut into chunks
    /// ([`crate::kernel::rules`]: each memoized on its parts' position-free summaries, P501
    /// kept in its index), in the document's offsets: placed by the places their parts
    /// keep ([`summary::parts`]).
    fn split_kernel_checks(&self, db: &dyn Db) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut head = 0;
        // The split kernels' first chunks: the P501 indexes of the others are let go of.
        let mut seen = Vec::new();
        while head < self.chunks.len() {
            if !self.chunk(head).context.goes_on {
                head += 1;
                continue;
            }
            let view = KernelView::split_from(self, head);
            let chunks = view.sources(self);
            seen.extend(chunks.first().copied());
            let generations = self
                .generations
                .get(view.head..=view.tail)
                .unwrap_or_default();
            let reads = |p: usize| {
                let slot = if p == 0 {
                    crate::kernel::view::KernelSlot::Last
                } else {
                    crate::kernel::view::KernelSlot::At(0)
                };
                chunks
                    .get(p)
                    .and_then(|&chunk| slot.of(summary::part_reads(db, chunk)).cloned())
                    .unwrap_or_default()
            };
            let mut findings = self.read_cache.findings(&chunks, generations, reads);
            let kernel = SplitKernel::new(db, chunks);
            findings.extend(rules::of_split(db, kernel));
            for finding in &findings {
                let place = |p: u32| {
                    let part = self.placed_part(db, &view, p)?;
                    Some((part.places, part.start))
                };
                out.extend(rules::place(finding, place));
            }
            // P416, placed only when a peak is over its memory's capacity.
            let [sbuf, psum] = crate::kernel::resources::split_peaks(db, kernel);
            let target = db.settings().target(db);
            let over = |peak: &crate::kernel::resources::KernelPeak,
                        memory: lower::types::Memory| {
                peak.bytes > target.capacity(memory).unwrap_or(u64::MAX)
            };
            if over(sbuf, lower::types::Memory::Sbuf) || over(psum, lower::types::Memory::Psum) {
                out.extend(p416::findings(&self.split_stats(db, head)));
            }
            head = view.tail.max(head + 1);
        }
        self.read_cache.retain(&seen);
        out
    }

    /// Each kernel's resources in source order (SPEC §10.1), in the document's offsets: a
    /// chunk's whole kernels' ([`crate::kernel::stats::kernel_stats`], memoized per chunk),
    /// and each kernel cut into chunks joined over its parts ([`Document::split_stats`]).
    /// O(the kernels and the chunks that hold a whole kernel): a split kernel's middle
    /// chunks are stepped over.
    pub fn kernel_stats(&self, db: &dyn Db) -> Vec<crate::KernelStats> {
        let mut out = Vec::new();
        self.each_kernel(db, |kernel| match kernel {
            EachKernel::Whole { chunk, stats, .. } => {
                let mut stats = stats.clone();
                stats.shift(chunk.start);
                out.push(stats);
            }
            EachKernel::Split(head) => out.push(self.split_stats(db, head)),
        });
        out
    }

    /// Calls `f` with each kernel of the document in source order: a chunk's whole kernel
    /// with its stats (relative to the chunk), or the first chunk of a kernel cut into
    /// chunks. Steps over a split kernel's middle chunks.
    fn each_kernel<'db>(&self, db: &'db dyn Db, mut f: impl FnMut(EachKernel<'_, 'db>)) {
        let mut i = 0;
        while let Some(chunk) = self.chunks.get(i) {
            let stats = crate::kernel::stats::kernel_stats(db, chunk.source);
            let last = stats.len().saturating_sub(1);
            let mut next = i + 1;
            for (k, stats) in stats.iter().enumerate() {
                match stats {
                    Some(stats) => f(EachKernel::Whole {
                        chunk,
                        kernel: k,
                        stats,
                    }),
                    // The head of a kernel cut into chunks: on at its tail, whose first
                    // kernel is its last part.
                    None if k == last
                        && chunk.context.goes_on
                        && !(k == 0 && chunk.context.inside) =>
                    {
                        f(EachKernel::Split(i));
                        next = self.tail(i).max(i + 1);
                    }
                    None => {}
                }
            }
            i = next;
        }
    }

    /// Each kernel's SBUF and PSUM occupancy at each of its ops (bytes per partition, SPEC
    /// §10.1), in the order of [`Document::kernel_stats`]: for the profile drawing, O(the
    /// kernels' ops).
    pub fn kernel_occupancy(&self, db: &dyn Db) -> Vec<[Vec<u64>; 2]> {
        let mut out = Vec::new();
        self.each_kernel(db, |at| match at {
            EachKernel::Whole { chunk, kernel, .. } => {
                let parts = crate::kernel::resources::part_resources(db, chunk.source);
                if let Some(part) = parts.get(kernel) {
                    out.push(crate::kernel::resources::whole_series(part));
                }
            }
            EachKernel::Split(head) => {
                let view = KernelView::split_from(self, head);
                let kernel = SplitKernel::new(db, view.sources(self));
                out.push(crate::kernel::resources::split_series(db, kernel));
            }
        });
        out
    }

    /// The resources of the kernel cut into chunks whose first chunk is `head`, joined
    /// over its parts and placed across its chunks: O(its parts' groups), looking up
    /// only the parts the stats are placed in.
    pub fn split_stats(&self, db: &dyn Db, head: usize) -> crate::KernelStats {
        let view = KernelView::split_from(self, head);
        let kernel = SplitKernel::new(db, view.sources(self));
        let resources = crate::kernel::resources::split_resources(db, kernel);
        let name = crate::db::file_items(db, self.chunk(head).source)
            .kernels
            .last()
            .map(|k| k.name.clone())
            .unwrap_or_default();
        crate::kernel::stats::stats(
            name,
            resources,
            view.part_count(),
            |p| self.placed_part(db, &view, p),
            db.settings().target(db),
        )
    }

    /// Part `p` of the kernel `view` as its stats and findings are placed: its places and
    /// op ids, and its chunk's start in the document.
    fn placed_part<'db>(
        &self,
        db: &'db dyn Db,
        view: &KernelView,
        p: u32,
    ) -> Option<crate::kernel::stats::PlacedPart<'db>> {
        let at = view.part(p)?;
        let chunk = self.chunks.get(at.chunk)?;
        Some(crate::kernel::stats::PlacedPart {
            places: &at.kernel.of(summary::parts(db, chunk.source))?.places,
            ids: at.kernel.of(summary::part_ids(db, chunk.source))?,
            start: chunk.start,
        })
    }

    /// Each chunk's kernel names (each once, its first definition in the chunk) in the
    /// document's offsets, in document order.
    fn kernel_names(&self, db: &dyn Db) -> Vec<(String, TextRange)> {
        let mut out = Vec::new();
        for chunk in &self.chunks {
            for (name, range) in &chunk_summary(db, chunk.source).kernels {
                out.push((name.clone(), *range + chunk.start));
            }
        }
        out
    }

    /// The errors in chunk `index` (relative to it, with their codes) that another chunk
    /// reports: the chunk before's at its look-ahead (an error at the first token of the
    /// statement this chunk starts with is the previous statement's: "expected `]`, found
    /// `Op`"), and P208 of the kernel it is a part of. An op's BIR `errors` count them.
    pub(crate) fn errors_from_elsewhere(
        &self,
        db: &dyn Db,
        index: usize,
    ) -> Vec<(TextRange, Code)> {
        let mut out = Vec::new();
        let chunk = self.chunk(index);
        if index > 0 && chunk.context.inside {
            let before = self.chunk(index - 1);
            for d in crate::check::findings(db, before.source) {
                if d.severity() == lower::diag::Severity::Error && d.range.start() >= before.len {
                    let range =
                        TextRange::new(d.range.start() - before.len, d.range.end() - before.len);
                    out.push((range, d.code));
                }
            }
        }
        let mut runs = Vec::new();
        if chunk.context.inside {
            runs.push(self.head(index));
        }
        if chunk.context.goes_on {
            runs.push(index);
        }
        for head in runs {
            let view = KernelView::split_from(self, head);
            let kernel = SplitKernel::new(db, view.sources(self));
            let Some(at) = view.part_in(index) else {
                continue;
            };
            let Some(part) = at.kernel.of(summary::parts(db, chunk.source)) else {
                continue;
            };
            for finding in p208::of_split(db, kernel) {
                if finding.part == at.part
                    && let Some(range) = finding.at.range(&part.places)
                {
                    out.push((range, Code::P208));
                }
            }
        }
        out
    }
}

/// A kernel of a document, as [`Document::each_kernel`] meets it.
enum EachKernel<'a, 'db> {
    /// The `kernel`-th kernel of `chunk`, whole in it, with its stats (placed in the chunk).
    Whole {
        chunk: &'a Chunk,
        kernel: usize,
        stats: &'db crate::KernelStats,
    },
    /// The kernel cut into chunks whose first chunk is this one (by index).
    Split(usize),
}

/// Computes what [`Document::diagnostics`] gathers of `source` (its diagnostics and
/// [`ChunkSummary`]), so that the gathering finds it memoized.
pub(crate) fn analyse_chunk(db: &dyn Db, source: SourceFile) {
    crate::check::findings(db, source);
    chunk_summary(db, source);
    crate::kernel::resources::part_resources(db, source);
}

/// What [`Document::diagnostics`] reads of a chunk besides its diagnostics, memoized apart
/// from the syntax tree and the names it comes from (those are evicted from chunks not in
/// use, [`crate::db::parse`]; this stays, so gathering never re-parses a chunk).
#[derive(Clone, Debug, PartialEq, Eq)]
struct ChunkSummary {
    /// Syntax errors past the parser's cap ([`syntax::Parse::left_out`]).
    left_out: usize,
    /// The chunk's kernel names, each once (its first definition), with the name's range
    /// (UTF-8 bytes, relative to the chunk), in source order.
    kernels: Vec<(String, TextRange)>,
}

#[salsa::tracked(returns(ref))]
fn chunk_summary(db: &dyn Db, source: SourceFile) -> ChunkSummary {
    let mut seen: HashSet<&str> = HashSet::default();
    let kernels = crate::db::file_items(db, source)
        .definitions
        .iter()
        .filter(|def| def.kind == crate::resolve::DefKind::Kernel && seen.insert(&def.name))
        .map(|def| (def.name.clone(), def.range))
        .collect();
    ChunkSummary {
        left_out: crate::db::parse(db, source).left_out,
        kernels,
    }
}

/// The lone carriage returns of a chunk's text: the first one's range (relative to the
/// chunk) and how many (see [`syntax::lone_carriage_returns`]), as its parse reports them.
#[salsa::tracked(returns(copy))]
pub(crate) fn lone_carriage_returns(db: &dyn Db, source: SourceFile) -> Option<(TextRange, usize)> {
    let text = source.text(db);
    syntax::lone_carriage_returns(text, text.len())
}

impl Shift for Diagnostic {
    fn shift(&mut self, by: TextSize) {
        self.range.shift(by);
        for (range, _) in &mut self.related {
            range.shift(by);
        }
    }
}
