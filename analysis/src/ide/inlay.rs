//! Inlay hints: after each op, the BIR it lowers to (SPEC §10): `→ Matmult · PE`,
//! `→ 2 × TensorReduce · DVE`, `→ BIRKernel (IT 54)`, `→ no BIR`.

use lower::bir::Inst;
use lower::catalog::Engine;
use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, lowering};
use crate::document::{Document, Shift};
use crate::ide::Site;

/// One hint: where it goes (a UTF-8 byte offset: the end of the op's text) and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Offset the hint is shown at.
    pub offset: TextSize,
    /// The label, e.g. `→ Matmult · PE`.
    pub label: String,
    /// The cost suffix on the target (SPEC §10.2.9), e.g. ` · 512 cyc`, shown after the
    /// label when the client's `inlayHints.cost` is on; `None` when nothing of the op is
    /// estimated.
    pub cost: Option<String>,
}

/// At most this many hints answer one request: the first ops of its range. An editor asks
/// for the lines it shows, and a line may hold a whole kernel (160,000 ops on one line
/// would be 15 MB of hints, each op lowered); the hints of a line's first 1,000 ops are more
/// than a screen's width shows (issue 24, `docs/decisions.md`).
pub const MAX_INLAY_HINTS: usize = 1000;

/// The hints of the ops of a document that end inside `range` (the document's; the whole
/// document when `None`), in its offsets, at the cost of those ops: the first
/// [`MAX_INLAY_HINTS`] of them, in source order.
pub(crate) fn inlay_hints(db: &dyn Db, doc: &Document, range: Option<TextRange>) -> Vec<InlayHint> {
    let range = range.unwrap_or_else(|| TextRange::up_to(doc.len()));
    let mut out = Vec::new();
    for (site, part) in Site::across(doc, range) {
        let room = MAX_INLAY_HINTS.saturating_sub(out.len());
        if room == 0 {
            break;
        }
        out.extend(site.to_document(chunk_hints(db, site.source(), part, room)));
    }
    out
}

/// The hints of the first `room` ops of a chunk, `file`, that end inside `range` (relative
/// to it; see [`super::for_each_op_ending_in`]).
fn chunk_hints(db: &dyn Db, file: SourceFile, range: TextRange, room: usize) -> Vec<InlayHint> {
    let mut hints = Vec::new();
    let target = db.settings().target(db);
    super::for_each_op_ending_in(db, file, range, &mut |_, op| {
        if hints.len() >= room {
            return;
        }
        let lowered = lowering(db, file, op);
        hints.push(InlayHint {
            offset: op.syntax.range.end(),
            label: label(
                &lowered.instructions,
                lower::lookup(&op.resolved.class).and_then(|s| s.instruction_type),
            ),
            cost: super::inlay_suffix(&op.resolved, lowered, target),
        });
    });
    hints
}

/// The label for a list of instructions: runs of equal `(opcode, engine)` are counted;
/// an instruction on no engine shows the op's InstructionType `it` instead (kernels).
pub fn label(instructions: &[Inst], it: Option<u32>) -> String {
    if instructions.is_empty() {
        return "→ no BIR".to_string();
    }
    let mut parts: Vec<(String, usize)> = Vec::new();
    for inst in instructions {
        let opcode = inst.opcode.name();
        let text = match (inst.engine, it) {
            (Engine::Unassigned, Some(it)) => format!("{opcode} (IT {it})"),
            // `Activation` on the Activation engine: the engine once.
            (engine, _) if engine.bir_name() == opcode => opcode.to_string(),
            (engine, _) => format!("{opcode} · {}", engine.bir_name()),
        };
        match parts.last_mut() {
            Some((last, n)) if *last == text => *n += 1,
            _ => parts.push((text, 1)),
        }
    }
    let parts: Vec<String> = parts
        .into_iter()
        .map(|(text, n)| {
            if n == 1 {
                text
            } else {
                format!("{n} × {text}")
            }
        })
        .collect();
    format!("→ {}", parts.join(", "))
}

impl Shift for InlayHint {
    fn shift(&mut self, by: TextSize) {
        self.offset.shift(by);
    }
}

#[cfg(test)]
mod tests {
    use crate::db::RootDatabase;

    fn hints(text: &str) -> Vec<String> {
        let db = RootDatabase::default();
        let doc = crate::ide::fixture::document(&db, text);
        super::inlay_hints(&db, &doc, None)
            .into_iter()
            .map(|h| format!("{}: {}", u32::from(h.offset), h.label))
            .collect()
    }

    #[test]
    fn one_hint_per_op_after_its_brace() {
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  DmaCopyOp { dst = %t, src = %x }\n  NoOp {}\n  Bogus {}\n}\n";
        let got = hints(text);
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].ends_with("→ DMACopy · DMA"), "{got:?}");
        let end = text.find("%x }").unwrap() + 4;
        assert!(got[0].starts_with(&format!("{end}:")), "{got:?}");
        assert!(got[2].ends_with("→ no BIR"), "{got:?}");
    }

    #[test]
    fn an_engine_named_like_its_opcode_is_said_once() {
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  ActivationOp { dst = %t, src = %t, func = exp }\n}\n";
        let got = hints(text);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].ends_with(": → Activation"), "{got:?}");
    }

    #[test]
    fn a_kernel_shows_its_instruction_type() {
        // SPEC §10: `→ BIRKernel (IT 54)`: kernels run on no engine.
        let text = "kernel @k(%x: hbm f32[4, 64]) -> (%y: hbm f32[4, 64]) {\n  BIRKernel { kernel_name = \"RouterTopK\", srcs = [%x], dsts = [%y] }\n}\n";
        let got = hints(text);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].ends_with("→ BIRKernel (IT 54)"), "{got:?}");
    }
}

#[cfg(test)]
mod range_tests {

    use crate::db::RootDatabase;

    /// The hints of a range are the file's hints that end in it, for every window of a few
    /// lines of every corpus file.
    #[test]
    fn a_range_gives_the_files_hints_in_it() {
        for (name, text) in test_utils::corpus_files() {
            let db = RootDatabase::default();
            let doc = crate::ide::fixture::document(&db, &text);
            let all = super::inlay_hints(&db, &doc, None);
            for range in test_utils::line_windows(&text, 3) {
                let from = range.start();
                let want: Vec<_> = all
                    .iter()
                    .filter(|h| range.start() <= h.offset && h.offset <= range.end())
                    .cloned()
                    .collect();
                assert_eq!(
                    super::inlay_hints(&db, &doc, Some(range)),
                    want,
                    "{name} from {from:?}"
                );
            }
        }
    }
}
