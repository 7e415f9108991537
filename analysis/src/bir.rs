//! Assembling a file's BIR document (SPEC §8) from the per-op lowerings: allocations,
//! loops as nested blocks, and each instruction's `name` and `debuginfo` (position and
//! errors).
//!
//! [`bir_document`] serializes straight from the memoized typed lowerings (no JSON tree:
//! `pir lower` writes it out); [`file_bir`] is the same document as a JSON value, for
//! showBir and tests. Both go through the one serializer, so they agree byte for byte.
//!
//! The serializer shows a document within an op budget ([`OpBudget`], threaded from the
//! document through its functions, blocks and loop bodies): unlimited for `pir lower`, a
//! page for showBir ([`bir_document_within`]), which stops at the first op beyond the
//! budget, even inside a kernel or a loop (their JSON closed there), and neither lowers to
//! JSON nor serializes anything after it.

use std::cell::Cell;

use rustc_hash::FxHashSet as HashSet;

use lower::Severity;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value as Json, json};

use crate::check::{findings, for_each_op};
use crate::db::{Db, SourceFile, file_items, line_index, lowering};
use crate::document::{Chunk, Document, Origin};
use crate::resolve::{Allocation, Item, KernelItems, OpItem};
use crate::{LineCol, TextRange, line_col};

/// The §8 JSON of one source text (a whole file; see [`crate::Analysis::file_bir`] for
/// a document's).
pub fn source_bir(db: &dyn Db, file: SourceFile) -> Json {
    file_bir(db, &Document::of_source(db, file))
}

/// The §8 JSON of the whole document, built on demand from the memoized lowerings and not
/// memoized itself: a huge file's document (gigabytes as a JSON tree) is not held after the
/// request that asked for it.
pub(crate) fn file_bir(db: &dyn Db, doc: &Document) -> Json {
    serde_json::to_value(bir_document(db, doc)).unwrap_or(Json::Null)
}

/// The §8 document of `doc`, serialized on demand from the memoized lowerings (see the
/// module doc): `serde_json::to_string_pretty(&bir_document(db, doc))` is the text of
/// [`file_bir`].
pub(crate) fn bir_document<'db>(db: &'db dyn Db, doc: &'db Document) -> BirDocument<'db> {
    bir_document_within(db, doc, usize::MAX)
}

/// The §8 document of `doc` within a budget of `ops` ops (a page of a huge file, see
/// [`crate::ide::show_bir`] and [`OpBudget`]): its items up to the first op beyond the
/// budget. After serializing it, [`BirDocument::page`] says what it showed.
pub(crate) fn bir_document_within<'db>(
    db: &'db dyn Db,
    doc: &'db Document,
    ops: usize,
) -> BirDocument<'db> {
    BirDocument {
        db,
        doc,
        budget: OpBudget::new(ops),
    }
}

/// A document's BIR, written by its `Serialize` impl (see [`bir_document`]).
pub(crate) struct BirDocument<'db> {
    db: &'db dyn Db,
    doc: &'db Document,
    /// The ops it shows (all: `usize::MAX`), spent as it is serialized.
    budget: OpBudget<'db>,
}

impl<'db> BirDocument<'db> {
    /// What its last serialization showed: the ops (of the budget) and, when it cut a
    /// kernel, where.
    pub fn page(&self) -> (usize, Option<Cut<'db>>) {
        (self.budget.spent(), self.budget.cut.get())
    }
}

impl Serialize for BirDocument<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.budget.reset();
        Frame(
            self.db.settings().target(self.db).arch(),
            &Functions {
                db: self.db,
                doc: self.doc,
                budget: &self.budget,
            },
        )
        .serialize(s)
    }
}

/// A §8 document around its `functions` (`[]` for the frame of [`BirWriter`]), for the
/// target whose BIR `arch` is the first field (SPEC §4 [3]).
struct Frame<F>(&'static str, F);

impl<F: Serialize> Serialize for Frame<F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("attributes", &json!({"neuron_core_id": 0}))?;
        map.serialize_entry("functions", &self.1)?;
        map.serialize_entry("arch", self.0)?;
        map.serialize_entry("version", &2)?;
        map.end()
    }
}

/// A document's `functions`, kernel after kernel while the budget lasts.
struct Functions<'a, 'db> {
    db: &'db dyn Db,
    doc: &'db Document,
    budget: &'a OpBudget<'db>,
}

impl Serialize for Functions<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for index in 0..self.doc.chunks.len() {
            for function in functions(self.db, self.doc, index, self.budget) {
                if !self.budget.shows_kernel(&function.parts) {
                    return seq.end();
                }
                seq.serialize_element(&function)?;
            }
        }
        seq.end()
    }
}

/// The BIR functions of the kernels that start in the `index`-th chunk of `doc`, in order
/// (each serializes to one element of the document's `functions`, within `budget`): a
/// kernel cut into chunks is one function, from its parts in this chunk and the next
/// ones; the rest of a kernel that started in an earlier chunk is not one.
pub(crate) fn functions<'a, 'db>(
    db: &'db dyn Db,
    doc: &'db Document,
    index: usize,
    budget: &'a OpBudget<'db>,
) -> impl Iterator<Item = Function<'a, 'db>> + use<'a, 'db> {
    let chunk = doc.chunk(index);
    let kernels = &file_items(db, chunk.source).kernels;
    kernels
        .iter()
        .filter(|kernel| !kernel.continues)
        .map(move |kernel| {
            let parts = if kernel.goes_on {
                kernel_parts(db, doc, index)
            } else {
                vec![Part::new(chunk, kernel, 0, 0)]
            };
            let errors = if kernel.goes_on {
                (index..index + parts.len())
                    .map(|i| doc.errors_from_elsewhere(db, i))
                    .collect()
            } else {
                vec![Vec::new()]
            };
            Function {
                db,
                parts,
                errors,
                budget,
            }
        })
}

/// The parts of the split kernel whose first chunk is the `head`-th of `doc`, in order.
pub(crate) fn kernel_parts<'db>(
    db: &'db dyn Db,
    doc: &'db Document,
    head: usize,
) -> Vec<Part<'db>> {
    let mut parts = Vec::new();
    let (mut ops, mut allocations) = (0, 0);
    for at in crate::kernel::view::KernelView::split_from(doc, head).parts() {
        let Some(chunk) = doc.chunks.get(at.chunk) else {
            continue;
        };
        let kernels = &file_items(db, chunk.source).kernels;
        let Some(kernel) = at.kernel.of(kernels) else {
            continue;
        };
        parts.push(Part::new(chunk, kernel, ops, allocations));
        for_each_op(&kernel.body, &mut |_| ops += 1);
        allocations += kernel.allocations.len() as u32;
    }
    parts
}

/// A kernel's text in one chunk: the whole kernel, or a part of one cut into chunks.
#[derive(Clone, Copy)]
pub(crate) struct Part<'db> {
    /// Where its text is.
    at: At,
    /// What resolution made of it.
    pub kernel: &'db KernelItems,
    /// The ops of the kernel's parts before it (added to its ops' implicit ids).
    pub ops_before: u32,
    /// The allocations of the kernel's parts before it.
    pub allocations_before: u32,
}

impl<'db> Part<'db> {
    fn new(
        chunk: &Chunk,
        kernel: &'db KernelItems,
        ops_before: u32,
        allocations_before: u32,
    ) -> Part<'db> {
        Part {
            at: At {
                file: chunk.source,
                origin: chunk.origin,
            },
            kernel,
            ops_before,
            allocations_before,
        }
    }

    /// The kernel-wide id of its op `op` (SPEC §3: the written `#N`, else the op's place
    /// in the kernel).
    pub fn op_id(&self, op: &OpItem) -> u32 {
        if op.op_id_written {
            op.op_id
        } else {
            op.op_id + self.ops_before
        }
    }
}

/// How many ops a document shows, spent as it is serialized: its items are shown up to
/// the first op beyond the budget (the cut), so the kernels before the cut whole, the
/// kernel the cut falls in up to it (the allocations its text declares before the cut,
/// its blocks and loops closed after the last op shown), and nothing after it. An op
/// inside a loop body counts; loops and kernels holding no op cost nothing. Unlimited
/// (`usize::MAX`), it shows everything.
pub(crate) struct OpBudget<'db> {
    /// The budget.
    ops: usize,
    /// Ops still to show.
    left: Cell<usize>,
    /// The cut, once its kernel is serialized.
    cut: Cell<Option<Cut<'db>>>,
    /// Whether the serializer has come to the cut: nothing after it is shown.
    reached: Cell<bool>,
}

/// Where a document was cut inside a kernel: before `op` of `kernel`, after `shown` (at
/// least one) of the kernel's ops.
#[derive(Clone, Copy)]
pub(crate) struct Cut<'db> {
    /// The kernel cut (its first part, when it is cut into chunks).
    pub kernel: &'db KernelItems,
    /// The kernel's ops shown (its first ones).
    pub shown: usize,
    /// The kernel's ops.
    pub ops: usize,
    /// The first op not shown, and the part of the kernel it is in.
    pub op: &'db OpItem,
    part: Part<'db>,
    /// The kernel's allocations.
    pub allocations: usize,
}

impl Cut<'_> {
    /// The 1-based line of the document where the op's class name stands.
    pub fn line(&self, db: &dyn Db) -> u32 {
        op_line_col(db, self.part.at, self.op).line
    }

    /// The kernel's allocations shown: those declared before the op.
    pub fn allocations_shown(&self) -> usize {
        (self.part.allocations_before as usize + self.op.allocations as usize).min(self.allocations)
    }

    /// The op's id in its kernel.
    pub fn op_id(&self) -> u32 {
        self.part.op_id(self.op)
    }
}

impl<'db> OpBudget<'db> {
    /// A budget of `ops` ops.
    pub fn new(ops: usize) -> OpBudget<'db> {
        OpBudget {
            ops,
            left: Cell::new(ops),
            cut: Cell::new(None),
            reached: Cell::new(false),
        }
    }

    /// The whole budget back (a document serialized again shows the same).
    fn reset(&self) {
        self.left.set(self.ops);
        self.cut.set(None);
        self.reached.set(false);
    }

    /// The ops shown so far.
    fn spent(&self) -> usize {
        self.ops - self.left.get()
    }

    /// Whether `kernel`, next in the document, is shown: not after a cut, nor, once the
    /// budget is spent, when it holds an op.
    fn shows_kernel(&self, parts: &[Part<'_>]) -> bool {
        self.cut.get().is_none()
            && (self.left.get() > 0 || parts.iter().all(|p| first_op(&p.kernel.body).is_none()))
    }

    /// Takes the ops of the kernel of `parts` from the budget, given their number and its
    /// op at the place of the budget left (the first beyond it, if the kernel has that
    /// many, with its part): that op is the cut.
    fn spend(&self, parts: &[Part<'db>], ops: usize, beyond: Option<(Part<'db>, &'db OpItem)>) {
        let left = self.left.get();
        match (beyond, parts.first()) {
            (Some((part, op)), Some(first)) => {
                self.left.set(0);
                self.cut.set(Some(Cut {
                    kernel: first.kernel,
                    shown: left,
                    ops,
                    op,
                    part,
                    allocations: parts.iter().map(|p| p.kernel.allocations.len()).sum(),
                }));
            }
            _ => self.left.set(left.saturating_sub(ops)),
        }
    }

    /// Whether `item`, next in the kernel spent last, is shown: everything up to the cut.
    fn shows(&self, item: &'db Item) -> bool {
        let Some(cut) = self.cut.get() else {
            return true;
        };
        if self.reached.get() {
            return false;
        }
        let is_cut =
            first_op(std::slice::from_ref(item)).is_some_and(|op| std::ptr::eq(op, cut.op));
        self.reached.set(is_cut);
        !is_cut
    }
}

/// The first op of `items` (in a loop body included).
fn first_op(items: &[Item]) -> Option<&OpItem> {
    items.iter().find_map(|item| match item {
        Item::Op(op) => Some(op),
        Item::Loop(lp) => first_op(&lp.body),
    })
}

/// Where a source text stands in its document: the text, and where in the document it
/// starts.
#[derive(Clone, Copy)]
pub(crate) struct At {
    file: SourceFile,
    origin: Origin,
}

/// Writes a document's §8 JSON as [`bir_document`] serializes it (pretty, byte for byte),
/// its functions as they come, chunk by chunk ([`BirWriter::chunk`]), so that a huge
/// file's BIR is never held whole (`pir lower`, [`crate::AnalysisHost::write_bir`]).
pub(crate) struct BirWriter<'o> {
    out: &'o mut dyn std::io::Write,
    /// What follows the last function: `]` and the document's other fields.
    tail: String,
    /// Whether a function was written.
    any: bool,
}

impl<'o> BirWriter<'o> {
    /// Writes the document's head, up to its `functions`' `[`, for the BIR `arch`
    /// `arch` (SPEC §4 [3]).
    pub fn new(
        out: &'o mut dyn std::io::Write,
        arch: &'static str,
    ) -> std::io::Result<BirWriter<'o>> {
        // The frame, without functions: `…"functions": [],…`.
        let empty = serde_json::to_string_pretty(&Frame(arch, [(); 0]))?;
        let hole = "\"functions\": [";
        let at = empty.find(hole).map_or(empty.len(), |i| i + hole.len());
        let (head, tail) = empty.split_at(at.min(empty.len()));
        out.write_all(head.as_bytes())?;
        Ok(BirWriter {
            out,
            tail: tail.to_string(),
            any: false,
        })
    }

    /// Writes the functions of the kernels starting in `doc`'s `index`-th chunk (see
    /// [`functions`]), each as an element of the document's
    /// `functions`: pretty JSON indented two levels (no JSON string holds a raw line break,
    /// so every `\n` written is the layout's).
    pub fn chunk(&mut self, db: &dyn Db, doc: &Document, index: usize) -> std::io::Result<()> {
        let all = OpBudget::new(usize::MAX);
        for function in functions(db, doc, index, &all) {
            self.out
                .write_all(if self.any { b",\n    " } else { b"\n    " })?;
            self.any = true;
            // Buffered before the indenting, which then sees large blocks, not tokens.
            let mut indented = std::io::BufWriter::with_capacity(1 << 16, Indented(&mut *self.out));
            serde_json::to_writer_pretty(&mut indented, &function)?;
            std::io::Write::flush(&mut indented)?;
        }
        Ok(())
    }

    /// Writes the rest of the document.
    pub fn finish(self) -> std::io::Result<()> {
        if self.any {
            self.out.write_all(b"\n  ")?;
        }
        self.out.write_all(self.tail.as_bytes())
    }
}

/// A writer putting four spaces after every line break it passes on.
struct Indented<'o>(&'o mut dyn std::io::Write);

impl std::io::Write for Indented<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut lines = buf.split(|&b| b == b'\n');
        if let Some(first) = lines.next() {
            self.0.write_all(first)?;
        }
        for line in lines {
            self.0.write_all(b"\n    ")?;
            self.0.write_all(line)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A kernel's BIR function (SPEC §8), within a budget ([`OpBudget`]).
pub(crate) struct Function<'a, 'db> {
    db: &'db dyn Db,
    /// The kernel's text: one part, or its parts in chunk order.
    parts: Vec<Part<'db>>,
    /// For each part, the errors in its chunk that another chunk reports
    /// ([`Document::errors_from_elsewhere`]).
    errors: Vec<Vec<(TextRange, lower::Code)>>,
    budget: &'a OpBudget<'db>,
}

impl Serialize for Function<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let db = self.db;
        // Each tensor's class is that of the whole kernel (a weight: some op's stationary),
        // whatever the budget shows of its ops.
        let left = self.budget.left.get();
        let (mut ops, mut beyond) = (0, None);
        let mut weights: HashSet<&str> = HashSet::default();
        for part in &self.parts {
            for_each_op(&part.kernel.body, &mut |op| {
                weights.extend(
                    lowering(db, part.at.file, op)
                        .stationary
                        .iter()
                        .map(String::as_str),
                );
                if ops == left {
                    beyond = Some((*part, op));
                }
                ops += 1;
            });
        }
        self.budget.spend(&self.parts, ops, beyond);
        let shown = match self.budget.cut.get() {
            Some(cut) => cut.allocations_shown(),
            None => usize::MAX,
        };
        let allocations: Vec<Json> = self
            .parts
            .iter()
            .flat_map(|p| &p.kernel.allocations)
            .take(shown)
            .map(|a| match a {
                Allocation::Tensor(t) => lower::allocation(t, weights.contains(t.name.as_str())),
                Allocation::Register(r) => lower::register_allocation(r),
            })
            .collect();
        let entry = Block {
            instructions: Instructions {
                db,
                parts: &self.parts,
                errors: &self.errors,
                items: None,
                budget: self.budget,
            },
            name: "entry".to_string(),
        };
        let mut map = s.serialize_map(Some(4))?;
        let name = self.parts.first().map_or("", |p| p.kernel.name.as_str());
        map.serialize_entry("name", name)?;
        map.serialize_entry("attributes", &json!([]))?;
        map.serialize_entry("allocations", &allocations)?;
        map.serialize_entry("blocks", &[entry])?;
        map.end()
    }
}

/// A block: `{"name", "instructions"}`.
struct Block<'a, 'db> {
    name: String,
    instructions: Instructions<'a, 'db>,
}

impl Serialize for Block<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("instructions", &self.instructions)?;
        map.end()
    }
}

/// The instructions of a block: each op's lowering with its position, loops nested, while
/// the budget lasts. The entry block holds the bodies of the kernel's parts in order
/// (`items` is `None`); a loop's body is in one part (`items`, in `parts[0]`).
struct Instructions<'a, 'db> {
    db: &'db dyn Db,
    parts: &'a [Part<'db>],
    /// At each part's place, the errors its chunk has from elsewhere.
    errors: &'a [Vec<(TextRange, lower::Code)>],
    items: Option<&'db [Item]>,
    budget: &'a OpBudget<'db>,
}

impl Serialize for Instructions<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let db = self.db;
        let mut seq = s.serialize_seq(None)?;
        let bodies: Vec<(usize, &[Item])> = match self.items {
            Some(items) => vec![(0, items)],
            None => self
                .parts
                .iter()
                .enumerate()
                .map(|(i, p)| (i, &p.kernel.body[..]))
                .collect(),
        };
        'parts: for (i, items) in bodies {
            let (Some(part), Some(extra)) = (self.parts.get(i), self.errors.get(i)) else {
                break;
            };
            let (file, origin) = (part.at.file, part.at.origin);
            for item in items {
                if !self.budget.shows(item) {
                    break 'parts;
                }
                match item {
                    Item::Op(op) => {
                        let lowered = lowering(db, file, op);
                        let errors = op_error_codes(db, file, op, extra);
                        let stamp = op_stamp(db, file, origin, part.op_id(op), op, &errors);
                        let debuginfo = lower::debuginfo(&op.resolved, &stamp);
                        for (k, inst) in lowered.instructions.iter().enumerate() {
                            let name = lower::instruction_name(k, &stamp);
                            seq.serialize_element(&inst.json(Some(&name), Some(&debuginfo)))?;
                        }
                    }
                    Item::Loop(lp) => {
                        let (lb, ub, stride) = lp.var.bounds.unwrap_or((0, 0, 1));
                        let body = Block {
                            name: format!("{}-body", lp.bir_name),
                            instructions: Instructions {
                                db,
                                parts: std::slice::from_ref(part),
                                errors: std::slice::from_ref(extra),
                                items: Some(&lp.body),
                                budget: self.budget,
                            },
                        };
                        seq.serialize_element(&Loop {
                            name: &lp.bir_name,
                            axis: json!({"name": lp.var.name, "lb": lb, "ub": ub, "stride": stride}),
                            body,
                        })?;
                    }
                }
            }
        }
        seq.end()
    }
}

/// A loop instruction: `{"opcode": "Loop", "name", "LoopAxis", "blocks": [body]}` (its
/// body cut where the budget ends).
struct Loop<'a, 'db> {
    name: &'db str,
    axis: Json,
    body: Block<'a, 'db>,
}

impl Serialize for Loop<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("opcode", "Loop")?;
        map.serialize_entry("name", self.name)?;
        map.serialize_entry("LoopAxis", &self.axis)?;
        map.serialize_entry("blocks", std::slice::from_ref(&self.body))?;
        map.end()
    }
}

/// Where `op` stands: its id, the 1-based line and column (of the document `file` is a
/// chunk of, which starts at `origin`) of its class name, and the error codes within it
/// (`errors`, from [`op_error_codes`]).
fn op_stamp<'a>(
    db: &dyn Db,
    file: SourceFile,
    origin: Origin,
    op_id: u32,
    op: &OpItem,
    errors: &'a [&'a str],
) -> lower::Stamp<'a> {
    let LineCol { line, column } = op_line_col(db, At { file, origin }, op);
    lower::Stamp {
        op_id,
        line,
        column,
        errors,
    }
}

/// The 1-based line (of the document) and column of `op`'s class name.
fn op_line_col(db: &dyn Db, at: At, op: &OpItem) -> LineCol {
    at.origin.place(line_col(
        line_index(db, at.file),
        at.file.text(db),
        op.syntax.class.range.start(),
    ))
}

/// The instructions of one op with `debuginfo.line`/`column` (1-based, where the class
/// name starts; `file` starts at `origin` in its document) and `errors`
/// (every error diagnostic inside the op, sorted, unique), each list in them (`ins`, `outs`,
/// a list field, a list in a record) cut to its first `keep` elements: a view of an op with
/// 1,000,000 operands makes and writes `keep` of them, not the million.
///
/// `op_base`: the ops of the kernel's earlier chunks when `file` continues a kernel cut into
/// chunks (added to an implicit op id; 0 otherwise).
/// `extra`: the errors in `file` that another chunk reports
/// ([`Document::errors_from_elsewhere`]).
pub fn op_instructions(
    db: &dyn Db,
    file: SourceFile,
    origin: Origin,
    (op_base, extra): (u32, &[(TextRange, lower::Code)]),
    op: &OpItem,
    keep: usize,
) -> OpInstructions {
    let lowered = lowering(db, file, op);
    let errors = op_error_codes(db, file, op, extra);
    let op_id = if op.op_id_written {
        op.op_id
    } else {
        op.op_id + op_base
    };
    let stamp = op_stamp(db, file, origin, op_id, op, &errors);
    let mut left_out = 0;
    let instructions = lowered
        .instructions
        .iter()
        .enumerate()
        .map(|(k, inst)| {
            let (inst, cut) = within(inst, keep);
            left_out += cut;
            lower::stamp_instruction(&inst, k, &op.resolved, &stamp)
        })
        .collect();
    OpInstructions {
        instructions,
        left_out,
    }
}

/// An op's instructions as JSON ([`op_instructions`]) and how many list elements were left
/// out of them (0 when every list was shown whole).
pub struct OpInstructions {
    /// The stamped instructions (SPEC §8), their lists cut.
    pub instructions: Vec<Json>,
    /// Elements of lists left out (arguments, list values), over all instructions.
    pub left_out: usize,
}

/// `inst` with each list in it cut to its first `keep` elements (borrowed when none is
/// longer), and the number of elements left out.
fn within(inst: &lower::bir::Inst, keep: usize) -> (std::borrow::Cow<'_, lower::bir::Inst>, usize) {
    use lower::bir::Value;
    fn long(v: &Value, keep: usize) -> bool {
        match v {
            Value::List(items) => items.len() > keep || items.iter().any(|i| long(i, keep)),
            Value::Record(entries) => entries.iter().any(|(_, v)| long(v, keep)),
            _ => false,
        }
    }
    fn cut(v: &Value, keep: usize, left_out: &mut usize) -> Value {
        match v {
            Value::List(items) => {
                *left_out += items.len().saturating_sub(keep);
                Value::List(
                    items
                        .iter()
                        .take(keep)
                        .map(|i| cut(i, keep, left_out))
                        .collect(),
                )
            }
            Value::Record(entries) => Value::Record(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), cut(v, keep, left_out)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    if inst.ins.len() <= keep
        && inst.outs.len() <= keep
        && !inst.fields.iter().any(|(_, v)| long(v, keep))
    {
        return (std::borrow::Cow::Borrowed(inst), 0);
    }
    let mut left_out = inst.ins.len().saturating_sub(keep) + inst.outs.len().saturating_sub(keep);
    let shown = lower::bir::Inst {
        opcode: inst.opcode,
        engine: inst.engine,
        ins: inst.ins.iter().take(keep).cloned().collect(),
        outs: inst.outs.iter().take(keep).cloned().collect(),
        fields: inst
            .fields
            .iter()
            .map(|(f, v)| (*f, cut(v, keep, &mut left_out)))
            .collect(),
    };
    (std::borrow::Cow::Owned(shown), left_out)
}

/// The codes of the error diagnostics of `file` whose primary range lies within `op` (but
/// a lone carriage return, which is the document's).
fn op_error_codes(
    db: &dyn Db,
    file: SourceFile,
    op: &OpItem,
    extra: &[(TextRange, lower::Code)],
) -> Vec<&'static str> {
    // A lone carriage return is the document's (one P103 for all, where the first is:
    // `crate::document`), not an op's.
    let lone = crate::document::lone_carriage_returns(db, file).map(|(at, _)| at);
    let mut codes: Vec<&'static str> = findings(db, file)
        .iter()
        .filter(|d| d.severity() == Severity::Error && op.syntax.range.contains_range(d.range))
        .filter(|d| !(d.code == lower::Code::P103 && Some(d.range) == lone))
        .map(|d| d.code.as_str())
        .chain(
            extra
                .iter()
                .filter(|(range, _)| op.syntax.range.contains_range(*range))
                .map(|(_, code)| code.as_str()),
        )
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

#[cfg(test)]
mod tests {
    use crate::db::RootDatabase;
    use crate::document::Document;

    #[test]
    fn the_streamed_document_is_the_json_document() {
        // Loops, kernel nodes, registers, ops with errors: every part of §8.
        for text in [
            include_str!("../../tests/corpus/matmul_tiled.pir"),
            include_str!("../../tests/corpus/library_kernels.pir"),
            include_str!("../../tests/corpus/rule_P300_last_iteration.pir"),
            include_str!("../../tests/corpus/topk.pir"),
        ] {
            let mut db = RootDatabase::default();
            let doc = Document::new(&mut db, text);
            let streamed = serde_json::to_string_pretty(&super::bir_document(&db, &doc)).unwrap();
            let tree = serde_json::to_string_pretty(&super::file_bir(&db, &doc)).unwrap();
            assert_eq!(streamed, tree);
            assert!(streamed.contains("\"opcode\": \""), "{streamed}");
        }
    }
}
