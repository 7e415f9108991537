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

/// A diagnostic as a chunk's analysis finds it (see [`crate::check::diagnostics`]): its
/// ranges relative to the chunk, and its message as data where the chunk alone cannot
/// word it ([`Message`]). The document places each finding once, into a [`Diagnostic`]
/// in its own offsets (`crate::document::Document::diagnostics`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    /// The code.
    pub code: Code,
    /// The primary range, relative to the chunk.
    pub range: TextRange,
    /// The message.
    pub message: Message,
    /// Secondary places with notes.
    pub related: Vec<(RelatedAt, String)>,
    /// The quick fix, as data (for [`Message::Undefined`], the placed suggestion's).
    pub fix: Option<FixHint>,
}

/// A finding's message (see [`Finding`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// The whole text.
    Text(String),
    /// P200: `%name` is not defined; `local` the closest name in scope in the chunk. The
    /// document words it with the closest of that and of the names the kernel's earlier
    /// parts put in scope (`crate::kernel::rules::p200`).
    Undefined {
        /// The name, without `%`.
        name: String,
        /// The closest name in scope in the chunk, if any is close.
        local: Option<String>,
        /// The use is in an index expression, where only a loop variable fits (the
        /// compiler's `No existing axis`): the kernel's earlier parts hold none (a loop is
        /// never cut), so only `local` counts.
        axis: bool,
    },
    /// A lowering message naming its op's instruction (`Class #id`, SPEC §6.1 P403) where
    /// the op's implicit id counts from its chunk's first op (in a part that continues a
    /// kernel): the document words it with the kernel-wide id.
    NamesOp {
        /// The lowering's diagnostic (its message holds the placeholder).
        diag: Box<lower::Diag>,
        /// The op's class as written.
        class: String,
        /// Its implicit id, counted from the chunk's first op.
        local_id: u32,
    },
}

/// Where a finding's related note stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RelatedAt {
    /// A range relative to the chunk.
    Here(TextRange),
    /// The first definition of the name (without `%`) in the kernel's earlier parts (a
    /// P201 in a part that continues a kernel).
    EarlierDefinition(String),
    /// The first definition of the kernel `@name` in the document; `here` the first in
    /// the chunk (P201 on a kernel defined twice).
    FirstKernel {
        /// The kernel's name without `@`.
        name: String,
        /// The chunk's first definition of it.
        here: TextRange,
    },
}

impl Finding {
    /// A finding with the whole message `message`.
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Finding {
        Finding {
            code,
            range,
            message: Message::Text(message.into()),
            related: Vec::new(),
            fix: None,
        }
    }

    /// The finding with the quick fix `fix` (none when `None`).
    #[must_use]
    pub fn with_fix(mut self, fix: Option<FixHint>) -> Finding {
        self.fix = fix;
        self
    }

    /// Adds a related range (relative to the chunk).
    #[must_use]
    pub fn with_related(mut self, range: TextRange, note: impl Into<String>) -> Finding {
        self.related.push((RelatedAt::Here(range), note.into()));
        self
    }

    /// Its severity (the code's).
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// The finding as a diagnostic of its chunk alone (offsets relative to it), its
    /// message worded with what the chunk knows: for a text analysed alone, the whole
    /// answer.
    pub fn alone(&self) -> Diagnostic {
        let (message, fix) = match &self.message {
            Message::Text(text) => (text.clone(), self.fix.clone()),
            Message::Undefined { name, local, axis } => {
                crate::kernel::rules::p200::word(name, local.as_deref(), *axis)
            }
            Message::NamesOp {
                diag,
                class,
                local_id,
            } => (diag.message_for(class, *local_id), self.fix.clone()),
        };
        Diagnostic {
            code: self.code,
            severity: self.code.severity(),
            range: self.range,
            message,
            related: self
                .related
                .iter()
                .map(|(at, note)| {
                    let range = match at {
                        RelatedAt::Here(range) | RelatedAt::FirstKernel { here: range, .. } => {
                            *range
                        }
                        RelatedAt::EarlierDefinition(_) => TextRange::empty(0.into()),
                    };
                    (range, note.clone())
                })
                .collect(),
            fix,
        }
    }
}

/// Converts a lowering diagnostic of `op` into a finding of its chunk. `continues`: `op`
/// is in a part that continues a kernel (an implicit id its message names is worded where
/// the document knows the ops before, [`Message::NamesOp`]).
pub fn from_lowering(op: &OpItem, diag: &lower::Diag, continues: bool) -> Finding {
    let message = if continues && !op.op_id_written && diag.names_instruction {
        Message::NamesOp {
            diag: Box::new(diag.clone()),
            class: op.resolved.class.to_string(),
            local_id: op.op_id,
        }
    } else {
        Message::Text(diag.message_for(&op.resolved.class, op.op_id))
    };
    Finding {
        code: diag.code,
        range: anchor_range(op, &diag.anchor),
        message,
        related: diag
            .related
            .iter()
            .map(|r| {
                (
                    RelatedAt::Here(anchor_range(op, &r.anchor)),
                    r.message.clone(),
                )
            })
            .collect(),
        fix: diag.fix.clone(),
    }
}

/// The most cost warnings ([`Code::is_cost_advice`]: P420, P421, SPEC §10.2.10) an editor is
/// given for one document: 100. A kernel copied or unrolled many times repeats the same
/// advice on every copy (16,390 on the 100,000-op benchmark file: 3 MB of JSON after every
/// change, which made each keystroke in Neovim wait 4 s, and gathering them was a third of
/// a keystroke); `pir check` lists them all.
pub const MAX_COST_WARNINGS: usize = 100;

/// A document's diagnostics with its cost warnings capped ([`crate::Analysis::capped_diagnostics`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CappedDiagnostics {
    /// The diagnostics, sorted by range (then code): every one but the cost warnings after
    /// the first [`MAX_COST_WARNINGS`] in that order.
    pub diagnostics: Vec<Diagnostic>,
    /// The cost warnings left out, if any.
    pub cost_left_out: Option<LeftOut>,
}

/// Diagnostics left out of an answer: where the first is, and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The primary range of the first left out (document offsets, UTF-8 bytes).
    pub first: TextRange,
    /// How many (at least 1).
    pub count: usize,
}
