//! The compiler's per-instruction limits, checked on every op after its own rules (SPEC
//! §7.1 [3]): P417, one instruction's SBUF operands together beyond the partition
//! (`[GCA035]`), and P418, an access with more free dims than the engine takes (`Too many
//! strides!`).

use std::fmt::Write as _;

use crate::access::Operand;
use crate::bir::Role;
use crate::catalog::{Dir, Engine};
use crate::cx::Cx;
use crate::diag::{Anchor, Code, Diag, compiler};
use crate::target::Target;
use crate::types::{Memory, limits};

/// Runs P418 on the op of `cx` and returns its SBUF footprint for P417 ([`SbufFootprint`],
/// `None` when it fits every target). Kernel nodes (the callee allocates and tiles) and
/// NoOp are exempt from both.
pub fn check(cx: &mut Cx<'_>) -> Option<Box<SbufFootprint>> {
    if cx.engine == Engine::Unassigned || cx.spec.class == "NoOp" {
        return None;
    }
    let (footprint, diags) = {
        let operands = cx.operand_fields();
        (
            sbuf_footprint(&operands),
            check_free_dims(cx.engine, &operands),
        )
    };
    for diag in diags {
        cx.report(diag);
    }
    footprint
}

/// The operands of an op as [`Cx::operand_fields`] lists them.
type Operands<'a> = [(Dir, crate::diag::ValuePath, Role, &'a Operand)];

/// How many operands a P417 message lists one by one (each is also a related location);
/// the rest are counted.
const LISTED_OPERANDS: usize = 16;

/// What one instruction needs resident in SBUF at once (P417, SPEC §7.1 [3]): the
/// per-partition footprints, in bytes, of the declared tensors of the op's `sbuf` operands
/// (each list element separately, a tensor named twice counted twice, PSUM not summed).
///
/// Kept with the op's lowering, position-free and the same on every target, only when the
/// sum exceeds the smallest physical SBUF partition of [`Target::ALL`] (trn1's 196,608), so
/// that an op that fits every target keeps nothing; [`SbufFootprint::check`] compares it
/// with one target's partition (`docs/decisions.md`: P417 per target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SbufFootprint {
    /// Σ bytes per partition over the counted operands (saturating).
    total: u64,
    /// The largest one operand's bytes per partition.
    largest: u64,
    /// The first [`LISTED_OPERANDS`] operands: where, role, tensor name, bytes per partition.
    listed: Vec<(Anchor, String, String, u64)>,
    /// How many counted operands are not listed.
    more: usize,
}

impl SbufFootprint {
    /// P417 (on the op class name) on `target`: the footprint is over the target's
    /// physical SBUF partition ([`Target::sbuf_physical`]). `None` when it fits, or when an
    /// operand alone is over the usable partition: that is its declaration's P304 (one
    /// mistake, one diagnostic).
    pub fn check(&self, target: Target) -> Option<Diag> {
        let capacity = target.sbuf_physical();
        if self.total <= capacity || self.largest > target.sbuf_usable() {
            return None;
        }
        let total = self.total;
        let mut message = format!(
            "{}\nTotal Accessed Bytes per partition by instruction: {total}\nTotal SB \
             Partition Size: {capacity}",
            compiler::GCA035
        );
        let line = |role: &str, name: &str, bytes: u64| {
            format!("{role} %{name}: {bytes} Bytes per Partition")
        };
        for (_, role, name, bytes) in &self.listed {
            let _ = write!(message, "\n{}", line(role, name, *bytes));
        }
        if self.more > 0 {
            let _ = write!(message, "\n… and {} more operands", self.more);
        }
        let mut diag = Diag::new(Code::P417, Anchor::Class, message);
        diag.names_instruction = true;
        for (anchor, role, name, bytes) in &self.listed {
            diag = diag.with_related(anchor.clone(), line(role, name, *bytes));
        }
        Some(diag)
    }
}

/// The SBUF footprint of an op's operands ([`SbufFootprint`]) when it is over the
/// smallest physical partition of any target, else `None`.
fn sbuf_footprint(operands: &Operands<'_>) -> Option<Box<SbufFootprint>> {
    let sbuf = || {
        operands
            .iter()
            .filter(|(_, _, _, o)| o.tensor.memory == Memory::Sbuf)
    };
    let (total, largest, counted) = sbuf().fold((0u64, 0u64, 0usize), |(sum, max, n), op| {
        let bytes = op.3.tensor.partition_bytes();
        (sum.saturating_add(bytes), max.max(bytes), n + 1)
    });
    let smallest = Target::ALL.iter().map(|t| t.sbuf_physical()).min()?;
    if total <= smallest {
        return None;
    }
    let listed = sbuf()
        .take(LISTED_OPERANDS)
        .map(|(_, path, role, o)| {
            (
                Anchor::Value(path.clone()),
                role.to_string(),
                o.tensor.name.to_string(),
                o.tensor.partition_bytes(),
            )
        })
        .collect::<Vec<_>>();
    Some(Box::new(SbufFootprint {
        total,
        largest,
        more: counted - listed.len(),
        listed,
    }))
}

/// The free pairs of an on-chip access pattern as P418 counts them (SPEC §7.1 [3],
/// decision): the BIR `ap` without its partition pair and its pairs of count 1, each pair
/// `[s_o, n_o]` merged with the pair inside it `[s_i, n_i]` while `s_o = s_i · n_i`;
/// outermost first, steps in elements.
pub fn free_pairs(operand: &Operand) -> Vec<[i64; 2]> {
    let mut pairs: Vec<[i64; 2]> = operand
        .ap()
        .into_iter()
        .skip(1)
        .filter(|[_, n]| *n != 1)
        .collect();
    let mut merged = true;
    while merged {
        merged = false;
        for k in 1..pairs.len() {
            let (Some(&[so, no]), Some(&[si, ni])) = (pairs.get(k - 1), pairs.get(k)) else {
                continue;
            };
            if so == si.saturating_mul(ni) {
                pairs.splice(k - 1..=k, [[si, no.saturating_mul(ni)]]);
                merged = true;
                break;
            }
        }
    }
    pairs
}

/// The compiler's notation of an access pattern, innermost pair first:
/// `{{0,+,1}[32],+,64}[4]` for `[[64, 4], [1, 32]]` at offset 0.
pub fn notation(offset: i64, pairs: &[[i64; 2]]) -> String {
    pairs
        .iter()
        .rev()
        .fold(offset.to_string(), |inner, [step, n]| {
            format!("{{{inner},+,{step}}}[{n}]")
        })
}

/// P418 (on the access): an `sbuf`/`psum` operand of a compute-engine op with more free
/// dims ([`free_pairs`]) than the engine takes: 4, 3 on the Activation engine. DMA-engine
/// ops are exempt; so is an access with an error already.
fn check_free_dims(engine: Engine, operands: &Operands<'_>) -> Vec<Diag> {
    if !engine.is_compute() {
        return Vec::new();
    }
    let most = if engine == Engine::Act {
        limits::MAX_FREE_DIMS_ACTIVATION
    } else {
        limits::MAX_FREE_DIMS
    };
    operands
        .iter()
        .filter(|(_, _, _, o)| o.on_chip() && !o.faulty)
        .filter_map(|(_, path, _, o)| {
            let pairs = free_pairs(o);
            (pairs.len() > most).then(|| {
                let offset = o.offset();
                let base = if offset.is_const() { offset.c } else { 0 };
                let message = format!(
                    "{} {} — {} free dims; the {} engine takes at most {most}",
                    compiler::TOO_MANY_STRIDES,
                    notation(base, &pairs),
                    pairs.len(),
                    engine.bir_name()
                );
                Diag::new(Code::P418, Anchor::Value(path.clone()), message)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_is_innermost_first() {
        assert_eq!(
            notation(0, &[[960, 2], [320, 2], [64, 4], [1, 32]]),
            "{{{{0,+,1}[32],+,64}[4],+,320}[2],+,960}[2]"
        );
        assert_eq!(notation(7, &[]), "7");
    }
}
