//! A kernel's resources as the editor shows them (SPEC §10.1 [2]): the code lens above
//! each kernel (`PE 12 · Act 4 · DVE 8 · Pool 2 · DMA 6 · SBUF 96.0/208.0 KiB · PSUM
//! 6.0/16.0 KiB`) and the table of the kernel-name hover. The numbers come from
//! [`crate::resources`].

use lower::catalog::Engine;
use syntax::ast::TextRange;

use crate::db::Db;
use crate::document::Document;
use crate::resources::{KernelStats, Peak, group, group_executed};

/// A code lens: the range it stands above (the kernel's `@name`, UTF-8 bytes), its kind
/// and its text. It runs no command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLens {
    /// The kernel's name (the lens is shown above its line).
    pub range: TextRange,
    /// What it shows.
    pub kind: LensKind,
    /// The text, see [`LensKind::title`].
    pub title: String,
}

/// What a kernel's code lens shows. Every kind is a function of the kernel's
/// [`KernelStats`], which the document joins per kernel from memos per chunk and per part
/// (O(kernels) a request, `Document::kernel_stats`); adding a kind is a variant here, its
/// place in [`LensKind::ALL`] and its arm in [`LensKind::title`] (docs/decisions.md,
/// "Requests after a change").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LensKind {
    /// Engine counts and SBUF/PSUM peaks ([`lens_title`], SPEC §10.1).
    Resources,
    /// The kernel's cost on the target (SPEC §10.2.9; none for a kernel without
    /// instructions).
    Cost,
}

impl LensKind {
    /// Every kind, in the order the lenses of one kernel are listed.
    pub const ALL: [LensKind; 2] = [LensKind::Resources, LensKind::Cost];

    /// The lens of this kind for the kernel `stats`, if it has one.
    pub fn title(self, stats: &KernelStats) -> Option<String> {
        match self {
            LensKind::Resources => Some(lens_title(stats)),
            LensKind::Cost => stats.cost.lens(),
        }
    }
}

/// The lenses of each kernel of a document, in source order (a kernel's in
/// [`LensKind::ALL`]'s order), in its offsets.
pub(crate) fn code_lenses(db: &dyn Db, doc: &Document) -> Vec<CodeLens> {
    doc.kernel_stats(db)
        .iter()
        .flat_map(|stats| {
            LensKind::ALL.into_iter().filter_map(move |kind| {
                Some(CodeLens {
                    range: stats.name_range,
                    kind,
                    title: kind.title(stats)?,
                })
            })
        })
        .collect()
}

/// An engine's name in the lens: `PE`, `Act`, `DVE`, `Pool`, `SP`, `DMA`, `ALL`,
/// `Unassigned` (SPEC §10.1's example shortens only `Activation`).
pub fn short_name(engine: Engine) -> &'static str {
    match engine {
        Engine::Act => "Act",
        other => other.bir_name(),
    }
}

/// The lens text (SPEC §10.1): the static count of each engine that has an instruction,
/// then each peak over its capacity in KiB with one decimal, joined by ` · `. A peak above
/// 0 that rounds to `0.0` reads `<0.1`, and a peak over the capacity is followed by
/// `(P416)`, even when it rounds to the capacity (`SBUF 208.0/208.0 KiB (P416)`).
pub fn lens_title(stats: &KernelStats) -> String {
    let mut parts: Vec<String> = stats
        .engines
        .iter()
        .filter(|c| c.static_count > 0)
        .map(|c| format!("{} {}", short_name(c.engine), c.static_count))
        .collect();
    for peak in stats.peaks() {
        let bytes = if peak.bytes > 0 && peak.bytes < 52 {
            "<0.1".to_string()
        } else {
            kib(peak.bytes)
        };
        parts.push(format!(
            "{} {bytes}/{} KiB{}",
            peak.memory.name().to_uppercase(),
            kib(peak.capacity),
            if peak.exceeds() { " (P416)" } else { "" }
        ));
    }
    parts.join(" · ")
}

/// Bytes as KiB with one decimal (`212,984` → `208.0`).
fn kib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

/// The Markdown of the kernel-name hover's resources (SPEC §10.1): a table of static and
/// executed counts per engine (engines without instructions left out) and each peak with
/// the op where it is reached and the largest tensors live there.
pub fn resources_markdown(stats: &KernelStats) -> String {
    let used: Vec<_> = stats
        .engines
        .iter()
        .filter(|c| c.static_count > 0)
        .collect();
    let mut out = String::new();
    if used.is_empty() {
        out.push_str("no BIR instruction\n");
    } else {
        out.push_str("| engine | static | executed |\n|:--|--:|--:|\n");
        for c in &used {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                c.engine.bir_name(),
                group(c.static_count),
                group_executed(c.executed)
            ));
        }
        if used.len() > 1 {
            let total = |f: fn(&&crate::resources::EngineCount) -> u64| {
                used.iter().fold(0u64, |acc, c| acc.saturating_add(f(c)))
            };
            out.push_str(&format!(
                "| total | {} | {} |\n",
                group(total(|c| c.static_count)),
                group_executed(total(|c| c.executed))
            ));
        }
    }
    for peak in stats.peaks() {
        out.push('\n');
        out.push_str(&peak_line(peak));
        out.push('\n');
    }
    out
}

/// `**SBUF** peak 98,304 of 212,984 bytes per partition (46.2%) at op #7 `MatMulOp`; live
/// there: …`
fn peak_line(peak: &Peak) -> String {
    let percent = peak.bytes as f64 * 100.0 / peak.capacity as f64;
    let mut line = format!(
        "**{}** peak {} of {} bytes per partition ({percent:.1}%)",
        peak.memory.name().to_uppercase(),
        group(peak.bytes),
        group(peak.capacity),
    );
    if let Some(op) = &peak.op {
        line.push_str(&format!(" at op #{} `{}`", op.op_id, op.class));
    }
    if !peak.largest.is_empty() {
        let live: Vec<String> = peak
            .largest
            .iter()
            .map(|t| format!("`%{}` {}", t.name, group(t.bytes)))
            .collect();
        line.push_str(&format!("; largest live there: {}", live.join(", ")));
    }
    if peak.exceeds() {
        line.push_str(" — **over capacity (P416)**");
    }
    line
}
