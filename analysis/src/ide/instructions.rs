//! Finding an instruction by its BIR name (issue 20; aws-neuron-sdk#1000: "is there any way
//! for me to figure out which instruction was instruction I-33?"). The compiler's messages
//! name instructions, not lines; an op's instructions are named `I-<op id>-<k>` (SPEC §8),
//! so a name leads back to its op: workspace symbols answer an instruction name, go to
//! definition on one in any text (a comment, a pasted log) jumps to its op, and
//! `pir check --explain` prints it.

use std::ops::Range;

use syntax::ast::TextRange;

use crate::check::for_each_op;
use crate::db::{Db, file_items, lowering};
use crate::document::Document;

/// A BIR instruction name as the compiler prints it: `I-<op id>` (every instruction of the
/// op) or `I-<op id>-<k>` (its `k`-th, 0-based). The op id is the kernel-wide one of SPEC §7
/// (the written `#id`, else the ordinal among the kernel's ops, 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstructionName {
    /// The op id.
    pub op_id: u32,
    /// The instruction's index within its op, when the name gives one.
    pub index: Option<u32>,
}

impl InstructionName {
    /// `text` read as a whole as an instruction name (`I-33`, `I-21-0`; the `I` in either
    /// case, surrounding white space ignored).
    pub fn parse(text: &str) -> Option<InstructionName> {
        let rest = text.trim().strip_prefix(['I', 'i'])?.strip_prefix('-')?;
        let (id, index) = match rest.split_once('-') {
            Some((id, k)) => (id, Some(k)),
            None => (rest, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(id) || !index.is_none_or(digits) {
            return None;
        }
        Some(InstructionName {
            op_id: id.parse().ok()?,
            index: index.map(str::parse).transpose().ok()?,
        })
    }

    /// The instruction name in `text` around byte offset `offset` (a cursor on it or right
    /// after it), with its byte range: a run of `I-`, digits and an optional `-` digits
    /// that no letter, digit, `_` or `-` touches (so `PI-3` or `I-3-0-1` is not one).
    pub fn at(text: &str, offset: usize) -> Option<(Range<usize>, InstructionName)> {
        let bytes = text.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        let offset = offset.min(bytes.len());
        let start = bytes
            .get(..offset)?
            .iter()
            .rposition(|&b| !word(b))
            .map_or(0, |p| p + 1);
        let end = bytes
            .get(offset..)?
            .iter()
            .position(|&b| !word(b))
            .map_or(bytes.len(), |p| p + offset);
        let name = InstructionName::parse(text.get(start..end)?)?;
        Some((start..end, name))
    }

    /// Whether the instruction `I-<op_id>-<k>` answers this name.
    fn names(&self, op_id: u32, k: u32) -> bool {
        self.op_id == op_id && self.index.is_none_or(|i| i == k)
    }
}

/// One instruction of a document found by name ([`find_instructions`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundInstruction {
    /// Its BIR name, `I-<op id>-<k>`.
    pub name: String,
    /// Its kernel's name, without `@`.
    pub kernel: String,
    /// The op's class as written.
    pub class: String,
    /// The op's kernel-wide id.
    pub op_id: u32,
    /// The BIR opcode.
    pub opcode: &'static str,
    /// The op's text, class name to closing brace (the document's offsets).
    pub range: TextRange,
    /// The op's class name.
    pub class_range: TextRange,
}

/// The instructions of `doc` that `name` names, one per kernel that has that op (each
/// kernel numbers its ops, SPEC §7), in source order. A walk over the document's ops (not
/// the keystroke path: a request), lowering only the ops whose id matches.
pub(crate) fn find_instructions(
    db: &dyn Db,
    doc: &Document,
    name: InstructionName,
) -> Vec<FoundInstruction> {
    let mut out = Vec::new();
    for (index, chunk) in doc.chunks.iter().enumerate() {
        let mut base = None;
        for kernel in &file_items(db, chunk.source).kernels {
            let base = if kernel.continues {
                *base.get_or_insert_with(|| doc.op_base(db, index))
            } else {
                0
            };
            for_each_op(&kernel.body, &mut |op| {
                let op_id = if op.op_id_written {
                    op.op_id
                } else {
                    op.op_id + base
                };
                if op_id != name.op_id {
                    return;
                }
                let lowered = lowering(db, chunk.source, op);
                for (k, inst) in lowered.instructions.iter().enumerate() {
                    let k = u32::try_from(k).unwrap_or(u32::MAX);
                    if name.names(op_id, k) {
                        out.push(FoundInstruction {
                            name: format!("I-{op_id}-{k}"),
                            kernel: kernel.name.clone(),
                            class: op.resolved.class.to_string(),
                            op_id,
                            opcode: inst.opcode.name(),
                            range: op.syntax.range + chunk.start,
                            class_range: op.syntax.class.range + chunk.start,
                        });
                    }
                }
            });
        }
    }
    out
}

/// The op of the instruction named at `offset` (the document's) in the document's own
/// text — a comment or a pasted log line holding `I-3-0` — as go to definition answers
/// it: the class name of the first op it names.
pub(crate) fn instruction_definition(
    db: &dyn Db,
    doc: &Document,
    offset: syntax::ast::TextSize,
) -> Option<TextRange> {
    let (chunk, relative) = doc.locate(offset);
    let (_, name) = InstructionName::at(chunk.source.text(db), usize::from(relative))?;
    find_instructions(db, doc, name)
        .first()
        .map(|found| found.class_range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::RootDatabase;

    #[test]
    fn names_parse_as_the_compiler_prints_them() {
        let name = |op_id, index| Some(InstructionName { op_id, index });
        assert_eq!(InstructionName::parse("I-33"), name(33, None));
        assert_eq!(InstructionName::parse(" i-21-0 "), name(21, Some(0)));
        for bad in ["I-", "I-3-", "I--3", "I-3-0-1", "J-3", "I-x", "I-3x"] {
            assert_eq!(InstructionName::parse(bad), None, "{bad}");
        }
        let log = "ERROR: instruction I-21-0 (TensorCopy) failed; see PI-3";
        let at = log.find("I-21").unwrap();
        assert_eq!(
            InstructionName::at(log, at + 3),
            Some((
                at..at + 6,
                InstructionName {
                    op_id: 21,
                    index: Some(0)
                }
            ))
        );
        // Right after the name is still on it; `PI-3` is not a name.
        assert!(InstructionName::at(log, at + 6).is_some());
        assert_eq!(InstructionName::at(log, log.len()), None);
    }

    #[test]
    fn an_instruction_leads_to_its_op_in_each_kernel() {
        let db = RootDatabase::default();
        let text = "kernel @a(%x: sbuf f32[128, 4], %r: sbuf f32[128, 1]) {\n  NoOp {}\n  NeuronReduceMacro { dst = %r, src = %x, op = add, reduce_axes = [1] }\n}\nkernel @b(%x: sbuf f32[128, 4]) {\n  MemsetOp { dst = %x, value = 0 }\n  // the compiler said: I-2-0\n  MemsetOp #2 { dst = %x, value = 1 }\n}\n";
        let doc = crate::ide::fixture::document(&db, text);
        let found = find_instructions(&db, &doc, InstructionName::parse("I-2").unwrap());
        let shown: Vec<(String, String, &str)> = found
            .iter()
            .map(|f| (f.name.clone(), f.kernel.clone(), &text[f.class_range]))
            .collect();
        assert_eq!(
            shown,
            [
                ("I-2-0".into(), "a".into(), "NeuronReduceMacro"),
                ("I-2-0".into(), "b".into(), "MemsetOp"),
            ]
        );
        let comment = text.find("I-2-0").unwrap();
        let def = instruction_definition(&db, &doc, (comment as u32 + 2).into()).unwrap();
        assert_eq!(&text[def], "NeuronReduceMacro");
        assert!(find_instructions(&db, &doc, InstructionName::parse("I-2-1").unwrap()).is_empty());
    }
}
