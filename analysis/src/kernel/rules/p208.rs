//! P208: an op id used twice in a kernel (SPEC §3, §7), on the later op's `#id` (or its
//! class name when its id is implicit), related to the first use. An implicit id is the
//! op's 1-based ordinal among all ops of the kernel, written ids included.

use rustc_hash::FxHashMap as HashMap;

use lower::diag::Code;

use super::{Finding, Place, Related};
use crate::db::Db;
use crate::kernel::SplitKernel;
use crate::kernel::summary::{PartIds, part_ids};

/// The P208 findings of a kernel cut into chunks (see [`findings`]), memoized on its
/// parts' [`PartIds`].
#[salsa::tracked(returns(ref))]
pub fn of_split<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> Vec<Finding> {
    findings(&kernel.each(db, part_ids))
}

/// The P208 findings of a kernel whose parts' ids are `parts` (head first). Nothing to
/// look at unless an op has a written id (implicit ids are all different): O(ops) then,
/// O(parts) otherwise.
pub fn findings(parts: &[&PartIds]) -> Vec<Finding> {
    let mut out = Vec::new();
    if parts.iter().all(|p| p.written.is_empty()) {
        return out;
    }
    // Each id's first use: (part, op's place in it).
    let mut first: HashMap<u32, (u32, u32)> = HashMap::default();
    let mut ordinal = 0u32;
    for (part, ids) in (0u32..).zip(parts) {
        let mut written = ids.written.iter().peekable();
        for op in 0..ids.ops {
            ordinal += 1;
            let id = match written.next_if(|w| w.op == op) {
                Some(w) => w.id,
                None => ordinal,
            };
            match first.get(&id) {
                Some(&(first_part, first_op)) => out.push(Finding {
                    code: Code::P208,
                    part,
                    at: Place::OpId(op),
                    message: format!("op id {id} is already used in this kernel"),
                    related: vec![Related {
                        part: first_part,
                        at: Place::OpId(first_op),
                        note: "first used here".to_string(),
                    }],
                    fix: None,
                }),
                None => {
                    first.insert(id, (part, op));
                }
            }
        }
    }
    out
}
