//! Moving a tree's ranges: statements read alone ([`crate::read_statements`]) have ranges
//! relative to their piece; [`Shift::shift`] adds the piece's start to every range, so
//! that pieces read apart join into what the whole text reads (`syntax/tests/pieces.rs`).
//!
//! Every impl destructures its type whole, so a range field added to the tree and not
//! moved here does not compile.

use std::sync::Arc;

use crate::ast::*;
use crate::{Statements, SyntaxError};

/// Adds `by` (UTF-8 bytes) to every range in a value.
pub trait Shift {
    /// Moves every range of `self` `by` bytes later in the text.
    fn shift(&mut self, by: TextSize);
}

impl Shift for TextRange {
    fn shift(&mut self, by: TextSize) {
        *self += by;
    }
}

impl<T: Shift> Shift for Option<T> {
    fn shift(&mut self, by: TextSize) {
        if let Some(value) = self {
            value.shift(by);
        }
    }
}

impl<T: Shift> Shift for Vec<T> {
    fn shift(&mut self, by: TextSize) {
        for value in self {
            value.shift(by);
        }
    }
}

impl<T: Shift, E> Shift for Result<T, E> {
    fn shift(&mut self, by: TextSize) {
        if let Ok(value) = self {
            value.shift(by);
        }
    }
}

impl<T: Shift> Shift for Box<T> {
    fn shift(&mut self, by: TextSize) {
        (**self).shift(by);
    }
}

impl<T: Shift + Clone> Shift for Arc<T> {
    fn shift(&mut self, by: TextSize) {
        Arc::make_mut(self).shift(by);
    }
}

impl Shift for TextSize {
    fn shift(&mut self, by: TextSize) {
        *self += by;
    }
}

impl<N> Shift for (N, TextRange) {
    fn shift(&mut self, by: TextSize) {
        self.1.shift(by);
    }
}

/// A text edit: the range replaced, and the text put there.
impl Shift for (TextRange, String) {
    fn shift(&mut self, by: TextSize) {
        self.0.shift(by);
    }
}

impl Shift for Name {
    fn shift(&mut self, by: TextSize) {
        let Name { text: _, range } = self;
        range.shift(by);
    }
}

impl Shift for Param {
    fn shift(&mut self, by: TextSize) {
        let Param { range, name, ty } = self;
        range.shift(by);
        name.shift(by);
        ty.shift(by);
    }
}

impl Shift for TypeRef {
    fn shift(&mut self, by: TextSize) {
        let TypeRef {
            range,
            memory,
            dtype,
            dims,
        } = self;
        range.shift(by);
        memory.shift(by);
        dtype.shift(by);
        dims.shift(by);
    }
}

impl Shift for Stmt {
    fn shift(&mut self, by: TextSize) {
        match self {
            Stmt::Tensor(t) => t.shift(by),
            Stmt::Reg(r) => r.shift(by),
            Stmt::Loop(l) => l.shift(by),
            Stmt::Op(op) => op.shift(by),
        }
    }
}

impl Shift for FlatStmt {
    fn shift(&mut self, by: TextSize) {
        match self {
            FlatStmt::Kernel(k) => k.shift(by),
            FlatStmt::Loop(l) => l.shift(by),
            FlatStmt::Close(r) => r.shift(by),
            FlatStmt::Stmt(s) => s.shift(by),
        }
    }
}

impl Shift for KernelHeader {
    fn shift(&mut self, by: TextSize) {
        let KernelHeader {
            range,
            name,
            params,
            outputs,
            open,
        } = self;
        range.shift(by);
        name.shift(by);
        params.shift(by);
        outputs.shift(by);
        open.shift(by);
    }
}

impl Shift for LoopHeader {
    fn shift(&mut self, by: TextSize) {
        let LoopHeader {
            range,
            var,
            start,
            end,
            step,
            open,
        } = self;
        range.shift(by);
        var.shift(by);
        start.shift(by);
        end.shift(by);
        step.shift(by);
        open.shift(by);
    }
}

impl Shift for TensorDecl {
    fn shift(&mut self, by: TextSize) {
        let TensorDecl { range, name, ty } = self;
        range.shift(by);
        name.shift(by);
        ty.shift(by);
    }
}

impl Shift for RegDecl {
    fn shift(&mut self, by: TextSize) {
        let RegDecl { range, name, dtype } = self;
        range.shift(by);
        name.shift(by);
        dtype.shift(by);
    }
}

impl Shift for Loop {
    fn shift(&mut self, by: TextSize) {
        let Loop {
            range,
            var,
            start,
            end,
            step,
            body,
            body_range,
        } = self;
        range.shift(by);
        var.shift(by);
        start.shift(by);
        end.shift(by);
        step.shift(by);
        body.shift(by);
        body_range.shift(by);
    }
}

impl Shift for Op {
    fn shift(&mut self, by: TextSize) {
        let Op {
            range,
            class,
            id,
            fields,
            body_range,
        } = self;
        range.shift(by);
        class.shift(by);
        id.shift(by);
        fields.shift(by);
        body_range.shift(by);
    }
}

impl Shift for Field {
    fn shift(&mut self, by: TextSize) {
        let Field { range, name, value } = self;
        range.shift(by);
        name.shift(by);
        value.shift(by);
    }
}

impl Shift for Value {
    fn shift(&mut self, by: TextSize) {
        let Value { range, kind } = self;
        range.shift(by);
        match kind {
            ValueKind::Access(a) => a.shift(by),
            ValueKind::List(values) => values.shift(by),
            ValueKind::Record(fields) => fields.shift(by),
            ValueKind::Call { name, args } => {
                name.shift(by);
                args.shift(by);
            }
            ValueKind::Pred(p) => p.shift(by),
            ValueKind::Int(_)
            | ValueKind::HexInt(_)
            | ValueKind::Float(_)
            | ValueKind::Bool(_)
            | ValueKind::Str(_)
            | ValueKind::Bytes(_)
            | ValueKind::Ident(_)
            | ValueKind::Error => {}
        }
    }
}

impl Shift for Access {
    fn shift(&mut self, by: TextSize) {
        let Access { name, indices } = self;
        name.shift(by);
        indices.shift(by);
    }
}

impl Shift for Index {
    fn shift(&mut self, by: TextSize) {
        let Index { range, kind } = self;
        range.shift(by);
        match kind {
            IndexKind::Expr(e) => e.shift(by),
            IndexKind::Slice { start, end, step } => {
                start.shift(by);
                end.shift(by);
                step.shift(by);
            }
        }
    }
}

impl Shift for Expr {
    fn shift(&mut self, by: TextSize) {
        let Expr { range, kind } = self;
        range.shift(by);
        match kind {
            ExprKind::Local(name) => name.shift(by),
            ExprKind::Neg(e) | ExprKind::Paren(e) => e.shift(by),
            ExprKind::Binary(a, _, b) => {
                a.shift(by);
                b.shift(by);
            }
            ExprKind::Int(_) | ExprKind::DimVar(_) | ExprKind::Error => {}
        }
    }
}

impl Shift for Pred {
    fn shift(&mut self, by: TextSize) {
        let Pred { lhs, cmp: _, rhs } = self;
        lhs.shift(by);
        rhs.shift(by);
    }
}

impl Shift for SyntaxError {
    fn shift(&mut self, by: TextSize) {
        let SyntaxError {
            code: _,
            range,
            message: _,
            replacement: _,
        } = self;
        range.shift(by);
    }
}

impl Shift for Statements {
    fn shift(&mut self, by: TextSize) {
        let Statements {
            statements,
            lexical_errors,
            reader_errors,
            stopped_at,
        } = self;
        statements.shift(by);
        lexical_errors.shift(by);
        reader_errors.shift(by);
        if let Some(at) = stopped_at {
            *at += by;
        }
    }
}
