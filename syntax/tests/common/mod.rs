//! Shared test helpers: a compact rendering of a parse, and every range in a tree.

#![allow(dead_code)]

use std::fmt::Write as _;

use syntax::*;

/// The tree in a source-like form (one line per statement, with its range), then the
/// errors. `<none>` is a missing piece, `<error>` an error node.
pub fn render(text: &str) -> String {
    let parse = parse(text);
    let mut out = String::new();
    for k in &parse.file.kernels {
        let params = |ps: &[Param]| ps.iter().map(param).collect::<Vec<_>>().join(", ");
        writeln!(
            out,
            "kernel {} ({}) -> ({}) {:?}{}",
            opt_name(&k.name, "@"),
            params(&k.params),
            params(&k.outputs),
            k.range,
            if k.body_range.is_none() {
                " <no body>"
            } else {
                ""
            },
        )
        .unwrap();
        stmts(&mut out, &k.body, 1);
    }
    for e in &parse.errors {
        writeln!(out, "{} {:?} {}", e.code.as_str(), e.range, e.message).unwrap();
    }
    out
}

fn opt_name(n: &Option<Name>, sigil: &str) -> String {
    n.as_ref()
        .map_or("<none>".into(), |n| format!("{sigil}{}", n.text))
}

fn param(p: &Param) -> String {
    format!(
        "%{}: {}",
        p.name.text,
        p.ty.as_ref().map_or("<none>".into(), ty)
    )
}

fn ty(t: &TypeRef) -> String {
    let dims: Vec<String> = t.dims.iter().map(|d| d.0.to_string()).collect();
    format!(
        "{} {}[{}]",
        t.memory.text,
        opt_name(&t.dtype, ""),
        dims.join(", ")
    )
}

fn stmts(out: &mut String, body: &[Stmt], depth: usize) {
    let pad = "  ".repeat(depth);
    for s in body {
        match s {
            Stmt::Tensor(t) => writeln!(
                out,
                "{pad}tensor {} : {} {:?}",
                opt_name(&t.name, "%"),
                t.ty.as_ref().map_or("<none>".into(), ty),
                t.range
            )
            .unwrap(),
            Stmt::Reg(r) => writeln!(
                out,
                "{pad}reg {} : {} {:?}",
                opt_name(&r.name, "%"),
                opt_name(&r.dtype, ""),
                r.range
            )
            .unwrap(),
            Stmt::Loop(l) => {
                writeln!(
                    out,
                    "{pad}for {} in {}..{}{} {:?}{}",
                    opt_name(&l.var, "%"),
                    opt_expr(&l.start),
                    opt_expr(&l.end),
                    l.step
                        .as_ref()
                        .map_or(String::new(), |s| format!(" step {}", expr(s))),
                    l.range,
                    if l.body_range.is_none() {
                        " <no body>"
                    } else {
                        ""
                    },
                )
                .unwrap();
                stmts(out, &l.body, depth + 1);
            }
            Stmt::Op(op) => {
                let id = op.id.map_or(String::new(), |(id, _)| format!(" #{id}"));
                let body = match op.body_range {
                    Some(_) => format!(" {{{}}}", fields(&op.fields)),
                    None => " <no body>".into(),
                };
                writeln!(out, "{pad}{}{id}{body} {:?}", op.class.text, op.range).unwrap();
            }
        }
    }
}

fn fields(fs: &[Field]) -> String {
    fs.iter()
        .map(|f| {
            format!(
                "{} = {}",
                f.name.text,
                f.value.as_ref().map_or("<none>".into(), value)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn value(v: &Value) -> String {
    match &v.kind {
        ValueKind::Access(a) => access(a),
        ValueKind::Int(i) => i.to_string(),
        ValueKind::HexInt(i) => format!("{i:#x}"),
        ValueKind::Float(f) => format!("{f:?}"),
        ValueKind::Bool(b) => b.to_string(),
        ValueKind::Str(s) => format!("{s:?}"),
        ValueKind::Bytes(b) => format!("x{b:02x?}"),
        ValueKind::Ident(i) => i.to_string(),
        ValueKind::List(l) => format!("[{}]", l.iter().map(value).collect::<Vec<_>>().join(", ")),
        ValueKind::Record(r) => format!("{{{}}}", fields(r)),
        ValueKind::Call { name, args } => {
            format!(
                "{}({})",
                name.text,
                args.iter().map(value).collect::<Vec<_>>().join(", ")
            )
        }
        ValueKind::Pred(p) => format!("{} {} {}", expr(&p.lhs), p.cmp.as_str(), expr(&p.rhs)),
        ValueKind::Error => "<error>".into(),
    }
}

fn access(a: &Access) -> String {
    match &a.indices {
        None => format!("%{}", a.name.text),
        Some(ix) => {
            let ix: Vec<String> = ix
                .iter()
                .map(|i| match &i.kind {
                    IndexKind::Expr(e) => expr(e),
                    IndexKind::Slice { start, end, step } => {
                        let o = |e: &Option<Expr>| e.as_ref().map_or(String::new(), expr);
                        match step {
                            Some(s) => format!("{}:{}:{}", o(start), o(end), expr(s)),
                            None => format!("{}:{}", o(start), o(end)),
                        }
                    }
                })
                .collect();
            format!("%{}[{}]", a.name.text, ix.join(", "))
        }
    }
}

fn opt_expr(e: &Option<Expr>) -> String {
    e.as_ref().map_or("<none>".into(), expr)
}

/// Fully parenthesised, so that the tree shape is visible.
pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(i) => i.to_string(),
        ExprKind::Local(n) => format!("%{}", n.text),
        ExprKind::DimVar(d) => format!("${d}"),
        ExprKind::Neg(x) => format!("(-{})", expr(x)),
        ExprKind::Binary(a, op, b) => {
            let op = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
            };
            format!("({} {op} {})", expr(a), expr(b))
        }
        ExprKind::Paren(x) => format!("[{}]", expr(x)),
        ExprKind::Error => "<error>".into(),
    }
}

/// Every range of the tree, names included.
pub fn all_ranges(file: &SourceFile) -> Vec<TextRange> {
    let mut out = Vec::new();
    for k in &file.kernels {
        out.push(k.range);
        out.extend(k.name.as_ref().map(|n| n.range));
        out.extend(k.body_range);
        for p in k.params.iter().chain(&k.outputs) {
            out.push(p.range);
            out.push(p.name.range);
            if let Some(t) = &p.ty {
                ty_ranges(t, &mut out);
            }
        }
        stmt_ranges(&k.body, &mut out);
    }
    out
}

fn ty_ranges(t: &TypeRef, out: &mut Vec<TextRange>) {
    out.push(t.range);
    out.push(t.memory.range);
    out.extend(t.dtype.as_ref().map(|n| n.range));
    out.extend(t.dims.iter().map(|d| d.1));
}

fn stmt_ranges(body: &[Stmt], out: &mut Vec<TextRange>) {
    for s in body {
        match s {
            Stmt::Tensor(t) => {
                out.push(t.range);
                out.extend(t.name.as_ref().map(|n| n.range));
                if let Some(t) = &t.ty {
                    ty_ranges(t, out);
                }
            }
            Stmt::Reg(r) => {
                out.push(r.range);
                out.extend(r.name.as_ref().map(|n| n.range));
                out.extend(r.dtype.as_ref().map(|n| n.range));
            }
            Stmt::Loop(l) => {
                out.push(l.range);
                out.extend(l.var.as_ref().map(|n| n.range));
                out.extend(l.body_range);
                for e in [&l.start, &l.end, &l.step].into_iter().flatten() {
                    expr_ranges(e, out);
                }
                stmt_ranges(&l.body, out);
            }
            Stmt::Op(op) => {
                out.push(op.range);
                out.push(op.class.range);
                out.extend(op.id.map(|i| i.1));
                out.extend(op.body_range);
                field_ranges(&op.fields, out);
            }
        }
    }
}

fn field_ranges(fs: &[Field], out: &mut Vec<TextRange>) {
    for f in fs {
        out.push(f.range);
        out.push(f.name.range);
        if let Some(v) = &f.value {
            value_ranges(v, out);
        }
    }
}

fn value_ranges(v: &Value, out: &mut Vec<TextRange>) {
    out.push(v.range);
    match &v.kind {
        ValueKind::Access(a) => {
            out.push(a.name.range);
            for i in a.indices.iter().flatten() {
                out.push(i.range);
                match &i.kind {
                    IndexKind::Expr(e) => expr_ranges(e, out),
                    IndexKind::Slice { start, end, step } => {
                        for e in [start, end, step].into_iter().flatten() {
                            expr_ranges(e, out);
                        }
                    }
                }
            }
        }
        ValueKind::List(l) => l.iter().for_each(|v| value_ranges(v, out)),
        ValueKind::Record(r) => field_ranges(r, out),
        ValueKind::Call { name, args } => {
            out.push(name.range);
            args.iter().for_each(|v| value_ranges(v, out));
        }
        ValueKind::Pred(p) => {
            expr_ranges(&p.lhs, out);
            expr_ranges(&p.rhs, out);
        }
        _ => {}
    }
}

fn expr_ranges(e: &Expr, out: &mut Vec<TextRange>) {
    out.push(e.range);
    match &e.kind {
        ExprKind::Local(n) => out.push(n.range),
        ExprKind::Neg(x) | ExprKind::Paren(x) => expr_ranges(x, out),
        ExprKind::Binary(a, _, b) => {
            expr_ranges(a, out);
            expr_ranges(b, out);
        }
        _ => {}
    }
}

/// The corpus of real kernels as `(file name, text)`, sorted by name.
pub fn corpus_files() -> Vec<(String, String)> {
    test_utils::corpus_files()
}

/// The `Debug` text of `value`, every range `a..b` in it shifted by `by` bytes.
pub fn shifted<T: std::fmt::Debug>(value: &T, by: usize) -> String {
    let text = format!("{value:?}");
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A range prints as `start..end`, two decimal numbers (nothing else in the tree's
        // `Debug` has that shape: expressions print as structs).
        let number = |mut j: usize| {
            let from = j;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            (j > from).then(|| (text[from..j].parse::<usize>().unwrap(), j))
        };
        let boundary = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if boundary
            && let Some((start, j)) = number(i)
            && text[j..].starts_with("..")
            && let Some((end, k)) = number(j + 2)
        {
            out.push_str(&format!("{}..{}", start + by, end + by));
            i = k;
            continue;
        }
        let c = text[i..].chars().next().expect("a char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[allow(unused_imports)]
pub use test_utils::{SNIPPETS, mangled_corpus_file};
