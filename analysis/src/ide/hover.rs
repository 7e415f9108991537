//! Hover (SPEC §10): on an op, its doc, `codegen…` method and emitted BIR as a JSON block;
//! on a field name, its doc, kind, default and BIR field; on a tensor, register or loop
//! variable, its declaration (and a tensor's bytes per partition); on an enum value, dtype
//! or memory space, its meaning.

use lower::catalog::{self, Kind};
use lower::types::{Dtype, Memory};
use syntax::ast::{self, TextRange, TextSize};

use crate::bir::op_instructions;
use crate::db::{Db, SourceFile, file_items, parse};
use crate::ide::{contains_inclusive, op_at};
use crate::resolve::{Allocation, DefKind, Definition, OpItem};

/// A hover: the range it describes (UTF-8 bytes) and Markdown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverResult {
    /// The hovered range.
    pub range: TextRange,
    /// Markdown content.
    pub markdown: String,
}

/// The hover at `offset`, if there is something to say.
pub fn hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    if let Some(h) = name_hover(db, file, offset) {
        return Some(h);
    }
    if let Some(h) = type_hover(db, file, offset) {
        return Some(h);
    }
    let (_, op) = op_at(db, file, offset)?;
    field_hover(op, offset).or_else(|| Some(op_hover(db, file, op)))
}

fn op_hover(db: &dyn Db, file: SourceFile, op: &OpItem) -> HoverResult {
    let range = op.syntax.class.range;
    let Some(spec) = catalog::lookup(&op.resolved.class) else {
        return HoverResult {
            range,
            markdown: format!("**{}**: not an op class of pir-spec/2", op.resolved.class),
        };
    };
    let instructions = op_instructions(db, file, op);
    let json = serde_json::to_string_pretty(&instructions).unwrap_or_default();
    let it = spec
        .instruction_type
        .map(|it| format!(" (IT {it})"))
        .unwrap_or_default();
    let opcode = if spec.opcode.is_empty() {
        "no BIR instruction".to_string()
    } else {
        format!("`{}`{it}", spec.opcode)
    };
    let markdown = format!(
        "**{}** #{} → {opcode}\n\n{}\n\n`{}` — {}\n\n```json\n{json}\n```",
        spec.class,
        op.op_id,
        spec.doc,
        spec.codegen(),
        spec.source
    );
    HoverResult { range, markdown }
}

fn field_hover(op: &OpItem, offset: TextSize) -> Option<HoverResult> {
    let spec = catalog::lookup(&op.resolved.class)?;
    for field in &op.syntax.fields {
        let field_spec = spec.field(&field.name.text);
        if contains_inclusive(field.name.range, offset) {
            let field_spec = field_spec?;
            let markdown = format!(
                "**{}**.`{}`: {}\n\ndefault: `{}` · BIR: {}\n\n{}",
                spec.class,
                field_spec.name,
                field_spec.kind.describe(),
                field_spec.default.describe(),
                field_spec.bir,
                field_spec.doc
            );
            return Some(HoverResult {
                range: field.name.range,
                markdown,
            });
        }
        let Some(value) = &field.value else { continue };
        if !contains_inclusive(value.range, offset) {
            continue;
        }
        let (ident, range) = ident_at(value, offset)?;
        let kind = field_spec.map(|f| f.kind);
        let markdown = match kind {
            Some(Kind::Enum(e)) | Some(Kind::List(&Kind::Enum(e))) => {
                let v = e.get(ident)?;
                format!("`{}` ({}): {} — BIR `{}`", v.text, e.name, v.doc, v.bir)
            }
            Some(Kind::Dtype) => Dtype::from_name(ident)?.doc(),
            _ => return None,
        };
        return Some(HoverResult { range, markdown });
    }
    None
}

/// The bare identifier under `offset` inside a value (lists searched).
fn ident_at(value: &ast::Value, offset: TextSize) -> Option<(&str, TextRange)> {
    match &value.kind {
        ast::ValueKind::Ident(s) if contains_inclusive(value.range, offset) => {
            Some((s, value.range))
        }
        ast::ValueKind::List(items) => items.iter().find_map(|v| ident_at(v, offset)),
        _ => None,
    }
}

fn name_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let items = file_items(db, file);
    let (range, def) = items
        .definitions
        .iter()
        .find(|d| contains_inclusive(d.range, offset))
        .map(|d| (d.range, d))
        .or_else(|| {
            items
                .references
                .iter()
                .find(|(r, _)| contains_inclusive(*r, offset))
                .and_then(|(r, d)| Some((*r, items.definitions.get(*d)?)))
        })?;
    Some(HoverResult {
        range,
        markdown: describe_definition(db, file, def),
    })
}

fn describe_definition(db: &dyn Db, file: SourceFile, def: &Definition) -> String {
    let items = file_items(db, file);
    let kernel = items
        .kernels
        .iter()
        .zip(parse(db, file).file.kernels.iter())
        .find(|(_, k)| k.range.contains_range(def.range))
        .map(|(k, _)| k);
    let allocation = kernel.and_then(|k| {
        k.allocations.iter().find(|a| match a {
            Allocation::Tensor(t) => t.name == def.name,
            Allocation::Register(r) => r.name == def.name,
        })
    });
    match (def.kind, allocation) {
        (DefKind::Kernel, _) => format!("kernel `@{}`", def.name),
        (DefKind::Param | DefKind::Tensor, Some(Allocation::Tensor(t))) => {
            let what = if def.kind == DefKind::Param {
                "parameter"
            } else {
                "tensor"
            };
            let dims: Vec<String> = t.dims.iter().map(u64::to_string).collect();
            let mut text = format!(
                "{what} `%{}` : {} {}[{}]",
                t.name,
                t.memory.name(),
                t.dtype.name(),
                dims.join(", ")
            );
            match t.memory.partition_capacity() {
                Some(capacity) => {
                    let bytes = t.partition_bytes();
                    let percent = bytes as f64 * 100.0 / capacity as f64;
                    text.push_str(&format!(
                        "\n\n{bytes} bytes per partition of {capacity} ({percent:.1}%), {} partitions",
                        t.dims.first().copied().unwrap_or(1)
                    ));
                }
                None => text.push_str(&format!(
                    "\n\n{} bytes",
                    t.partition_bytes()
                        .saturating_mul(t.dims.first().copied().unwrap_or(1))
                )),
            }
            text
        }
        (DefKind::Register, Some(Allocation::Register(r))) => {
            format!(
                "register `%{}` : {} (one 32-bit scalar)",
                r.name,
                r.dtype.name()
            )
        }
        (DefKind::LoopVar, _) => format!("loop variable `%{}` (a BIR loop axis)", def.name),
        _ => format!("`%{}` (its declaration has an error)", def.name),
    }
}

/// Hover on the memory space or dtype of a type annotation.
fn type_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let ty = find_type(&parse(db, file).file, offset)?;
    if contains_inclusive(ty.memory.range, offset) {
        let memory = Memory::from_name(&ty.memory.text)?;
        return Some(HoverResult {
            range: ty.memory.range,
            markdown: format!("`{}`: {}", memory.name(), memory.doc()),
        });
    }
    let dtype = ty
        .dtype
        .as_ref()
        .filter(|d| contains_inclusive(d.range, offset))?;
    Some(HoverResult {
        range: dtype.range,
        markdown: Dtype::from_name(&dtype.text)?.doc(),
    })
}

fn find_type(file: &ast::SourceFile, offset: TextSize) -> Option<&ast::TypeRef> {
    fn in_stmts(stmts: &[ast::Stmt], offset: TextSize) -> Option<&ast::TypeRef> {
        stmts.iter().find_map(|s| match s {
            ast::Stmt::Tensor(t) => {
                t.ty.as_ref()
                    .filter(|ty| contains_inclusive(ty.range, offset))
            }
            ast::Stmt::Loop(l) => in_stmts(&l.body, offset),
            _ => None,
        })
    }
    file.kernels.iter().find_map(|k| {
        k.params
            .iter()
            .chain(&k.outputs)
            .filter_map(|p| p.ty.as_ref())
            .find(|ty| contains_inclusive(ty.range, offset))
            .or_else(|| in_stmts(&k.body, offset))
    })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::ide::fixture::with_cursor;

    #[track_caller]
    fn check(fixture: &str, expect: Expect) {
        let (db, file, offset) = with_cursor(fixture);
        let text = match super::hover(&db, file, offset) {
            Some(h) => {
                let covered =
                    &file.text(&db)[usize::from(h.range.start())..usize::from(h.range.end())];
                format!("[{covered}]\n{}", h.markdown)
            }
            None => "no hover".to_string(),
        };
        expect.assert_eq(&text);
    }

    const KERNEL: &str = "kernel @k(%x: hbm f32[128, 512]) {\n  tensor %t : sbuf f32[128, 512]\n  DmaCopyOp { dst = %t, src = %x }\n}\n";

    #[test]
    fn tensor_use_shows_declaration_and_bytes() {
        check(
            &KERNEL.replace("dst = %t", "dst = %$0t"),
            expect![[r#"
                [%t]
                tensor `%t` : sbuf f32[128, 512]

                2048 bytes per partition of 212984 (1.0%), 128 partitions"#]],
        );
    }

    #[test]
    fn dtype_in_a_declaration() {
        check(
            &KERNEL.replace("sbuf f32", "sbuf f$032"),
            expect![[r#"
                [f32]
                `f32`: float, 4 byte(s) per element, BIR `float32`"#]],
        );
    }

    #[test]
    fn pir_spec_2_fields_come_from_the_catalog() {
        // pir-spec/2 §6.7: `is_keep_rate` is a DropoutMaskInst field, with its BIR field.
        check(
            "kernel @k(%a: sbuf f32[128, 4]) -> (%o: sbuf f32[128, 4]) {\n  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.5, is_k$0eep_rate = false }\n}\n",
            expect![[r#"
                [is_keep_rate]
                **DropoutMaskInst**.`is_keep_rate`: bool

                default: `true` · BIR: is_keep_threshold

                true: `keep_rate` is the probability of keeping an element; false: of dropping it (the seed gates the rate with `is_keep_rate`)"#]],
        );
    }

    #[test]
    fn nothing_outside_ops_and_names() {
        check(&format!("$0{KERNEL}"), expect!["no hover"]);
    }
}
