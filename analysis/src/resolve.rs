//! Name resolution: the syntax tree of a file becomes, per kernel, its resolved tensors,
//! registers and loops and one position-free [`ResolvedOp`] per op, plus a source map back
//! to the tree and the name diagnostics (P200, P201, P207 on types, P208, P302/P304 on
//! declarations, P414 on loop bounds).
//!
//! This is a pure function of the tree; the database calls it once per edit. It is cheap
//! (linear in the file) and every op it produces compares equal to the previous one when
//! the op's text and the declarations it reads are unchanged, which is what lets salsa
//! skip the op's lowering.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use lower::diag::{Code, FixHint};
use lower::model::{self, LoopVar, OpSettings, Register, ResolvedOp, Target, Tensor, TensorKind};
use lower::target::Target as Chip;
use lower::types::{Dtype, Memory};
use syntax::ast::{self, TextRange};

use crate::diagnostic::{Finding, Message, RelatedAt};
use crate::kernel::rules::{p200, p201};

mod items;

pub use items::*;

/// Resolves a parsed file. `settings` are copied into the ops that read them; `target`
/// sets the capacities declarations are checked against (P304, SPEC §4 [3]). `check` is
/// called every few hundred ops: a cancellation check that may unwind (see
/// [`syntax::parse_cancellable`]).
///
/// `entry`: what the kernel a chunk starts inside ([`syntax::Kernel::continues`]) defined
/// in its earlier chunks; `None` for a chunk that starts with whole kernels.
pub fn resolve(
    file: &ast::SourceFile,
    entry: Option<&Entry>,
    settings: OpSettings,
    target: Chip,
    check: &dyn Fn(),
) -> FileItems {
    let mut out = FileItems::default();
    // The next op's [`OpItem::index`], counted across kernels.
    let mut next_index = 0;
    let mut kernel_names: HashMap<String, usize> = HashMap::default();
    for kernel in &file.kernels {
        let first_definition = out.definitions.len();
        if let Some(name) = &kernel.name {
            let def = out.definitions.len();
            out.definitions.push(Definition {
                name: name.text.to_string(),
                kind: DefKind::Kernel,
                range: name.range,
                scope: kernel.range,
                prelude: false,
                flawed: false,
            });
            if let Some(first) = kernel_names
                .get(name.text.as_str())
                .and_then(|&first| out.definitions.get(first))
            {
                let first_range = first.range;
                out.diagnostics
                    .push(p201::kernel(&name.text, name.range, first_range));
            } else {
                kernel_names.insert(name.text.to_string(), def);
            }
        }
        let mut resolver = KernelResolver::new(&mut out, next_index, settings, check);
        resolver.target = target;
        let entry = entry.filter(|_| kernel.continues);
        if let Some(entry) = entry {
            resolver.enter(entry, kernel.range);
        }
        for param in &kernel.params {
            resolver.param(param, TensorKind::Input, kernel.range);
        }
        for param in &kernel.outputs {
            resolver.param(param, TensorKind::Output, kernel.range);
        }
        let body_scope = kernel.body_range.unwrap_or(kernel.range);
        let body = resolver.block(&kernel.body, body_scope);
        let allocations = std::mem::take(&mut resolver.allocations);
        next_index = resolver.index;
        out.kernels.push(KernelItems {
            name: match (&kernel.name, entry) {
                (Some(name), _) => name.text.to_string(),
                (None, Some(entry)) => entry.kernel.clone(),
                (None, None) => String::new(),
            },
            allocations,
            body,
            continues: kernel.continues,
            goes_on: kernel.goes_on,
            definitions: first_definition..out.definitions.len(),
        });
    }
    out
}

/// The parameters and declarations of `kernel` (or of the part of it that a chunk holds),
/// in source order, as a [`PreludeDef`] each (a name defined twice, twice): what the
/// kernel's later chunks may name ([`crate::kernel::outline::outline`]). Each type is resolved as
/// [`resolve`] resolves it; its errors are [`resolve`]'s to report.
pub fn declarations(kernel: &ast::Kernel, settings: OpSettings) -> Vec<PreludeDef> {
    let mut scratch = FileItems::default();
    let mut resolver = KernelResolver::new(&mut scratch, 0, settings, &|| ());
    resolver.quiet = true;
    let mut out = Vec::new();
    for (params, kind) in [
        (&kernel.params, TensorKind::Input),
        (&kernel.outputs, TensorKind::Output),
    ] {
        for param in params {
            let tensor = resolver.tensor_type(&param.name.text, param.ty.as_ref(), kind);
            out.push(PreludeDef {
                name: param.name.text.to_string(),
                kind: DefKind::Param,
                allocation: tensor.map(Allocation::Tensor),
                visible: true,
            });
        }
    }
    resolver.declarations(&kernel.body, true, &mut out);
    out
}

/// What a name in scope refers to.
#[derive(Clone, Debug)]
enum Binding {
    Tensor(Option<Arc<Tensor>>),
    Register(Option<Arc<Register>>),
    Loop,
}

struct KernelResolver<'a> {
    out: &'a mut FileItems,
    /// Lexical scopes, innermost last: the names each defines (popped with it).
    scopes: Vec<Vec<String>>,
    /// What each name in scope refers to, innermost definition last: (binding, definition
    /// index). A lookup is one hash probe, whatever the number of declarations.
    visible: HashMap<String, Vec<(Binding, usize)>>,
    /// Every tensor/register/parameter name of the kernel (names are unique per kernel).
    kernel_names: HashMap<String, usize>,
    loops: Vec<LoopVar>,
    loop_ranges: Vec<TextRange>,
    loop_name_counts: HashMap<String, usize>,
    ordinal: u32,
    /// The next op's [`OpItem::index`].
    index: u32,
    allocations: Vec<Allocation>,
    settings: OpSettings,
    /// The target whose capacities declarations are checked against (P304).
    target: Chip,
    /// Inside an op of an unknown class: names are still resolved (for navigation) but not
    /// reported, since SPEC §7 checks such an op no further than its P202.
    quiet: bool,
    /// How many names of the body's scope (the first ones) the entry's prelude put there.
    prelude_names: usize,
    /// The cancellation check of [`resolve`].
    check: &'a dyn Fn(),
}

impl<'a> KernelResolver<'a> {
    /// A resolver of one kernel into `out`, its first op the file's `index`-th.
    fn new(
        out: &'a mut FileItems,
        index: u32,
        settings: OpSettings,
        check: &'a dyn Fn(),
    ) -> KernelResolver<'a> {
        KernelResolver {
            out,
            scopes: vec![Vec::new()],
            visible: HashMap::default(),
            kernel_names: HashMap::default(),
            loops: Vec::new(),
            loop_ranges: Vec::new(),
            loop_name_counts: HashMap::default(),
            ordinal: 0,
            index,
            allocations: Vec::new(),
            settings,
            target: Chip::default(),
            quiet: false,
            prelude_names: 0,
            check,
        }
    }

    /// Defines what the kernel's earlier chunks did ([`Entry`]): the names this chunk
    /// mentions, as the kernel's body scope holds them where the chunk starts.
    fn enter(&mut self, entry: &Entry, scope: TextRange) {
        for def in &entry.prelude {
            let index = self.out.definitions.len();
            self.out.definitions.push(Definition {
                name: def.name.clone(),
                kind: def.kind,
                range: TextRange::empty(scope.start()),
                scope,
                prelude: true,
                flawed: false,
            });
            self.kernel_names.insert(def.name.clone(), index);
            if def.visible {
                let binding = match &def.allocation {
                    Some(Allocation::Register(r)) => Binding::Register(Some(r.clone())),
                    None if def.kind == DefKind::Register => Binding::Register(None),
                    Some(Allocation::Tensor(t)) => Binding::Tensor(Some(t.clone())),
                    None => Binding::Tensor(None),
                };
                if let Some(scope) = self.scopes.first_mut() {
                    scope.push(def.name.clone());
                    self.prelude_names += 1;
                }
                self.visible
                    .entry(def.name.clone())
                    .or_default()
                    .push((binding, index));
            }
        }
        for (name, count) in &entry.loops {
            self.loop_name_counts.insert(name.clone(), *count as usize);
        }
    }

    fn define(&mut self, name: &ast::Name, kind: DefKind, binding: Binding, scope: TextRange) {
        let def = self.out.definitions.len();
        self.out.definitions.push(Definition {
            name: name.text.to_string(),
            kind,
            range: name.range,
            scope,
            prelude: false,
            flawed: matches!(binding, Binding::Tensor(None) | Binding::Register(None)),
        });
        let clash = if kind == DefKind::LoopVar {
            // A loop variable may not shadow a tensor, register or enclosing loop variable;
            // sibling loops may reuse a name.
            self.lookup(&name.text).map(|(_, d)| d)
        } else {
            self.kernel_names
                .get(name.text.as_str())
                .copied()
                .or_else(|| self.lookup(&name.text).map(|(_, d)| d))
        };
        if let Some(first) = clash.and_then(|first| self.out.definitions.get(first)) {
            let at = if first.prelude {
                RelatedAt::EarlierDefinition(first.name.clone())
            } else {
                RelatedAt::Here(first.range)
            };
            self.out
                .diagnostics
                .push(p201::name(&name.text, name.range, at));
            // SPEC §13.1.2: a name first declared in a sibling loop body (out of scope
            // here) is still declared in this scope, so its uses resolve to it and give no
            // P200; one visible here keeps its first definition.
            if self.lookup(&name.text).is_some() {
                return;
            }
        } else if kind != DefKind::LoopVar {
            self.kernel_names.insert(name.text.to_string(), def);
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name.text.to_string());
            self.visible
                .entry(name.text.to_string())
                .or_default()
                .push((binding, def));
        }
    }

    /// The declarations of `stmts` (see [`declarations`]); `visible`: directly in the
    /// kernel's body.
    fn declarations(&mut self, stmts: &[ast::Stmt], visible: bool, out: &mut Vec<PreludeDef>) {
        for stmt in stmts {
            let (name, kind, allocation) = match stmt {
                ast::Stmt::Tensor(decl) => {
                    let Some(name) = &decl.name else { continue };
                    let tensor =
                        self.tensor_type(&name.text, decl.ty.as_ref(), TensorKind::Internal);
                    (name, DefKind::Tensor, tensor.map(Allocation::Tensor))
                }
                ast::Stmt::Reg(decl) => {
                    let Some(name) = &decl.name else { continue };
                    let register = self.dtype(decl.dtype.as_ref()).map(|dtype| {
                        Allocation::Register(Arc::new(Register {
                            name: name.text.to_string(),
                            dtype,
                        }))
                    });
                    (name, DefKind::Register, register)
                }
                ast::Stmt::Loop(lp) => {
                    self.declarations(&lp.body, false, out);
                    continue;
                }
                ast::Stmt::Op(_) => continue,
            };
            out.push(PreludeDef {
                name: name.text.to_string(),
                kind,
                allocation,
                visible,
            });
        }
    }

    fn lookup(&self, name: &str) -> Option<(Binding, usize)> {
        self.visible.get(name)?.last().cloned()
    }

    fn tensor_type(
        &mut self,
        name: &str,
        ty: Option<&ast::TypeRef>,
        kind: TensorKind,
    ) -> Option<Arc<Tensor>> {
        let ty = ty?;
        let memory = match Memory::from_name(&ty.memory.text) {
            Some(Memory::Reg) => {
                self.out.diagnostics.push(Finding::new(
                    Code::P207,
                    ty.memory.range,
                    "a tensor cannot live in `reg`; declare a register with `reg %name : i32`",
                ));
                return None;
            }
            Some(m) => m,
            None => {
                let names = Memory::ALL
                    .iter()
                    .filter(|m| **m != Memory::Reg)
                    .map(|m| (m.name(), m.bir_type()));
                let spaces: Vec<&str> = Memory::ALL
                    .iter()
                    .filter(|m| **m != Memory::Reg)
                    .map(|m| m.name())
                    .collect();
                let suggestion = lower::diag::did_you_mean_spelt(&ty.memory.text, names);
                let message = match suggestion {
                    Some(s) => format!(
                        "unknown memory space `{}`; did you mean `{s}`?",
                        ty.memory.text
                    ),
                    None => format!(
                        "unknown memory space `{}`; a tensor lives in {}",
                        ty.memory.text,
                        spaces.join(", ")
                    ),
                };
                self.out.diagnostics.push(
                    Finding::new(Code::P207, ty.memory.range, message)
                        .with_fix(FixHint::replace(suggestion)),
                );
                // The dtype is checked too: `SBUF bfloat16` is two mistakes, both reported.
                let _ = self.dtype(ty.dtype.as_ref());
                return None;
            }
        };
        let dtype = self.dtype(ty.dtype.as_ref())?;
        if ty.dims.is_empty() {
            return None;
        }
        let tensor = Tensor {
            name: name.to_string(),
            memory,
            dtype,
            dims: ty.dims.iter().map(|(d, _)| *d).collect(),
            kind,
        };
        let problems = lower::check_tensor(&tensor, self.target);
        let usable = problems.iter().all(|(code, _)| *code == Code::P304);
        for (code, message) in problems {
            self.out
                .diagnostics
                .push(Finding::new(code, ty.range, message));
        }
        // A tensor with a zero dim, or more partitions than its memory has (P302), has no
        // access pattern: its uses would only repeat the declaration's error. (Over
        // capacity, P304, it still has one.)
        usable.then(|| Arc::new(tensor))
    }

    fn dtype(&mut self, name: Option<&ast::Name>) -> Option<Dtype> {
        let name = name?;
        match Dtype::from_name(&name.text) {
            Some(d) => Some(d),
            None => {
                let names = Dtype::ALL.iter().map(|d| (d.name(), d.bir_name()));
                self.out.diagnostics.push(suggest(
                    format!("unknown dtype `{}`", name.text),
                    (Code::P207, name.range),
                    &name.text,
                    names,
                ));
                None
            }
        }
    }

    fn param(&mut self, param: &ast::Param, kind: TensorKind, scope: TextRange) {
        let tensor = self.tensor_type(&param.name.text, param.ty.as_ref(), kind);
        let duplicate = self.kernel_names.contains_key(param.name.text.as_str());
        self.define(
            &param.name,
            DefKind::Param,
            Binding::Tensor(tensor.clone()),
            scope,
        );
        if let (Some(t), false) = (tensor, duplicate) {
            self.allocations.push(Allocation::Tensor(t));
        }
    }

    fn block(&mut self, stmts: &[ast::Stmt], scope: TextRange) -> Vec<Item> {
        let mut items = Vec::new();
        for stmt in stmts {
            match stmt {
                ast::Stmt::Tensor(decl) => {
                    let Some(name) = &decl.name else { continue };
                    let tensor =
                        self.tensor_type(&name.text, decl.ty.as_ref(), TensorKind::Internal);
                    let duplicate = self.kernel_names.contains_key(name.text.as_str());
                    let visible = TextRange::new(decl.range.start(), scope.end());
                    self.define(
                        name,
                        DefKind::Tensor,
                        Binding::Tensor(tensor.clone()),
                        visible,
                    );
                    if let (Some(t), false) = (tensor, duplicate) {
                        self.allocations.push(Allocation::Tensor(t));
                    }
                }
                ast::Stmt::Reg(decl) => {
                    let Some(name) = &decl.name else { continue };
                    let register = self.dtype(decl.dtype.as_ref()).map(|dtype| {
                        Arc::new(Register {
                            name: name.text.to_string(),
                            dtype,
                        })
                    });
                    let duplicate = self.kernel_names.contains_key(name.text.as_str());
                    let visible = TextRange::new(decl.range.start(), scope.end());
                    self.define(
                        name,
                        DefKind::Register,
                        Binding::Register(register.clone()),
                        visible,
                    );
                    if let (Some(r), false) = (register, duplicate) {
                        self.allocations.push(Allocation::Register(r));
                    }
                }
                ast::Stmt::Loop(lp) => {
                    if let Some(item) = self.loop_(lp) {
                        items.push(Item::Loop(item));
                    }
                }
                ast::Stmt::Op(op) => items.push(Item::Op(self.op(op))),
            }
        }
        items
    }

    fn loop_(&mut self, lp: &ast::Loop) -> Option<LoopItem> {
        let bound = |r: &mut Self, e: Option<&ast::Expr>, what: &str| -> Option<i64> {
            let e = e?;
            match const_eval(e) {
                Some(v) => Some(v),
                // An unreadable bound already has its syntax error: one per mistake.
                None if has_error(e) => None,
                None => {
                    r.out.diagnostics.push(Finding::new(
                        Code::P414,
                        e.range,
                        format!("a loop {what} must be an integer constant"),
                    ));
                    None
                }
            }
        };
        let lb = bound(self, lp.start.as_ref(), "bound");
        let ub = bound(self, lp.end.as_ref(), "bound");
        let step = match &lp.step {
            None => Some(1),
            Some(e) => match bound(self, Some(e), "step") {
                Some(s) if s > 0 => Some(s),
                Some(s) => {
                    self.out.diagnostics.push(Finding::new(
                        Code::P414,
                        e.range,
                        format!("a loop step must be positive; got {s}"),
                    ));
                    None
                }
                None => None,
            },
        };
        let bounds = match (lb, ub, step) {
            (Some(lb), Some(ub), Some(step)) if lb >= 0 && ub >= 0 => Some((lb, ub, step)),
            // Either bound negative (`0..-1` too: an empty range, but no BIR LoopAxis).
            (Some(lb), Some(ub), Some(_)) => {
                for (bound, e) in [(lb, &lp.start), (ub, &lp.end)] {
                    if let Some(e) = e
                        && bound < 0
                    {
                        self.out.diagnostics.push(Finding::new(
                            Code::P414,
                            e.range,
                            format!("loop bounds are natural numbers (BIR LoopAxis); got {bound}"),
                        ));
                    }
                }
                None
            }
            _ => None,
        };
        let var_name = lp
            .var
            .as_ref()
            .map(|v| v.text.to_string())
            .unwrap_or_default();
        let count = self.loop_name_counts.entry(var_name.clone()).or_insert(0);
        *count += 1;
        let bir_name = if *count == 1 {
            format!("L-{var_name}")
        } else {
            format!("L-{var_name}-{count}")
        };
        let var = LoopVar {
            name: var_name,
            bounds,
        };
        let body_scope = lp.body_range.unwrap_or(lp.range);
        self.scopes.push(Vec::new());
        if let Some(name) = &lp.var {
            self.define(name, DefKind::LoopVar, Binding::Loop, lp.range);
        }
        self.loops.push(var.clone());
        self.loop_ranges
            .push(lp.var.as_ref().map_or(lp.range, |v| v.range));
        let body = self.block(&lp.body, body_scope);
        self.loops.pop();
        self.loop_ranges.pop();
        for name in self.scopes.pop().unwrap_or_default() {
            if let Some(bindings) = self.visible.get_mut(&name) {
                bindings.pop();
            }
        }
        Some(LoopItem {
            var,
            bir_name,
            range: lp.range,
            body,
        })
    }

    fn op(&mut self, op: &Arc<ast::Op>) -> OpItem {
        self.ordinal += 1;
        let index = self.index;
        self.index += 1;
        if self.ordinal.is_multiple_of(256) {
            (self.check)();
        }
        // A duplicate id is P208, a kernel-wide rule (`crate::kernel::rules::p208`).
        let op_id = op.id.map_or(self.ordinal, |(id, _)| id);
        let spec = lower::lookup(&op.class.text);
        self.quiet = spec.is_none();
        let fields = op
            .fields
            .iter()
            .map(|f| model::Field {
                name: f.name.text.clone(),
                value: f.value.as_ref().map_or(model::Value::Error, |v| {
                    let takes_access = spec
                        .and_then(|s| s.field(&f.name.text))
                        .is_some_and(|field| field.kind.takes_access());
                    self.unsigiled_name(v, takes_access)
                        .unwrap_or_else(|| self.value(v))
                }),
            })
            .collect();
        let settings = if lower::reads_tkg_threshold(&op.class.text) {
            self.settings
        } else {
            OpSettings::default()
        };
        OpItem {
            resolved: Arc::new(ResolvedOp {
                class: op.class.text.clone(),
                fields,
                loops: self.loops.clone(),
                settings,
            }),
            index,
            op_id,
            op_id_written: op.id.is_some(),
            allocations: u32::try_from(self.allocations.len()).unwrap_or(u32::MAX),
            syntax: op.clone(),
            loop_ranges: self.loop_ranges.clone(),
        }
    }

    /// The binding of a use of `name`, or P200; `axis`: the use is in an index expression,
    /// where only a loop variable fits (SPEC §7.1 [3]: the compiler's `No existing axis`), so
    /// an undefined one is told the closest loop variable in scope (`%i` for `%j`, not a
    /// tensor as close).
    fn reference(&mut self, name: &ast::Name, axis: bool) -> Option<Binding> {
        match self.lookup(&name.text) {
            Some((binding, def)) => {
                self.out.references.push((name.range, def));
                Some(binding)
            }
            None if self.quiet => None,
            None => {
                // The names of the kernel's earlier chunks are not all here (the prelude
                // holds those this chunk names): the document words the finding with the
                // closest of those too (`crate::kernel::rules::p200`).
                let visible = self
                    .scopes
                    .iter()
                    .flatten()
                    .skip(self.prelude_names)
                    .filter(|n| !axis || matches!(self.lookup(n), Some((Binding::Loop, _))))
                    .map(String::as_str);
                let local = p200::closest(&name.text, visible).map(str::to_string);
                self.out.diagnostics.push(Finding {
                    message: Message::Undefined {
                        name: name.text.to_string(),
                        local,
                        axis,
                    },
                    ..Finding::new(Code::P200, name.range, String::new())
                });
                None
            }
        }
    }

    /// A bare identifier in a field that takes an access, spelling a tensor or register in
    /// scope without its `%` (`src = t`): one P206 saying so, with `%t` as its fix, and the
    /// value read as the access it stands for, so that nothing else is reported for it
    /// (no P204, no P501 after). `None` for any other value.
    fn unsigiled_name(&mut self, value: &ast::Value, takes_access: bool) -> Option<model::Value> {
        let ast::ValueKind::Ident(name) = &value.kind else {
            return None;
        };
        if !takes_access {
            return None;
        }
        // Not a reference (navigation and rename edit past a `%` it does not have).
        let (binding, _) = self.lookup(name)?;
        let target = match binding {
            Binding::Tensor(Some(t)) => Target::Tensor(t),
            Binding::Register(Some(r)) => Target::Register(r),
            // Its declaration has an error (reported there): the use stays silent.
            Binding::Tensor(None) | Binding::Register(None) => Target::Unresolved,
            Binding::Loop => return None,
        };
        self.out.diagnostics.push(
            Finding::new(
                Code::P206,
                value.range,
                format!("`{name}` is not a name here; did you mean `%{name}`?"),
            )
            .with_fix(Some(FixHint::Replace {
                with: format!("%{name}"),
            })),
        );
        Some(model::Value::Access(model::Access {
            name: name.clone(),
            target,
            indices: None,
        }))
    }

    fn value(&mut self, value: &ast::Value) -> model::Value {
        use ast::ValueKind as V;
        use model::Value as M;
        match &value.kind {
            V::Access(access) => {
                let target = match self.reference(&access.name, false) {
                    Some(Binding::Tensor(Some(t))) => Target::Tensor(t),
                    Some(Binding::Register(Some(r))) => Target::Register(r),
                    Some(Binding::Loop) => Target::LoopVar,
                    _ => Target::Unresolved,
                };
                let indices = access.indices.as_ref().map(|indices| {
                    indices
                        .iter()
                        .map(|index| match &index.kind {
                            ast::IndexKind::Expr(e) => model::Index::Single(self.expr(e)),
                            ast::IndexKind::Slice { start, end, step } => model::Index::Slice {
                                start: start.as_ref().map(|e| self.expr(e)),
                                end: end.as_ref().map(|e| self.expr(e)),
                                step: step.as_ref().map(|e| self.expr(e)),
                            },
                        })
                        .collect()
                });
                M::Access(model::Access {
                    name: access.name.text.clone(),
                    target,
                    indices,
                })
            }
            V::Int(i) => M::Int(*i),
            V::HexInt(i) => M::HexInt(*i),
            V::Float(f) => M::Float(model::F64(*f)),
            V::Bool(b) => M::Bool(*b),
            V::Str(s) => M::Str(s.clone()),
            V::Bytes(b) => M::Bytes(b.clone()),
            V::Ident(s) => M::Ident(s.clone()),
            V::List(items) => M::List(items.iter().map(|v| self.value(v)).collect()),
            V::Record(fields) => M::Record(
                fields
                    .iter()
                    .map(|f| model::Field {
                        name: f.name.text.clone(),
                        value: f.value.as_ref().map_or(M::Error, |v| self.value(v)),
                    })
                    .collect(),
            ),
            V::Call { name, args } => M::Call {
                name: name.text.to_string(),
                args: args.iter().map(|v| self.value(v)).collect(),
            },
            V::Pred(p) => M::Pred(model::Pred {
                lhs: self.expr(&p.lhs),
                cmp: p.cmp,
                rhs: self.expr(&p.rhs),
            }),
            V::Error => M::Error,
        }
    }

    fn expr(&mut self, expr: &ast::Expr) -> model::Expr {
        use ast::ExprKind as E;
        use model::Expr as M;
        match &expr.kind {
            E::Int(i) => M::Int(*i),
            E::Local(name) => match self.reference(name, true) {
                Some(Binding::Loop) => M::Var(name.text.to_string()),
                Some(_) => M::NotLoopVar(name.text.to_string()),
                None => M::Error,
            },
            E::DimVar(n) => M::DimVar(*n),
            E::Neg(inner) => M::Neg(Box::new(self.expr(inner))),
            E::Binary(a, op, b) => M::Binary(Box::new(self.expr(a)), *op, Box::new(self.expr(b))),
            E::Paren(inner) => self.expr(inner),
            E::Error => M::Error,
        }
    }
}

/// Whether an expression holds an unreadable piece.
fn has_error(expr: &ast::Expr) -> bool {
    use ast::ExprKind as E;
    match &expr.kind {
        E::Error => true,
        E::Neg(inner) | E::Paren(inner) => has_error(inner),
        E::Binary(a, _, b) => has_error(a) || has_error(b),
        E::Int(_) | E::Local(_) | E::DimVar(_) => false,
    }
}

/// The value of a constant integer expression (no variables), `None` otherwise or on
/// overflow.
pub fn const_eval(expr: &ast::Expr) -> Option<i64> {
    use ast::ExprKind as E;
    match &expr.kind {
        E::Int(i) => Some(*i),
        // `-9223372036854775808`: its magnitude reads as i64::MIN (the syntax's `literal`).
        E::Neg(inner) if matches!(inner.kind, E::Int(i64::MIN)) => Some(i64::MIN),
        E::Neg(inner) => const_eval(inner)?.checked_neg(),
        E::Paren(inner) => const_eval(inner),
        E::Binary(a, op, b) => {
            let (a, b) = (const_eval(a)?, const_eval(b)?);
            match op {
                ast::BinOp::Add => a.checked_add(b),
                ast::BinOp::Sub => a.checked_sub(b),
                ast::BinOp::Mul => a.checked_mul(b),
            }
        }
        E::Local(_) | E::DimVar(_) | E::Error => None,
    }
}

/// A finding with `message` and "; did you mean `X`?" and the fix replacing its range by `X`, when
/// one of `candidates` (each with its other spelling, e.g. BIR's, see
/// [`lower::diag::did_you_mean_spelt`]) is close to `name`.
fn suggest<'a>(
    message: String,
    (code, range): (Code, TextRange),
    name: &str,
    candidates: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Finding {
    let suggestion = lower::diag::did_you_mean_spelt(name, candidates);
    let message = match suggestion {
        Some(s) => format!("{message}; did you mean `{s}`?"),
        None => message,
    };
    Finding::new(code, range, message).with_fix(FixHint::replace(suggestion))
}
