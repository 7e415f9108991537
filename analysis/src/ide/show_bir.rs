//! `pir/showBir` (SPEC §10): the §8 JSON of the whole file, or of the op at a position.

use serde_json::{Value as Json, json};
use syntax::ast::TextSize;

use crate::bir::{file_bir, op_instructions};
use crate::db::{Db, SourceFile};
use crate::ide::op_at;

/// The whole file's BIR document, or, with `offset` inside an op, `{"op", "op_id",
/// "instructions"}` for that op. An offset outside every op gives the whole file.
pub fn show_bir(db: &dyn Db, file: SourceFile, offset: Option<TextSize>) -> Json {
    if let Some((kernel, op)) = offset.and_then(|o| op_at(db, file, o)) {
        return json!({
            "kernel": kernel.name,
            "op": op.resolved.class,
            "op_id": op.op_id,
            "instructions": op_instructions(db, file, op),
        });
    }
    file_bir(db, file)
}
