//! The cost estimate as the editor shows it (SPEC §10.2.9 [3]): the inlay suffix of an op
//! (` · 512 cyc`, ` · 2 KiB/part`), the section *Cost on ⟨target⟩* of an op's hover, the
//! cost lens title ([`crate::cost::KernelCost::lens`]) and the per-engine table of the
//! kernel-name hover. The suffix and the op hover read only the op's lowering (its
//! estimates for every target are kept with it); the table and the op's share of its
//! engine read the kernel's join.

use std::fmt::Write as _;

use lower::Lowered;
use lower::catalog::Engine;
use lower::cost::{self, Form, InstCost};
use lower::model::ResolvedOp;
use lower::target::Target;

use crate::cost::{COST_ENGINES, KernelCost, half_up, show_time};
use crate::resources::{KernelStats, group};

/// The inlay suffix of an op on `target` (SPEC §10.2.9): ` · ⟨c⟩ cyc`, the cycles of its
/// compute instructions for one execution, or ` · ⟨b⟩/part` for a DMA op, the bytes per
/// partition of its first instruction; `None` when nothing of it is estimated.
pub fn inlay_suffix(op: &ResolvedOp, lowered: &Lowered, target: Target) -> Option<String> {
    let mut cycles: Option<u64> = None;
    for (k, c) in lowered.costs.iter().enumerate() {
        match c {
            InstCost::Compute { cycles: each } => {
                let add = each.get(target.index()).copied().unwrap_or(0);
                cycles = Some(cycles.unwrap_or(0).saturating_add(add));
            }
            InstCost::Dma { .. } if cycles.is_none() => {
                let applied = cost::rule(&op.class, &lowered.instructions, k, target).ok()?;
                let Form::Dma {
                    per_partition: Some(pp),
                    ..
                } = applied.form
                else {
                    return None;
                };
                return Some(format!(" · {}/part", bytes(pp)));
            }
            _ => {}
        }
    }
    cycles.map(|c| format!(" · {} cyc", group(c)))
}

/// Bytes as the inlay suffix writes them: `256 B`, `1 KiB`, `1.5 KiB` (KiB to one decimal,
/// rounded half up, without a trailing `.0`).
fn bytes(b: u64) -> String {
    if b < 1024 {
        return format!("{b} B");
    }
    let tenths = half_up(u128::from(b) * 10, 1024);
    if tenths.is_multiple_of(10) {
        format!("{} KiB", tenths / 10)
    } else {
        format!("{}.{} KiB", tenths / 10, tenths % 10)
    }
}

/// A clock in GHz (`2.8`, `0.96`).
fn ghz(mhz: u64) -> String {
    let text = format!("{}.{:03}", mhz / 1000, mhz % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The hover section *Cost on ⟨target⟩* of an op whose id is `op_id` (SPEC §10.2.9): per
/// instruction, the rule with its values, its time and source, what it costs executed as
/// many times as its loops run, and its share of its engine's busy time in the kernel
/// (`kernel`, when known).
pub fn op_markdown(
    op: &ResolvedOp,
    lowered: &Lowered,
    op_id: u32,
    target: Target,
    kernel: Option<&KernelCost>,
) -> String {
    if lowered.instructions.is_empty() {
        return String::new();
    }
    let mut out = format!("**Cost on {target}** (§10.2)\n\n```text");
    let trips = cost::trips(op);
    for (k, inst) in lowered.instructions.iter().enumerate() {
        let name = format!("I-{op_id}-{k}");
        let head = format!("{name} {} · {}", inst.opcode.name(), inst.engine.bir_name());
        let applied = match lowered.costs.get(k) {
            Some(InstCost::NotEstimated(why)) => Err(*why),
            _ => cost::rule(&op.class, &lowered.instructions, k, target),
        };
        let applied = match applied {
            Ok(a) => a,
            Err(why) => {
                let _ = write!(out, "\n{head} — not estimated: {}", why.reason());
                continue;
            }
        };
        let value = applied.value(target);
        let _ = write!(
            out,
            "\n{head} — {}: {}",
            applied.rule,
            applied.formula(target)
        );
        let busy_ns;
        let total;
        if let Form::Dma { .. } = applied.form {
            let queues = target.dma_queues();
            let _ = write!(
                out,
                " on 1 of {queues} queues → {} of DMA time",
                show_time(half_up(u128::from(value), u128::from(queues) * 1000))
            );
            busy_ns = half_up(
                u128::from(value) * u128::from(trips),
                u128::from(queues) * 1000,
            );
            total = format!("executed {}× → {}", group(trips), show_time(busy_ns));
        } else {
            let mhz = target.clock_mhz(inst.engine).unwrap_or(1);
            let ns = half_up(u128::from(value) * 1000, u128::from(mhz));
            let _ = write!(out, " = {} at {} GHz", show_time(ns), ghz(mhz));
            let cycles = value.saturating_mul(trips);
            busy_ns = half_up(u128::from(cycles) * 1000, u128::from(mhz));
            total = format!(
                "executed {}× → {} cycles = {}",
                group(trips),
                group(cycles),
                show_time(busy_ns)
            );
        }
        out.push('\n');
        if let Some(source) = applied.source {
            let _ = writeln!(out, "  {} {} {}", source.key, source.path, source.lines);
        } else {
            out.push_str("  no published figure (a decision of SPEC §10.2)\n");
        }
        let engine = if inst.opcode == lower::bir::Opcode::DmaCopy {
            Engine::Dma
        } else {
            inst.engine
        };
        let share = kernel
            .and_then(|k| k.engines.iter().find(|e| e.engine == engine))
            .map(|e| {
                format!(
                    ", {} of {}",
                    crate::cost::percent(busy_ns, e.ns),
                    engine.bir_name()
                )
            })
            .unwrap_or_default();
        let _ = write!(out, "  {total}{share}");
    }
    out.push_str("\n```\n");
    out
}

/// The kernel-name hover's cost section (SPEC §10.2.9): the target and its clocks, a row
/// per engine with an estimated instruction (executed, busy cycles or bytes, busy time,
/// share of the bound), the bound, what is not estimated by opcode, and the physical SBUF
/// size beside the usable one.
pub fn kernel_markdown(stats: &KernelStats) -> String {
    let cost = &stats.cost;
    let t = cost.target;
    let clocks: Vec<String> = COST_ENGINES
        .iter()
        .filter_map(|&e| Some(format!("{} {} MHz", e.bir_name(), group(t.clock_mhz(e)?))))
        .collect();
    let mut out = format!(
        "**Cost on {t}** (NeuronCore-{}; {}; DMA {} B/ns × {} queues)\n\n",
        t.neuron_core(),
        clocks.join(", "),
        t.dma_bandwidth(),
        t.dma_queues()
    );
    if !cost.engines.is_empty() {
        out.push_str(
            "| engine | executed | busy cycles | busy | of bound |\n|:--|--:|--:|--:|--:|\n",
        );
        for e in &cost.engines {
            let cycles = match (e.cycles, e.bytes) {
                (Some(c), _) => group(c),
                (None, b) => format!("— ({} B)", group(b.unwrap_or(0))),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {cycles} | {} | {} |",
                e.engine.bir_name(),
                group(e.executed),
                show_time(e.ns),
                cost.share(e.ns)
            );
        }
        out.push('\n');
    }
    match cost.bottleneck {
        Some(b) => {
            let _ = writeln!(
                out,
                "Lower bound ≥ {} ({}-bound): a roofline bound, not a schedule",
                show_time(cost.lower_bound_ns),
                crate::ide::short_name(b)
            );
        }
        None => out.push_str("No estimate: no instruction is estimated\n"),
    }
    if cost.not_estimated > 0 {
        let by: Vec<String> = cost
            .not_estimated_by
            .iter()
            .map(|(name, n)| format!("`{name}` {}", group(*n)))
            .collect();
        let _ = writeln!(
            out,
            "\nNot estimated: {} executed ({})",
            group(cost.not_estimated),
            by.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\nSBUF per partition on {t}: {} usable of {} physical",
        group(t.sbuf_usable()),
        group(t.sbuf_physical())
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_bytes_are_kib_to_one_decimal() {
        assert_eq!(bytes(256), "256 B");
        assert_eq!(bytes(1024), "1 KiB");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(4096), "4 KiB");
        assert_eq!(bytes(2048 + 51), "2 KiB");
        assert_eq!(bytes(2048 + 52), "2.1 KiB");
    }

    #[test]
    fn clocks_in_ghz() {
        assert_eq!(ghz(2800), "2.8");
        assert_eq!(ghz(960), "0.96");
        assert_eq!(ghz(1120), "1.12");
        assert_eq!(ghz(2400), "2.4");
    }
}
