//! `pir/showBir` (SPEC §10): the §8 JSON of the whole file, or of the op at a position.
//!
//! A view must stay usable on a huge file (issue 9), so (decision, docs/decisions.md) the
//! editors show the op at the cursor by default and follow it across edits, and the whole
//! file's document is paged: beyond [`MAX_SHOWN_OPS`] ops, it shows the first kernels that
//! fit and, of the next one, its first ops up to the budget (its allocations all, its
//! loops cut and closed; see [`crate::bir::OpBudget`]), with a `truncated` entry saying
//! what is shown — kernels and ops out of how many, which kernel was cut, before which op
//! and line — and that `pir lower` writes it all. What is not shown is neither lowered to
//! JSON nor serialized, so the page costs the same whatever follows it (beyond the
//! analysis of the kernel it ends in, which is analysed whole).

use serde_json::{Value as Json, json};
use syntax::ast::TextSize;

use crate::bir::{bir_document_within, file_bir, op_instructions};
use crate::check::for_each_op;
use crate::db::{Db, file_items};
use crate::document::Document;
use crate::ide::op_at;

/// The most ops whose BIR a whole-file view shows (for the generated benchmark's ops: 2.4 MB
/// of JSON, 7 MB as pretty text).
pub const MAX_SHOWN_OPS: usize = 2000;

/// The most elements of each list (an instruction's arguments, a list value) Show BIR of
/// one op shows: an op with 1,000,000 operands lowered to hundreds of megabytes of JSON.
pub const SHOWN_LIST_ELEMENTS: usize = 1000;

/// The whole document's BIR (paged beyond [`MAX_SHOWN_OPS`] ops), or, with `offset`
/// (bytes into the document) inside an op, `{"op", "op_id", "instructions"}` for that op.
/// An offset outside every op gives the whole document.
pub(crate) fn show_bir(db: &dyn Db, doc: &Document, offset: Option<TextSize>) -> Json {
    if let Some(offset) = offset {
        let index = doc.chunk_index(offset);
        let (chunk, relative) = doc.locate(offset);
        if let Some((kernel, op)) = op_at(db, chunk.source, relative) {
            let op_base = if kernel.continues {
                doc.op_base(db, index)
            } else {
                0
            };
            let op_id = if op.op_id_written {
                op.op_id
            } else {
                op.op_id + op_base
            };
            let shown = op_instructions(
                db,
                chunk.source,
                chunk.origin,
                (op_base, &doc.errors_from_elsewhere(db, index)),
                op,
                SHOWN_LIST_ELEMENTS,
            );
            let mut bir = json!({
                "kernel": kernel.name,
                "op": op.resolved.class.as_str(),
                "op_id": op_id,
                "instructions": shown.instructions,
            });
            if let Some(map) = bir.as_object_mut().filter(|_| shown.left_out > 0) {
                map.insert(
                    "capped".into(),
                    json!(format!(
                        "lists are cut to their first {SHOWN_LIST_ELEMENTS} elements ({} elements \
                     left out); `pir lower` writes all of it",
                        shown.left_out
                    )),
                );
            }
            return bir;
        }
    }
    // Ops per kernel (a kernel cut into chunks counted once, with all its parts' ops).
    let mut counts: Vec<usize> = Vec::new();
    for chunk in &doc.chunks {
        for k in &file_items(db, chunk.source).kernels {
            let mut n = 0;
            for_each_op(&k.body, &mut |_| n += 1);
            match counts.last_mut() {
                Some(last) if k.continues => *last += n,
                _ => counts.push(n),
            }
        }
    }
    let total: usize = counts.iter().sum();
    if total <= MAX_SHOWN_OPS {
        return file_bir(db, doc);
    }
    let page = bir_document_within(db, doc, MAX_SHOWN_OPS);
    let mut bir = serde_json::to_value(&page).unwrap_or(Json::Null);
    let (shown, cut) = page.page();
    let kernels = bir
        .get("functions")
        .and_then(Json::as_array)
        .map_or(0, Vec::len);
    let mut truncated = serde_json::Map::new();
    truncated.insert(
        "kernels".into(),
        json!(format!("{kernels} of {}", counts.len())),
    );
    truncated.insert("ops".into(), json!(format!("{shown} of {total}")));
    if let Some(cut) = cut {
        truncated.insert(
            "cut".into(),
            json!({
                "kernel": cut.kernel.name,
                "ops": format!("{} of {}", cut.shown, cut.ops),
                "allocations": format!("{} of {}", cut.allocations_shown(), cut.allocations),
                "before": {"op_id": cut.op_id(), "line": cut.line(db)},
            }),
        );
    }
    truncated.insert(
        "whole".into(),
        json!(
            "`pir lower FILE -o FILE.bir.json` writes the whole document; \
             Show BIR at an op shows that op's"
        ),
    );
    if let Some(map) = bir.as_object_mut() {
        map.insert("truncated".into(), Json::Object(truncated));
    }
    bir
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use crate::db::RootDatabase;
    use crate::document::Document;

    /// The instructions in `block` and in the bodies of its loops (not the loops).
    fn instructions(block: &Json) -> usize {
        block["instructions"].as_array().map_or(0, |insts| {
            insts
                .iter()
                .map(|i| match i["opcode"].as_str() {
                    Some("Loop") => instructions(&i["blocks"][0]),
                    _ => 1,
                })
                .sum()
        })
    }

    const WHOLE: &str = "`pir lower FILE -o FILE.bir.json` writes the whole document; \
                         Show BIR at an op shows that op's";

    #[test]
    fn a_huge_file_is_shown_a_page_at_a_time() {
        let kernels = |n: usize, ops: usize| -> String {
            (0..n)
                .map(|k| format!("kernel @k{k}() {{\n{}}}\n", "  NoOp {}\n".repeat(ops)))
                .collect()
        };
        let mut db = RootDatabase::default();
        // The first kernels that fit whole, then the first ops of the next: 6 × 300 + 200.
        let doc = Document::new(&mut db, &kernels(10, 300));
        let bir = super::show_bir(&db, &doc, None);
        let functions = bir["functions"].as_array().map_or(0, Vec::len);
        assert_eq!(functions, 7, "{}", bir["truncated"]);
        // The op after the cut: kernel 6 starts on line 6 × 302 + 1, its op 201 200 lines on.
        assert_eq!(
            bir["truncated"],
            json!({
                "kernels": "7 of 10",
                "ops": "2000 of 3000",
                "cut": {
                    "kernel": "k6",
                    "ops": "200 of 300",
                    "allocations": "0 of 0",
                    "before": {"op_id": 201, "line": 2014},
                },
                "whole": WHOLE,
            })
        );
        // A page ending with a kernel: no cut.
        let doc = Document::new(&mut db, &kernels(10, 250));
        let bir = super::show_bir(&db, &doc, None);
        assert_eq!(
            bir["truncated"],
            json!({"kernels": "8 of 10", "ops": "2000 of 2500", "whole": WHOLE})
        );
        // A small file is whole, without the entry.
        let small = Document::new(&mut db, &kernels(1, 300));
        assert!(
            super::show_bir(&db, &small, None)
                .get("truncated")
                .is_none()
        );
    }

    #[test]
    fn one_kernel_over_the_budget_is_cut_inside_its_loops() {
        // 1,500 ops, then a loop of 400 ops, a loop of 200 and 401 more, then a matmul
        // whose stationary makes `%lhs_tile` a weight. The cut falls at the inner loop's
        // 101st op: both loops closed there, the tensors declared after it (`%late`,
        // `%result_sbuf`) not allocated, `%lhs_tile` a weight as in `pir lower`.
        let copies = |n: usize, indent: &str, dst: &str| {
            format!("{indent}DmaCopyOp {{ dst = %{dst}, src = %rhs }}\n").repeat(n)
        };
        let text = format!(
            "kernel @big(%lhsT: hbm bf16[128, 64], %rhs: hbm bf16[128, 512])\n    \
             -> (%result: hbm bf16[64, 512]) {{\n  \
             tensor %lhs_tile : sbuf bf16[128, 64]\n  \
             tensor %rhs_tile : sbuf bf16[128, 512]\n  \
             tensor %result_psum : psum f32[64, 512]\n\
             {}  for %i in 0..4 {{\n    \
             tensor %i_tile : sbuf bf16[128, 512]\n\
             {}    for %j in 0..2 {{\n{}    }}\n    \
             tensor %late : sbuf bf16[128, 512]\n\
             {}  }}\n  \
             tensor %result_sbuf : sbuf bf16[64, 512]\n  \
             DmaCopyOp {{ dst = %lhs_tile, src = %lhsT }}\n  \
             MatMulOp {{ dst = %result_psum, stationary = %lhs_tile, moving = %rhs_tile }}\n  \
             TensorCopyOp {{ dst = %result_sbuf, src = %result_psum }}\n  \
             DmaCopyOp {{ dst = %result, src = %result_sbuf }}\n}}\n",
            copies(1500, "  ", "rhs_tile"),
            copies(400, "    ", "i_tile"),
            copies(200, "      ", "i_tile"),
            copies(401, "    ", "late"),
        );
        let mut db = RootDatabase::default();
        let doc = Document::new(&mut db, &text);
        // Its small copies in loops are P421 (SPEC §10.2.10), beside the point here.
        let diagnostics = doc.diagnostics(&db);
        assert!(
            diagnostics.iter().all(|d| d.code == lower::Code::P421),
            "{:?}",
            diagnostics.first()
        );
        let bir = super::show_bir(&db, &doc, None);
        // Ops 1–1,500 on lines 6–1,505, `for %i` on 1,506, `%i_tile` on 1,507, its ops on
        // 1,508–1,907, `for %j` on 1,908: op 2,001 (the inner loop's 101st) on line 2,009.
        // Allocated before it: 3 parameters, 3 tensors, `%i_tile`.
        assert_eq!(
            bir["truncated"],
            json!({
                "kernels": "1 of 1",
                "ops": "2000 of 2505",
                "cut": {
                    "kernel": "big",
                    "ops": "2000 of 2505",
                    "allocations": "7 of 9",
                    "before": {"op_id": 2001, "line": 2009},
                },
                "whole": WHOLE,
            })
        );
        let function = &bir["functions"][0];
        let entry = &function["blocks"][0];
        assert_eq!(instructions(entry), 2000);
        // The entry ends with the outer loop, which ends with the inner one, both closed.
        let insts = entry["instructions"].as_array().unwrap();
        assert_eq!(insts.len(), 1501);
        let outer = &insts[1500];
        assert_eq!(outer["name"], "L-i");
        let body = outer["blocks"][0]["instructions"].as_array().unwrap();
        assert_eq!(body.len(), 401);
        assert_eq!(body[400]["name"], "L-j");
        assert_eq!(instructions(&body[400]["blocks"][0]), 100);
        let last = &body[400]["blocks"][0]["instructions"][99];
        assert_eq!(last["debuginfo"]["op_id"], 2000, "{last}");
        // The allocations shown are the whole document's first 7, `%lhs_tile` a weight.
        let whole = crate::bir::file_bir(&db, &doc);
        let all = whole["functions"][0]["allocations"].as_array().unwrap();
        assert_eq!(function["allocations"].as_array().unwrap()[..], all[..7]);
        assert_eq!(all[3]["name"], "lhs_tile_set");
        assert_eq!(all[3]["tensor_class"], "NeuronWeightTensor");
        assert_eq!(all[6]["name"], "i_tile_set");
    }
}
