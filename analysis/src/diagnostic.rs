//! Diagnostics with text ranges, and the mapping of lowering's position-free anchors back
//! to the syntax tree (SPEC §7 primary ranges).

use lower::diag::{Anchor, Code, FixHint, Severity, ValuePath};
use syntax::ast::{self, TextRange};

use crate::resolve::OpItem;

/// A diagnostic of a file: code, severity, primary range (UTF-8 bytes), message and
/// related ranges with notes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// The code.
    pub code: Code,
    /// The severity (the code's, SPEC §7).
    pub severity: Severity,
    /// The primary range.
    pub range: TextRange,
    /// The message, no final period.
    pub message: String,
    /// Secondary ranges with notes.
    pub related: Vec<(TextRange, String)>,
    /// The quick fix, as data (the fixes read this, never the message).
    pub fix: Option<FixHint>,
}

impl Diagnostic {
    /// A diagnostic with the code's severity.
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            range,
            message: message.into(),
            related: Vec::new(),
            fix: None,
        }
    }

    /// The diagnostic with the quick fix `fix` (none when `None`).
    #[must_use]
    pub fn with_fix(mut self, fix: Option<FixHint>) -> Diagnostic {
        self.fix = fix;
        self
    }

    /// Adds a related range.
    pub fn with_related(mut self, range: TextRange, message: impl Into<String>) -> Diagnostic {
        self.related.push((range, message.into()));
        self
    }
}

/// The range of `anchor` within `op` (SPEC §7: the smallest span that explains it).
pub fn anchor_range(op: &OpItem, anchor: &Anchor) -> TextRange {
    let syntax = &op.syntax;
    match anchor {
        Anchor::Class => syntax.class.range,
        Anchor::OpId => syntax.id.map_or(syntax.class.range, |(_, r)| r),
        Anchor::FieldName(i) => syntax
            .fields
            .get(*i)
            .map_or(syntax.class.range, |f| f.name.range),
        Anchor::Value(path) => {
            value_at(syntax, path).map_or_else(|| field_range(syntax, path.field), |v| v.range)
        }
        Anchor::Index(path, k) => match value_at(syntax, path) {
            Some(ast::Value {
                kind: ast::ValueKind::Access(access),
                range,
            }) => access
                .indices
                .as_ref()
                .and_then(|ix| ix.get(*k))
                .map_or(*range, |index| index.range),
            Some(v) => v.range,
            None => field_range(syntax, path.field),
        },
        Anchor::Loop(n) => op
            .loop_ranges
            .get(*n)
            .copied()
            .unwrap_or(syntax.class.range),
    }
}

fn field_range(op: &ast::Op, field: usize) -> TextRange {
    op.fields.get(field).map_or(op.class.range, |f| f.range)
}

/// The (nested) value at `path`: list elements, call arguments and record field values.
fn value_at<'a>(op: &'a ast::Op, path: &ValuePath) -> Option<&'a ast::Value> {
    let mut value = op.fields.get(path.field)?.value.as_ref()?;
    for &k in &path.elements {
        value = match &value.kind {
            ast::ValueKind::List(items) => items.get(k)?,
            ast::ValueKind::Call { args, .. } => args.get(k)?,
            ast::ValueKind::Record(fields) => fields.get(k)?.value.as_ref()?,
            _ => return None,
        };
    }
    Some(value)
}

/// Marks an op id in a message that the document makes kernel-wide: an implicit id of an op
/// of a chunk that continues a kernel counts from the chunk's first op
/// ([`crate::resolve::OpItem::op_id`]); written `#\u{E000}N\u{E000}`, the document adds
/// the ops of the kernel's earlier chunks to `N` ([`renumber`]).
pub(crate) const OP_ID_MARK: char = '\u{E000}';

/// Converts a lowering diagnostic of `op` into a file diagnostic. `continues`: `op` is in
/// a chunk that continues a kernel (an implicit id in the message is marked, see
/// [`OP_ID_MARK`]).
pub fn from_lowering(op: &OpItem, diag: &lower::Diag, continues: bool) -> Diagnostic {
    let message = if continues && !op.op_id_written {
        let marked = format!("{OP_ID_MARK}{}{OP_ID_MARK}", op.op_id);
        diag.message_for(&op.resolved.class, 0).replace(
            &format!("{} #0", op.resolved.class),
            &format!("{} #{marked}", op.resolved.class),
        )
    } else {
        diag.message_for(&op.resolved.class, op.op_id)
    };
    Diagnostic {
        code: diag.code,
        severity: diag.code.severity(),
        range: anchor_range(op, &diag.anchor),
        message,
        related: diag
            .related
            .iter()
            .map(|r| (anchor_range(op, &r.anchor), r.message.clone()))
            .collect(),
        fix: diag.fix.clone(),
    }
}

/// `message` with each op id marked by [`OP_ID_MARK`] made kernel-wide: `base` added.
pub(crate) fn renumber(message: &str, base: u32) -> String {
    let mut out = String::with_capacity(message.len());
    let mut parts = message.split(OP_ID_MARK);
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    while let Some(number) = parts.next() {
        match number.parse::<u32>() {
            Ok(n) => out.push_str(&(n + base).to_string()),
            Err(_) => out.push_str(number),
        }
        if let Some(rest) = parts.next() {
            out.push_str(rest);
        }
    }
    out
}
