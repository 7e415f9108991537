//! Field values and integer expressions (SPEC §3 `value`, `access`, `index`, `expr`,
//! `pred`), for the [`parser`](crate::parser).
//!
//! Values are chosen by their first one or two tokens; expressions fold their operator
//! chains iteratively (`foldl`/`foldr`), so that only brackets recurse, and stop growing at
//! [`MAX_EXPR_DEPTH`].

use chumsky::input::MapExtra;
use chumsky::prelude::*;

use crate::ast::*;
use crate::lexer::Token;
use crate::literal::{bytes_value, float_value, index_value, int_value, string_value};
use crate::parser::{Extra, In, Inp, Span, name, named, or_expected};
use crate::recover::{
    Exp, comma_list, expected_error, field_block, peek2, plain_ident, range, skip_parenthesised,
};

/// Whether an integer literal's text is written in hex (`0x…`, SPEC §6.6 [2] bit patterns).
fn is_hex(literal: &str) -> bool {
    literal.starts_with("0x") || literal.starts_with("0X")
}

/// Expressions nested deeper than this (`- - - … 1`, `1 + 1 + …`) become one error node,
/// so that the tree (whose `Drop` and consumers recurse) stays shallow.
pub(crate) const MAX_EXPR_DEPTH: u32 = 200;

/// A field value (SPEC §3 `value`). Its form is chosen by its first one or two tokens
/// (LL(2)) rather than by trying each alternative in turn, which keeps long lists fast and
/// errors about the form actually written.
pub(crate) fn value_parser<'a>(text: &'a str) -> impl Parser<'a, In<'a>, Value, Extra<'a>> + Clone {
    let expr = expr_parser(text);
    recursive(move |value| {
        let error_value = |span: Span| {
            Some(Value {
                range: range(span),
                kind: ValueKind::Error,
            })
        };
        let access = named(text, Token::Local)
            .then(comma_list(
                text,
                Token::LBracket,
                Token::RBracket,
                index_parser(expr.clone()),
                "index",
                false,
                |span| {
                    let r = range(span);
                    Some(Index {
                        range: r,
                        kind: IndexKind::Expr(Expr {
                            range: r,
                            kind: ExprKind::Error,
                        }),
                    })
                },
            ))
            .map(|(name, indices)| {
                ValueKind::Access(Access {
                    name,
                    indices: Some(indices.items),
                })
            });
        let list = comma_list(
            text,
            Token::LBracket,
            Token::RBracket,
            value.clone(),
            "value",
            true,
            error_value,
        )
        .map(|g| ValueKind::List(g.items));
        let record = field_block(text, value.clone()).map(|g| ValueKind::Record(g.items));
        let call_or_ident = plain_ident(text)
            .then(
                comma_list(
                    text,
                    Token::LParen,
                    Token::RParen,
                    value.clone(),
                    "value",
                    true,
                    error_value,
                )
                .or_not(),
            )
            .map(|(name, args)| match args {
                Some(args) => ValueKind::Call {
                    name,
                    args: args.items,
                },
                None => ValueKind::Ident(name.text),
            });
        let float = move |negative: bool| {
            move |_, e: &mut MapExtra<'a, '_, In<'a>, Extra<'a>>| match float_value(
                &text[range(e.span())],
            ) {
                Some(v) => ValueKind::Float(if negative { -v } else { v }),
                None => ValueKind::Error,
            }
        };
        let positive_float = just(Token::Float).map_with(float(false));
        let negative_float =
            just(Token::Minus).ignore_then(just(Token::Float).map_with(float(true)));
        let cmp = select! {
            Token::Ge => CmpOp::Ge,
            Token::Gt => CmpOp::Gt,
            Token::Le => CmpOp::Le,
            Token::Lt => CmpOp::Lt,
            Token::EqEq => CmpOp::Eq,
            Token::Ne => CmpOp::Ne,
        };
        // Once the comparison is read, a missing right side is reported there and read as
        // an error node spanning the comparison operator.
        let rhs = or_expected(expr.clone());
        let pred_tail =
            cmp.map_with(|cmp, e| (cmp, range(e.span())))
                .then(rhs)
                .map(|((cmp, at), rhs)| {
                    let rhs = rhs.unwrap_or(Expr {
                        range: at,
                        kind: ExprKind::Error,
                    });
                    (cmp, rhs)
                });
        let from_expr = expr
            .clone()
            .then(pred_tail.or_not())
            .validate(|(lhs, rhs), _, emitter| match (lhs, rhs) {
                (lhs, Some((cmp, rhs))) => ValueKind::Pred(Pred { lhs, cmp, rhs }),
                (
                    Expr {
                        kind: ExprKind::Int(v),
                        range: r,
                    },
                    None,
                ) if is_hex(&text[r]) => ValueKind::HexInt(v),
                (
                    Expr {
                        kind: ExprKind::Int(v),
                        ..
                    },
                    None,
                ) => ValueKind::Int(v),
                (
                    Expr {
                        kind: ExprKind::Neg(inner),
                        ..
                    },
                    None,
                ) if matches!(inner.kind, ExprKind::Int(_)) => {
                    let ExprKind::Int(v) = inner.kind else {
                        unreachable!()
                    };
                    // `-9223372036854775808`: the magnitude reads as i64::MIN (`literal`).
                    ValueKind::Int(v.wrapping_neg())
                }
                (
                    Expr {
                        kind: ExprKind::Local(name),
                        ..
                    },
                    None,
                ) => ValueKind::Access(Access {
                    name,
                    indices: None,
                }),
                (
                    Expr {
                        kind: ExprKind::Error,
                        ..
                    },
                    None,
                ) => ValueKind::Error,
                // `-` before an unreadable number (`-1e400`, `-12ab`): the number's own
                // error (P102) is the one diagnostic.
                (
                    Expr {
                        kind: ExprKind::Neg(inner),
                        ..
                    },
                    None,
                ) if matches!(inner.kind, ExprKind::Error) => ValueKind::Error,
                (lhs, None) => {
                    emitter.emit(Rich::custom(
                        Span::from(usize::from(lhs.range.start())..usize::from(lhs.range.end())),
                        "expected a value, found an expression: an expression is a value only in a \
                         predicate (`e >= e`, `>`, `<=`, `<`, `==`, `!=`)",
                    ));
                    ValueKind::Error
                }
            });
        custom(move |inp: &mut Inp<'a, '_>| {
            let before = inp.cursor();
            let (tok, _, next) = peek2(inp);
            let kind = match tok {
                Some(Token::Local) if next == Some(Token::LBracket) => inp.parse(&access)?,
                Some(Token::Minus) if next == Some(Token::Float) => inp.parse(negative_float)?,
                Some(Token::Local | Token::Int | Token::DimVar | Token::LParen | Token::Minus) => {
                    inp.parse(&from_expr)?
                }
                Some(Token::Ident) => inp.parse(&call_or_ident)?,
                Some(Token::Float) => inp.parse(positive_float)?,
                Some(Token::LBracket) => inp.parse(&list)?,
                Some(Token::LBrace) => inp.parse(&record)?,
                Some(
                    t @ (Token::Str | Token::Bytes | Token::True | Token::False | Token::Error),
                ) => {
                    inp.skip();
                    let r = range(inp.span_since(&before));
                    match t {
                        Token::Str => ValueKind::Str(string_value(&text[r])),
                        Token::Bytes => {
                            bytes_value(&text[r]).map_or(ValueKind::Error, ValueKind::Bytes)
                        }
                        Token::True => ValueKind::Bool(true),
                        Token::False => ValueKind::Bool(false),
                        _ => ValueKind::Error,
                    }
                }
                _ => return Err(expected_error(inp, &[Exp::Label("value")])),
            };
            Ok(Value {
                range: range(inp.span_since(&before)),
                kind,
            })
        })
    })
}

/// One index of an access: `e`, or a slice `[a] : [b] [: s]`.
fn index_parser<'a>(
    expr: impl Parser<'a, In<'a>, Expr, Extra<'a>> + Clone + 'a,
) -> impl Parser<'a, In<'a>, Index, Extra<'a>> + Clone {
    let tail = just(Token::Colon)
        .ignore_then(expr.clone().or_not())
        .then(just(Token::Colon).ignore_then(expr.clone()).or_not());
    let from_colon = tail.clone().map(|(end, step)| IndexKind::Slice {
        start: None,
        end,
        step,
    });
    let from_expr = expr.then(tail.or_not()).map(|(start, tail)| match tail {
        Some((end, step)) => IndexKind::Slice {
            start: Some(start),
            end,
            step,
        },
        None => IndexKind::Expr(start),
    });
    choice((from_colon, from_expr))
        .map_with(|kind, e| Index {
            range: range(e.span()),
            kind,
        })
        .labelled("index")
}

/// An integer expression (SPEC §3 `expr`): `+ -` over `*` over prefix `-` over atoms.
/// Prefix and infix chains are folded iteratively; only parentheses recurse.
pub(crate) fn expr_parser<'a>(text: &'a str) -> impl Parser<'a, In<'a>, Expr, Extra<'a>> + Clone {
    recursive(move |expr| {
        let paren = expr
            .clone()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(|(inner, depth): (Expr, u32), e| {
                deeper(range(e.span()), depth, e, || {
                    ExprKind::Paren(Box::new(inner))
                })
            })
            .recover_with(via_parser(skip_parenthesised(text).map_with(|(), e| {
                (
                    Expr {
                        range: range(e.span()),
                        kind: ExprKind::Error,
                    },
                    1,
                )
            })));
        let leaf = move |kind: ExprKind, r: TextRange| (Expr { range: r, kind }, 1u32);
        let simple = custom(move |inp: &mut Inp<'a, '_>| {
            let before = inp.cursor();
            let tok = inp.peek();
            let r = {
                let save = inp.save();
                inp.skip();
                let r = range(inp.span_since(&before));
                if !matches!(
                    tok,
                    Some(Token::Int | Token::Local | Token::DimVar | Token::Error)
                ) {
                    inp.rewind(save);
                    return Err(expected_error(inp, &[Exp::Label("expression")]));
                }
                r
            };
            let s = &text[r];
            Ok(match tok {
                Some(Token::Int) => leaf(int_value(s).map_or(ExprKind::Error, ExprKind::Int), r),
                Some(Token::Local) => leaf(
                    ExprKind::Local(name(
                        text,
                        Span::from(usize::from(r.start())..usize::from(r.end())),
                    )),
                    r,
                ),
                Some(Token::DimVar) => {
                    leaf(index_value(s).map_or(ExprKind::Error, ExprKind::DimVar), r)
                }
                _ => leaf(ExprKind::Error, r),
            })
        });
        let atom = choice((paren, simple));
        let factor = just(Token::Minus)
            .map_with(|_, e| e.span())
            .repeated()
            .foldr_with(atom, |minus: Span, (inner, depth): (Expr, u32), e| {
                let r = range(minus).cover(inner.range);
                deeper(r, depth, e, || ExprKind::Neg(Box::new(inner)))
            })
            .labelled("expression");
        let binary = |(lhs, dl): (Expr, u32),
                      (op, (rhs, dr)): (BinOp, (Expr, u32)),
                      e: &mut MapExtra<'a, '_, In<'a>, Extra<'a>>| {
            let r = lhs.range.cover(rhs.range);
            deeper(r, dl.max(dr), e, || {
                ExprKind::Binary(Box::new(lhs), op, Box::new(rhs))
            })
        };
        let term = factor.clone().foldl_with(
            just(Token::Star).to(BinOp::Mul).then(factor).repeated(),
            binary,
        );
        let add = choice((
            just(Token::Plus).to(BinOp::Add),
            just(Token::Minus).to(BinOp::Sub),
        ));
        term.clone().foldl_with(add.then(term).repeated(), binary)
    })
    .map(|(e, _)| e)
    .labelled("expression")
}

/// Builds a node one level deeper than its deepest child (depth `child`), or an error node
/// once [`MAX_EXPR_DEPTH`] is reached. Error nodes carry the maximum depth, so the error
/// is reported once per chain and the rest of the chain folds into that one node.
fn deeper<'a>(
    r: TextRange,
    child: u32,
    e: &mut MapExtra<'a, '_, In<'a>, Extra<'a>>,
    build: impl FnOnce() -> ExprKind,
) -> (Expr, u32) {
    if child >= MAX_EXPR_DEPTH {
        return (
            Expr {
                range: r,
                kind: ExprKind::Error,
            },
            MAX_EXPR_DEPTH,
        );
    }
    if child + 1 >= MAX_EXPR_DEPTH {
        e.emit(Rich::custom(
            Span::from(usize::from(r.start())..usize::from(r.end())),
            format!(
                "expression too deep: more than {MAX_EXPR_DEPTH} nested operators or \
                 parentheses (a sum of n terms nests n - 1)"
            ),
        ));
        return (
            Expr {
                range: r,
                kind: ExprKind::Error,
            },
            MAX_EXPR_DEPTH,
        );
    }
    (
        Expr {
            range: r,
            kind: build(),
        },
        child + 1,
    )
}
