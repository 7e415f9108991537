//! P501 ("read before any op writes it") of a kernel cut into chunks, kept up to date part
//! by part (issue 9, `docs/scale.md`): an index from each name to the parts that read,
//! write or declare it, so that an edit in one part costs the names that part's reads
//! and writes changed, not the kernel's names.
//!
//! The rule is `check::dataflow`'s on the whole kernel, restated per name (a part is one
//! chunk's share of the kernel, 0-based among the kernel's chunks):
//! * a parameter (an input or output, written before any op) is never read before written;
//! * a name a part declares as a tensor is reported at the first part that reads it before
//!   writing it ([`PartReads::names`]' `read_first`), unless an earlier part writes it;
//! * a name no part declares (nothing ever writes it) at the first part that reads it.
//!
//! Each name's verdict depends only on its own uses, so an update recomputes the verdicts
//! of the names whose uses in the updated part changed. The index lives beside the
//! document, outside salsa: it is brought up to date by the gathering that reads it, from
//! the [`PartReads`] of the parts whose chunk changed since (each chunk carries a stamp,
//! new whenever one of its inputs is set).

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::db::SourceFile;

/// What P501 reads of one part of a split kernel, position-free (the [`crate::split::parts`]
/// flow's names, tensors and parameters): equal after an edit that changes no name an op
/// reads or writes and no declaration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PartReads {
    /// The tensors the part allocates (parameters, for the first part; declarations).
    pub tensors: Vec<String>,
    /// The parameters that are inputs or outputs (written before any op): first part only.
    pub params: Vec<String>,
    /// Each name the part's ops read or write, sorted by name, with whether it is read,
    /// whether it is written, and whether it is read before the part first writes it.
    pub names: Vec<(String, bool, bool, bool)>,
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
    let mut out: Vec<(&str, u8)> = reads
        .names
        .iter()
        .map(|(name, read, write, first)| {
            let mut f = 0;
            if *read {
                f |= READ;
            }
            if *write {
                f |= WRITE;
            }
            if *read && *first {
                f |= READ_FIRST;
            }
            (name.as_str(), f)
        })
        .chain(reads.tensors.iter().map(|t| (t.as_str(), TENSOR)))
        .chain(reads.params.iter().map(|p| (p.as_str(), PARAM)))
        .collect();
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
        let all = self.parts.iter().fold(0, |acc, (_, f)| acc | f);
        if all & PARAM != 0 {
            return None;
        }
        if all & TENSOR == 0 {
            return self.parts.iter().find(|(_, f)| f & READ != 0).map(|p| p.0);
        }
        let first = self.parts.iter().find(|(_, f)| f & READ_FIRST != 0)?.0;
        let written = self.parts.iter().find(|(_, f)| f & WRITE != 0);
        match written {
            Some(&(w, _)) if w < first => None,
            _ => Some(first),
        }
    }
}

/// The P501 of one split kernel, and what it was made from (see the module's doc).
#[derive(Debug, Default)]
pub struct ReadIndex {
    /// The kernel's chunks, first to last.
    chunks: Vec<SourceFile>,
    /// The stamp of each chunk when its part was read.
    stamps: Vec<u64>,
    /// Each chunk's part as read (empty for a chunk without the kernel).
    parts: Vec<Arc<PartReads>>,
    names: HashMap<Box<str>, Uses>,
    /// The findings: (part, name), in the order P501 is reported.
    findings: BTreeSet<(u32, Box<str>)>,
}

impl ReadIndex {
    /// The index of the kernel whose chunks are `chunks` (first to last), with their
    /// `stamps` and parts (`parts[i]` the `i`-th chunk's). O(the kernel's names).
    pub fn new(chunks: Vec<SourceFile>, stamps: Vec<u64>, parts: Vec<Arc<PartReads>>) -> Self {
        let mut index = ReadIndex {
            chunks,
            stamps,
            parts: Vec::with_capacity(parts.len()),
            ..ReadIndex::default()
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

    /// Whether the index is of the kernel whose chunks are `chunks` (a kernel cut anew,
    /// or whose chunks changed, is indexed anew).
    pub fn is_of(&self, chunks: &[SourceFile]) -> bool {
        self.chunks == chunks
    }

    /// The parts (indices among the kernel's chunks) whose stamp is not in `stamps` (the
    /// chunks' stamps now, first to last; as many as the index's chunks).
    pub fn stale<'a>(&'a self, stamps: &'a [u64]) -> impl Iterator<Item = usize> + 'a {
        self.stamps
            .iter()
            .zip(stamps)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, _)| i)
    }

    /// Sets part `p`'s reads (its chunk now stamped `stamp`): the uses of the names whose
    /// flags changed there, and their verdicts. O(the part's names + the changed names'
    /// parts).
    pub fn update(&mut self, p: usize, stamp: u64, reads: Arc<PartReads>) {
        let Some(old) = self.parts.get(p) else {
            return;
        };
        self.stamps[p] = stamp;
        if **old == *reads {
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
            match order {
                std::cmp::Ordering::Less => {
                    changed.push((old[i].0, 0));
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    changed.push(new[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    if old[i].1 != new[j].1 {
                        changed.push(new[j]);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        let part = p as u32;
        for (name, f) in changed {
            let uses = self.names.entry(name.into()).or_default();
            match uses.parts.binary_search_by_key(&part, |u| u.0) {
                Ok(at) if f == 0 => {
                    uses.parts.remove(at);
                }
                Ok(at) => uses.parts[at].1 = f,
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
        self.parts[p] = reads;
    }

    /// The findings, (part, name), by part then name (as the whole kernel's P501 comes).
    pub fn findings(&self) -> impl Iterator<Item = (u32, &str)> {
        self.findings.iter().map(|(p, name)| (*p, &**name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(tensors: &[&str], params: &[&str], names: &[(&str, bool, bool, bool)]) -> PartReads {
        let mut names: Vec<(String, bool, bool, bool)> = names
            .iter()
            .map(|&(n, r, w, f)| (n.to_string(), r, w, f))
            .collect();
        names.sort();
        PartReads {
            tensors: tensors.iter().map(|t| t.to_string()).collect(),
            params: params.iter().map(|t| t.to_string()).collect(),
            names,
        }
    }

    fn findings(index: &ReadIndex) -> Vec<(u32, String)> {
        index.findings().map(|(p, n)| (p, n.to_string())).collect()
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
        let index = ReadIndex::new(Vec::new(), vec![0; 3], parts(&[&a, &b, &c]));
        let want = vec![(1, "u".to_string()), (1, "x".to_string())];
        assert_eq!(findings(&index), want);
        // `t` no longer written in the first part: read first in the second.
        let a2 = reads(&["in", "t", "u"], &["in"], &[("in", true, false, true)]);
        let mut updated = ReadIndex::new(Vec::new(), vec![0; 3], parts(&[&a, &b, &c]));
        updated.update(0, 1, Arc::new(a2.clone()));
        let fresh = ReadIndex::new(Vec::new(), vec![1, 0, 0], parts(&[&a2, &b, &c]));
        assert_eq!(findings(&updated), findings(&fresh));
        assert_eq!(
            findings(&fresh),
            vec![
                (1, "t".to_string()),
                (1, "u".to_string()),
                (1, "x".to_string())
            ]
        );
        // And back.
        updated.update(0, 2, Arc::new(a));
        assert_eq!(findings(&updated), want);
        assert_eq!(updated.stale(&[2, 0, 1]).collect::<Vec<_>>(), vec![2]);
    }
}
