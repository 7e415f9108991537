//! The kernel-wide rules: one file per rule, each one function over the position-free
//! summaries of a kernel's parts ([`crate::kernel::summary`]), whether the kernel is one
//! part or many, with its message written once. A rule answers [`Finding`]s: a code, the
//! part and the place in it ([`Place`]), and the message; [`place`] turns a finding into a
//! chunk's finding at the ranges its part keeps ([`PartPlaces`]).

pub mod p200;
pub mod p201;
pub mod p208;
pub mod p416;
pub mod p419;
pub mod p500;
pub mod p501;

use lower::diag::Code;
use syntax::ast::{TextRange, TextSize};

use crate::db::Db;
use crate::diagnostic;
use crate::kernel::SplitKernel;
use crate::kernel::summary::{PartPlaces, PartSummary};

/// The kernel-wide rules that are one function over one projection of the parts'
/// summaries, listed once: `rule: field` runs `rule::findings` over each part's
/// `PartSummary::field` ([`of_part`], a kernel in one part) and `rule::of_split` over a kernel
/// cut into chunks ([`of_split`]). Adding such a rule: a projection in
/// [`crate::kernel::summary`], its file here, one line in this list. P501 keeps an index
/// across revisions and P416 reads the joined resources: the document calls them itself.
macro_rules! projection_rules {
    ($($rule:ident: $field:ident,)*) => {
        /// The findings of every listed rule over a kernel that is one part, `summary`.
        pub fn of_part(summary: &PartSummary) -> Vec<Finding> {
            let mut out = Vec::new();
            $(out.extend($rule::findings(&[&summary.$field]));)*
            out.extend(p501::findings(&[&summary.reads]));
            out
        }

        /// The findings of every listed rule over a kernel cut into chunks, each memoized
        /// on its parts' projection (P501 is not among them: see the list's docs).
        pub fn of_split(db: &dyn Db, kernel: SplitKernel<'_>) -> Vec<Finding> {
            let mut out = Vec::new();
            $(out.extend($rule::of_split(db, kernel).iter().cloned());)*
            out
        }
    };
}

projection_rules! {
    p208: ids,
    p419: writes,
    p500: decls,
}

/// A kernel-wide rule's finding, position-free: where it is, as a part of the kernel and a
/// place in it, and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    /// The diagnostic code.
    pub code: Code,
    /// The part it is reported in (0: the kernel's head).
    pub part: u32,
    /// Where in that part.
    pub at: Place,
    /// The message, no final period.
    pub message: String,
    /// Related places with their notes.
    pub related: Vec<Related>,
    /// The quick fix, as data.
    pub fix: Option<lower::FixHint>,
}

/// A related place of a [`Finding`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Related {
    /// The part.
    pub part: u32,
    /// Where in it.
    pub at: Place,
    /// The note.
    pub note: String,
}

/// A place in a part, found through its [`PartPlaces`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// The part's first read of the name.
    FirstRead(String),
    /// The name token of the part's declaration of the name.
    DeclaredName(String),
    /// The id of the part's `n`-th op (0-based): its `#N`, else its class name.
    OpId(u32),
}

impl Place {
    /// The range of this place in a part whose places are `places` (relative to its chunk).
    pub fn range(&self, places: &PartPlaces) -> Option<TextRange> {
        match self {
            Place::FirstRead(name) => places.first_read(name),
            Place::DeclaredName(name) => places.declaration(name).map(|d| d.name_range),
            Place::OpId(n) => places.ids.get(*n as usize).copied(),
        }
    }
}

/// `finding` at its ranges: `places(part)` gives a part's places and the offset its ranges
/// are shifted by (its chunk's start in the document, or 0 for ranges relative to the
/// chunk). `None` when the finding's own place is not found (a related one that is not is
/// left out).
pub fn place<'p>(
    finding: &Finding,
    places: impl Fn(u32) -> Option<(&'p PartPlaces, TextSize)>,
) -> Option<diagnostic::Finding> {
    let at = |part: u32, place: &Place| {
        let (part_places, start) = places(part)?;
        Some(place.range(part_places)? + start)
    };
    let range = at(finding.part, &finding.at)?;
    let mut diagnostic = diagnostic::Finding::new(finding.code, range, finding.message.clone())
        .with_fix(finding.fix.clone());
    for related in &finding.related {
        if let Some(range) = at(related.part, &related.at) {
            diagnostic = diagnostic.with_related(range, related.note.clone());
        }
    }
    Some(diagnostic)
}
