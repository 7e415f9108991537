//! What name resolution gives ([`super::resolve`]): per kernel its allocations, its body of
//! ops and loops, its definitions; per file the definitions, the uses and the name
//! diagnostics. Position-free where it is read by lowering ([`OpItem::resolved`]), with the
//! ranges beside it.

use std::sync::Arc;

use lower::model::{LoopVar, Register, ResolvedOp, Tensor};
use syntax::ast::{self, TextRange};

use crate::diagnostic::Finding;

/// One kernel, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelItems {
    /// The kernel name without `@` (empty when missing).
    pub name: String,
    /// Allocations in BIR order: parameters (inputs, outputs), then declarations in source
    /// order (loop bodies included).
    pub allocations: Vec<Allocation>,
    /// The body: ops and loops in source order.
    pub body: Vec<Item>,
    /// This is the rest of a kernel cut into chunks ([`syntax::Kernel::continues`]): its
    /// name is the [`Entry`]'s, `allocations` and `body` are this chunk's only, and its
    /// ops' implicit ids count from the chunk's first op ([`OpItem::op_id_written`]).
    pub continues: bool,
    /// The kernel goes on in the next chunk ([`syntax::Kernel::goes_on`]). A kernel that
    /// continues or goes on is *split*: what needs all of it (P208, P500, P501, P416, the
    /// resources) is joined from its chunks where the document gathers them.
    pub goes_on: bool,
    /// Its definitions: a run of [`FileItems::definitions`] (its name first when it has
    /// one, then what its entry, parameters and body define, in that order).
    pub definitions: std::ops::Range<usize>,
}

impl KernelItems {
    /// Whether the kernel is cut into chunks (see [`KernelItems::goes_on`]).
    pub fn is_split(&self) -> bool {
        self.continues || self.goes_on
    }
}

/// What a chunk that starts inside a kernel ([`syntax::Context::inside`]) knows of the
/// kernel's chunks before it: a function of their declarations only, so that editing an op
/// there changes no entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The kernel's name without `@` (empty when unnamed).
    pub kernel: String,
    /// The first definition, in the kernel before this chunk, of each name this chunk's
    /// text mentions (`%name`), sorted by name.
    pub prelude: Vec<PreludeDef>,
    /// How many loops of each variable name the kernel has before this chunk (for the BIR
    /// loop names, `L-i-2`), for the names this chunk mentions; sorted by name.
    pub loops: Vec<(String, u32)>,
}

/// A name defined in an earlier chunk of the kernel (see [`Entry`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PreludeDef {
    /// The name without `%`.
    pub name: String,
    /// A parameter, a tensor or a register.
    pub kind: DefKind,
    /// What it allocates (`None` when its type is unusable).
    pub allocation: Option<Allocation>,
    /// Whether it is still in scope after that chunk: a parameter or a declaration
    /// directly in the kernel's body (one in a loop body is out of scope, but its name is
    /// taken in the kernel).
    pub visible: bool,
}

/// A tensor or register allocation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Allocation {
    /// A parameter or `tensor` declaration.
    Tensor(Arc<Tensor>),
    /// A `reg` declaration.
    Register(Arc<Register>),
}

/// A statement that lowers to BIR.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// An op: its resolved value and its syntax node (the source map).
    Op(OpItem),
    /// A loop and its body.
    Loop(LoopItem),
}

/// One op with its source map.
#[derive(Clone, Debug, PartialEq)]
pub struct OpItem {
    /// Position-free, what lowering reads (shared with the op's interned key, so that an op
    /// is held once).
    pub resolved: Arc<ResolvedOp>,
    /// The op's 0-based place among the file's ops in source order (kernels in order, loop
    /// bodies in place): where [`crate::db::coarse_lowerings`] holds its lowering.
    pub index: u32,
    /// The op id: the written `#N`, else the 1-based ordinal in the kernel (SPEC §3); in a
    /// kernel that [`KernelItems::continues`], an implicit id counts from the chunk's first
    /// op, and the document adds the ops of the kernel's earlier chunks. Not in
    /// `resolved`, so that inserting an op re-lowers no op below it.
    pub op_id: u32,
    /// Whether the op id is written (`#N`), not an ordinal.
    pub op_id_written: bool,
    /// How many of its kernel's allocations are declared before it: the first ones of
    /// [`KernelItems::allocations`], all that the kernel's text up to the op allocates (a
    /// page of the kernel's BIR cut at the op shows those: `bir::OpBudget`).
    pub allocations: u32,
    /// The syntax node: anchors map to ranges through it.
    pub syntax: Arc<ast::Op>,
    /// The var ranges of the enclosing loops, outermost first (for `Anchor::Loop`).
    pub loop_ranges: Vec<TextRange>,
}

/// One loop.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopItem {
    /// The variable and bounds.
    pub var: LoopVar,
    /// The BIR loop name: `L-<var>`, `L-<var>-2` for a later loop reusing the name.
    pub bir_name: String,
    /// The loop's range in the text.
    pub range: TextRange,
    /// The body.
    pub body: Vec<Item>,
}

/// A definition, for definition / references / rename.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The name without its sigil.
    pub name: String,
    /// What it defines.
    pub kind: DefKind,
    /// The range of the defining name token.
    pub range: TextRange,
    /// The range where it is visible (its scope).
    pub scope: TextRange,
    /// Defined in an earlier chunk of a split kernel ([`Entry::prelude`]): `range` is
    /// empty at the chunk's start; the document knows where.
    pub prelude: bool,
    /// A tensor or register whose declared type has an error, reported there (an unknown
    /// memory space or dtype, P302, a dim of 0, a missing type): no P500 on it as well.
    pub flawed: bool,
}

/// The kinds of names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    /// A kernel (`@name`).
    Kernel,
    /// A kernel parameter.
    Param,
    /// A `tensor` declaration.
    Tensor,
    /// A `reg` declaration.
    Register,
    /// A loop variable.
    LoopVar,
}

/// The resolved file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileItems {
    /// The kernels in source order.
    pub kernels: Vec<KernelItems>,
    /// Name diagnostics.
    pub diagnostics: Vec<Finding>,
    /// Every definition.
    pub definitions: Vec<Definition>,
    /// Every use of a name: `(use range, index into definitions)`.
    pub references: Vec<(TextRange, usize)>,
}
