//! P501: an op reads a tensor that no op earlier in source order (loop bodies included)
//! or parameter wrote (SPEC §7), at the first read. One verdict per name, restated over
//! the parts of its kernel (each part one chunk's share of the kernel, 0-based):
//! * a parameter (an input or output, written before any op) is never read before written;
//! * a name a part declares as a tensor is reported at the first part that reads it before
//!   writing it ([`NameUse::read_first`]), unless an earlier part writes it;
//! * a name no part declares (nothing ever writes it) at the first part that reads it.
//!
//! Each name's verdict depends only on its own uses, so an index from each name to the
//! parts that use it can be brought up to date part by part: an edit in one part costs the
//! names whose uses changed there, not the kernel's names. [`Cache`] keeps that index for
//! each kernel cut into chunks, across revisions, outside salsa (the old salsa join was
//! O(the kernel's names) whenever one part's names changed: 14.7 of a 15 ms deletion at
//! 100,000 unrolled ops, `docs/decisions.md`); it is this rule's private cache.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap as HashMap;

use lower::diag::Code;

use super::{Finding, Place};
use crate::db::SourceFile;
use crate::kernel::summary::PartReads;

/// The P501 findings of a kernel whose parts' reads are `parts` (head first). O(the
/// kernel's names).
pub fn findings(parts: &[&Arc<PartReads>]) -> Vec<Finding> {
    if let [part] = parts {
        // One part: each name's verdict from its one use, without an index or a sort.
        let mut flags: HashMap<&str, u8> = HashMap::default();
        for (name, f) in unsorted_flags(part) {
            *flags.entry(name).or_default() |= f;
        }
        let mut out: Vec<Finding> = part
            .names
            .iter()
            .filter_map(|u| {
                let f = *flags.get(u.name.as_str())?;
                verdict(&[(0, f)]).map(|p| finding(p, &u.name))
            })
            .collect();
        out.dedup();
        return out;
    }
    Index::new(parts.iter().map(|p| Arc::clone(p)).collect()).findings()
}

/// The finding for `name` in `part`.
fn finding(part: u32, name: &str) -> Finding {
    Finding {
        code: Code::P501,
        part,
        at: Place::FirstRead(name.to_string()),
        message: format!("`%{name}` is read here before any op writes it"),
        related: Vec::new(),
        fix: None,
    }
}

/// The [`Index`] of each kernel cut into chunks of a document, by the kernel's first chunk,
/// brought up to date by the gathering that reads it (see the module docs). Shared by the
/// document's snapshots; the database is read before an index changes, so a cancelled
/// gathering leaves it as it was.
#[derive(Debug, Default)]
pub struct Cache {
    kernels: Mutex<HashMap<SourceFile, Kept>>,
}

/// A kernel's index, and the chunks and generations it was made from.
#[derive(Debug)]
struct Kept {
    chunks: Vec<SourceFile>,
    generations: Vec<u64>,
    index: Index,
}

impl Cache {
    /// The P501 findings of the kernel cut into chunks whose chunks are `chunks` (head
    /// first), at `generations` (each chunk's, `Document::generations`),
    /// `reads(p)` its part `p`'s reads. The parts whose chunk has a new generation since
    /// the index was brought up to date are read again (O(their names)); a kernel whose
    /// chunks changed is indexed anew (O(its names)).
    pub fn findings(
        &self,
        chunks: &[SourceFile],
        generations: &[u64],
        reads: impl Fn(usize) -> Arc<PartReads>,
    ) -> Vec<Finding> {
        let Some(&head) = chunks.first() else {
            return Vec::new();
        };
        let mut kernels = self.kernels.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = kernels.get_mut(&head).filter(|k| k.chunks == chunks);
        if let Some(kept) = kept {
            let stale: Vec<usize> = (0..chunks.len())
                .filter(|&p| kept.generations.get(p) != generations.get(p))
                .collect();
            let fresh: Vec<Arc<PartReads>> = stale.iter().map(|&p| reads(p)).collect();
            for (p, part) in stale.into_iter().zip(fresh) {
                kept.index.update(p, part);
            }
            kept.generations = generations.to_vec();
            return kept.index.findings();
        }
        let parts = (0..chunks.len()).map(&reads).collect();
        let index = Index::new(parts);
        let findings = index.findings();
        kernels.insert(
            head,
            Kept {
                chunks: chunks.to_vec(),
                generations: generations.to_vec(),
                index,
            },
        );
        findings
    }

    /// Lets go of the indexes of kernels whose first chunk is not in `heads`.
    pub fn retain(&self, heads: &[SourceFile]) {
        let mut kernels = self.kernels.lock().unwrap_or_else(PoisonError::into_inner);
        if kernels.len() > heads.len() {
            kernels.retain(|head, _| heads.contains(head));
        }
    }
}

/// The part reads the name.
const READ: u8 = 1;
/// The part reads the name before it first writes it.
const READ_FIRST: u8 = 2;
/// The part writes the name.
const WRITE: u8 = 4;
/// The part declares the name as a tensor (or has it as a parameter).
const TENSOR: u8 = 8;
/// The name is a parameter that is an input or output.
const PARAM: u8 = 16;

/// Each name of `reads` with what the part does with it (the flags above), sorted by name.
fn flags(reads: &PartReads) -> Vec<(&str, u8)> {
    let mut out = unsorted_flags(reads);
    out.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.dedup_by(|b, a| {
        let same = a.0 == b.0;
        if same {
            a.1 |= b.1;
        }
        same
    });
    out
}

/// The flags of `reads` a name at a time: a name may come more than once (a tensor the
/// part declares and names), in no order.
fn unsorted_flags(reads: &PartReads) -> Vec<(&str, u8)> {
    reads
        .names
        .iter()
        .map(|name_use| {
            let mut f = 0;
            if name_use.read {
                f |= READ;
            }
            if name_use.written {
                f |= WRITE;
            }
            if name_use.read && name_use.read_first {
                f |= READ_FIRST;
            }
            (name_use.name.as_str(), f)
        })
        .chain(reads.tensors.iter().map(|t| (t.as_str(), TENSOR)))
        .chain(reads.params.iter().map(|p| (p.as_str(), PARAM)))
        .collect()
}

/// One name's uses: each part that uses it (index among the kernel's chunks) with the
/// flags, sorted by part; and the part its P501 is reported at.
#[derive(Clone, Debug, Default)]
struct Uses {
    parts: Vec<(u32, u8)>,
    finding: Option<u32>,
}

impl Uses {
    /// The part P501 reports the name at (see the module's rule), if any.
    fn verdict(&self) -> Option<u32> {
        verdict(&self.parts)
    }
}

/// The part P501 reports a name at, the name used by `parts` (each part with its flags, by
/// part), if any: the module's rule.
fn verdict(parts: &[(u32, u8)]) -> Option<u32> {
    let all = parts.iter().fold(0, |acc, (_, f)| acc | f);
    if all & PARAM != 0 {
        return None;
    }
    if all & TENSOR == 0 {
        return parts.iter().find(|(_, f)| f & READ != 0).map(|p| p.0);
    }
    let first = parts.iter().find(|(_, f)| f & READ_FIRST != 0)?.0;
    let written = parts.iter().find(|(_, f)| f & WRITE != 0);
    match written {
        Some(&(w, _)) if w < first => None,
        _ => Some(first),
    }
}

/// The P501 verdict of every name of a kernel, by the parts that use it (see the module
/// docs).
#[derive(Debug, Default)]
struct Index {
    /// Each part's reads as indexed, head first.
    parts: Vec<Arc<PartReads>>,
    names: HashMap<Box<str>, Uses>,
    /// The findings: (part, name), in the order P501 is reported.
    findings: BTreeSet<(u32, Box<str>)>,
}

impl Index {
    /// The index of a kernel whose parts' reads are `parts` (head first). O(the kernel's
    /// names).
    fn new(parts: Vec<Arc<PartReads>>) -> Self {
        let mut index = Index {
            parts: Vec::with_capacity(parts.len()),
            ..Index::default()
        };
        for (p, reads) in parts.iter().enumerate() {
            for (name, f) in flags(reads) {
                let uses = index.names.entry(name.into()).or_default();
                uses.parts.push((p as u32, f));
            }
        }
        for (name, uses) in &mut index.names {
            uses.finding = uses.verdict();
            if let Some(p) = uses.finding {
                index.findings.insert((p, name.clone()));
            }
        }
        index.parts = parts;
        index
    }

    /// Sets part `p`'s reads: the uses of the names whose flags changed there, and their
    /// verdicts. O(the part's names + the changed names' parts).
    fn update(&mut self, p: usize, reads: Arc<PartReads>) {
        let Some(old) = self.parts.get(p) else {
            return;
        };
        if Arc::ptr_eq(old, &reads) || **old == *reads {
            return;
        }
        let old = flags(old);
        let new = flags(&reads);
        let mut changed: Vec<(&str, u8)> = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            let order = match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) => a.0.cmp(b.0),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match (order, old.get(i), new.get(j)) {
                (std::cmp::Ordering::Less, Some(&(name, _)), _) => {
                    changed.push((name, 0));
                    i += 1;
                }
                (std::cmp::Ordering::Greater, _, Some(&n)) => {
                    changed.push(n);
                    j += 1;
                }
                (std::cmp::Ordering::Equal, Some(&(_, before)), Some(&n)) => {
                    if before != n.1 {
                        changed.push(n);
                    }
                    i += 1;
                    j += 1;
                }
                _ => break,
            }
        }
        let part = p as u32;
        for (name, f) in changed {
            let uses = self.names.entry(name.into()).or_default();
            match uses.parts.binary_search_by_key(&part, |u| u.0) {
                Ok(at) if f == 0 => {
                    uses.parts.remove(at);
                }
                Ok(at) => {
                    if let Some(u) = uses.parts.get_mut(at) {
                        u.1 = f;
                    }
                }
                Err(at) if f != 0 => uses.parts.insert(at, (part, f)),
                Err(_) => {}
            }
            let verdict = uses.verdict();
            if verdict != uses.finding {
                if let Some(before) = uses.finding {
                    self.findings.remove(&(before, Box::from(name)));
                }
                if let Some(now) = verdict {
                    self.findings.insert((now, Box::from(name)));
                }
                uses.finding = verdict;
            }
            if uses.parts.is_empty() {
                self.names.remove(name);
            }
        }
        if let Some(slot) = self.parts.get_mut(p) {
            *slot = reads;
        }
    }

    /// The findings, by part then name.
    fn findings(&self) -> Vec<Finding> {
        self.findings
            .iter()
            .map(|(part, name)| finding(*part, name))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::summary::NameUse;

    fn reads(tensors: &[&str], params: &[&str], names: &[(&str, bool, bool, bool)]) -> PartReads {
        let mut names: Vec<NameUse> = names
            .iter()
            .map(|&(n, read, written, read_first)| NameUse {
                name: (*n).into(),
                read,
                written,
                read_first,
            })
            .collect();
        names.sort();
        PartReads {
            tensors: tensors.iter().map(smol_str::SmolStr::new).collect(),
            params: params.iter().map(smol_str::SmolStr::new).collect(),
            names,
        }
    }

    fn names(findings: &[Finding]) -> Vec<(u32, String)> {
        findings
            .iter()
            .map(|f| match &f.at {
                Place::FirstRead(name) => (f.part, name.clone()),
                other => panic!("P501 at {other:?}"),
            })
            .collect()
    }

    /// The verdicts, made anew and updated part by part, agree: a tensor read first in a
    /// later part, a parameter, an undeclared name, a write in an earlier part.
    #[test]
    fn updates_agree_with_a_new_index() {
        let a = reads(
            &["in", "t", "u"],
            &["in"],
            &[("in", true, false, true), ("t", false, true, false)],
        );
        let b = reads(
            &[],
            &[],
            &[
                ("t", true, false, true),
                ("u", true, true, true),
                ("x", true, false, true),
            ],
        );
        let c = reads(
            &["v"],
            &[],
            &[("v", true, true, false), ("t", true, true, true)],
        );
        let parts = |p: &[&PartReads]| p.iter().map(|r| Arc::new((*r).clone())).collect();
        let index = Index::new(parts(&[&a, &b, &c]));
        let want = vec![(1, "u".to_string()), (1, "x".to_string())];
        assert_eq!(names(&index.findings()), want);
        // `t` no longer written in the first part: read first in the second.
        let a2 = reads(&["in", "t", "u"], &["in"], &[("in", true, false, true)]);
        let mut updated = Index::new(parts(&[&a, &b, &c]));
        updated.update(0, Arc::new(a2.clone()));
        let fresh = Index::new(parts(&[&a2, &b, &c]));
        assert_eq!(names(&updated.findings()), names(&fresh.findings()));
        assert_eq!(
            names(&fresh.findings()),
            vec![
                (1, "t".to_string()),
                (1, "u".to_string()),
                (1, "x".to_string())
            ]
        );
        // And back.
        updated.update(0, Arc::new(a));
        assert_eq!(names(&updated.findings()), want);
    }
}
