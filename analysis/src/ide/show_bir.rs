//! `pir/showBir` (SPEC §10): the §8 JSON of the whole file, or of the op at a position.
//!
//! A view must stay usable on a huge file (issue 9), so (decision, docs/decisions.md) the
//! editors show the op at the cursor by default and follow it across edits, and the whole
//! file's document is paged: beyond [`MAX_SHOWN_OPS`] ops, only the first kernels that hold
//! that many are shown, with a `truncated` entry saying how much is left and that
//! `pir lower` writes it all.

use serde_json::{Value as Json, json};
use syntax::ast::TextSize;

use crate::bir::{bir_document_first, file_bir, op_instructions};
use crate::check::for_each_op;
use crate::db::{Db, file_items};
use crate::document::Document;
use crate::ide::op_at;

/// The most ops whose BIR a whole-file view shows (about 4 MB of JSON).
pub const MAX_SHOWN_OPS: usize = 2000;

/// The whole document's BIR (paged beyond [`MAX_SHOWN_OPS`] ops), or, with `offset`
/// (bytes into the document) inside an op, `{"op", "op_id", "instructions"}` for that op.
/// An offset outside every op gives the whole document.
pub(crate) fn show_bir(db: &dyn Db, doc: &Document, offset: Option<TextSize>) -> Json {
    if let Some(offset) = offset {
        let (chunk, relative) = doc.locate(offset);
        if let Some((kernel, op)) = op_at(db, chunk.source, relative) {
            return json!({
                "kernel": kernel.name,
                "op": op.resolved.class.as_str(),
                "op_id": op.op_id,
                "instructions": op_instructions(db, chunk.source, chunk.first_line, op),
            });
        }
    }
    let counts: Vec<usize> = doc
        .chunks
        .iter()
        .flat_map(|chunk| file_items(db, chunk.source).kernels.iter())
        .map(|k| {
            let mut n = 0;
            for_each_op(&k.body, &mut |_| n += 1);
            n
        })
        .collect();
    let total: usize = counts.iter().sum();
    if total <= MAX_SHOWN_OPS {
        return file_bir(db, doc);
    }
    // The first kernels within the budget (at least one).
    let mut shown = (0, 0);
    for &n in &counts {
        if shown.0 > 0 && shown.1 + n > MAX_SHOWN_OPS {
            break;
        }
        shown = (shown.0 + 1, shown.1 + n);
    }
    let mut bir = serde_json::to_value(bir_document_first(db, doc, shown.0)).unwrap_or(Json::Null);
    if let Some(map) = bir.as_object_mut() {
        map.insert(
            "truncated".into(),
            json!({
                "kernels": format!("{} of {}", shown.0, counts.len()),
                "ops": format!("{} of {total}", shown.1),
                "whole": "`pir lower FILE -o FILE.bir.json` writes the whole document; \
                          Show BIR at an op shows that op's",
            }),
        );
    }
    bir
}

#[cfg(test)]
mod tests {
    use crate::db::RootDatabase;
    use crate::document::Document;

    #[test]
    fn a_huge_file_is_shown_a_page_at_a_time() {
        let kernel = |k: usize| {
            let ops = "  NoOp {}\n".repeat(300);
            format!("kernel @k{k}() {{\n{ops}}}\n")
        };
        let text: String = (0..10).map(kernel).collect();
        let db = RootDatabase::default();
        let doc = Document::new(&db, &text);
        let bir = super::show_bir(&db, &doc, None);
        let functions = bir["functions"].as_array().map_or(0, Vec::len);
        assert_eq!(functions, 6, "{}", bir["truncated"]);
        assert_eq!(bir["truncated"]["ops"], "1800 of 3000");
        assert_eq!(bir["truncated"]["kernels"], "6 of 10");
        // A small file is whole, without the entry.
        let small = Document::new(&db, &kernel(0));
        assert!(
            super::show_bir(&db, &small, None)
                .get("truncated")
                .is_none()
        );
    }
}
