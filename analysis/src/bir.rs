//! Assembling a file's BIR document (SPEC §8) from the per-op lowerings: allocations,
//! loops as nested blocks, and each instruction's `name` and `debuginfo` (position and
//! errors).
//!
//! [`bir_document`] serializes straight from the memoized typed lowerings (no JSON tree:
//! `pir lower` writes it out); [`file_bir`] is the same document as a JSON value, for
//! showBir and tests. Both go through the one serializer, so they agree byte for byte.

use rustc_hash::FxHashSet as HashSet;

use lower::Severity;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value as Json, json};

use crate::check::{diagnostics, for_each_op};
use crate::db::{Db, SourceFile, file_items, line_index, lowering};
use crate::document::{Chunk, Document};
use crate::resolve::{Allocation, Item, KernelItems, OpItem};
use crate::{LineCol, line_col};

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
    BirDocument {
        db,
        doc,
        kernels: usize::MAX,
    }
}

/// The §8 document of `doc` with only its first `kernels` kernels (a page of a huge file,
/// see [`crate::ide::show_bir`]).
pub(crate) fn bir_document_first<'db>(
    db: &'db dyn Db,
    doc: &'db Document,
    kernels: usize,
) -> BirDocument<'db> {
    BirDocument { db, doc, kernels }
}

/// A document's BIR, written by its `Serialize` impl (see [`bir_document`]).
pub(crate) struct BirDocument<'db> {
    db: &'db dyn Db,
    doc: &'db Document,
    /// How many of the document's kernels it holds (all: `usize::MAX`).
    kernels: usize,
}

impl Serialize for BirDocument<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let db = self.db;
        let functions: Vec<Function<'_>> = self
            .doc
            .chunks
            .iter()
            .flat_map(|chunk| functions(db, chunk))
            .take(self.kernels)
            .collect();
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("attributes", &json!({"neuron_core_id": 0}))?;
        map.serialize_entry("functions", &functions)?;
        map.serialize_entry("arch", "gen3")?;
        map.serialize_entry("version", &2)?;
        map.end()
    }
}

/// The BIR functions of `chunk`'s kernels, in order (each serializes to one element of
/// the document's `functions`).
pub(crate) fn functions<'db>(
    db: &'db dyn Db,
    chunk: &Chunk,
) -> impl Iterator<Item = Function<'db>> + 'db {
    let (file, first_line) = (chunk.source, chunk.first_line);
    file_items(db, file)
        .kernels
        .iter()
        .map(move |kernel| Function {
            db,
            file,
            first_line,
            kernel,
        })
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
    /// Writes the document's head, up to its `functions`' `[`.
    pub fn new(
        db: &dyn Db,
        doc: &Document,
        out: &'o mut dyn std::io::Write,
    ) -> std::io::Result<BirWriter<'o>> {
        // The frame, from the document without its functions: `…"functions": [],…`.
        let empty = serde_json::to_string_pretty(&bir_document_first(db, doc, 0))?;
        let hole = "\"functions\": [";
        let at = empty.find(hole).map_or(empty.len(), |i| i + hole.len());
        out.write_all(&empty.as_bytes()[..at])?;
        Ok(BirWriter {
            out,
            tail: empty[at..].to_string(),
            any: false,
        })
    }

    /// Writes the functions of `chunk`'s kernels, each as an element of the document's
    /// `functions`: pretty JSON indented two levels (no JSON string holds a raw line break,
    /// so every `\n` written is the layout's).
    pub fn chunk(&mut self, db: &dyn Db, chunk: &Chunk) -> std::io::Result<()> {
        for function in functions(db, chunk) {
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

pub(crate) struct Function<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    /// The line of the document where `file` starts (0-based).
    first_line: u32,
    kernel: &'db KernelItems,
}

impl Serialize for Function<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (db, kernel) = (self.db, self.kernel);
        let mut weights: HashSet<&str> = HashSet::default();
        for_each_op(&kernel.body, &mut |op| {
            weights.extend(
                lowering(db, self.file, op)
                    .stationary
                    .iter()
                    .map(String::as_str),
            );
        });
        let allocations: Vec<Json> = kernel
            .allocations
            .iter()
            .map(|a| match a {
                Allocation::Tensor(t) => lower::allocation(t, weights.contains(t.name.as_str())),
                Allocation::Register(r) => lower::register_allocation(r),
            })
            .collect();
        let entry = Block {
            db,
            file: self.file,
            first_line: self.first_line,
            name: "entry".to_string(),
            items: &kernel.body,
        };
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("name", &kernel.name)?;
        map.serialize_entry("attributes", &json!([]))?;
        map.serialize_entry("allocations", &allocations)?;
        map.serialize_entry("blocks", &[entry])?;
        map.end()
    }
}

/// A block: `{"name", "instructions"}`.
struct Block<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    first_line: u32,
    name: String,
    items: &'db [Item],
}

impl Serialize for Block<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry(
            "instructions",
            &Instructions {
                db: self.db,
                file: self.file,
                first_line: self.first_line,
                items: self.items,
            },
        )?;
        map.end()
    }
}

/// The instructions of a block: each op's lowering with its position, loops nested.
struct Instructions<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    first_line: u32,
    items: &'db [Item],
}

impl Serialize for Instructions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (db, file, first_line) = (self.db, self.file, self.first_line);
        let mut seq = s.serialize_seq(None)?;
        for item in self.items {
            match item {
                Item::Op(op) => {
                    let lowered = lowering(db, file, op);
                    let errors = op_error_codes(db, file, op);
                    let stamp = op_stamp(db, file, first_line, op, &errors);
                    let debuginfo = lower::debuginfo(&op.resolved, &stamp);
                    for (k, inst) in lowered.instructions.iter().enumerate() {
                        let name = lower::instruction_name(k, &stamp);
                        seq.serialize_element(&inst.json(Some(&name), Some(&debuginfo)))?;
                    }
                }
                Item::Loop(lp) => {
                    let (lb, ub, stride) = lp.var.bounds.unwrap_or((0, 0, 1));
                    let body = Block {
                        db,
                        file,
                        first_line,
                        name: format!("{}-body", lp.bir_name),
                        items: &lp.body,
                    };
                    seq.serialize_element(&Loop {
                        name: &lp.bir_name,
                        axis: json!({"name": lp.var.name, "lb": lb, "ub": ub, "stride": stride}),
                        body,
                    })?;
                }
            }
        }
        seq.end()
    }
}

/// A loop instruction: `{"opcode": "Loop", "name", "LoopAxis", "blocks": [body]}`.
struct Loop<'db> {
    name: &'db str,
    axis: Json,
    body: Block<'db>,
}

impl Serialize for Loop<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("opcode", "Loop")?;
        map.serialize_entry("name", self.name)?;
        map.serialize_entry("LoopAxis", &self.axis)?;
        map.serialize_entry("blocks", std::slice::from_ref(&self.body))?;
        map.end()
    }
}

/// Where `op` stands: its id, the 1-based line (of the document `file` is a chunk of,
/// which starts on line `first_line`, 0-based) and column of its class name, and the error
/// codes within it (`errors`, from [`op_error_codes`]).
fn op_stamp<'a>(
    db: &dyn Db,
    file: SourceFile,
    first_line: u32,
    op: &OpItem,
    errors: &'a [&'a str],
) -> lower::Stamp<'a> {
    let LineCol { line, column } = line_col(
        line_index(db, file),
        file.text(db),
        op.syntax.class.range.start(),
    );
    lower::Stamp {
        op_id: op.op_id,
        line: line + first_line,
        column,
        errors,
    }
}

/// The instructions of one op with `debuginfo.line`/`column` (1-based, where the class
/// name starts; `file` starts on line `first_line` of its document, 0-based) and `errors`
/// (every error diagnostic inside the op, sorted, unique).
pub fn op_instructions(db: &dyn Db, file: SourceFile, first_line: u32, op: &OpItem) -> Vec<Json> {
    let lowered = lowering(db, file, op);
    let errors = op_error_codes(db, file, op);
    let stamp = op_stamp(db, file, first_line, op, &errors);
    lowered
        .instructions
        .iter()
        .enumerate()
        .map(|(k, inst)| lower::stamp_instruction(inst, k, &op.resolved, &stamp))
        .collect()
}

/// The codes of the error diagnostics of `file` whose primary range lies within `op` (but
/// a lone carriage return, which is the document's).
fn op_error_codes(db: &dyn Db, file: SourceFile, op: &OpItem) -> Vec<&'static str> {
    // A lone carriage return is the document's (one P103 for all, where the first is:
    // `crate::document`), not an op's.
    let lone = crate::document::lone_carriage_returns(db, file).map(|(at, _)| at);
    let mut codes: Vec<&'static str> = diagnostics(db, file)
        .iter()
        .filter(|d| d.severity == Severity::Error && op.syntax.range.contains_range(d.range))
        .filter(|d| !(d.code == lower::Code::P103 && Some(d.range) == lone))
        .map(|d| d.code.as_str())
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
            let db = RootDatabase::default();
            let doc = Document::new(&db, text);
            let streamed = serde_json::to_string_pretty(&super::bir_document(&db, &doc)).unwrap();
            let tree = serde_json::to_string_pretty(&super::file_bir(&db, &doc)).unwrap();
            assert_eq!(streamed, tree);
            assert!(streamed.contains("\"opcode\": \""), "{streamed}");
        }
    }
}
