//! The syntax tree of a `.pir` file (SPEC §3), with a byte range on every node.
//!
//! The tree is owned and plain: no interning, no parent pointers, no positions other than
//! [`TextRange`]s, which are UTF-8 byte offsets into the text that was parsed (0-based,
//! half-open). Anything the parser could not read is represented, never dropped: a missing
//! piece is `None` (or [`ValueKind::Error`] / [`ExprKind::Error`]) and the matching error is
//! in [`Parse::errors`](crate::Parse::errors).

use std::sync::Arc;

pub use smol_str::SmolStr;
pub use text_size::{TextRange, TextSize};

/// A name as written, without its sigil (`%`, `@`), and the range of the whole token
/// including the sigil.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    /// The identifier text without the sigil: `acc` for `%acc`, `rmsnorm` for `@rmsnorm`.
    /// Inline up to 23 bytes, so that reading, copying and dropping a tree allocates
    /// nothing for most names.
    pub text: SmolStr,
    /// Byte range of the token, sigil included.
    pub range: TextRange,
}

/// A whole file: the kernels in source order (SPEC §1: one module).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceFile {
    /// The kernels in source order, including ones with syntax errors.
    pub kernels: Vec<Kernel>,
}

/// `kernel @name(params) -> (outputs) { stmts }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// From the `kernel` keyword to the closing `}` (or as far as the parser got).
    pub range: TextRange,
    /// The `@name`; `None` when missing.
    pub name: Option<Name>,
    /// Input parameters (the BIR Function's arguments).
    pub params: Vec<Param>,
    /// The `->` parameters (the BIR Function's outputs).
    pub outputs: Vec<Param>,
    /// The statements of the body.
    pub body: Vec<Stmt>,
    /// Range of the body from `{` to `}` inclusive; `None` when the body is missing.
    pub body_range: Option<TextRange>,
    /// The rest of a kernel whose header is in an earlier part of the file (a file read in
    /// parts cut inside a big kernel, [`crate::Context::inside`]): no header here, so
    /// `name` is `None` and there are no parameters; `range` and `body_range` start at the
    /// part's start (offset 0).
    pub continues: bool,
    /// The kernel's body goes on in the next part of the file ([`crate::Context::goes_on`]):
    /// no `}` here; `range` and `body_range` end where the part ends.
    pub goes_on: bool,
}

/// `%name: memory dtype[dims]` in a kernel signature.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// From the name to the end of the type.
    pub range: TextRange,
    /// The `%name`.
    pub name: Name,
    /// The type; `None` when missing or unreadable.
    pub ty: Option<TypeRef>,
}

/// `memory dtype[d0, d1, …]`, e.g. `sbuf bf16[128, 512]`.
///
/// The memory space and dtype are kept as written; checking them against SPEC §4 (P207) is
/// the analysis' job, so that the parser stays free of the type tables.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeRef {
    /// The whole type, memory space to `]`.
    pub range: TextRange,
    /// The memory space identifier (`hbm`, `sbuf`, `psum`, `reg`).
    pub memory: Name,
    /// The dtype identifier (`bf16`, `f32`, …); `None` when missing.
    pub dtype: Option<Name>,
    /// The dimensions in elements, each with its range.
    pub dims: Vec<(u64, TextRange)>,
}

/// A statement of a kernel or loop body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `tensor %t : type`.
    Tensor(TensorDecl),
    /// `reg %r : dtype`.
    Reg(RegDecl),
    /// `for %i in a..b step s { … }`.
    Loop(Loop),
    /// An op (shared: the analysis keeps it with the op's resolved value, one copy).
    Op(Arc<Op>),
}

impl Stmt {
    /// The statement's whole range (see each variant's `range`).
    pub fn range(&self) -> TextRange {
        match self {
            Stmt::Tensor(t) => t.range,
            Stmt::Reg(r) => r.range,
            Stmt::Loop(l) => l.range,
            Stmt::Op(o) => o.range,
        }
    }
}

/// One entry of a file read as a flat list of statements: what [`parse_statements`]
/// returns before the kernel and loop bodies are nested (`crate::parse` nests them).
///
/// Every entry is complete in itself, so a run of lines can be re-read alone: a `{` that
/// opens a body is part of its header, and the `}` that closes it is its own entry.
///
/// [`parse_statements`]: crate::parse_statements
#[derive(Clone, Debug, PartialEq)]
pub enum FlatStmt {
    /// `kernel @name(params) -> (outputs) {`.
    Kernel(KernelHeader),
    /// `for %var in start..end step s {`.
    Loop(LoopHeader),
    /// The `}` that closes a kernel or loop body (its range).
    Close(TextRange),
    /// A declaration or an op ([`Stmt::Loop`] never appears here).
    Stmt(Stmt),
}

/// `kernel @name(params) [-> (outputs)] {`: a kernel's header in a [`FlatStmt`] list.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelHeader {
    /// From `kernel` to the `{` (or as far as the parser got).
    pub range: TextRange,
    /// The `@name`; `None` when missing.
    pub name: Option<Name>,
    /// Input parameters.
    pub params: Vec<Param>,
    /// The `->` parameters.
    pub outputs: Vec<Param>,
    /// The range of the `{` that opens the body; `None` when missing. When the header ends
    /// its line without `{` (and the next line starts a statement), its last character,
    /// which stands for the missing `{` (the lines below are the body).
    pub open: Option<TextRange>,
}

/// `for %var in start..end [step N] {`: a loop's header in a [`FlatStmt`] list.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopHeader {
    /// From `for` to the `{` (or as far as the parser got).
    pub range: TextRange,
    /// The loop variable; `None` when missing.
    pub var: Option<Name>,
    /// Lower bound; `None` when missing.
    pub start: Option<Expr>,
    /// Upper bound; `None` when missing.
    pub end: Option<Expr>,
    /// The `step` expression when written.
    pub step: Option<Expr>,
    /// The range of the `{` that opens the body, as [`KernelHeader::open`].
    pub open: Option<TextRange>,
}

/// `tensor %name : type`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDecl {
    /// From `tensor` to the end of the type.
    pub range: TextRange,
    /// The `%name`; `None` when missing.
    pub name: Option<Name>,
    /// The type; `None` when missing.
    pub ty: Option<TypeRef>,
}

/// `reg %name : dtype`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegDecl {
    /// From `reg` to the dtype.
    pub range: TextRange,
    /// The `%name`; `None` when missing.
    pub name: Option<Name>,
    /// The dtype identifier; `None` when missing.
    pub dtype: Option<Name>,
}

/// `for %var in start..end [step N] { body }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// From `for` to the closing `}`.
    pub range: TextRange,
    /// The loop variable; `None` when missing.
    pub var: Option<Name>,
    /// Lower bound (inclusive); `None` when missing.
    pub start: Option<Expr>,
    /// Upper bound (exclusive); `None` when missing.
    pub end: Option<Expr>,
    /// The `step` expression when written (SPEC: an INT; anything else is checked later).
    pub step: Option<Expr>,
    /// The statements of the body.
    pub body: Vec<Stmt>,
    /// Range of the body from `{` to `}` inclusive; `None` when missing.
    pub body_range: Option<TextRange>,
}

/// `OpClass [#id] { field = value, … }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// From the class name to the closing `}` (or as far as the parser got).
    pub range: TextRange,
    /// The op class name, e.g. `MatMulOp`.
    pub class: Name,
    /// The written op id `#N` and its range.
    pub id: Option<(u32, TextRange)>,
    /// The fields in source order (duplicates included: P205 is checked later).
    pub fields: Vec<Field>,
    /// Range of the body from `{` to `}` inclusive; `None` when missing.
    pub body_range: Option<TextRange>,
}

/// `name = value` inside an op body or a record.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// From the name to the end of the value (or of what was read).
    pub range: TextRange,
    /// The field name (an identifier or a keyword such as `step`).
    pub name: Name,
    /// The value; `None` when missing after `=` (the error is reported).
    pub value: Option<Value>,
}

/// A field value with its range.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The value's range.
    pub range: TextRange,
    /// What the value is.
    pub kind: ValueKind,
}

/// The forms of SPEC §3 `value`.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// `%t` or `%t[…]` (also a register or a loop variable, told apart by name resolution).
    Access(Access),
    /// An integer literal, sign included (`-1`, `0x3f80`, `1_000`).
    Int(i64),
    /// An integer literal written in hex without a sign (`0x3f80`): a bit pattern where a
    /// number meets an integer dtype (SPEC §6.6 [2]); a number everywhere else.
    HexInt(i64),
    /// A float literal, sign included (`1e-6`, `-inf`, `nan`).
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A string literal with its escapes resolved.
    Str(String),
    /// A bytes literal `x"de ad"`, decoded.
    Bytes(Vec<u8>),
    /// A bare identifier: an enum value, dtype or memory space.
    Ident(SmolStr),
    /// `[v, …]`.
    List(Vec<Value>),
    /// `{ name = value, … }`.
    Record(Vec<Field>),
    /// `name(v, …)`, e.g. `full(%t)` (SPEC §6.9).
    Call {
        /// The callee identifier.
        name: Name,
        /// The arguments.
        args: Vec<Value>,
    },
    /// `expr CMP expr` (affine-select predicates, SPEC §6.3).
    Pred(Pred),
    /// Something unreadable; its syntax error is in `Parse::errors`.
    Error,
}

/// `%name` with optional `[index, …]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// The tensor, register or loop variable.
    pub name: Name,
    /// The indices, `None` when there are no brackets (the whole tensor).
    pub indices: Option<Vec<Index>>,
}

/// One index of an access.
#[derive(Clone, Debug, PartialEq)]
pub struct Index {
    /// The range of this index (expression or whole slice).
    pub range: TextRange,
    /// The index form.
    pub kind: IndexKind,
}

/// `e` or `[a] : [b] [: s]`.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexKind {
    /// A single element, which drops the dim (except the partition dim, SPEC §5).
    Expr(Expr),
    /// A slice; missing parts take their defaults (SPEC §5).
    Slice {
        /// Start (default 0).
        start: Option<Expr>,
        /// End, exclusive (default the dim size).
        end: Option<Expr>,
        /// Step (default 1); SPEC writes an INT, any expression is parsed and checked later.
        step: Option<Expr>,
    },
}

/// An integer expression (SPEC §3 `expr`); affinity is checked later (P303).
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The expression's range.
    pub range: TextRange,
    /// Its form.
    pub kind: ExprKind,
}

/// The forms of `expr`.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A `%name` (a loop variable once resolved).
    Local(Name),
    /// `$N`, a dim variable (only meaningful inside predicates).
    DimVar(u32),
    /// `-e`.
    Neg(Box<Expr>),
    /// `a + b`, `a - b`, `a * b`.
    Binary(Box<Expr>, BinOp, Box<Expr>),
    /// `(e)`.
    Paren(Box<Expr>),
    /// Unreadable; the error is reported.
    Error,
}

/// Binary operators of `expr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
}

/// `lhs CMP rhs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pred {
    /// Left side.
    pub lhs: Expr,
    /// The comparison.
    pub cmp: CmpOp,
    /// Right side.
    pub rhs: Expr,
}

/// Comparison operators of predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `<`
    Lt,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl CmpOp {
    /// The operator as written in the source and in BIR predicates (`">="`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
            CmpOp::Le => "<=",
            CmpOp::Lt => "<",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}
