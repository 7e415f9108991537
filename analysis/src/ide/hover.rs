//! Hover (SPEC §10): on an op, its doc, `codegen…` method and emitted BIR as a JSON block;
//! on a field name, its doc, kind, default and BIR field (on an unknown one, what it is
//! not and the op's fields); on a tensor, register or loop variable, its declaration (and
//! a tensor's bytes per partition); on an access with indices, its shape per iteration and
//! where each dim starts over the loops; on an enum value, dtype or memory space, its
//! meaning.

use lower::catalog::{self, Kind};
use lower::types::{Dtype, Memory};
use syntax::ast::{self, TextRange, TextSize};

use crate::bir::op_instructions;
use crate::db::{Db, SourceFile, file_items, parse};
use crate::document::Document;
use crate::ide::{Site, contains_inclusive, op_at};
use crate::resolve::{Allocation, DefKind, Definition, KernelItems, OpItem};

/// A hover: the range it describes (UTF-8 bytes) and Markdown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverResult {
    /// The hovered range.
    pub range: TextRange,
    /// Markdown content.
    pub markdown: String,
}

/// The hover at `offset` (the document's), if there is something to say; its range in
/// the document's offsets. On the name of a kernel cut into chunks, it tells of the whole
/// kernel.
pub fn hover(db: &dyn Db, doc: &Document, offset: TextSize) -> Option<HoverResult> {
    let (site, at) = Site::at(doc, offset);
    let file = site.source();
    let hover = access_hover(db, file, at)
        .or_else(|| name_hover(db, file, at))
        .or_else(|| type_hover(db, file, at))
        .or_else(|| {
            let (kernel, op) = op_at(db, file, at)?;
            field_hover(op, at).or_else(|| Some(op_hover(db, &site, kernel, op)))
        })?;
    let mut hover = whole_kernel_hover(db, &site, hover);
    hover.range += site.chunk.start;
    Some(hover)
}

/// The most elements of each list (an instruction's arguments, a list value) an op's hover
/// shows: an op with 1,000,000 operands lowered to 295 MB of Markdown in 17.6 s, of which an
/// editor shows the first screens. A real op has a few.
pub const HOVER_LIST_ELEMENTS: usize = 100;

fn op_hover(db: &dyn Db, site: &Site<'_>, kernel: &KernelItems, op: &OpItem) -> HoverResult {
    let file = site.source();
    let range = op.syntax.class.range;
    let Some(spec) = catalog::lookup(&op.resolved.class) else {
        return HoverResult {
            range,
            markdown: format!("**{}**: not an op class", op.resolved.class),
        };
    };
    let op_base = if kernel.continues {
        site.ops_before(db)
    } else {
        0
    };
    let errors = site.errors_from_elsewhere(db);
    let crate::bir::OpInstructions {
        instructions,
        left_out,
    } = op_instructions(
        db,
        file,
        site.chunk.origin,
        (op_base, &errors),
        op,
        HOVER_LIST_ELEMENTS,
    );
    let op_id = if op.op_id_written {
        op.op_id
    } else {
        op.op_id + op_base
    };
    let it = spec
        .instruction_type
        .map(|it| format!(" (IT {it})"))
        .unwrap_or_default();
    // The opcodes this op emits (one of the class's, `Activation` or
    // `ActivationAccumulationOp`), else the class's when it emitted none (an error).
    let mut emitted: Vec<&str> = Vec::new();
    for opcode in instructions
        .iter()
        .filter_map(|i| i.get("opcode").and_then(serde_json::Value::as_str))
    {
        if !emitted.contains(&opcode) {
            emitted.push(opcode);
        }
    }
    let opcode = if spec.opcode.is_empty() {
        "no BIR instruction".to_string()
    } else if emitted.is_empty() {
        format!("`{}`{it}", spec.opcode)
    } else {
        format!("`{}`{it}", emitted.join("`, `"))
    };
    let json = compact_json(&serde_json::Value::Array(instructions));
    // `spec.source` (the seed and SPEC sections) is for engineers, not shown: a user cannot
    // open a seed.
    let mut markdown = format!(
        "**{}** #{} → {opcode}\n\n{}\n\ncompiler method: `{}`\n\n```json\n{json}\n```",
        spec.class,
        op_id,
        spec.doc,
        spec.codegen(),
    );
    if left_out > 0 {
        markdown.push_str(&format!(
            "\n\n*… {left_out} more list elements left out (arguments, list values: the \
             first {HOVER_LIST_ELEMENTS} of each list are shown); `pir lower` writes them all.*"
        ));
    }
    // The cost (SPEC §10.2.9), with the op's share of its kernel's engines: the kernel's
    // join, over its parts when it is cut into chunks.
    let split;
    let stats = if kernel.continues || kernel.goes_on {
        let head = if kernel.continues {
            site.doc.head(site.index)
        } else {
            site.index
        };
        split = site.doc.split_stats(db, head);
        Some(&split)
    } else {
        file_items(db, file)
            .kernels
            .iter()
            .position(|k| std::ptr::eq(k, kernel))
            .and_then(|i| crate::kernel::stats::kernel_stats(db, file).get(i))
            .and_then(Option::as_ref)
    };
    let cost = super::op_cost_markdown(
        &op.resolved,
        crate::db::lowering(db, file, op),
        op_id,
        db.settings().target(db),
        stats.map(|s| &s.cost),
    );
    if !cost.is_empty() {
        markdown.push_str("\n\n");
        markdown.push_str(cost.trim_end());
    }
    HoverResult { range, markdown }
}

fn field_hover(op: &OpItem, offset: TextSize) -> Option<HoverResult> {
    let spec = catalog::lookup(&op.resolved.class)?;
    for field in &op.syntax.fields {
        let field_spec = spec.field(&field.name.text);
        if contains_inclusive(field.name.range, offset) {
            let Some(field_spec) = field_spec else {
                let names: Vec<&str> = spec.fields.iter().map(|f| f.name).collect();
                let suggestion = lower::diag::did_you_mean(&field.name.text, names.iter().copied())
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                return Some(HoverResult {
                    range: field.name.range,
                    markdown: format!(
                        "`{}` is not a field of **{}**{suggestion}\n\nits fields: {}",
                        field.name.text,
                        spec.class,
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            };
            let default = match field_spec.default {
                catalog::Default::Required => "required".to_string(),
                catalog::Default::Absent => "optional".to_string(),
                default => format!("default: `{}`", default.describe()),
            };
            let markdown = format!(
                "**{}**.`{}`: {}\n\n{default} · BIR: {}\n\n{}",
                spec.class,
                field_spec.name,
                field_spec.kind.describe(),
                field_spec.bir,
                field_spec.doc
            );
            return Some(HoverResult {
                range: field.name.range,
                markdown,
            });
        }
        let Some(value) = &field.value else { continue };
        if !contains_inclusive(value.range, offset) {
            continue;
        }
        let (ident, range) = ident_at(value, offset)?;
        let kind = field_spec.map(|f| f.kind);
        let markdown = match kind {
            Some(Kind::Enum(e)) | Some(Kind::List(&Kind::Enum(e))) => {
                let Some(v) = e.get(ident) else {
                    // Not one of its values (P207): the values, not the whole op.
                    let values = e.values.iter().map(|v| v.text);
                    let suggestion = lower::diag::did_you_mean(ident, values.clone())
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                    let all: Vec<String> = values.map(|v| format!("`{v}`")).collect();
                    return Some(HoverResult {
                        range,
                        markdown: format!(
                            "`{ident}` is not a value of `{}` ({}){suggestion}\n\nits values: {}",
                            field.name.text,
                            e.name,
                            all.join(", ")
                        ),
                    });
                };
                let bir = format!("`{}`", v.bir);
                // A doc that already names the BIR spelling is not followed by it again.
                if v.doc.contains(&bir) {
                    format!("`{}` ({}): {}", v.text, e.name, v.doc)
                } else {
                    format!("`{}` ({}): {} — BIR {bir}", v.text, e.name, v.doc)
                }
            }
            Some(Kind::Dtype) => Dtype::from_name(ident)?.doc(),
            _ => return None,
        };
        return Some(HoverResult { range, markdown });
    }
    None
}

/// The bare identifier under `offset` inside a value (lists searched).
fn ident_at(value: &ast::Value, offset: TextSize) -> Option<(&str, TextRange)> {
    match &value.kind {
        ast::ValueKind::Ident(s) if contains_inclusive(value.range, offset) => {
            Some((s, value.range))
        }
        ast::ValueKind::List(items) => items.iter().find_map(|v| ident_at(v, offset)),
        _ => None,
    }
}

/// On an access with indices in an op's field (`%a[%m*128 : %m*128 + 128, :]`, in a list
/// too): the access as written, its shape in one iteration of the enclosing loops, its
/// tensor, and for each dim how many elements it takes, from where, and where that start
/// goes over the loops.
fn access_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    use lower::model::{Target, Value};
    let (_, op) = op_at(db, file, offset)?;
    let (i, field) = op.syntax.fields.iter().enumerate().find(|(_, f)| {
        f.value
            .as_ref()
            .is_some_and(|v| contains_inclusive(v.range, offset))
    })?;
    let value = field.value.as_ref()?;
    let model = &op.resolved.fields.get(i)?.value;
    let (written, model) = match (&value.kind, model) {
        (ast::ValueKind::List(items), Value::List(models)) => items
            .iter()
            .zip(models)
            .find(|(v, _)| contains_inclusive(v.range, offset))?,
        _ => (value, model),
    };
    let (ast::ValueKind::Access(syntax_access), Value::Access(access)) = (&written.kind, model)
    else {
        return None;
    };
    // A bare name is the whole tensor: its declaration says it all (`name_hover`).
    syntax_access.indices.as_ref()?;
    let Target::Tensor(tensor) = &access.target else {
        return None;
    };
    let loops = &op.resolved.loops;
    let path = lower::diag::ValuePath::field(i);
    let operand = lower::access::evaluate(access, tensor, loops, &path, &mut Vec::new())?;
    let shape: Vec<String> = operand.shape().iter().map(u64::to_string).collect();
    let elements = operand
        .shape()
        .iter()
        .try_fold(1u64, |n, c| n.checked_mul(*c))
        .map_or(String::new(), |n| format!(" = {n} elements"));
    let dims: Vec<String> = tensor.dims.iter().map(u64::to_string).collect();
    let mut markdown = format!(
        "access of `%{}` : {} {}[{}]\n\nshape **[{}]**{elements} per iteration",
        tensor.name,
        tensor.memory.name(),
        tensor.dtype.name(),
        dims.join(", "),
        shape.join(", "),
    );
    for (d, dim) in operand.dims.iter().enumerate() {
        let what = if dim.kept { "" } else { " (dropped)" };
        let step = if dim.step == 1 {
            String::new()
        } else {
            format!(" step {}", dim.step)
        };
        let start = affine_text(&dim.start);
        let over = start_range(&dim.start, loops)
            .filter(|_| !dim.start.is_const())
            .map(|(lo, hi)| format!("; it starts at {lo} … {hi} over the loops"))
            .unwrap_or_default();
        markdown.push_str(&format!(
            "\n* dim {d}{what}: {} from `{start}`{step}{over}",
            dim.count
        ));
    }
    if operand.faulty {
        markdown.push_str("\n\n(the access has an error)");
    }
    Some(HoverResult {
        range: written.range,
        markdown,
    })
}

/// An affine start as people write it: `128·%m + 4`, `0`.
fn affine_text(a: &lower::access::Affine) -> String {
    let mut parts: Vec<String> = a
        .terms
        .iter()
        .map(|(var, k)| match k {
            1 => format!("%{var}"),
            -1 => format!("-%{var}"),
            k => format!("{k}·%{var}"),
        })
        .collect();
    if a.c != 0 || parts.is_empty() {
        parts.push(a.c.to_string());
    }
    parts.join(" + ").replace("+ -", "- ")
}

/// The least and greatest value of `a` over the iterations of `loops`, `None` when a loop
/// it reads has no iterations or invalid bounds (or on overflow).
fn start_range(a: &lower::access::Affine, loops: &[lower::model::LoopVar]) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (a.c, a.c);
    for (var, k) in &a.terms {
        let (first, last) = loops.iter().rev().find(|l| &l.name == var)?.first_last()?;
        let (x, y) = (k.checked_mul(first)?, k.checked_mul(last)?);
        lo = lo.checked_add(x.min(y))?;
        hi = hi.checked_add(x.max(y))?;
    }
    Some((lo, hi))
}

fn name_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let items = file_items(db, file);
    let (range, def) = items
        .definitions
        .iter()
        .find(|d| !d.prelude && contains_inclusive(d.range, offset))
        .map(|d| (d.range, d))
        .or_else(|| {
            items
                .references
                .iter()
                .find(|(r, _)| contains_inclusive(*r, offset))
                .and_then(|(r, d)| Some((*r, items.definitions.get(*d)?)))
        })?;
    Some(HoverResult {
        range,
        markdown: describe_definition(db, file, def),
    })
}

fn describe_definition(db: &dyn Db, file: SourceFile, def: &Definition) -> String {
    let items = file_items(db, file);
    let kernel = items
        .kernels
        .iter()
        .zip(parse(db, file).file.kernels.iter())
        .find(|(_, k)| k.range.contains_range(def.range))
        .map(|(k, _)| k);
    // The kernel's allocation of the name: its earlier chunks' first (the entry's), else
    // this chunk's.
    let entry = file
        .entry(db)
        .as_deref()
        .filter(|_| kernel.is_some_and(|k| k.continues));
    let earlier = entry
        .and_then(|e| e.prelude.iter().find(|p| p.name == def.name))
        .and_then(|p| p.allocation.as_ref());
    let allocation = earlier.or_else(|| {
        kernel.and_then(|k| {
            k.allocations.iter().find(|a| match a {
                Allocation::Tensor(t) => t.name == def.name,
                Allocation::Register(r) => r.name == def.name,
            })
        })
    });
    match (def.kind, allocation) {
        (DefKind::Kernel, _) => describe_kernel(db, file, def),
        (DefKind::Param | DefKind::Tensor, Some(Allocation::Tensor(t))) => {
            let what = if def.kind == DefKind::Param {
                "parameter"
            } else {
                "tensor"
            };
            let dims: Vec<String> = t.dims.iter().map(u64::to_string).collect();
            let mut text = format!(
                "{what} `%{}` : {} {}[{}]",
                t.name,
                t.memory.name(),
                t.dtype.name(),
                dims.join(", ")
            );
            match db.settings().target(db).capacity(t.memory) {
                Some(capacity) => {
                    let bytes = t.partition_bytes();
                    let percent = bytes as f64 * 100.0 / capacity as f64;
                    text.push_str(&format!(
                        "\n\n{bytes} bytes per partition of {capacity} ({percent:.1}%), {} partitions",
                        t.dims.first().copied().unwrap_or(1)
                    ));
                }
                None => text.push_str(&format!(
                    "\n\n{} bytes",
                    t.partition_bytes()
                        .saturating_mul(t.dims.first().copied().unwrap_or(1))
                )),
            }
            text
        }
        (DefKind::Register, Some(Allocation::Register(r))) => {
            format!(
                "register `%{}` : {} (one 32-bit scalar)",
                r.name,
                r.dtype.name()
            )
        }
        (DefKind::LoopVar, _) => describe_loop_var(db, file, def),
        _ => format!("`%{}` (its declaration has an error)", def.name),
    }
}

/// A kernel: its signature as written, what its body holds, and its resources (SPEC
/// §10.1: counts per engine, SBUF/PSUM peaks).
fn describe_kernel(db: &dyn Db, file: SourceFile, def: &Definition) -> String {
    let parsed = &parse(db, file).file;
    let Some((index, kernel)) = parsed
        .kernels
        .iter()
        .enumerate()
        .find(|(_, k)| k.name.as_ref().is_some_and(|n| n.range == def.range))
    else {
        return format!("kernel `@{}`", def.name);
    };
    let parts: Vec<&KernelItems> = file_items(db, file)
        .kernels
        .get(index)
        .into_iter()
        .collect();
    let stats = crate::kernel::stats::kernel_stats(db, file)
        .get(index)
        .and_then(Option::as_ref);
    kernel_markdown(file.text(db), kernel, &parts, stats)
}

/// The hover of kernel `syntax` (its header in `text`) made of `parts` (one, or its parts
/// in the chunks of a kernel cut into chunks), with its resources.
fn kernel_markdown(
    text: &str,
    syntax: &ast::Kernel,
    parts: &[&KernelItems],
    stats: Option<&crate::KernelStats>,
) -> String {
    let params = |params: &[ast::Param]| {
        let shown: Vec<String> = params
            .iter()
            .map(|p| format!("`{}`", &text[p.range]))
            .collect();
        if shown.is_empty() {
            "none".to_string()
        } else {
            shown.join(", ")
        }
    };
    let name = syntax.name.as_ref().map_or("", |n| n.text.as_str());
    let mut markdown = format!(
        "kernel `@{name}` (a BIR function)\n\ninputs: {}\n\noutputs: {}",
        params(&syntax.params),
        params(&syntax.outputs)
    );
    if !parts.is_empty() {
        fn count(items: &[crate::resolve::Item], ops: &mut usize, loops: &mut usize) {
            for item in items {
                match item {
                    crate::resolve::Item::Op(_) => *ops += 1,
                    crate::resolve::Item::Loop(l) => {
                        *loops += 1;
                        count(&l.body, ops, loops);
                    }
                }
            }
        }
        let (mut ops, mut loops) = (0, 0);
        for part in parts {
            count(&part.body, &mut ops, &mut loops);
        }
        let registers = parts
            .iter()
            .flat_map(|p| &p.allocations)
            .filter(|a| matches!(a, Allocation::Register(_)))
            .count();
        let tensors = parts
            .iter()
            .flat_map(|p| &p.allocations)
            .filter(|a| matches!(a, Allocation::Tensor(_)))
            .count()
            .saturating_sub(syntax.params.len() + syntax.outputs.len());
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let declared = match (tensors, registers) {
            (0, 0) => "nothing".to_string(),
            (t, 0) => plural(t, "tensor"),
            (0, r) => plural(r, "register"),
            (t, r) => format!("{} and {}", plural(t, "tensor"), plural(r, "register")),
        };
        markdown.push_str(&format!(
            "\n\n{}, {}; {declared} declared",
            plural(ops, "op"),
            plural(loops, "loop"),
        ));
    }
    if let Some(stats) = stats {
        markdown.push_str("\n\n");
        markdown.push_str(super::resources_markdown(stats).trim_end());
        markdown.push_str("\n\n");
        markdown.push_str(super::cost_markdown(stats).trim_end());
    }
    markdown
}

/// `hover` (relative to the chunk of `site`), made the whole kernel's when it is on the
/// name of a kernel that goes on into the next chunks.
fn whole_kernel_hover(db: &dyn Db, site: &Site<'_>, mut hover: HoverResult) -> HoverResult {
    if !site.chunk.context.goes_on {
        return hover;
    }
    let parsed = &parse(db, site.source()).file;
    let Some(syntax) = parsed.kernels.last().filter(|k| k.goes_on) else {
        return hover;
    };
    if syntax.name.as_ref().map(|n| n.range) != Some(hover.range) {
        return hover;
    }
    let parts = crate::bir::kernel_parts(db, site.doc, site.index);
    let kernels: Vec<&KernelItems> = parts.iter().map(|p| p.kernel).collect();
    let stats = site.doc.split_stats(db, site.index);
    hover.markdown = kernel_markdown(site.source().text(db), syntax, &kernels, Some(&stats));
    hover
}

/// A loop variable: its loop's bounds, the values it takes and the BIR loop axis.
fn describe_loop_var(db: &dyn Db, file: SourceFile, def: &Definition) -> String {
    fn find<'a>(
        items: &'a [crate::resolve::Item],
        def: &Definition,
    ) -> Option<&'a crate::resolve::LoopItem> {
        items.iter().find_map(|item| match item {
            crate::resolve::Item::Loop(l) if l.range.contains_range(def.range) => {
                if l.var.name == def.name && find(&l.body, def).is_none() {
                    Some(l)
                } else {
                    find(&l.body, def)
                }
            }
            _ => None,
        })
    }
    let found = file_items(db, file)
        .kernels
        .iter()
        .find_map(|k| find(&k.body, def));
    let Some(l) = found else {
        return format!("loop variable `%{}`", def.name);
    };
    let Some((lb, ub, step)) = l.var.bounds else {
        return format!(
            "loop variable `%{}` (BIR loop `{}`; its bounds have an error)",
            def.name, l.bir_name
        );
    };
    let step_text = if step == 1 {
        String::new()
    } else {
        format!(" step {step}")
    };
    let values = match l.var.first_last() {
        Some((first, last)) => {
            let trips = l.var.trip_count();
            match trips {
                1 => format!("1 iteration: `%{}` = {first}", def.name),
                2 => format!("2 iterations: `%{}` = {first}, {last}", def.name),
                _ => format!(
                    "{trips} iterations: `%{}` = {first}, {}, …, {last}",
                    def.name,
                    first + step
                ),
            }
        }
        None => "no iterations".to_string(),
    };
    format!(
        "loop variable `%{}` in `{lb}..{ub}`{step_text}\n\n{values} (BIR loop `{}`, axis `{}`)",
        def.name, l.bir_name, def.name
    )
}

/// `value` as pretty JSON that stays readable in a hover: an array of numbers, strings or
/// such arrays (an access pattern's `[[step, num], …]`) is written on one line when it is
/// short; numbers are written as `pir lower` writes them (`1.0` stays `1.0`).
pub fn compact_json(value: &serde_json::Value) -> String {
    use serde_json::Value;
    fn flat(v: &Value) -> bool {
        match v {
            Value::Array(items) => items
                .iter()
                .all(|i| !i.is_object() && !i.is_array() || flat(i)),
            Value::Object(_) => false,
            _ => true,
        }
    }
    fn write(v: &Value, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent + 1);
        match v {
            Value::Array(items) if items.is_empty() => out.push_str("[]"),
            Value::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Value::Array(items) => {
                fn inline(v: &Value) -> String {
                    match v {
                        Value::Array(items) => {
                            let items: Vec<String> = items.iter().map(inline).collect();
                            format!("[{}]", items.join(", "))
                        }
                        scalar => scalar.to_string(),
                    }
                }
                let inline = inline(v);
                if flat(v) && inline.len() <= 60 {
                    out.push_str(&inline);
                    return;
                }
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&pad);
                    write(item, indent + 1, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push(']');
            }
            Value::Object(fields) => {
                out.push_str("{\n");
                for (i, (key, item)) in fields.iter().enumerate() {
                    out.push_str(&pad);
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push_str(": ");
                    write(item, indent + 1, out);
                    out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push('}');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    write(value, 0, &mut out);
    out
}

/// Hover on the memory space or dtype of a type annotation.
fn type_hover(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<HoverResult> {
    let ty = find_type(&parse(db, file).file, offset)?;
    if contains_inclusive(ty.memory.range, offset) {
        let memory = Memory::from_name(&ty.memory.text)?;
        return Some(HoverResult {
            range: ty.memory.range,
            markdown: format!("`{}`: {}", memory.name(), memory.doc()),
        });
    }
    let dtype = ty
        .dtype
        .as_ref()
        .filter(|d| contains_inclusive(d.range, offset))?;
    Some(HoverResult {
        range: dtype.range,
        markdown: Dtype::from_name(&dtype.text)?.doc(),
    })
}

fn find_type(file: &ast::SourceFile, offset: TextSize) -> Option<&ast::TypeRef> {
    fn in_stmts(stmts: &[ast::Stmt], offset: TextSize) -> Option<&ast::TypeRef> {
        stmts.iter().find_map(|s| match s {
            ast::Stmt::Tensor(t) => {
                t.ty.as_ref()
                    .filter(|ty| contains_inclusive(ty.range, offset))
            }
            ast::Stmt::Loop(l) => in_stmts(&l.body, offset),
            _ => None,
        })
    }
    file.kernels.iter().find_map(|k| {
        k.params
            .iter()
            .chain(&k.outputs)
            .filter_map(|p| p.ty.as_ref())
            .find(|ty| contains_inclusive(ty.range, offset))
            .or_else(|| in_stmts(&k.body, offset))
    })
}

#[cfg(test)]
mod tests;
