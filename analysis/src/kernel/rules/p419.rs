//! P419: a kernel output (a parameter after `->`) that no executed op writes (SPEC §7.1
//! [3]; NKI: "A tensor was either passed as an output parameter to kernel but never written
//! to"), a warning on the parameter's name. An op writes a name when an output operand
//! names it in any access, whatever else is wrong with it; an op inside a loop that runs 0
//! times writes nothing, and the message says so where that is the only write. Partial
//! coverage is not checked; a kernel without outputs is never P419.

use rustc_hash::FxHashSet as HashSet;
use smol_str::SmolStr;

use lower::diag::Code;

use super::{Finding, Place, Related};
use crate::db::Db;
use crate::kernel::SplitKernel;
use crate::kernel::summary::{PartWrites, part_writes};

/// The P419 findings of a kernel cut into chunks (see [`findings`]), memoized on its
/// parts' [`PartWrites`].
#[salsa::tracked(returns(ref))]
pub fn of_split<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> Vec<Finding> {
    findings(&kernel.each(db, part_writes))
}

/// The P419 findings of a kernel whose parts' writes are `parts` (head first), in
/// signature order. O(the kernel's written names).
pub fn findings(parts: &[&PartWrites]) -> Vec<Finding> {
    let Some(head) = parts.first() else {
        return Vec::new();
    };
    if head.outputs.is_empty() {
        return Vec::new();
    }
    let written: HashSet<&str> = parts
        .iter()
        .flat_map(|p| p.written.iter().map(SmolStr::as_str))
        .collect();
    let mut out = Vec::new();
    for output in &head.outputs {
        if written.contains(output.as_str()) {
            continue;
        }
        // The first op, in source order, that would write it but is in a loop that never runs.
        let in_empty_loop = (0u32..).zip(parts).find_map(|(part, p)| {
            let i = p
                .written_in_empty_loops
                .binary_search_by(|(n, _)| n.as_str().cmp(output))
                .ok()?;
            p.written_in_empty_loops.get(i).map(|(_, op)| (part, *op))
        });
        let mut message = format!("output `%{output}` is never written");
        let mut related = Vec::new();
        if let Some((part, op)) = in_empty_loop {
            message.push_str("; the only write is inside a loop that runs 0 times");
            related.push(Related {
                part,
                at: Place::OpId(op),
                note: format!("writes `%{output}`, in a loop that runs 0 times"),
            });
        }
        out.push(Finding {
            code: Code::P419,
            part: 0,
            at: Place::DeclaredName(output.to_string()),
            message,
            related,
            fix: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes(outputs: &[&str], written: &[&str], empty: &[(&str, u32)]) -> PartWrites {
        PartWrites {
            outputs: outputs.iter().map(SmolStr::new).collect(),
            written: written.iter().map(SmolStr::new).collect(),
            written_in_empty_loops: empty.iter().map(|(s, n)| (SmolStr::new(s), *n)).collect(),
        }
    }

    #[test]
    fn an_output_written_in_a_later_part_is_written() {
        let head = writes(&["y", "z"], &[], &[]);
        let tail = writes(&[], &["y"], &[("z", 3)]);
        let found = findings(&[&head, &tail]);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.at, Place::DeclaredName("z".into()));
        assert_eq!(
            f.message,
            "output `%z` is never written; the only write is inside a loop that runs 0 times"
        );
        assert_eq!(f.related[0].part, 1);
        assert_eq!(f.related[0].at, Place::OpId(3));
    }

    #[test]
    fn a_kernel_without_outputs_is_never_diagnosed() {
        assert!(findings(&[&writes(&[], &[], &[])]).is_empty());
        assert!(findings(&[]).is_empty());
    }
}
