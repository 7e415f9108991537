//! Semantic tokens (SPEC §10): every token of the file with what it means, from the lexer
//! and the resolved names — op classes, field names, enum values, dtypes, memory spaces,
//! tensors, parameters, registers, loop variables, kernels.

use std::collections::HashMap;
use std::sync::Arc;

use lower::catalog::{self, Kind};
use syntax::Token;
use syntax::ast::{self, TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items, parse};
use crate::document::{Document, Shift};
use crate::ide::Site;
use crate::resolve::DefKind;

/// The token types, in the order of the LSP legend the server announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenType {
    /// `kernel`, `tensor`, `for`, …
    Keyword,
    /// `// …`
    Comment,
    /// Numbers.
    Number,
    /// Strings and bytes literals.
    String,
    /// `=`, `..`, `->`, arithmetic and comparisons.
    Operator,
    /// Op class names.
    Class,
    /// Field names.
    Property,
    /// Enum values.
    EnumMember,
    /// Dtypes.
    Type,
    /// Memory spaces.
    Namespace,
    /// Kernel parameters.
    Parameter,
    /// Tensors, registers, loop variables.
    Variable,
    /// Kernels (`@name`) and access-kind calls.
    Function,
    /// Op ids `#N`.
    Decorator,
    /// Dim variables `$N`.
    TypeParameter,
}

impl TokenType {
    /// Every type, in legend order.
    pub const ALL: [TokenType; 15] = [
        TokenType::Keyword,
        TokenType::Comment,
        TokenType::Number,
        TokenType::String,
        TokenType::Operator,
        TokenType::Class,
        TokenType::Property,
        TokenType::EnumMember,
        TokenType::Type,
        TokenType::Namespace,
        TokenType::Parameter,
        TokenType::Variable,
        TokenType::Function,
        TokenType::Decorator,
        TokenType::TypeParameter,
    ];

    /// The LSP name of the type.
    pub fn lsp_name(self) -> &'static str {
        match self {
            TokenType::Keyword => "keyword",
            TokenType::Comment => "comment",
            TokenType::Number => "number",
            TokenType::String => "string",
            TokenType::Operator => "operator",
            TokenType::Class => "class",
            TokenType::Property => "property",
            TokenType::EnumMember => "enumMember",
            TokenType::Type => "type",
            TokenType::Namespace => "namespace",
            TokenType::Parameter => "parameter",
            TokenType::Variable => "variable",
            TokenType::Function => "function",
            TokenType::Decorator => "decorator",
            TokenType::TypeParameter => "typeParameter",
        }
    }
}

/// Modifier bits, in the order of the LSP legend: bit 0 `declaration`, bit 1 `readonly`
/// (loop variables).
pub const MODIFIERS: [&str; 2] = ["declaration", "readonly"];

/// One classified token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SemanticToken {
    /// Its range (UTF-8 bytes; a token may span lines, e.g. a string).
    pub range: TextRange,
    /// Its type.
    pub token_type: TokenType,
    /// Modifier bits (see [`MODIFIERS`]).
    pub modifiers: u32,
}

/// The semantic tokens of one chunk of a document
/// ([`crate::Analysis::semantic_token_chunks`]).
#[derive(Clone, Debug)]
pub struct ChunkTokens {
    /// The chunk's range in the document (UTF-8 bytes; a chunk starts at a line start, or
    /// at a token inside a long line).
    pub range: TextRange,
    /// Its tokens, relative to the chunk's start ([`chunk_semantic_tokens`]).
    pub tokens: Arc<[SemanticToken]>,
}

/// The classified tokens of a document in source order, in its offsets: every one (each
/// chunk's, memoized: [`chunk_semantic_tokens`]), or, with `range` (the document's), those
/// that overlap `range` (for an empty range, the one holding it): the same however the
/// document is cut, also inside a long line.
pub(crate) fn semantic_tokens(
    db: &dyn Db,
    doc: &Document,
    range: Option<TextRange>,
) -> Vec<SemanticToken> {
    let mut out = Vec::new();
    match range {
        Some(range) => {
            for (site, part) in Site::across(doc, range) {
                let tokens = site.to_document(chunk_tokens(db, site.source(), Some(part)));
                out.extend(
                    tokens
                        .into_iter()
                        .filter(|t| range_overlaps(Some(range), t.range)),
                );
            }
        }
        None => {
            for chunk in token_chunks(db, doc) {
                out.extend(chunk.tokens.iter().map(|token| {
                    let mut token = *token;
                    token.shift(chunk.range.start());
                    token
                }));
            }
        }
    }
    out
}

/// The semantic tokens of the whole of `doc` chunk by chunk, in order: each chunk's range
/// and its tokens, relative to its start, memoized per chunk ([`chunk_semantic_tokens`]).
/// A chunk none of whose inputs changed since an earlier call gives the same list
/// (`Arc::ptr_eq`): a caller may keep what it derives from a chunk's list by that list.
pub(crate) fn token_chunks(db: &dyn Db, doc: &Document) -> Vec<ChunkTokens> {
    doc.chunks
        .iter()
        .map(|chunk| ChunkTokens {
            range: chunk.range(),
            tokens: chunk_semantic_tokens(db, chunk.source).clone(),
        })
        .collect()
}

/// The classified tokens of a chunk, `file`, in source order, relative to it: every one,
/// or, with `range`, those of the lines `range` touches, within the chunk (from its start
/// when it starts inside the first of them). A range costs what those lines hold plus a
/// binary search, not the file: only they are lexed, and only the names and statements in
/// them are looked up.
fn chunk_tokens(db: &dyn Db, file: SourceFile, range: Option<TextRange>) -> Vec<SemanticToken> {
    let text = file.text(db);
    let window = range.map_or(TextRange::up_to(TextSize::of(text.as_str())), |r| {
        lines_of(text, r)
    });
    let roles = roles(db, file, window);
    let (tokens, _) = syntax::lex(&text[window]);
    let mut out = Vec::new();
    for (token, lexed) in tokens {
        let token_range = lexed + window.start();
        let (token_type, modifiers) = match token {
            Token::Comment => (TokenType::Comment, 0),
            t if t.is_keyword() => (TokenType::Keyword, 0),
            Token::Int | Token::Float => (TokenType::Number, 0),
            Token::Str | Token::Bytes => (TokenType::String, 0),
            Token::OpId => (TokenType::Decorator, 0),
            Token::DimVar => (TokenType::TypeParameter, 0),
            Token::Eq
            | Token::DotDot
            | Token::Arrow
            | Token::Plus
            | Token::Minus
            | Token::Star
            | Token::Ge
            | Token::Gt
            | Token::Le
            | Token::Lt
            | Token::EqEq
            | Token::Ne => (TokenType::Operator, 0),
            Token::Ident | Token::Local | Token::Global => match roles.get(&token_range.start()) {
                Some(role) => *role,
                None => continue,
            },
            _ => continue,
        };
        out.push(SemanticToken {
            range: token_range,
            token_type,
            modifiers,
        });
    }
    out
}

/// Whether the token at `token` is among those asked for by `range` (the document's; all
/// of them for `None`): it overlaps the range, or holds an empty range's offset.
fn range_overlaps(range: Option<TextRange>, token: TextRange) -> bool {
    match range {
        None => true,
        Some(r) if r.is_empty() => token.start() <= r.start() && r.start() < token.end(),
        Some(r) => token.start() < r.end() && r.start() < token.end(),
    }
}

/// Every classified token of the chunk `file` ([`semantic_tokens`] without a range),
/// memoized per chunk and kept (no LRU, as the other answers a whole document gathers: about
/// 16 bytes a token, 33 MB for the 2 million tokens of 100,000 ops), so that the tokens of a
/// whole document cost the chunks edited since the last request, not the document. Never
/// compared (`no_eq`): each computation makes a new list, so the same list
/// ([`Arc::ptr_eq`]) is the same text, which is what the server's encoding of a chunk
/// is kept by.
#[salsa::tracked(returns(ref), no_eq)]
pub fn chunk_semantic_tokens(db: &dyn Db, file: SourceFile) -> Arc<[SemanticToken]> {
    chunk_tokens(db, file, None).into()
}

/// The whole lines `range` touches: from the start of its first line to the end of its
/// last (its `\n` included). No token spans a `\n` (SPEC §2), so lexing them alone gives
/// the file's tokens there.
pub fn lines_of(text: &str, range: TextRange) -> TextRange {
    let clamp = |o: TextSize| {
        let mut o = usize::from(o).min(text.len());
        while !text.is_char_boundary(o) {
            o -= 1;
        }
        o
    };
    let (start, end) = (clamp(range.start()), clamp(range.end()));
    let start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
}

/// What each name token (by start offset) in `window` means.
fn roles(db: &dyn Db, file: SourceFile, window: TextRange) -> HashMap<TextSize, (TokenType, u32)> {
    let items = file_items(db, file);
    let mut roles = HashMap::new();
    let kind_of = |kind: DefKind| match kind {
        DefKind::Kernel => (TokenType::Function, 0),
        DefKind::Param => (TokenType::Parameter, 0),
        DefKind::Tensor | DefKind::Register => (TokenType::Variable, 0),
        DefKind::LoopVar => (TokenType::Variable, 2),
    };
    let inside = |r: TextRange| window.contains(r.start());
    for def in items.definitions.iter().filter(|d| inside(d.range)) {
        let (t, m) = kind_of(def.kind);
        roles.insert(def.range.start(), (t, m | 1));
    }
    // Uses are in source order: the window's are one run.
    let first = items
        .references
        .partition_point(|(r, _)| r.start() < window.start());
    for (range, def) in items
        .references
        .get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(|(r, _)| inside(*r))
    {
        if let Some(d) = items.definitions.get(*def) {
            roles.insert(range.start(), kind_of(d.kind));
        }
    }
    let kernels = &parse(db, file).file.kernels;
    for kernel in kernels
        .get(super::kernels_touching(kernels, window))
        .unwrap_or_default()
    {
        for p in kernel.params.iter().chain(&kernel.outputs) {
            type_roles(p.ty.as_ref(), &mut roles);
        }
        stmt_roles(&kernel.body, window, &mut roles);
    }
    roles
}

fn type_roles(ty: Option<&ast::TypeRef>, roles: &mut HashMap<TextSize, (TokenType, u32)>) {
    let Some(ty) = ty else { return };
    roles.insert(ty.memory.range.start(), (TokenType::Namespace, 0));
    if let Some(d) = &ty.dtype {
        roles.insert(d.range.start(), (TokenType::Type, 0));
    }
}

/// The roles of the names in the statements of `stmts` that overlap `window`.
fn stmt_roles(
    stmts: &[ast::Stmt],
    window: TextRange,
    roles: &mut HashMap<TextSize, (TokenType, u32)>,
) {
    let first = stmts.partition_point(|s| s.range().end() < window.start());
    for stmt in stmts
        .get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(|s| s.range().start() < window.end())
    {
        match stmt {
            ast::Stmt::Tensor(t) => type_roles(t.ty.as_ref(), roles),
            ast::Stmt::Reg(r) => {
                roles.insert(r.range.start(), (TokenType::Keyword, 0));
                if let Some(d) = &r.dtype {
                    roles.insert(d.range.start(), (TokenType::Type, 0));
                }
            }
            ast::Stmt::Loop(l) => stmt_roles(&l.body, window, roles),
            ast::Stmt::Op(op) => {
                roles.insert(op.class.range.start(), (TokenType::Class, 0));
                let spec = catalog::lookup(&op.class.text);
                for field in &op.fields {
                    roles.insert(field.name.range.start(), (TokenType::Property, 0));
                    let kind = spec.and_then(|s| s.field(&field.name.text)).map(|f| f.kind);
                    if let Some(v) = &field.value {
                        value_roles(v, kind, roles);
                    }
                }
            }
        }
    }
}

fn value_roles(
    value: &ast::Value,
    kind: Option<Kind>,
    roles: &mut HashMap<TextSize, (TokenType, u32)>,
) {
    match &value.kind {
        ast::ValueKind::Ident(_) => {
            let t = match kind {
                Some(Kind::Dtype) | Some(Kind::List(Kind::Dtype)) => TokenType::Type,
                _ => TokenType::EnumMember,
            };
            roles.insert(value.range.start(), (t, 0));
        }
        ast::ValueKind::List(items) => {
            let inner = match kind {
                Some(Kind::List(k)) => Some(*k),
                other => other,
            };
            items.iter().for_each(|v| value_roles(v, inner, roles));
        }
        ast::ValueKind::Record(fields) => {
            for f in fields {
                roles.insert(f.name.range.start(), (TokenType::Property, 0));
                if let Some(v) = &f.value {
                    value_roles(v, None, roles);
                }
            }
        }
        ast::ValueKind::Call { name, args } => {
            roles.insert(name.range.start(), (TokenType::Function, 0));
            args.iter().for_each(|v| value_roles(v, None, roles));
        }
        _ => {}
    }
}

impl Shift for SemanticToken {
    fn shift(&mut self, by: TextSize) {
        self.range.shift(by);
    }
}

#[cfg(test)]
mod tests {
    use crate::db::RootDatabase;

    #[test]
    fn classifies_each_kind_of_name() {
        let db = RootDatabase::default();
        let text = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4] // c\n  for %i in 0..2 {\n    ActivationOp #7 { dst = %t, src = %t, func = exp }\n  }\n}\n";
        let doc = crate::ide::fixture::document(&db, text);
        let rendered: Vec<String> = super::semantic_tokens(&db, &doc, None)
            .iter()
            .map(|t| {
                format!(
                    "{}:{}:{}",
                    &text[usize::from(t.range.start())..usize::from(t.range.end())],
                    t.token_type.lsp_name(),
                    t.modifiers
                )
            })
            .collect();
        let has = |s: &str| assert!(rendered.iter().any(|r| r == s), "{s} not in {rendered:?}");
        has("kernel:keyword:0");
        has("@k:function:1");
        has("%x:parameter:1");
        has("hbm:namespace:0");
        has("f32:type:0");
        has("// c:comment:0");
        has("%i:variable:3");
        has("ActivationOp:class:0");
        has("#7:decorator:0");
        has("func:property:0");
        has("exp:enumMember:0");
        has("%t:variable:0");
    }
}

#[cfg(test)]
mod range_tests {

    use crate::db::RootDatabase;

    /// The tokens of a range are the file's tokens that overlap it, for every window of a
    /// few lines of every corpus file, and for each window cut short at both ends.
    #[test]
    fn a_range_gives_the_files_tokens_that_overlap_it() {
        for (name, text) in test_utils::corpus_files() {
            let db = RootDatabase::default();
            let doc = crate::ide::fixture::document(&db, &text);
            let all = super::semantic_tokens(&db, &doc, None);
            let lines = test_utils::line_windows(&text, 3);
            let short = lines.iter().map(|r| {
                let cut = syntax::TextSize::from((u32::from(r.len()) / 3).min(7));
                syntax::ast::TextRange::new(r.start() + cut, r.end() - cut)
            });
            for range in lines.iter().copied().chain(short) {
                let from = range.start();
                let want: Vec<_> = all
                    .iter()
                    .filter(|t| super::range_overlaps(Some(range), t.range))
                    .copied()
                    .collect();
                let got = super::semantic_tokens(&db, &doc, Some(range));
                assert_eq!(got, want, "{name}, lines from byte {from:?}");
            }
        }
    }
}
