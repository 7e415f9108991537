//! A kernel's cost estimate (SPEC §10.2 [3]) joined from its instructions' estimates,
//! which are kept with each op's lowering for every target (`lower::cost`): the sums per
//! engine ([`CostSums`], position-free, summed over a kernel's parts like §10.1's counts),
//! and the kernel's busy times, lower bound and bottleneck on one target ([`KernelCost`]),
//! with the units and rounding of §10.2.8.

use lower::Lowered;
use lower::catalog::Engine;
use lower::cost::InstCost;
use lower::target::Target;

use crate::ide::short_name;
use crate::resources::group;

/// The engines of the estimate, in SPEC §10.2's order.
pub const COST_ENGINES: [Engine; 5] = [
    Engine::Pe,
    Engine::Act,
    Engine::Dve,
    Engine::Pool,
    Engine::Dma,
];

/// What a kernel's (or a part's) estimated instructions add up to, position-free.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CostSums {
    /// Per engine of [`COST_ENGINES`]: the executed count of its estimated instructions.
    pub executed: [u64; 5],
    /// Per target ([`Target::index`]) and engine of [`COST_ENGINES`]: Σ executed × cycles
    /// (compute engines) or Σ executed × q in picoseconds (DMA), saturating.
    pub totals: [[u64; 5]; 3],
    /// Σ executed × bytes of the DMA instructions.
    pub dma_bytes: u64,
    /// The executed count of the instructions not estimated, by BIR opcode (in the order
    /// first met).
    pub not_estimated: Vec<(&'static str, u64)>,
}

impl CostSums {
    /// Adds the estimates of one op's instructions, each executed `trips` times.
    pub fn add_op(&mut self, lowered: &Lowered, trips: u64) {
        for (inst, cost) in lowered.instructions.iter().zip(&lowered.costs) {
            let slot = |engine: Engine| COST_ENGINES.iter().position(|&e| e == engine);
            match *cost {
                InstCost::Compute { cycles } => {
                    if let Some(e) = slot(inst.engine) {
                        self.add(e, trips, cycles);
                    }
                }
                InstCost::Dma { bytes, q_ps } => {
                    self.add(4, trips, q_ps);
                    self.dma_bytes = self.dma_bytes.saturating_add(bytes.saturating_mul(trips));
                }
                InstCost::NotEstimated(_) => {
                    let name = inst.opcode.name();
                    match self.not_estimated.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, count)) => *count = count.saturating_add(trips),
                        None => self.not_estimated.push((name, trips)),
                    }
                }
            }
        }
    }

    fn add(&mut self, e: usize, trips: u64, each: [u64; 3]) {
        if let Some(executed) = self.executed.get_mut(e) {
            *executed = executed.saturating_add(trips);
        }
        for (totals, each) in self.totals.iter_mut().zip(each) {
            if let Some(total) = totals.get_mut(e) {
                *total = total.saturating_add(each.saturating_mul(trips));
            }
        }
    }

    /// Adds another part's sums.
    pub fn join(&mut self, other: &CostSums) {
        for (a, b) in self.executed.iter_mut().zip(other.executed) {
            *a = a.saturating_add(b);
        }
        for (a, b) in self.totals.iter_mut().zip(&other.totals) {
            for (a, b) in a.iter_mut().zip(b) {
                *a = a.saturating_add(*b);
            }
        }
        self.dma_bytes = self.dma_bytes.saturating_add(other.dma_bytes);
        for &(name, count) in &other.not_estimated {
            match self.not_estimated.iter_mut().find(|(n, _)| *n == name) {
                Some((_, c)) => *c = c.saturating_add(count),
                None => self.not_estimated.push((name, count)),
            }
        }
    }

    /// The kernel's estimate on `target` (SPEC §10.2.8).
    pub fn on(&self, target: Target) -> KernelCost {
        let totals = self.totals.get(target.index()).copied().unwrap_or_default();
        let engines: Vec<EngineCost> = COST_ENGINES
            .iter()
            .zip(self.executed.iter().zip(totals))
            .filter(|(_, (executed, _))| **executed > 0)
            .map(|(&engine, (&executed, total))| {
                let ns = match target.clock_mhz(engine) {
                    Some(mhz) => half_up(u128::from(total) * 1000, u128::from(mhz)),
                    None => half_up(u128::from(total), u128::from(target.dma_queues()) * 1000),
                };
                EngineCost {
                    engine,
                    executed,
                    cycles: (engine != Engine::Dma).then_some(total),
                    bytes: (engine == Engine::Dma).then_some(self.dma_bytes),
                    ns,
                }
            })
            .collect();
        // The first of the largest: ties go to the earlier engine.
        let bottleneck = engines
            .iter()
            .fold(None::<&EngineCost>, |best, e| match best {
                Some(b) if b.ns >= e.ns => Some(b),
                _ => Some(e),
            });
        KernelCost {
            target,
            lower_bound_ns: bottleneck.map_or(0, |b| b.ns),
            bottleneck: bottleneck.map(|b| b.engine),
            engines,
            not_estimated: self
                .not_estimated
                .iter()
                .fold(0u64, |acc, (_, c)| acc.saturating_add(*c)),
            not_estimated_by: self.not_estimated.clone(),
        }
    }
}

/// ⌊(2n + d) / (2d)⌋: n/d rounded half up (SPEC §10.2.8), saturating.
pub fn half_up(n: u128, d: u128) -> u64 {
    if d == 0 {
        return u64::MAX;
    }
    u64::try_from((2 * n + d) / (2 * d)).unwrap_or(u64::MAX)
}

/// One engine's busy time in a kernel on one target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EngineCost {
    /// The engine (of [`COST_ENGINES`]).
    pub engine: Engine,
    /// The executed count of its estimated instructions.
    pub executed: u64,
    /// Σ executed × cycles (compute engines).
    pub cycles: Option<u64>,
    /// Σ executed × bytes (DMA).
    pub bytes: Option<u64>,
    /// The busy time in whole ns (rounded half up once, from the integer sum).
    pub ns: u64,
}

/// A kernel's estimate on one target (SPEC §10.2.8).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelCost {
    /// The target.
    pub target: Target,
    /// The engines with an estimated instruction, in [`COST_ENGINES`] order.
    pub engines: Vec<EngineCost>,
    /// The engine reaching the bound (ties: the first); `None` when nothing is estimated.
    pub bottleneck: Option<Engine>,
    /// The largest busy time, ns (0 when nothing is estimated).
    pub lower_bound_ns: u64,
    /// The executed count of the instructions not estimated.
    pub not_estimated: u64,
    /// That count by BIR opcode.
    pub not_estimated_by: Vec<(&'static str, u64)>,
}

impl KernelCost {
    /// The share of the bound an engine's busy time is, as SPEC §10.2.8 prints it
    /// (`35%`, `<1%`).
    pub fn share(&self, ns: u64) -> String {
        percent(ns, self.lower_bound_ns)
    }

    /// The cost lens title (SPEC §10.2.9): `trn1 ≥ 5.99 ms · PE-bound · DVE 35% · …`;
    /// `None` for a kernel without instructions (no cost lens).
    pub fn lens(&self) -> Option<String> {
        let Some(bottleneck) = self.bottleneck else {
            return (self.not_estimated > 0).then(|| {
                format!(
                    "{} · no estimate ({} not estimated)",
                    self.target,
                    group(self.not_estimated)
                )
            });
        };
        let mut out = format!(
            "{} ≥ {} · {}-bound",
            self.target,
            show_time(self.lower_bound_ns),
            short_name(bottleneck)
        );
        for e in &self.engines {
            if e.engine != bottleneck && e.ns > 0 {
                out.push_str(&format!(" · {} {}", short_name(e.engine), self.share(e.ns)));
            }
        }
        if self.not_estimated > 0 {
            out.push_str(&format!(" · {} not estimated", group(self.not_estimated)));
        }
        Some(out)
    }
}

/// `part` of `whole` in percent, rounded half up; a nonzero share under 0.5% is `<1%`.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".to_string();
    }
    let p = half_up(u128::from(part) * 100, u128::from(whole));
    if p == 0 && part > 0 {
        "<1%".to_string()
    } else {
        format!("{p}%")
    }
}

/// A time in ns as SPEC §10.2.8 shows it: whole ns under 1,000 (`81 ns`), else three
/// significant digits in the largest unit where it is at least 1 (`5.99 ms`, `25.4 ms`,
/// `188 µs`), rounded half up, the unit chosen again after rounding.
pub fn show_time(ns: u64) -> String {
    if ns < 1000 {
        return format!("{ns} ns");
    }
    const UNITS: [(u64, &str); 3] = [(1_000, "µs"), (1_000_000, "ms"), (1_000_000_000, "s")];
    let unit = UNITS.iter().rposition(|&(u, _)| ns >= u).unwrap_or(0);
    let (u, name) = UNITS.get(unit).copied().unwrap_or((1_000, "µs"));
    let whole = ns / u;
    let decimals: u32 = if whole >= 100 {
        0
    } else if whole >= 10 {
        1
    } else {
        2
    };
    let q = half_up(
        u128::from(ns) * u128::from(10u64.pow(decimals)),
        u128::from(u),
    );
    if q < 1000 {
        return fixed(q, decimals, name);
    }
    if decimals > 0 {
        // 9.996 ms rounds to 10.00: one decimal fewer.
        let q = half_up(
            u128::from(ns) * u128::from(10u64.pow(decimals - 1)),
            u128::from(u),
        );
        return fixed(q, decimals - 1, name);
    }
    match UNITS.get(unit + 1) {
        // 999.6 µs rounds to 1,000 µs: 1.00 ms.
        Some(&(u, name)) => fixed(half_up(u128::from(ns) * 100, u128::from(u)), 2, name),
        None => fixed(q, 0, name),
    }
}

fn fixed(q: u64, decimals: u32, unit: &str) -> String {
    if decimals == 0 {
        // Whole seconds past 999 (a saturated estimate): `1,152,922 s`.
        return format!("{} {unit}", lower::types::group(q));
    }
    let scale = 10u64.pow(decimals);
    format!(
        "{}.{:0width$} {unit}",
        q / scale,
        q % scale,
        width = decimals as usize
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_have_three_significant_digits() {
        // SPEC §10.2.8 and §10.2.9's tut3 figures.
        assert_eq!(show_time(81), "81 ns");
        assert_eq!(show_time(999), "999 ns");
        assert_eq!(show_time(1_045), "1.05 µs");
        assert_eq!(show_time(5_991_863), "5.99 ms");
        assert_eq!(show_time(2_106_514), "2.11 ms");
        assert_eq!(show_time(188_103), "188 µs");
        assert_eq!(show_time(535_048), "535 µs");
        assert_eq!(show_time(25_400_000), "25.4 ms");
        // The unit is chosen again after rounding.
        assert_eq!(show_time(999_600), "1.00 ms");
        assert_eq!(show_time(9_996_000), "10.0 ms");
        assert_eq!(show_time(99_960_000), "100 ms");
        assert_eq!(show_time(2_500_000_000), "2.50 s");
    }

    #[test]
    fn percentages_round_half_up() {
        assert_eq!(percent(2_106_514, 5_991_863), "35%");
        assert_eq!(percent(188_103, 5_991_863), "3%");
        assert_eq!(percent(2_859_561, 5_991_863), "48%");
        assert_eq!(percent(1, 1000), "<1%");
        assert_eq!(percent(5, 1000), "1%");
        assert_eq!(percent(0, 1000), "0%");
    }
}
