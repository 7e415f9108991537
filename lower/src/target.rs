//! Targets (SPEC §4 [3]): one NeuronCore generation per run, setting the SBUF and PSUM
//! capacities (P304, P416), the constants of the cost estimate (§10.2.2) and the BIR `arch`
//! string (§8). Nothing else depends on the target: no op is gated by it.
//!
//! Architecture Invariant: every per-target figure is here, with its source (the keys of
//! SPEC §10.2.0); no other module writes one as a literal.

use crate::catalog::Engine;
use crate::types::{Dtype, Memory};

/// A target: one NeuronCore generation (SPEC §4 [3]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// `trn1`: NeuronCore-v2 (also inf2), BIR `gen2`.
    Trn1,
    /// `trn2`: NeuronCore-v3, BIR `gen3` (the default).
    #[default]
    Trn2,
    /// `trn3`: NeuronCore-v4, BIR `gen4`.
    Trn3,
}

impl Target {
    /// Every target, in SPEC §4's order; [`Target::index`] is the place in it.
    pub const ALL: [Target; 3] = [Target::Trn1, Target::Trn2, Target::Trn3];

    /// The usage text naming every target (an unknown name's message, SPEC §4 [3]).
    pub const NAMES: &'static str = "`trn1`, `trn2` or `trn3`";

    /// Parses a target name (`trn1`, `trn2`, `trn3`).
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The name (`trn2`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Trn1 => "trn1",
            Target::Trn2 => "trn2",
            Target::Trn3 => "trn3",
        }
    }

    /// The 0-based place in [`Target::ALL`] (what per-target arrays are indexed by).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The NeuronCore generation (`v3`).
    pub fn neuron_core(self) -> &'static str {
        match self {
            Target::Trn1 => "v2",
            Target::Trn2 => "v3",
            Target::Trn3 => "v4",
        }
    }

    /// The BIR `arch` string (SPEC §4, §8): `gen2`, `gen3`, `gen4`.
    pub fn arch(self) -> &'static str {
        match self {
            Target::Trn1 => "gen2",
            Target::Trn2 => "gen3",
            Target::Trn3 => "gen4",
        }
    }

    /// Usable SBUF bytes per partition, what P304 and P416 compare with ([H]: the public
    /// NKI target info).
    pub fn sbuf_usable(self) -> u64 {
        match self {
            Target::Trn1 => 180_224,
            Target::Trn2 => 212_984,
            Target::Trn3 => 245_752,
        }
    }

    /// Physical SBUF bytes per partition ([A1 L76–78]: 192 KiB; [A2 L39]: 224 KiB;
    /// [A3 L36]: 32 MiB / 128), shown beside the usable size.
    pub fn sbuf_physical(self) -> u64 {
        match self {
            Target::Trn1 => 196_608,
            Target::Trn2 => 229_376,
            Target::Trn3 => 262_144,
        }
    }

    /// PSUM bytes per partition: 8 banks × 2,048 on every target ([A1 L76–78], [H]).
    pub fn psum(self) -> u64 {
        16_384
    }

    /// The per-partition capacity of `memory` in bytes (usable SBUF; PSUM), `None` when
    /// unbounded or not partitioned (HBM, registers).
    pub fn capacity(self, memory: Memory) -> Option<u64> {
        match memory {
            Memory::Sbuf => Some(self.sbuf_usable()),
            Memory::Psum => Some(self.psum()),
            Memory::Hbm | Memory::Reg => None,
        }
    }

    /// The clock of a compute engine in MHz (SPEC §10.2.2: [A1 L65–74], [A2 L41–64],
    /// [A3 L38–61]); `None` for the engines without a cycle estimate (DMA is timed in
    /// picoseconds, §10.2.6).
    pub fn clock_mhz(self, engine: Engine) -> Option<u64> {
        let [pe, act, dve, pool] = match self {
            Target::Trn1 => [2_800, 1_400, 1_120, 1_400],
            Target::Trn2 => [2_400, 1_200, 960, 1_200],
            Target::Trn3 => [2_400, 1_200, 1_200, 1_200],
        };
        match engine {
            Engine::Pe => Some(pe),
            Engine::Act => Some(act),
            Engine::Dve => Some(dve),
            Engine::Pool => Some(pool),
            _ => None,
        }
    }

    /// DMA bandwidth per engine in bytes per ns ([D L58–64]).
    pub fn dma_bandwidth(self) -> u64 {
        match self {
            Target::Trn1 => 17,
            Target::Trn2 => 23,
            Target::Trn3 => 33,
        }
    }

    /// The DMA engines (queues) that run concurrently, `Q` ([D L39; A1 L613; A2 L289]).
    pub fn dma_queues(self) -> u64 {
        16
    }

    /// The fixed time of a DMA instruction, `L`, in picoseconds: ~1,300 ns ([D L39–43]).
    pub fn dma_fixed_ps(self) -> u64 {
        1_300_000
    }

    /// Whether `dtype` is "fast" for the Vector Engine's perf modes (SPEC §10.2.2, §10.2.5:
    /// none on trn1; bf16, f16 on trn2 [A2 L222–237]; and the 1-byte fp8 types on trn3
    /// [A3 L52]).
    pub fn dve_fast(self, dtype: Dtype) -> bool {
        let half = matches!(dtype, Dtype::Bf16 | Dtype::F16);
        match self {
            Target::Trn1 => false,
            Target::Trn2 => half,
            Target::Trn3 => half || (dtype.is_fp8() && dtype.bytes() == 1),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_index_the_list() {
        for (i, t) in Target::ALL.into_iter().enumerate() {
            assert_eq!(Target::from_name(t.name()), Some(t));
            assert_eq!(t.index(), i);
        }
        assert_eq!(Target::default(), Target::Trn2);
        assert_eq!(Target::from_name("trn4"), None);
    }

    #[test]
    fn clocks_check_against_the_published_peaks() {
        // SPEC §10.2.2: 2·128·128 MAC-FLOP per PE cycle gives 91.8 TFLOPS at 2.8 GHz and
        // 78.6 at 2.4 GHz.
        let tflops =
            |t: Target| 2.0 * 128.0 * 128.0 * t.clock_mhz(Engine::Pe).unwrap() as f64 / 1e6;
        assert!((tflops(Target::Trn1) - 91.75).abs() < 0.01);
        assert!((tflops(Target::Trn2) - 78.64).abs() < 0.01);
    }
}
