//! P200: an undefined tensor, register or loop variable (SPEC §7), on the name's use, with
//! a "did you mean" among the names in scope there. Name resolution finds it, with the
//! closest name of its chunk ([`crate::diagnostic::Message::Undefined`]); in a part that
//! continues a kernel the names the kernel's earlier parts put in scope are candidates
//! too, and the document words the finding with the closest of both ([`best`], [`word`]).
//! The closest earlier name is kept per kernel, part and name ([`Cache`], this rule's
//! private cache): an unrolled kernel has tens of thousands of earlier names.

use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap as HashMap;

use lower::diag::FixHint;

/// The message and quick fix of a P200 on `%name`, `suggestion` the closest name in scope;
/// `axis`: the use is in an index expression, where only a loop variable fits, and the
/// message leads with the compiler's `No existing axis {v} found` (SPEC §7.1 [3]).
pub fn word(name: &str, suggestion: Option<&str>, axis: bool) -> (String, Option<FixHint>) {
    let lead = if axis {
        format!("{}: ", lower::diag::compiler::no_existing_axis(name))
    } else {
        String::new()
    };
    match suggestion {
        Some(s) => (
            format!("{lead}`%{name}` is not defined here; did you mean `%{s}`?"),
            Some(FixHint::Replace {
                with: format!("%{s}"),
            }),
        ),
        None => (format!("{lead}`%{name}` is not defined here"), None),
    }
}

/// The closest to `name` of `candidates` (names in scope, without `%`), if any is close
/// enough (`lower::diag::did_you_mean`).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    lower::diag::did_you_mean(name, candidates)
}

/// The suggestion for `name` from the closest name of its chunk (`local`) and of the
/// kernel's earlier parts (`earlier`).
pub fn best<'a>(name: &str, local: Option<&'a str>, earlier: Option<&'a str>) -> Option<&'a str> {
    closest(name, earlier.into_iter().chain(local))
}

/// The closest earlier names of a document's kernels cut into chunks, by (the kernel's
/// index generation, the part, the name); let go of when it holds [`KEPT`] of them.
#[derive(Debug, Default)]
pub struct Cache {
    kept: Mutex<HashMap<(u64, u32, String), Option<String>>>,
}

/// How many suggestions [`Cache`] keeps at most.
const KEPT: usize = 4096;

impl Cache {
    /// The closest earlier name to `name` in part `part` of the kernel whose index has the
    /// generation `generation`: kept, or `compute`d and kept.
    pub fn earlier(
        &self,
        (generation, part, name): (u64, u32, &str),
        compute: impl FnOnce() -> Option<String>,
    ) -> Option<String> {
        let key = (generation, part, name.to_string());
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        kept.unwrap_or_else(|| {
            let found = compute();
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if kept.len() >= KEPT {
                kept.clear();
            }
            kept.insert(key, found.clone());
            found
        })
    }
}
