//! The `.pir` file of N ops: the real kernels of the shared corpus (vendored in
//! `tests/corpus/`), copied over and over into kernels of about [`DEFAULT_KERNEL_OPS`] ops.
//!
//! Each copy of a corpus kernel keeps its body as written (comments, loops, tensor
//! declarations, multi-line ops) with every tensor, register and loop variable renamed
//! `%<name>_c<copy>`, so no two copies' names collide; the corpus kernel's parameters become
//! parameters of the generated kernel named `%<name>_u<unit>`, shared by every copy of that
//! corpus kernel in it (copies read the same inputs and write the same outputs, as an
//! unrolled kernel does). The corpus kernels are cycled in a fixed order mixing the op
//! classes (matmuls, transposes, activations, tensor-tensor and tensor-scalar ops, reduces,
//! max8 / match-replace, stream shuffles, DMA copies, kernel nodes). The last ops of the file
//! are filled with whole copies of one-op kernels (the kernel-node calls of
//! `library_kernels.pir`), so the count is exact.
//!
//! The generated file has no diagnostic at all, not even a warning (the corpus kernels have
//! none).

use crate::{Edit, EditKind, Expect, Generated, line_of, whole_line};

/// The real kernels of the shared corpus (the rule files are left out: each has an error).
const CORPUS: [&str; 8] = [
    include_str!("../../../tests/corpus/attention_fwd.pir"),
    include_str!("../../../tests/corpus/avgpool2d.pir"),
    include_str!("../../../tests/corpus/library_kernels.pir"),
    include_str!("../../../tests/corpus/matmul_basic.pir"),
    include_str!("../../../tests/corpus/matmul_tiled.pir"),
    include_str!("../../../tests/corpus/rmsnorm.pir"),
    include_str!("../../../tests/corpus/tensor_add.pir"),
    include_str!("../../../tests/corpus/topk.pir"),
];

/// The order the corpus kernels are copied in (by name), alternating big and small
/// kernels; the edits are made in a copy of the first.
const ORDER: [&str; 13] = [
    "attn_fwd_v2",
    "matmul_tiled",
    "llama_attention_cte",
    "nki_rmsnorm",
    "nki_tensor_add",
    "llama_mlp_cte",
    "topk",
    "matmul_basic",
    "flash_attn_bwd",
    "tensor_avgpool",
    "qwen3_moe_router",
    "qwen3_moe_experts",
    "user_nki_call",
];

/// How many ops a generated kernel holds, about (it closes after the copy that reaches
/// this many): a 1,000-op file has four kernels, a 100,000-op file 400.
pub const DEFAULT_KERNEL_OPS: usize = 250;

/// The smallest file [`generate`] makes: it needs one whole copy of the kernel it edits.
pub const MIN_OPS: usize = 100;

/// One piece of a corpus kernel's body: text as written, or a name to rename.
enum Piece {
    Text(String),
    /// A tensor, register or loop variable (renamed per copy).
    Local(String),
    /// A parameter of the corpus kernel (renamed per corpus kernel).
    Param(String),
}

/// A corpus kernel, ready to be copied.
struct Unit {
    name: String,
    /// Its position in [`ORDER`], the `<unit>` of its parameters' names.
    index: usize,
    /// `(name, type as written)` of its inputs, then of its outputs.
    inputs: Vec<(String, String)>,
    outputs: Vec<(String, String)>,
    body: Vec<Piece>,
    ops: usize,
}

/// The ops among `stmts`, loop bodies included.
pub fn count_ops(stmts: &[syntax::Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            syntax::Stmt::Op(_) => 1,
            syntax::Stmt::Loop(l) => count_ops(&l.body),
            syntax::Stmt::Tensor(_) | syntax::Stmt::Reg(_) => 0,
        })
        .sum()
}

/// The corpus kernels in [`ORDER`].
fn units() -> Vec<Unit> {
    let mut found = Vec::new();
    for text in CORPUS {
        let parse = syntax::parse(text);
        assert!(parse.errors.is_empty(), "corpus kernels parse cleanly");
        for kernel in &parse.file.kernels {
            let name = kernel.name.as_ref().expect("named kernel").text.to_string();
            let index = ORDER
                .iter()
                .position(|n| *n == name)
                .expect("every corpus kernel is in ORDER");
            let signature = |params: &[syntax::Param]| -> Vec<(String, String)> {
                params
                    .iter()
                    .map(|p| {
                        let ty = p.ty.as_ref().expect("typed parameter").range;
                        (p.name.text.to_string(), text[ty].to_string())
                    })
                    .collect()
            };
            let inputs = signature(&kernel.params);
            let outputs = signature(&kernel.outputs);
            let braces = kernel.body_range.expect("kernel body");
            let inner = &text[usize::from(braces.start()) + 1..usize::from(braces.end()) - 1];
            // The lines between the braces, without the corpus' `//>` and `//!` annotations.
            let mut body = String::new();
            for line in inner.trim_start_matches([' ', '\t']).lines().skip(1) {
                let kept = match line.find("//>").or_else(|| line.find("//!")) {
                    Some(at) => line[..at].trim_end(),
                    None => line,
                };
                body.push_str(kept);
                body.push('\n');
            }
            let body = body.trim_end().to_string() + "\n";
            let is_param = |n: &str| inputs.iter().chain(&outputs).any(|(p, _)| p == n);
            let mut pieces = Vec::new();
            let mut last = 0;
            for (token, range) in syntax::lex(&body).0 {
                if token != syntax::Token::Local {
                    continue;
                }
                let (start, end) = (usize::from(range.start()), usize::from(range.end()));
                pieces.push(Piece::Text(body[last..start].to_string()));
                let local = body[start + 1..end].to_string();
                pieces.push(if is_param(&local) {
                    Piece::Param(local)
                } else {
                    Piece::Local(local)
                });
                last = end;
            }
            pieces.push(Piece::Text(body[last..].to_string()));
            found.push(Unit {
                name,
                index,
                inputs,
                outputs,
                body: pieces,
                ops: count_ops(&kernel.body),
            });
        }
    }
    found.sort_by_key(|u| u.index);
    assert_eq!(
        found.len(),
        ORDER.len(),
        "every name in ORDER is a corpus kernel"
    );
    found
}

/// A `.pir` file of exactly `ops` ops in kernels of about `kernel_ops` ops (see the module
/// doc), and its five edits, made in the copy of `attn_fwd_v2` (23 ops) whose first op is
/// nearest the middle op of the file.
///
/// # Panics
/// When `ops` < [`MIN_OPS`] or `kernel_ops` is 0.
pub fn generate(ops: usize, kernel_ops: usize) -> Generated {
    assert!(ops >= MIN_OPS, "at least {MIN_OPS} ops");
    assert!(kernel_ops > 0, "kernels hold at least one op");
    let units = units();

    // Which copies go in which kernel: whole copies in ORDER, skipping those too big for
    // the ops left (only at the very end; one-op kernels close the count).
    let mut kernels: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut current = Vec::new();
    let (mut current_ops, mut left, mut copy) = (0, ops, 0);
    let mut first_op = Vec::new(); // the ordinal of each copy's first op in the file
    let mut copy_unit = Vec::new();
    for unit in units.iter().cycle() {
        if left == 0 {
            break;
        }
        if unit.ops > left {
            continue;
        }
        first_op.push(ops - left);
        copy_unit.push(unit.index);
        current.push((unit.index, copy));
        copy += 1;
        left -= unit.ops;
        current_ops += unit.ops;
        if current_ops >= kernel_ops {
            kernels.push(std::mem::take(&mut current));
            current_ops = 0;
        }
    }
    if !current.is_empty() {
        kernels.push(current);
    }
    let probe = (0..copy)
        .filter(|&c| copy_unit[c] == 0)
        .min_by_key(|&c| first_op[c].abs_diff(ops / 2))
        .expect("an attn_fwd_v2 copy");

    let mut text = format!(
        "// {ops} ops generated by pir-gen (benches/gen) from the corpus kernels: each copy's\n\
         // tensors and loop variables are renamed <name>_c<copy>, each corpus kernel's\n\
         // parameters <name>_u<unit>. Deterministic; see benches/README.md.\n"
    );
    let mut probe_at = 0;
    for (k, copies) in kernels.iter().enumerate() {
        let mut seen = Vec::new();
        for &(u, _) in copies {
            if !seen.contains(&u) {
                seen.push(u);
            }
        }
        seen.sort_unstable();
        let param_list = |pick: fn(&Unit) -> &Vec<(String, String)>| -> String {
            seen.iter()
                .flat_map(|&u| {
                    pick(&units[u])
                        .iter()
                        .map(move |(name, ty)| format!("    %{name}_u{u}: {ty}"))
                })
                .collect::<Vec<_>>()
                .join(",\n")
        };
        text.push_str(&format!(
            "\nkernel @generated_{k}(\n{}\n) -> (\n{}\n) {{\n",
            param_list(|u| &u.inputs),
            param_list(|u| &u.outputs)
        ));
        for (i, &(u, c)) in copies.iter().enumerate() {
            let unit = &units[u];
            if i > 0 {
                text.push('\n');
            }
            if c == probe {
                probe_at = text.len();
            }
            text.push_str(&format!("  // {}, copy {c}\n", unit.name));
            for piece in &unit.body {
                match piece {
                    Piece::Text(t) => text.push_str(t),
                    Piece::Local(name) => text.push_str(&format!("%{name}_c{c}")),
                    Piece::Param(name) => text.push_str(&format!("%{name}_u{u}")),
                }
            }
        }
        text.push_str("}\n");
    }

    let edits = edits(&text, probe_at, probe);
    Generated { text, ops, edits }
}

/// The five edits, in the `attn_fwd_v2` copy `copy` whose text starts at byte `at`.
fn edits(text: &str, at: usize, copy: usize) -> Vec<Edit> {
    let value = at + text[at..].find("operand0 = 1.0").expect("the reciprocal");
    let field = at + text[at..].find("func = exp").expect("the exp activation");
    let insert = whole_line(
        text,
        at,
        &format!("TensorCopyOp {{ dst = %qk_sbuf_c{copy},"),
    );
    let delete = whole_line(text, at, "DmaCopyOp { dst = %kernel_out_u0,");
    let unclosed = whole_line(text, at, &format!("TensorCopyOp {{ dst = %v_t_c{copy},"));
    let brace = unclosed.start + text[unclosed.clone()].rfind('}').expect("one-line op");
    let brace_line = line_of(text, brace);
    let misspelt = Expect::One {
        line: line_of(text, field),
        code_or_message: "P203",
    };
    // The op and the statement after it (a comment, then a one-line MatMulOp).
    let near = Expect::Near {
        first: brace_line,
        last: brace_line + 3,
    };
    let value_end = value + "operand0 = 1.0".len();
    vec![
        Edit::new(EditKind::TypeInValue, value_end, 0, "5", Expect::Clean),
        Edit::new(EditKind::MisspellField, field, 4, "fucn", misspelt),
        Edit::new(
            EditKind::InsertOp,
            insert.start,
            0,
            &text[insert],
            Expect::Clean,
        ),
        Edit::new(
            EditKind::DeleteOp,
            delete.start,
            delete.len(),
            "",
            Expect::Clean,
        ),
        Edit::new(EditKind::UnclosedBrace, brace, 1, "", near),
    ]
}

/// A `.pir` file of exactly `ops` ops written on one line: one kernel whose body is a DMA
/// in, `ops - 2` activations and tensor copies over slices of varied widths (so that no two
/// neighbours read alike), and a DMA out, every op on the kernel's line, as a generator or
/// a careless paste writes them (issue 24: a line is not a unit of work). Its five edits
/// are made in the op nearest the middle; the file has no diagnostic.
///
/// # Panics
/// When `ops` < [`MIN_OPS`].
pub fn generate_one_line(ops: usize) -> Generated {
    assert!(ops >= MIN_OPS, "at least {MIN_OPS} ops");
    let mut text = String::from(
        "kernel @one_line(%x: hbm f32[128, 512]) -> (%y: hbm f32[128, 512]) { \
         tensor %a : sbuf f32[128, 512] tensor %b : sbuf f32[128, 512] \
         DmaCopyOp { dst = %a, src = %x } ",
    );
    let middle = ((ops - 2) / 2) & !1;
    let mut probe = 0;
    for i in 0..ops - 2 {
        let width = 64 + 64 * (i % 7);
        if i == middle {
            probe = text.len();
        }
        if i % 2 == 0 {
            text.push_str(&format!(
                "ActivationOp {{ dst = %b[0:128, 0:{width}], src = %a[0:128, 0:{width}], func = exp, scale = 1.0 }} "
            ));
        } else {
            text.push_str(&format!(
                "TensorCopyOp {{ dst = %b[0:128, 0:{width}], src = %a[0:128, 0:{width}] }} "
            ));
        }
    }
    text.push_str("DmaCopyOp { dst = %y, src = %b } }\n");
    let op_end = |from: usize| from + text[from..].find("} ").expect("an op's end") + 2;
    let value = probe + text[probe..].find("scale = 1.0").expect("the scale") + "scale = 1.0".len();
    let field = probe + text[probe..].find("func = exp").expect("the func");
    let next = op_end(probe);
    let copy = next..op_end(next);
    let brace = copy.end - 2;
    let misspelt = Expect::One {
        line: 0,
        code_or_message: "P203",
    };
    let edits = vec![
        Edit::new(EditKind::TypeInValue, value, 0, "5", Expect::Clean),
        Edit::new(EditKind::MisspellField, field, 4, "fucn", misspelt),
        Edit::new(
            EditKind::InsertOp,
            copy.start,
            0,
            &text[copy.clone()],
            Expect::Clean,
        ),
        Edit::new(
            EditKind::DeleteOp,
            copy.start,
            copy.len(),
            "",
            Expect::Clean,
        ),
        Edit::new(
            EditKind::UnclosedBrace,
            brace,
            1,
            "",
            Expect::Near { first: 0, last: 0 },
        ),
    ];
    Generated { text, ops, edits }
}
