//! Quick fixes for diagnostics (SPEC §10 `codeAction`): did-you-mean replacements (P200,
//! P202, P203, P207, P408), each value of an enum for an unknown one with no close value
//! (P207), inserting a missing required field (P204), `scale = 1.0` (P402), adding `op1`
//! (P404) and deleting an unused declaration (P500). Each comes from the diagnostic's [`FixHint`], set where
//! the diagnostic is made; a fix never reads a message (a tidy test checks it).

use lower::catalog::{self, Kind};
use lower::{Code, FixHint};
use syntax::ast::{self, TextRange, TextSize};

use crate::db::{Db, SourceFile, parse};
use crate::diagnostic::Diagnostic;
use crate::document::Document;
use crate::document::Shift;
use crate::ide::Site;
use crate::ide::completion::Earlier;

/// One quick fix: a title, the diagnostic it fixes, and text edits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// The action's title.
    pub title: String,
    /// The diagnostic it fixes.
    pub diagnostic: Diagnostic,
    /// `(range, replacement)` edits, non-overlapping.
    pub edits: Vec<(TextRange, String)>,
}

/// The fixes for the diagnostics that overlap `range` (the document's), in the
/// document's offsets.
pub(crate) fn fixes(db: &dyn Db, doc: &Document, range: TextRange) -> Vec<Fix> {
    let mut out = Vec::new();
    for (site, part) in Site::across(doc, range) {
        let diagnostics = site.diagnostics(db);
        let earlier = Earlier::of(db, &site);
        let fixes = chunk_fixes(db, &site, part, &diagnostics, &earlier);
        out.extend(site.to_document(fixes));
    }
    if doc.chunks.len() > 1 {
        // The kernel-wide findings of a kernel cut into chunks (P500's, with its fix) are
        // the document's, no chunk's: each is fixed in the chunk it stands in.
        for d in doc.diagnostics(db) {
            let overlaps = d.range.intersect(range).is_some()
                || range.contains_range(d.range)
                || d.range.contains_range(range);
            let fixed = out
                .iter()
                .any(|f| f.diagnostic.code == d.code && f.diagnostic.range == d.range);
            if d.fix.is_none() || !overlaps || fixed {
                continue;
            }
            let (site, at) = Site::at(doc, d.range.start());
            let mut relative = d.clone();
            relative.range = TextRange::at(at, d.range.len());
            relative.related.clear();
            let earlier = Earlier::of(db, &site);
            let fixes = chunk_fixes(db, &site, relative.range, &[relative], &earlier);
            out.extend(site.to_document(fixes));
        }
    }
    // In the order of their diagnostics, as one chunk lists them (a stable sort keeps each
    // diagnostic's fixes in order).
    out.sort_by_key(|f| {
        (
            f.diagnostic.range.start(),
            f.diagnostic.range.end(),
            f.diagnostic.code,
        )
    });
    out
}

/// The fixes of a chunk, `site`: for those of its `diagnostics` (relative to it, as its
/// document reports them) that overlap `range` (relative to it), `earlier` the names in
/// scope from the earlier chunks of the kernel it continues.
fn chunk_fixes(
    db: &dyn Db,
    site: &Site<'_>,
    range: TextRange,
    diagnostics: &[crate::Diagnostic],
    earlier: &Earlier<'_>,
) -> Vec<Fix> {
    let file = site.source();
    let text = file.text(db);
    // The chunk's first line, when it starts inside a line: that line's indentation.
    let first_indent = site.doc.first_line_indent(db, site.index);
    let mut out = Vec::new();
    for d in diagnostics {
        if d.range.intersect(range).is_none()
            && !range.contains_range(d.range)
            && !d.range.contains_range(range)
        {
            continue;
        }
        let fix = |title: String, edits: Vec<(TextRange, String)>| Fix {
            title,
            diagnostic: d.clone(),
            edits,
        };
        match &d.fix {
            Some(FixHint::Replace { with }) => {
                let covered = text
                    .get(usize::from(d.range.start())..usize::from(d.range.end()))
                    .unwrap_or_default();
                let replacement = if covered.starts_with('"') {
                    format!("\"{with}\"")
                } else {
                    with.clone()
                };
                let title = match d.code {
                    Code::P402 => format!("Set `scale = {replacement}`"),
                    _ => format!("Replace with `{replacement}`"),
                };
                out.push(fix(title, vec![(d.range, replacement)]));
            }
            Some(FixHint::InsertField { name, value }) => {
                let Some(op) = op_with_class_at(&parse(db, file).file, d.range.start()) else {
                    continue;
                };
                let (field, title) = match value {
                    Some(v) => (format!("{name} = {v}"), format!("Add `{name} = {v}`")),
                    None => {
                        let at = op.class.range.start();
                        let v = placeholder(db, file, (at, earlier), &op.class.text, name);
                        (format!("{name} = {v}"), format!("Add the field `{name}`"))
                    }
                };
                let Some(edit) = insert_field(text, op, &field, first_indent.as_deref()) else {
                    continue;
                };
                out.push(fix(title, vec![edit]));
            }
            Some(FixHint::OneOf { values }) => {
                for value in values {
                    out.push(fix(
                        format!("Replace with `{value}`"),
                        vec![(d.range, value.clone())],
                    ));
                }
            }
            Some(FixHint::DeleteDeclaration) => {
                let Some(range) = declaration_at(&parse(db, file).file, d.range.start()) else {
                    continue;
                };
                let what = text
                    .get(usize::from(d.range.start())..usize::from(d.range.end()))
                    .unwrap_or_default();
                out.push(fix(
                    format!("Delete the unused `{what}`"),
                    vec![(
                        whole_lines(text, range, first_indent.is_some()),
                        String::new(),
                    )],
                ));
            }
            None => {}
        }
    }
    out
}

/// The range of the tensor or register declaration whose name holds `offset`.
fn declaration_at(file: &ast::SourceFile, offset: TextSize) -> Option<TextRange> {
    fn find(stmts: &[ast::Stmt], offset: TextSize) -> Option<TextRange> {
        stmts.iter().find_map(|s| match s {
            ast::Stmt::Tensor(t) if t.name.as_ref().is_some_and(|n| n.range.contains(offset)) => {
                Some(t.range)
            }
            ast::Stmt::Reg(r) if r.name.as_ref().is_some_and(|n| n.range.contains(offset)) => {
                Some(r.range)
            }
            ast::Stmt::Loop(l) => find(&l.body, offset),
            _ => None,
        })
    }
    file.kernels.iter().find_map(|k| find(&k.body, offset))
}

/// `range` widened to its whole lines, line end included, when only blanks and a comment
/// stand beside it on them; else `range` itself. `inside_line`: `text` starts inside a
/// line (after a `}` on it), so its first line has more before it.
fn whole_lines(text: &str, range: TextRange, inside_line: bool) -> TextRange {
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    let (Some(before), Some(after)) = (text.get(..start), text.get(end..)) else {
        return range;
    };
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let rest = after
        .find('\n')
        .map_or(after, |i| after.get(..i).unwrap_or(after));
    let blank_before = !(inside_line && line_start == 0)
        && before
            .get(line_start..)
            .is_some_and(|b| b.trim_matches([' ', '\t']).is_empty());
    let rest_trimmed = rest.trim_matches([' ', '\t', '\r']);
    if !blank_before || !(rest_trimmed.is_empty() || rest_trimmed.starts_with("//")) {
        return range;
    }
    let line_end = end + after.find('\n').map_or(after.len(), |i| i + 1);
    TextRange::new(
        TextSize::from(u32::try_from(line_start).unwrap_or(0)),
        TextSize::from(u32::try_from(line_end).unwrap_or(u32::MAX)),
    )
}

/// A value to start from for a missing field of `class` at `offset`: an access is the
/// first tensor in scope in a memory the field takes (else `%field`), an immediate `1.0`,
/// an ALU op `add`, any other enum its first value.
///
/// `at`: the offset, with the names in scope from the kernel's earlier chunks.
fn placeholder(
    db: &dyn Db,
    file: SourceFile,
    at: (TextSize, &Earlier),
    class: &str,
    field: &str,
) -> String {
    let Some(spec) = catalog::lookup(class).and_then(|s| s.field(field)) else {
        return "?".into();
    };
    let kind = match spec.kind {
        Kind::List(inner) => {
            return format!("[{}]", inner_placeholder(db, file, at, *inner, field));
        }
        k => k,
    };
    inner_placeholder(db, file, at, kind, field)
}

fn inner_placeholder(
    db: &dyn Db,
    file: SourceFile,
    at: (TextSize, &Earlier),
    kind: Kind,
    field: &str,
) -> String {
    match kind {
        Kind::Enum(e) if std::ptr::eq(e, &catalog::ALU) => "add".into(),
        Kind::Enum(e) => e.values.first().map_or("?", |v| v.text).to_string(),
        Kind::Bool => "false".into(),
        Kind::Int => "0".into(),
        Kind::Float | Kind::Imm(_) => "1.0".into(),
        Kind::Str => "\"\"".into(),
        Kind::Bytes => "x\"00\"".into(),
        Kind::Dtype => "f32".into(),
        Kind::List(_) => "[]".into(),
        Kind::Record => "{}".into(),
        Kind::Pred => "$0 >= 0".into(),
        Kind::Acc(mems, _) => {
            tensor_in_scope(db, file, at, Some(mems)).unwrap_or_else(|| format!("%{field}"))
        }
        Kind::Reg | Kind::IntAccReg | Kind::KernelOperand(_) => {
            tensor_in_scope(db, file, at, None).unwrap_or_else(|| format!("%{field}"))
        }
    }
}

/// The first tensor in scope at `offset` in one of `mems` (any memory when `None`).
fn tensor_in_scope(
    db: &dyn Db,
    file: SourceFile,
    (offset, earlier): (TextSize, &Earlier<'_>),
    mems: Option<catalog::Mems>,
) -> Option<String> {
    super::completion::names_in_scope(db, file, offset, earlier)
        .into_iter()
        .find(|(_, _, tensor)| match (mems, tensor) {
            (Some(m), Some(t)) => m.contains(t.memory),
            (None, Some(_)) => true,
            _ => false,
        })
        .map(|(name, _, _)| format!("%{name}"))
}

/// The op whose class name or body contains `offset`: the one starting there when another
/// ends there (`}Op {`).
fn op_with_class_at(file: &ast::SourceFile, offset: TextSize) -> Option<&ast::Op> {
    fn find(stmts: &[ast::Stmt], offset: TextSize, end_too: bool) -> Option<&ast::Op> {
        stmts.iter().find_map(|s| match s {
            ast::Stmt::Op(op)
                if op.range.contains(offset) || (end_too && op.range.end() == offset) =>
            {
                Some(&**op)
            }
            ast::Stmt::Loop(l) => find(&l.body, offset, end_too),
            _ => None,
        })
    }
    [false, true].into_iter().find_map(|end_too| {
        file.kernels
            .iter()
            .find_map(|k| find(&k.body, offset, end_too))
    })
}

/// An edit adding `field_text` as the op's last field: on its own line in a multi-line
/// body (after the last field's line, or right after the field when the body's `}` ends
/// that line), else `, field` before the closing brace. `first_indent`: the indentation of
/// `text`'s first line when `text` starts inside it (a chunk of a long line).
fn insert_field(
    text: &str,
    op: &ast::Op,
    field_text: &str,
    first_indent: Option<&str>,
) -> Option<(TextRange, String)> {
    let body = op.body_range?;
    // Only a body closed by `}`: an unclosed one has no place to insert into yet.
    let body_text = text.get(usize::from(body.start())..usize::from(body.end()))?;
    if body_text.len() < 2 || !body_text.starts_with('{') || !body_text.ends_with('}') {
        return None;
    }
    let close = body.end() - TextSize::from(1);
    let inside = &body_text[1..body_text.len() - 1];
    if inside.contains('\n') {
        // After the last field's line, with that line's indentation.
        let last = op.fields.last()?;
        let line_start = text[..usize::from(last.range.start())]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let line = &text[line_start..usize::from(last.range.start())];
        let indent = match first_indent {
            Some(indent) if line_start == 0 => indent,
            _ => &line[..line.len() - line.trim_start().len()],
        };
        let line_end = text[usize::from(last.range.end())..]
            .find('\n')
            .map_or(text.len(), |i| usize::from(last.range.end()) + i);
        let at = if usize::from(close) < line_end {
            last.range.end()
        } else {
            TextSize::from(line_end as u32)
        };
        return Some((TextRange::empty(at), format!("\n{indent}{field_text}")));
    }
    match op.fields.last() {
        Some(last) => Some((
            TextRange::empty(last.range.end()),
            format!(", {field_text}"),
        )),
        None => Some((
            TextRange::new(body.start() + TextSize::from(1), close),
            format!(" {field_text} "),
        )),
    }
}

impl Shift for Fix {
    fn shift(&mut self, by: TextSize) {
        self.diagnostic.shift(by);
        self.edits.shift(by);
    }
}

#[cfg(test)]
mod tests {
    use crate::db::RootDatabase;
    use syntax::ast::TextRange;

    fn apply(text: &str) -> Vec<(String, String)> {
        let db = RootDatabase::default();
        let doc = crate::ide::fixture::document(&db, text);
        let all = TextRange::up_to(syntax::ast::TextSize::of(text));
        super::fixes(&db, &doc, all)
            .into_iter()
            .map(|f| {
                let mut t = text.to_string();
                for (r, new) in f.edits.iter().rev() {
                    t.replace_range(usize::from(r.start())..usize::from(r.end()), new);
                }
                (f.title, t)
            })
            .collect()
    }

    #[test]
    fn did_you_mean_and_missing_field() {
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  DmaCopyOpp { dst = %t, src = %x }\n  ActivationOp { dst = %t, src = %t }\n}\n";
        let got = apply(text);
        assert!(
            got.iter()
                .any(|(title, t)| title == "Replace with `DmaCopyOp`"
                    && t.contains("  DmaCopyOp { dst")),
            "{got:?}"
        );
        assert!(
            got.iter().any(|(title, t)| title == "Add the field `func`"
                && t.contains("src = %t, func = identity }")),
            "{got:?}"
        );
    }

    #[test]
    fn missing_field_goes_inside_a_body_closed_on_its_last_line() {
        // Found by fuzzing: a multi-line body whose `}` ends the last field's line got the
        // field after the `}` (here after the kernel's too), and a last field after other
        // tokens on its line took them as its indentation.
        let text = "kernel @k(%p: sbuf f32[2, 2]) {\n  TensorScalarGEPOp { dst = %p[\n:, :]\n src = %p } }\n";
        let got = apply(text);
        let (_, fixed) = got
            .iter()
            .find(|(title, _)| title == "Add the field `op0`")
            .expect("a fix adding op0");
        assert!(syntax::parse(fixed).errors.is_empty(), "{fixed}");
        assert!(fixed.contains(" src = %p\n op0 = "), "{fixed}");

        let text = "kernel @k(%p: sbuf f32[2, 2]) {\n  TensorScalarGEPOp { dst = %p[\n:, :], src = %p\n  }\n}\n";
        let (_, fixed) = apply(text)
            .into_iter()
            .find(|(title, _)| title == "Add the field `op0`")
            .expect("a fix adding op0");
        assert!(syntax::parse(&fixed).errors.is_empty(), "{fixed}");
        assert!(fixed.contains(":, :], src = %p\nop0 = "), "{fixed}");
    }

    #[test]
    fn missing_field_goes_into_its_own_op_when_ops_touch() {
        // Found by fuzzing: in `}ExternalNativeNkiKlirKernel {`, the P204 fix of the second
        // op went into the first, whose range also "contains" the second's start.
        let text = "kernel @k(%t: sbuf f32[128, 4]) {\n  MemsetOp { dst = %t, mode = random }ExternalNativeNkiKlirKernel { func = \"f\", dsts = [] }\n}\n";
        let (_, fixed) = apply(text)
            .into_iter()
            .find(|(title, _)| title == "Add the field `klir_binary`")
            .expect("a fix adding klir_binary");
        assert!(syntax::parse(&fixed).errors.is_empty(), "{fixed}");
        assert!(
            fixed.contains("mode = random }ExternalNativeNkiKlirKernel { func = \"f\", dsts = [], klir_binary = "),
            "{fixed}"
        );
    }

    #[test]
    fn an_unused_declaration_is_deleted_with_its_line() {
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  tensor %u : sbuf f32[128, 4]  // spare\n  reg %r : i32\n  DmaCopyOp { dst = %t, src = %x }\n}\n";
        let got = apply(text);
        let want = [
            (
                "Delete the unused `%u`",
                "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  reg %r : i32\n  DmaCopyOp { dst = %t, src = %x }\n}\n",
            ),
            (
                "Delete the unused `%r`",
                "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  tensor %u : sbuf f32[128, 4]  // spare\n  DmaCopyOp { dst = %t, src = %x }\n}\n",
            ),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(t, f)| (t.as_str(), f.as_str())).collect();
        assert_eq!(got, want);
        // Beside another statement on its line, only the declaration goes.
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %u : sbuf f32[128, 4] DmaCopyOp { dst = %x, src = %x }\n}\n";
        let got = apply(text);
        assert!(
            got.iter().any(|(t, f)| t == "Delete the unused `%u`"
                && f == "kernel @k(%x: hbm f32[128, 4]) {\n   DmaCopyOp { dst = %x, src = %x }\n}\n"),
            "{got:#?}"
        );
    }

    #[test]
    fn an_unknown_value_with_none_close_offers_each_value() {
        let text = "kernel @k(%t: sbuf f32[128, 4]) {\n  ActivationOp { dst = %t, src = %t, func = banana }\n}\n";
        let titles: Vec<String> = apply(text).into_iter().map(|(t, _)| t).collect();
        let values: Vec<String> = lower::catalog::ACT_FUNC
            .values
            .iter()
            .map(|v| format!("Replace with `{}`", v.text))
            .collect();
        assert_eq!(titles, values);
    }

    #[test]
    fn every_hint_kind_becomes_its_fix() {
        // One diagnostic per kind of hint, from lowering (P203, P207, P404, P408) and from
        // name resolution (P200, P207): each fix comes from the hint, not the message.
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  tensor %u : sbuf f23[128, 4]\n  DmaCopyOp { dts = %t, src = %x }\n  DmaCopyOp { dst = %t, src = %xx }\n  ActivationOp { dst = %t, src = %t, func = identty }\n  InternalNativeNkiKernel { func_name = \"blockwise_mn\", srcs = [%x], dsts = [%t] }\n  TensorScalarPtrOp { dst = %t, src = %t, op0 = add, operand0 = 1.0, operand1 = 2.0 }\n}\n";
        let got = apply(text);
        for (title, fixed) in [
            ("Replace with `dst`", "DmaCopyOp { dst = %t, src = %x }"),
            ("Replace with `%x`", "DmaCopyOp { dst = %t, src = %x }"),
            ("Replace with `f32`", "tensor %u : sbuf f32[128, 4]"),
            ("Replace with `identity`", "func = identity }"),
            (
                "Replace with `\"blockwise_mm\"`",
                "func_name = \"blockwise_mm\"",
            ),
            ("Add `op1 = add`", "operand1 = 2.0, op1 = add }"),
        ] {
            assert!(
                got.iter().any(|(t, f)| t == title && f.contains(fixed)),
                "no `{title}` giving `{fixed}` in {got:#?}"
            );
        }
    }
}
