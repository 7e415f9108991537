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
use crate::types::{Memory, limits};

/// Runs P417 and P418 on the op of `cx`. Kernel nodes (the callee allocates and tiles)
/// and NoOp are exempt.
pub fn check(cx: &mut Cx<'_>) {
    if cx.engine == Engine::Unassigned || cx.spec.class == "NoOp" {
        return;
    }
    let mut diags = Vec::new();
    {
        let operands = cx.operand_fields();
        diags.extend(check_sbuf_total(&operands));
        diags.extend(check_free_dims(cx.engine, &operands));
    }
    for diag in diags {
        cx.report(diag);
    }
}

/// The operands of an op as [`Cx::operand_fields`] lists them.
type Operands<'a> = [(Dir, crate::diag::ValuePath, Role, &'a Operand)];

/// How many operands a P417 message lists one by one (each is also a related location);
/// the rest are counted.
const LISTED_OPERANDS: usize = 16;

/// P417 (on the op class name): the per-partition footprints of the declared tensors of
/// the op's `sbuf` operands (each list element separately, a tensor named twice counted
/// twice, PSUM not summed) beyond the physical SBUF partition. An operand whose tensor
/// alone exceeds SBUF is its declaration's P304 and the op gets no P417.
fn check_sbuf_total(operands: &Operands<'_>) -> Option<Diag> {
    let counted: Vec<(Anchor, String, &str, u64)> = operands
        .iter()
        .filter(|(_, _, _, o)| o.tensor.memory == Memory::Sbuf)
        .map(|(_, path, role, o)| {
            let bytes = o.tensor.partition_bytes();
            (
                Anchor::Value(path.clone()),
                role.to_string(),
                o.tensor.name.as_str(),
                bytes,
            )
        })
        .collect();
    // The lowering is the same on every target (SPEC §10.2: the estimate is kept for each):
    // P417 holds the default target's physical SBUF partition until its diagnostics are
    // kept per target too (`docs/decisions.md`).
    let target = crate::target::Target::default();
    let capacity = target.sbuf_physical();
    if counted
        .iter()
        .any(|(_, _, _, bytes)| *bytes > target.sbuf_usable())
    {
        return None;
    }
    let total = counted
        .iter()
        .fold(0u64, |sum, (_, _, _, bytes)| sum.saturating_add(*bytes));
    if total <= capacity {
        return None;
    }
    let mut message = format!(
        "{}\nTotal Accessed Bytes per partition by instruction: {total}\nTotal SB Partition \
         Size: {capacity}",
        compiler::GCA035
    );
    let line =
        |role: &str, name: &str, bytes: u64| format!("{role} %{name}: {bytes} Bytes per Partition");
    for (_, role, name, bytes) in counted.iter().take(LISTED_OPERANDS) {
        let _ = write!(message, "\n{}", line(role, name, *bytes));
    }
    if counted.len() > LISTED_OPERANDS {
        let _ = write!(
            message,
            "\n… and {} more operands",
            counted.len() - LISTED_OPERANDS
        );
    }
    let mut diag = Diag::new(Code::P417, Anchor::Class, message);
    diag.names_instruction = true;
    for (anchor, role, name, bytes) in counted.into_iter().take(LISTED_OPERANDS) {
        diag = diag.with_related(anchor, line(&role, name, bytes));
    }
    Some(diag)
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
