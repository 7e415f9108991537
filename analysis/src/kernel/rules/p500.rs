//! P500: a tensor or register declared but never used (SPEC §7), on the declaration's name.
//! A name is used when any op of the kernel names it, in any field, whatever else is wrong
//! with the use; a parameter is never P500.

use rustc_hash::FxHashSet as HashSet;
use smol_str::SmolStr;

use lower::diag::Code;

use super::{Finding, Place};
use crate::db::Db;
use crate::kernel::SplitKernel;
use crate::kernel::summary::{PartDecls, part_decls};

/// The P500 findings of a kernel cut into chunks (see [`findings`]), memoized on its
/// parts' [`PartDecls`].
#[salsa::tracked(returns(ref))]
pub fn of_split<'db>(db: &'db dyn Db, kernel: SplitKernel<'db>) -> Vec<Finding> {
    findings(&kernel.each(db, part_decls))
}

/// The P500 findings of a kernel whose parts' declarations are `parts` (head first): each
/// part's unused declarations that no later part names. O(the kernel's declarations).
pub fn findings(parts: &[&PartDecls]) -> Vec<Finding> {
    let used_later: HashSet<&str> = parts
        .iter()
        .flat_map(|p| p.uses_before.iter().map(SmolStr::as_str))
        .collect();
    let mut out = Vec::new();
    for (part, decls) in (0u32..).zip(parts) {
        for unused in &decls.unused {
            if used_later.contains(unused.name.as_str()) {
                continue;
            }
            let what = if unused.register {
                "register"
            } else {
                "tensor"
            };
            out.push(Finding {
                code: Code::P500,
                part,
                at: Place::DeclaredName(unused.name.to_string()),
                message: format!("{what} `%{}` is declared but no op uses it", unused.name),
                related: Vec::new(),
                fix: Some(lower::FixHint::DeleteDeclaration),
            });
        }
    }
    out
}
