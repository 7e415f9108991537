//! A kernel's resources at a glance (SPEC §10.1 [2]), as the command line and the IDE
//! show them: per engine, the static and executed BIR instruction counts; per on-chip
//! memory (SBUF, PSUM), the peak occupancy over the tensors' live ranges, the op where it
//! is first reached and the largest tensors live there. Position-free ([`Resources`]) and
//! placed in the text ([`KernelStats`], UTF-8 byte offsets). They are computed over a
//! kernel's parts (`crate::kernel::resources`) and placed through their places
//! (`crate::kernel::stats`); warning P416 is `crate::kernel::rules::p416`.

use lower::catalog::Engine;
use lower::types::Memory;
use syntax::ast::TextRange;

/// The engines of SPEC §10.1, in its order (BIR names `PE`, `Activation`, `DVE`, `Pool`,
/// `SP`, `DMA`, `ALL`, `Unassigned`): the catalog's [`Engine::ALL`].
pub const ENGINES: [Engine; 8] = Engine::ALL;

/// The on-chip memories whose occupancy SPEC §10.1 reports, in its order.
pub const MEMORIES: [Memory; 2] = [Memory::Sbuf, Memory::Psum];

/// One engine's counts (SPEC §10.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineCount {
    /// The engine.
    pub engine: Engine,
    /// BIR instructions of the kernel on it.
    pub static_count: u64,
    /// Each of them times the trip counts of its enclosing loops (an invalid loop, P414,
    /// counts 0 trips), saturating.
    pub executed: u64,
}

/// The peak occupancy of one memory, position-free (see [`Peak`] for the positioned one).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Occupancy {
    /// The peak: the largest sum of the per-partition footprints (bytes, SPEC §4) of the
    /// tensors live at one op; 0 when no tensor of this memory is live at any op.
    pub peak: u64,
    /// The first op where the peak is reached (its index among the kernel's ops and its
    /// part's); `None` when the peak is 0.
    pub at: Option<crate::kernel::resources::PeakAt>,
    /// The (up to three) largest tensors live there, largest first (ties in BIR order).
    pub largest: Vec<LiveAtPeak>,
}

/// A tensor live at a peak (see [`Occupancy::largest`]), position-free.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LiveAtPeak {
    /// Its name, without `%`.
    pub name: String,
    /// Its footprint, bytes per partition (SPEC §4).
    pub bytes: u64,
    /// The part whose declaration of it is shown (see [`crate::kernel::resources::Spans::declared_in`]).
    pub declared_in: u32,
}

/// A kernel's resources, position-free: what [`kernel_resources`] memoizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resources {
    /// The counts of every engine of [`ENGINES`], in that order (zeros included).
    pub engines: Vec<EngineCount>,
    /// The cost estimates summed, for every target (SPEC §10.2).
    pub cost: crate::cost::CostSums,
    /// SBUF occupancy.
    pub sbuf: Occupancy,
    /// PSUM occupancy.
    pub psum: Occupancy,
}

/// The op where a peak is reached, in the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PeakOp {
    /// Its op id (`#N` as written, else its ordinal, SPEC §3).
    pub op_id: u32,
    /// Its class as written.
    pub class: String,
    /// The range of its class name (UTF-8 bytes).
    pub range: TextRange,
}

/// A tensor live at a peak.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LiveTensor {
    /// Its name without `%`.
    pub name: String,
    /// Its per-partition footprint in bytes (SPEC §4).
    pub bytes: u64,
    /// Its declaration (the parameter or `tensor` statement, UTF-8 bytes).
    pub declaration: Option<TextRange>,
}

/// The peak occupancy of one memory of a kernel, in the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Peak {
    /// `sbuf` or `psum`.
    pub memory: Memory,
    /// Bytes per partition (see [`Occupancy::peak`]).
    pub bytes: u64,
    /// The memory's per-partition capacity in bytes on the target (SPEC §4 [3]: usable
    /// SBUF, 212,984 on trn2; PSUM 16,384).
    pub capacity: u64,
    /// The first op where the peak is reached; `None` when the peak is 0.
    pub op: Option<PeakOp>,
    /// The (up to three) largest tensors live there, largest first.
    pub largest: Vec<LiveTensor>,
}

impl Peak {
    /// Whether the peak exceeds the capacity (P416).
    pub fn exceeds(&self) -> bool {
        self.bytes > self.capacity
    }
}

/// One kernel's resources with their places in the text (SPEC §10.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelStats {
    /// The kernel name without `@` (empty when missing).
    pub name: String,
    /// The `@name` (UTF-8 bytes); when the name is missing, the `kernel` keyword's place.
    pub name_range: TextRange,
    /// The kernel, from `kernel` to its `}`.
    pub range: TextRange,
    /// Per engine of [`ENGINES`], in that order, zeros included.
    pub engines: Vec<EngineCount>,
    /// SBUF peak.
    pub sbuf: Peak,
    /// PSUM peak.
    pub psum: Peak,
    /// The cost estimate on the target (SPEC §10.2).
    pub cost: crate::cost::KernelCost,
}

impl KernelStats {
    /// The peaks, SBUF first.
    pub fn peaks(&self) -> [&Peak; 2] {
        [&self.sbuf, &self.psum]
    }
}

/// An executed count as shown, `≥ ` before a saturated one: [`lower::types::group_executed`].
pub use lower::types::group_executed;

/// `n` with a comma every three digits (`212,984`): [`lower::types::group`].
pub use lower::types::group;

impl syntax::Shift for KernelStats {
    fn shift(&mut self, by: syntax::ast::TextSize) {
        self.name_range.shift(by);
        self.range.shift(by);
        for peak in [&mut self.sbuf, &mut self.psum] {
            if let Some(op) = &mut peak.op {
                op.range.shift(by);
            }
            for tensor in &mut peak.largest {
                tensor.declaration.shift(by);
            }
        }
    }
}
