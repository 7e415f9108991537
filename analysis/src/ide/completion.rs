//! Completion (SPEC §10): op classes and statement keywords at a statement start, the
//! op's remaining fields in its body, enum values, dtypes, booleans and the tensors in
//! scope after `field =`, loop variables inside an access's brackets, memory spaces and
//! dtypes in types. Context comes from the tokens before the cursor (robust in half-typed
//! text) and from the tree for the enclosing op and scopes.

use lower::catalog::{self, Kind, Mems};
use lower::types::{Dtype, Memory};
use syntax::Token;
use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items, parse};
use crate::document::Document;
use crate::document::Shift;
use crate::ide::Site;
use crate::resolve::{Allocation, DefKind};

/// What a completion inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// An op class.
    OpClass,
    /// A field name.
    Field,
    /// An enum value or boolean.
    EnumValue,
    /// A dtype.
    Dtype,
    /// A memory space.
    Memory,
    /// A tensor or parameter.
    Tensor,
    /// A register.
    Register,
    /// A loop variable.
    LoopVar,
    /// A keyword.
    Keyword,
}

/// One completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    /// What the list shows.
    pub label: String,
    /// Its kind.
    pub kind: CompletionKind,
    /// A short detail (a kind, a type).
    pub detail: Option<String>,
    /// Markdown documentation.
    pub documentation: Option<String>,
    /// The text to insert (the label when `None`).
    pub insert: Option<String>,
    /// Sorts before others when true (e.g. tensors in the right memory).
    pub preferred: bool,
    /// The range the insertion replaces (the partly typed word).
    pub replace: TextRange,
    /// The insertion as an LSP snippet (`$1` tab stops), for clients that take snippets:
    /// an op class with its required fields, `DmaCopyOp { dst = $1, src = $2 }$0`.
    pub snippet: Option<String>,
    /// Completing again right after it is useful (a field's `name = `: its value follows).
    pub retrigger: bool,
}

/// The tokens the completion context is read from: those of the statement around `offset`
/// (from the last line that starts a statement, `syntax::starts_statement_line`, or from
/// the last statement after a `}` on the way, `syntax::statements_after_close`, at or
/// before the cursor, to the end of the cursor's line), not the whole file's: the same
/// whether the chunk `file` starts at a line start or after a `}` inside a long line.
/// Inside a kernel or loop body, an open `{` stands first for the body the statement is in
/// (the context of a statement start).
fn tokens_before(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<(Token, TextRange)> {
    let text = file.text(db);
    let mut at = usize::from(offset).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    // Back to a statement line, at most this many lines up (then from the file's start).
    const MAX_LINES: usize = 400;
    let mut start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut lines = 0;
    while start > 0 && !syntax::starts_statement_line(text, start) {
        lines += 1;
        if lines > MAX_LINES {
            start = 0;
            break;
        }
        start = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    let (mut lexed, _) = syntax::lex(&text[start..line_end]);
    // On to the last statement after a `}` at or before the cursor.
    let cursor = TextSize::from((at - start) as u32);
    if let Some(last) = syntax::statements_after_close(&text[start..line_end], &lexed)
        .take_while(|&s| s <= cursor)
        .last()
    {
        lexed.retain(|(_, r)| r.start() >= last);
        start += usize::from(last);
        for (_, r) in &mut lexed {
            *r -= last;
        }
    }
    let shift = TextSize::from(start as u32);
    let mut tokens: Vec<(Token, TextRange)> = Vec::new();
    let parsed = &parse(db, file).file;
    // A chunk that continues a kernel starts inside its body.
    let continues = parsed.kernels.first().is_some_and(|k| k.continues);
    if start > 0 || continues {
        // One `{` for each kernel or loop body open where the window starts, after what
        // ends a loop header (a bound), as in `for %i in 0..4 {`.
        let at = TextRange::empty(shift);
        for _ in 0..open_bodies(parsed, shift) {
            tokens.extend([(Token::Int, at), (Token::LBrace, at)]);
        }
    }
    tokens.extend(lexed.into_iter().map(|(t, r)| (t, r + shift)));
    tokens
}

/// The snippet of an op with its required fields (the catalog's, in its order), one tab
/// stop each, `$0` after the body: `DmaCopyOp { dst = $1, src = $2 }$0`.
fn op_snippet(spec: &catalog::OpSpec) -> String {
    let fields: Vec<String> = spec
        .fields
        .iter()
        .filter(|f| f.is_required())
        .zip(1..)
        .map(|(f, n)| format!("{} = ${n}", f.name))
        .collect();
    if fields.is_empty() {
        format!("{} {{ $1 }}$0", spec.class)
    } else {
        format!("{} {{ {} }}$0", spec.class, fields.join(", "))
    }
}

/// Signature help inside an op body: the op's fields, required first, as one label, the
/// field whose value is being written active (SPEC §10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    /// `DmaCopyOp { dst: acc(sbuf|psum|hbm), src: …, tiles?: int }`: `?` marks the optional.
    pub label: String,
    /// The op's documentation.
    pub documentation: String,
    /// Each field's part of `label` (a substring of it) and its documentation.
    pub parameters: Vec<(String, String)>,
    /// The field being written, an index into `parameters`.
    pub active: Option<usize>,
}

/// The signature help at `offset` (the document's), inside an op body of a known class.
pub(crate) fn signature_help(
    db: &dyn Db,
    doc: &Document,
    offset: TextSize,
) -> Option<SignatureHelp> {
    let (site, at) = Site::at(doc, offset);
    let file = site.source();
    let tokens = tokens_before(db, file, at);
    let text = file.text(db);
    let before: Vec<(Token, TextRange)> = tokens
        .iter()
        .copied()
        .filter(|(t, r)| r.end() <= at && *t != Token::Comment)
        .collect();
    let slice = |r: TextRange| &text[usize::from(r.start())..usize::from(r.end())];
    let (class, field) = match context(&before, slice) {
        Context::FieldName { class } => (class, None),
        Context::FieldValue { class, field } => (class, Some(field)),
        _ => return None,
    };
    let spec = catalog::lookup(&class)?;
    let mut fields: Vec<&catalog::FieldSpec> =
        spec.fields.iter().filter(|f| f.is_required()).collect();
    fields.extend(spec.fields.iter().filter(|f| !f.is_required()));
    let parameters: Vec<(String, String)> = fields
        .iter()
        .map(|f| {
            let optional = if f.is_required() { "" } else { "?" };
            (
                format!("{}{optional}: {}", f.name, f.kind.describe()),
                format!("{} ({})", f.doc, f.default.describe()),
            )
        })
        .collect();
    let label = format!(
        "{} {{ {} }}",
        spec.class,
        parameters
            .iter()
            .map(|(p, _)| p.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let active = field.and_then(|name| fields.iter().position(|f| f.name == name));
    Some(SignatureHelp {
        label,
        documentation: spec.doc.to_string(),
        parameters,
        active,
    })
}

/// How many kernel and loop bodies are open at `at` (binary searches down the tree).
fn open_bodies(file: &syntax::ast::SourceFile, at: TextSize) -> usize {
    let inside = |body: Option<TextRange>| body.is_some_and(|b| b.start() < at && at <= b.end());
    // The rest of a kernel cut into chunks is open from its first byte.
    let inside_kernel = |k: &syntax::ast::Kernel| {
        inside(k.body_range) || (k.continues && k.body_range.is_some_and(|b| b.start() == at))
    };
    let touching = super::kernels_touching(&file.kernels, TextRange::empty(at));
    let Some(kernel) = file
        .kernels
        .get(touching)
        .unwrap_or_default()
        .iter()
        .find(|k| inside_kernel(k))
    else {
        return 0;
    };
    let mut depth = 1;
    let mut stmts = &kernel.body;
    loop {
        let i = stmts.partition_point(|s| s.range().end() < at);
        match stmts.get(i) {
            Some(syntax::ast::Stmt::Loop(lp)) if inside(lp.body_range) => {
                depth += 1;
                stmts = &lp.body;
            }
            _ => return depth,
        }
    }
}

/// The completions at `offset` (the document's); their ranges in the document's offsets.
pub(crate) fn completions(db: &dyn Db, doc: &Document, offset: TextSize) -> Vec<CompletionItem> {
    let (site, at) = Site::at(doc, offset);
    let file = site.source();
    let earlier = Earlier::of(db, &site);
    let items = completions_from(db, file, at, &tokens_before(db, file, at), &earlier);
    site.to_document(items)
}

/// A name in scope from a kernel's earlier chunks: `(name, kind, its tensor)`.
pub type EarlierName = (
    String,
    DefKind,
    Option<std::sync::Arc<lower::model::Tensor>>,
);

/// The names in scope from a kernel's earlier chunks where a chunk that continues it starts
/// ([`EarlierName`]s in source order; see [`Site::earlier_names`]), gathered when first
/// asked for: completing a field or an op name, or fixing what needs no name, does not
/// gather them (tens of thousands in the middle of an unrolled kernel).
pub(crate) struct Earlier<'a> {
    names: std::cell::OnceCell<Vec<EarlierName>>,
    site: Option<(&'a dyn Db, &'a Site<'a>)>,
}

impl<'a> Earlier<'a> {
    /// No earlier names (a text alone).
    #[cfg(test)]
    pub fn none() -> Earlier<'static> {
        Earlier {
            names: std::cell::OnceCell::new(),
            site: None,
        }
    }

    /// The earlier names of the chunk of `site`, once asked for.
    pub fn of(db: &'a dyn Db, site: &'a Site<'a>) -> Earlier<'a> {
        Earlier {
            names: std::cell::OnceCell::new(),
            site: Some((db, site)),
        }
    }

    /// The names (gathered now, the first time).
    pub fn names(&self) -> &[EarlierName] {
        self.names.get_or_init(|| {
            self.site
                .map_or_else(Vec::new, |(db, site)| site.earlier_names(db))
        })
    }
}

/// The completions at `offset`, the context read from `tokens` (see [`tokens_before`]).
fn completions_from(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    tokens: &[(Token, TextRange)],
    earlier: &Earlier<'_>,
) -> Vec<CompletionItem> {
    let text = file.text(db);
    // Nothing to complete inside a comment.
    if tokens
        .iter()
        .any(|(t, r)| *t == Token::Comment && r.start() < offset && offset <= r.end())
    {
        return Vec::new();
    }
    // The word being typed: a name token that ends at (or contains) the cursor, or a lone
    // `%` just typed (the trigger character of tensor names).
    let word = tokens.iter().find(|(t, r)| {
        matches!(
            t,
            Token::Ident
                | Token::Local
                | Token::Global
                | Token::Kernel
                | Token::Tensor
                | Token::For
                | Token::True
                | Token::False
        ) && r.start() < offset
            && offset <= r.end()
    });
    let lone_percent = word.is_none()
        && usize::from(offset) > 0
        && text.as_bytes().get(usize::from(offset) - 1) == Some(&b'%');
    let replace = match word {
        Some((_, r)) => TextRange::new(r.start(), offset),
        None if lone_percent => TextRange::new(offset - TextSize::from(1), offset),
        None => TextRange::empty(offset),
    };
    let before: Vec<(Token, TextRange)> = tokens
        .iter()
        .copied()
        .filter(|(t, r)| r.end() <= replace.start() && *t != Token::Comment)
        .collect();
    let item = |label: String,
                kind,
                detail: Option<String>,
                documentation: Option<String>,
                insert: Option<String>| CompletionItem {
        label,
        kind,
        detail,
        documentation,
        insert,
        preferred: false,
        replace,
        snippet: None,
        retrigger: false,
    };
    let slice = |r: TextRange| &text[usize::from(r.start())..usize::from(r.end())];

    match context(&before, |r| slice(r)) {
        Context::TopLevel => vec![item(
            "kernel".into(),
            CompletionKind::Keyword,
            Some("a kernel".into()),
            None,
            None,
        )],
        Context::Statement => {
            // The rest of the line: an op body already written there takes no snippet.
            let rest = text
                .get(usize::from(offset)..)
                .and_then(|r| r.lines().next())
                .unwrap_or_default();
            let body_follows = rest
                .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ' ')
                .starts_with(['{', '#']);
            let mut out: Vec<CompletionItem> = catalog::CATALOG
                .iter()
                .map(|spec| {
                    let mut it = item(
                        spec.class.to_string(),
                        CompletionKind::OpClass,
                        Some(if spec.opcode.is_empty() {
                            "no BIR".to_string()
                        } else {
                            format!("→ {}", spec.opcode)
                        }),
                        Some(spec.doc.to_string()),
                        None,
                    );
                    if !body_follows {
                        it.snippet = Some(op_snippet(spec));
                    }
                    it
                })
                .collect();
            for kw in ["tensor", "reg", "for"] {
                out.push(item(kw.into(), CompletionKind::Keyword, None, None, None));
            }
            out
        }
        Context::FieldName { class } => {
            let Some(spec) = catalog::lookup(&class) else {
                return Vec::new();
            };
            let written = written_fields(db, file, offset);
            // Right after `{` or `,` (completion pops up there as they are typed), the
            // field comes with the space `pir fmt` puts before it: `{ dst = `.
            let pad = usize::from(replace.start())
                .checked_sub(1)
                .and_then(|i| text.as_bytes().get(i))
                .is_some_and(|b| matches!(b, b'{' | b','));
            let pad = if pad { " " } else { "" };
            spec.fields
                .iter()
                .filter(|f| !written.contains(&f.name.to_string()))
                .map(|f| {
                    let mut it = item(
                        f.name.to_string(),
                        CompletionKind::Field,
                        Some(format!("{} = {}", f.kind.describe(), f.default.describe())),
                        Some(format!("{}\n\nBIR: {}", f.doc, f.bir)),
                        Some(format!("{pad}{} = ", f.name)),
                    );
                    it.preferred = f.is_required();
                    it.retrigger = true;
                    it
                })
                .collect()
        }
        Context::FieldValue { class, field } => {
            let kind = catalog::lookup(&class)
                .and_then(|s| s.field(&field))
                .map(|f| f.kind);
            let Some(kind) = kind else { return Vec::new() };
            value_completions(db, file, offset, earlier, kind, &item)
        }
        Context::Index => names_of_kind(
            db,
            file,
            (offset, earlier),
            DefKind::LoopVar,
            CompletionKind::LoopVar,
            "loop variable",
            &item,
        ),
        Context::Memory => Memory::ALL
            .iter()
            .filter(|m| **m != Memory::Reg)
            .map(|m| {
                item(
                    m.name().into(),
                    CompletionKind::Memory,
                    None,
                    Some(m.doc().into()),
                    None,
                )
            })
            .collect(),
        Context::Dtype => dtype_items(&item),
        Context::None => Vec::new(),
    }
}

fn dtype_items(
    item: &impl Fn(
        String,
        CompletionKind,
        Option<String>,
        Option<String>,
        Option<String>,
    ) -> CompletionItem,
) -> Vec<CompletionItem> {
    Dtype::ALL
        .iter()
        .map(|d| {
            item(
                d.name().into(),
                CompletionKind::Dtype,
                Some(d.bir_name().into()),
                Some(d.doc()),
                None,
            )
        })
        .collect()
}

fn value_completions(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    earlier: &Earlier<'_>,
    kind: Kind,
    item: &impl Fn(
        String,
        CompletionKind,
        Option<String>,
        Option<String>,
        Option<String>,
    ) -> CompletionItem,
) -> Vec<CompletionItem> {
    let kind = match kind {
        Kind::List(inner) => *inner,
        k => k,
    };
    match kind {
        Kind::Enum(e) => e
            .values
            .iter()
            .map(|v| {
                item(
                    v.text.into(),
                    CompletionKind::EnumValue,
                    Some(format!("BIR {}", v.bir)),
                    Some(v.doc.into()),
                    None,
                )
            })
            .collect(),
        Kind::Dtype => dtype_items(item),
        Kind::Bool => ["true", "false"]
            .into_iter()
            .map(|b| item(b.into(), CompletionKind::EnumValue, None, None, None))
            .collect(),
        Kind::Acc(mems, _) | Kind::Imm(mems) => {
            tensors(db, file, offset, earlier, Some(mems), item)
        }
        Kind::KernelOperand(_) | Kind::IntAccReg => tensors(db, file, offset, earlier, None, item),
        Kind::Reg => names_of_kind(
            db,
            file,
            (offset, earlier),
            DefKind::Register,
            CompletionKind::Register,
            "register",
            item,
        ),
        _ => Vec::new(),
    }
}

/// The names in scope of one kind (loop variables, registers), as completions.
///
/// `at`: the offset, with the names in scope from the kernel's earlier chunks.
fn names_of_kind(
    db: &dyn Db,
    file: SourceFile,
    (offset, earlier): (TextSize, &Earlier<'_>),
    def: DefKind,
    kind: CompletionKind,
    detail: &str,
    item: &impl Fn(
        String,
        CompletionKind,
        Option<String>,
        Option<String>,
        Option<String>,
    ) -> CompletionItem,
) -> Vec<CompletionItem> {
    names_in_scope(db, file, offset, earlier)
        .into_iter()
        .filter(|(_, k, _)| *k == def)
        .map(|(name, _, _)| {
            item(
                format!("%{name}"),
                kind,
                Some(detail.to_string()),
                None,
                None,
            )
        })
        .collect()
}

/// Tensors in scope, those in `mems` preferred.
fn tensors(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    earlier: &Earlier<'_>,
    mems: Option<Mems>,
    item: &impl Fn(
        String,
        CompletionKind,
        Option<String>,
        Option<String>,
        Option<String>,
    ) -> CompletionItem,
) -> Vec<CompletionItem> {
    names_in_scope(db, file, offset, earlier)
        .into_iter()
        .filter(|(_, kind, _)| matches!(kind, DefKind::Tensor | DefKind::Param))
        .map(|(name, _, tensor)| {
            let detail = tensor.as_ref().map(|t| {
                let dims: Vec<String> = t.dims.iter().map(u64::to_string).collect();
                format!(
                    "{} {}[{}]",
                    t.memory.name(),
                    t.dtype.name(),
                    dims.join(", ")
                )
            });
            let mut it = item(
                format!("%{name}"),
                CompletionKind::Tensor,
                detail,
                None,
                None,
            );
            it.preferred = match (mems, &tensor) {
                (Some(m), Some(t)) => m.contains(t.memory),
                _ => false,
            };
            it
        })
        .collect()
}

/// Names visible at `offset`: `(name, kind, the tensor if it is one)`, in source order:
/// `earlier`'s first (a chunk that continues a kernel: the kernel's earlier chunks'), then
/// the chunk's own.
pub(crate) fn names_in_scope(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    earlier: &Earlier<'_>,
) -> Vec<(
    String,
    DefKind,
    Option<std::sync::Arc<lower::model::Tensor>>,
)> {
    let items = file_items(db, file);
    let kernels = &parse(db, file).file.kernels;
    let kernel = kernels.iter().position(|k| k.range.contains(offset));
    let earlier = if kernel.is_some_and(|k| kernels.get(k).is_some_and(|k| k.continues)) {
        earlier.names()
    } else {
        &[]
    };
    // The kernel's first allocation of each earlier name, for the chunk's own definitions.
    let first: rustc_hash::FxHashMap<&str, &Option<std::sync::Arc<lower::model::Tensor>>> = earlier
        .iter()
        .rev()
        .map(|(name, _, tensor)| (name.as_str(), tensor))
        .collect();
    let mut out: Vec<_> = earlier.to_vec();
    out.extend(
        items
            .definitions
            .iter()
            .filter(|d| {
                d.kind != DefKind::Kernel
                    && !d.prelude
                    && d.scope.contains_inclusive(offset)
                    && d.range.end() <= offset
            })
            .map(|d| {
                // The kernel's first allocation of the name (an earlier chunk's, if any).
                let tensor = match first.get(d.name.as_str()) {
                    Some(&tensor) => tensor.clone(),
                    None => kernel.and_then(|k| items.kernels.get(k)).and_then(|k| {
                        k.allocations.iter().find_map(|a| match a {
                            Allocation::Tensor(t) if t.name == d.name => Some(t.clone()),
                            _ => None,
                        })
                    }),
                };
                (d.name.clone(), d.kind, tensor)
            }),
    );
    out
}

/// The fields already written in the op whose body holds `offset`.
fn written_fields(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<String> {
    fn find(stmts: &[syntax::ast::Stmt], offset: TextSize) -> Option<&syntax::ast::Op> {
        stmts.iter().find_map(|s| match s {
            syntax::ast::Stmt::Op(op)
                if op.body_range.is_some_and(|b| b.contains_inclusive(offset)) =>
            {
                Some(&**op)
            }
            syntax::ast::Stmt::Loop(l) => find(&l.body, offset),
            _ => None,
        })
    }
    parse(db, file)
        .file
        .kernels
        .iter()
        .find_map(|k| find(&k.body, offset))
        .map(|op| op.fields.iter().map(|f| f.name.text.to_string()).collect())
        .unwrap_or_default()
}

/// Where the cursor stands.
#[derive(Debug, PartialEq, Eq)]
enum Context {
    TopLevel,
    Statement,
    FieldName { class: String },
    FieldValue { class: String, field: String },
    Index,
    Memory,
    Dtype,
    None,
}

/// Reads the context off the tokens before the cursor: a backward scan that tracks
/// brackets to find the innermost open one and what precedes it.
fn context<'t>(before: &[(Token, TextRange)], slice: impl Fn(TextRange) -> &'t str) -> Context {
    let significant: Vec<(Token, TextRange)> = before
        .iter()
        .copied()
        .filter(|(t, _)| *t != Token::Newline)
        .collect();
    let last = significant.last().map(|(t, _)| *t);
    // Types: `%x :` → memory; `%x : sbuf` → dtype; `reg %r :` → dtype.
    if let [.., (Token::Local, _), (Token::Colon, _)] = significant.as_slice() {
        let reg = matches!(
            significant.len().checked_sub(3).and_then(|i| significant.get(i)),
            Some(&(Token::Ident, r)) if slice(r) == "reg"
        );
        return if reg { Context::Dtype } else { Context::Memory };
    }
    if let [.., (Token::Local, _), (Token::Colon, _), (Token::Ident, m)] = significant.as_slice()
        && Memory::from_name(slice(*m)).is_some()
    {
        return Context::Dtype;
    }
    // The innermost open bracket.
    let mut depth = 0i32;
    let mut open: Option<usize> = None;
    for (i, (t, _)) in significant.iter().enumerate().rev() {
        match t {
            Token::RBrace | Token::RBracket | Token::RParen => depth += 1,
            Token::LBrace | Token::LBracket | Token::LParen => {
                if depth == 0 {
                    open = Some(i);
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    let at = |i: usize| significant.get(i).copied();
    let Some((open, (open_token, open_range))) = open.and_then(|o| Some((o, at(o)?))) else {
        return Context::TopLevel;
    };
    let prev = open.checked_sub(1).and_then(at);
    match open_token {
        Token::LBracket => {
            // `%t[` … an access; `= [` … a list value.
            if let Some((Token::Local, _)) = prev {
                return Context::Index;
            }
            field_value_context(&significant, open, &slice)
        }
        Token::LBrace => {
            // An op body: `Class {` or `Class #N {`.
            let class = match (prev, open.checked_sub(2).and_then(at)) {
                (Some((Token::Ident, r)), _) => Some(slice(r).to_string()),
                (Some((Token::OpId, _)), Some((Token::Ident, r))) => Some(slice(r).to_string()),
                _ => None,
            };
            match class {
                Some(class)
                    if catalog::lookup(&class).is_some()
                        || !matches!(prev, Some((Token::Eq, _))) =>
                {
                    // Is there an `=` after the last separator?
                    let after_open = before
                        .get(
                            before
                                .iter()
                                .position(|(_, r)| *r == open_range)
                                .map_or(0, |p| p + 1)..,
                        )
                        .unwrap_or_default();
                    let since_sep = after_open
                        .iter()
                        .rposition(|(t, _)| matches!(t, Token::Comma | Token::Newline))
                        .map_or(after_open, |p| after_open.get(p + 1..).unwrap_or_default());
                    let nested = since_sep
                        .iter()
                        .any(|(t, _)| matches!(t, Token::LBracket | Token::LParen | Token::LBrace));
                    match since_sep.iter().position(|(t, _)| *t == Token::Eq) {
                        Some(eq) if eq >= 1 && !nested => {
                            let Some(&(t, r)) = since_sep.get(eq - 1) else {
                                return Context::None;
                            };
                            if eq + 1 < since_sep.len() || t == Token::Comma {
                                return Context::None;
                            }
                            Context::FieldValue {
                                class,
                                field: slice(r).to_string(),
                            }
                        }
                        Some(_) => Context::None,
                        None if since_sep.is_empty() => Context::FieldName { class },
                        None => Context::None,
                    }
                }
                _ => match last {
                    None
                    | Some(
                        Token::LBrace
                        | Token::RBrace
                        | Token::RBracket
                        | Token::Int
                        | Token::Float
                        | Token::Str
                        | Token::Ident
                        | Token::Local
                        | Token::Bytes
                        | Token::True
                        | Token::False
                        | Token::RParen,
                    ) => Context::Statement,
                    _ => Context::None,
                },
            }
        }
        Token::LParen => match prev {
            // Kernel signature parameters: `(` or `,` then a name.
            Some((Token::Global, _)) | Some((Token::Arrow, _)) => Context::None,
            _ => field_value_context(&significant, open, &slice),
        },
        _ => Context::None,
    }
}

/// Inside a list or call that is a field's value: the field is the name before the `=`
/// that precedes the outermost bracket of the value.
fn field_value_context<'t>(
    significant: &[(Token, TextRange)],
    open: usize,
    slice: &impl Fn(TextRange) -> &'t str,
) -> Context {
    let at = |i: usize| significant.get(i).copied();
    let mut depth = 0i32;
    for (i, &(token, _)) in significant.iter().enumerate().take(open).rev() {
        match token {
            Token::RBrace | Token::RBracket | Token::RParen => depth += 1,
            Token::LBracket | Token::LParen if depth > 0 => {
                depth -= 1;
            }
            Token::LBrace => {
                if depth == 0 {
                    return Context::None;
                }
                depth -= 1;
            }
            Token::Eq if depth == 0 => {
                let Some((Token::Ident | Token::Step, field)) = i.checked_sub(1).and_then(at)
                else {
                    return Context::None;
                };
                // The op class: the name before the `{` that opens the body.
                let mut d = 0i32;
                for (j, &(token, _)) in significant.iter().enumerate().take(i).rev() {
                    match token {
                        Token::RBrace | Token::RBracket | Token::RParen => d += 1,
                        Token::LBracket | Token::LParen => d -= 1,
                        Token::LBrace if d == 0 => {
                            let class = match (
                                j.checked_sub(1).and_then(at),
                                j.checked_sub(2).and_then(at),
                            ) {
                                (Some((Token::Ident, r)), _)
                                | (Some((Token::OpId, _)), Some((Token::Ident, r))) => {
                                    slice(r).to_string()
                                }
                                _ => return Context::None,
                            };
                            return Context::FieldValue {
                                class,
                                field: slice(field).to_string(),
                            };
                        }
                        Token::LBrace => d -= 1,
                        _ => {}
                    }
                }
                return Context::None;
            }
            _ => {}
        }
    }
    Context::None
}

impl Shift for CompletionItem {
    fn shift(&mut self, by: TextSize) {
        self.replace.shift(by);
    }
}

#[cfg(test)]
mod tests;
