//! The cost estimate of one op's instructions (SPEC §10.2 [3]): the rule per BIR opcode,
//! its terms read from the instruction as §8 emits it, and the cycles (compute engines) or
//! bytes and queue time (DMA) on every target. Also the op's warnings P420 and P421.
//!
//! One implementation: [`rule`] picks and applies the rule of an instruction on a target
//! ([`Applied`]); the stored estimate ([`estimate`], kept with the op's lowering, free of
//! positions), the hover's explanation ([`Applied::formula`]) and the warnings all read
//! it. An instruction's cost is a function of that instruction (and its op's class) and
//! of the target, and nothing else, so an edit elsewhere never recomputes it.

use std::fmt::Write as _;

use crate::bir::{Arg, ArgKind, Field, Inst, Opcode, Value};
use crate::catalog::Engine;
use crate::diag::{Anchor, Code, Diag, ValuePath};
use crate::model::ResolvedOp;
use crate::target::Target;
use crate::types::{Dtype, Memory, group, group_executed};

/// `MM_INIT`: PE cycles of a matmul's stationary load ([I] L896, [A1 L267]).
pub const MM_INIT: u64 = 64;
/// `MIN_II`: the least cycles of an Activation or DVE instruction ([I]).
pub const MIN_II: u64 = 64;
/// `GPSIMD_START`: Pool cycles before the element term ([I] L289, L565).
pub const GPSIMD_START: u64 = 150;
/// `MIN_II_DYNAMIC`: the least cycles of a dynamically addressed copy ([I] L1465).
pub const MIN_II_DYNAMIC: u64 = 600;
/// Elements per partition under which a compute instruction is overhead-bound (P420,
/// [G L439–441]).
pub const P420_MIN_ELEMENTS: u64 = 128;
/// Bytes per partition under which a DMA is small (P421, [D L77–85]).
pub const P421_MIN_BYTES: u64 = 2_048;
/// The elements of the PE array: the `share` of a tile is its elements over this.
const PE_ARRAY: u64 = 128 * 128;

/// Whether ops are estimated (true unless [`set_estimating`] turned it off).
static ESTIMATING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns the estimate on or off for the ops lowered from now on (P420 and P421 stay): a
/// measuring knob for the benchmark that compares the keystroke path with and without it
/// at equal diagnostics (`benches/gen/examples/cost.rs`). Off, every instruction is
/// [`Unestimated::Off`]. Nothing else calls it: the analysis of an op must not depend on
/// when it was lowered.
pub fn set_estimating(on: bool) {
    ESTIMATING.store(on, std::sync::atomic::Ordering::Relaxed);
}

fn estimating() -> bool {
    ESTIMATING.load(std::sync::atomic::Ordering::Relaxed)
}

/// The estimate of one instruction, on every target (indexed by [`Target::index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstCost {
    /// A compute instruction (PE, Activation, DVE, Pool): its cycles.
    Compute {
        /// Cycles per target.
        cycles: [u64; 3],
    },
    /// A `DMACopy`: the bytes it reads and its queue time (SPEC §10.2.6).
    Dma {
        /// Σ over its `ins` of elements × bytes.
        bytes: u64,
        /// The queue time `q` per target, in whole picoseconds.
        q_ps: [u64; 3],
    },
    /// No estimate (SPEC §10.2.7).
    NotEstimated(Unestimated),
}

/// Why an instruction has no estimate (SPEC §10.2.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unestimated {
    /// A kernel node (IT 54–56): its instructions are inside a binary.
    KernelNode,
    /// InlineASM: the unit of `latency_estimate` is not known.
    InlineAsm,
    /// TensorLoad: a register load with no published figure.
    TensorLoad,
    /// Reduce: a collective whose time depends on the peer cores.
    Collective,
    /// The op has an error diagnostic.
    Error,
    /// An instruction on an engine no rule covers (`SP`).
    NoRule,
    /// The estimate was turned off ([`set_estimating`], for measuring).
    Off,
}

impl Unestimated {
    /// Why, as the hover says it.
    pub fn reason(self) -> &'static str {
        match self {
            Unestimated::KernelNode => {
                "a kernel node: its instructions are inside a binary pir cannot see"
            }
            Unestimated::InlineAsm => {
                "inline assembly: the unit of `latency_estimate` is not published"
            }
            Unestimated::TensorLoad => {
                "a register load run by the sequencers, with no published figure"
            }
            Unestimated::Collective => "a collective, whose time depends on the peer cores",
            Unestimated::Error => "the op has an error",
            Unestimated::NoRule => "no rule covers this engine",
            Unestimated::Off => "the estimate is turned off",
        }
    }
}

/// Where a rule comes from: a key of SPEC §10.2.0's table, its path and line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// `[I]`, `[D]`, `[A2]`.
    pub key: &'static str,
    /// The repository at its snapshot and the file.
    pub path: &'static str,
    /// `L896`.
    pub lines: &'static str,
}

const ISA: &str = "aws-neuron-sdk@49ee15c5 general/nki/api/nki/isa/__init__.py";

const fn isa(lines: &'static str) -> Source {
    Source {
        key: "[I]",
        path: ISA,
        lines,
    }
}

const DMA_GUIDE: Source = Source {
    key: "[D]",
    path: "aws-neuron-sdk@81ce03ae nki/deep-dives/nki-dma-bandwidth-guide.rst",
    lines: "L39–64",
};

/// The element term of an Activation, DVE or Pool rule: N, 2N or N/2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// N.
    N,
    /// 2N.
    TwoN,
    /// N/2.
    HalfN,
}

impl Term {
    fn scale(self) -> (u64, u64) {
        match self {
            Term::N => (1, 1),
            Term::TwoN => (2, 1),
            Term::HalfN => (1, 2),
        }
    }

    fn show(self, n: u64) -> String {
        match self {
            Term::N => n.to_string(),
            Term::TwoN => format!("2 × {n}"),
            Term::HalfN => format!("{n} / 2"),
        }
    }
}

/// A rule's form with its terms' values (SPEC §10.2.4–§10.2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// PE: `⌈B × f × share⌉`, `B = max(min(MM_INIT, st), mov / ratio)`.
    Matmul {
        /// N of the stationary.
        st: u64,
        /// N of the moving.
        mov: u64,
        /// The sparse compress ratio (1 when dense).
        ratio: u64,
        /// The dtype factor f.
        f: u64,
        /// `tile_size[0] × tile_size[1]` (share = this / 16,384).
        tile: u64,
    },
    /// PE transpose: `⌈max(P, min(MM_INIT, N)) × f × share⌉`.
    Transpose {
        /// P of the src.
        p: u64,
        /// N of the src.
        n: u64,
        /// The dtype factor f.
        f: u64,
        /// `tile_size[0] × tile_size[1]`.
        tile: u64,
    },
    /// Activation and DVE: `max(floor, ⌈R × s / d⌉) + X`.
    Vector {
        /// N of the "N from" argument.
        n: u64,
        /// R in terms of N.
        r: Term,
        /// The stride factor s.
        s: u64,
        /// The perf-mode divisor d.
        d: u64,
        /// `MIN_II`, or `MIN_II_DYNAMIC`.
        floor: u64,
        /// The extra term X.
        x: u64,
    },
    /// Pool: `GPSIMD_START + ⌈R_pool × s⌉`.
    Pool {
        /// N of the "N from" argument.
        n: u64,
        /// R_pool in terms of N.
        r: Term,
        /// The stride factor s.
        s: u64,
    },
    /// DMA: `q = L + ⌈bytes × f_cce / BW⌉` (in ps: × 1,000).
    Dma {
        /// Σ over `ins` of elements × bytes.
        bytes: u64,
        /// The on-chip operand's bytes per partition (none for HBM to HBM).
        per_partition: Option<u64>,
        /// `mode: "CCE"` (half speed).
        cce: bool,
        /// Bandwidth per engine, bytes per ns.
        bw: u64,
    },
}

/// An argument of an instruction by its place (`ins` or `outs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgAt {
    /// `ins[k]`.
    In(usize),
    /// `outs[k]`.
    Out(usize),
}

impl ArgAt {
    /// The argument in `inst`.
    pub fn of(self, inst: &Inst) -> Option<&Arg> {
        match self {
            ArgAt::In(k) => inst.ins.get(k),
            ArgAt::Out(k) => inst.outs.get(k),
        }
    }
}

/// A rule applied to one instruction on one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The rule's name: the [I] function (`nc_matmul`), `dma`, `dma (CCE)`, or `fallback`
    /// for the rules SPEC §10.2 marks as decisions.
    pub rule: &'static str,
    /// The form with its values.
    pub form: Form,
    /// Where the rule comes from (`None` for a fallback without a public figure).
    pub source: Option<Source>,
    /// The argument whose N the rule reads, when P420 judges it.
    pub n_from: Option<ArgAt>,
}

fn ceil_div(n: u128, d: u128) -> u64 {
    if d == 0 {
        return u64::MAX;
    }
    u64::try_from(n.div_ceil(d)).unwrap_or(u64::MAX)
}

impl Applied {
    /// The cycles (compute) or the queue time in ps (DMA), rounded up once (§10.2.3).
    pub fn value(&self, target: Target) -> u64 {
        match self.form {
            Form::Matmul {
                st,
                mov,
                ratio,
                f,
                tile,
            } => {
                // B = max(min(MM_INIT, st), mov / ratio), kept as a fraction over `ratio`.
                let ratio = u128::from(ratio.max(1));
                let b = (u128::from(MM_INIT.min(st)) * ratio).max(u128::from(mov));
                ceil_div(
                    b * u128::from(f) * u128::from(tile),
                    ratio * u128::from(PE_ARRAY),
                )
            }
            Form::Transpose { p, n, f, tile } => {
                let b = u128::from(p.max(MM_INIT.min(n)));
                ceil_div(b * u128::from(f) * u128::from(tile), u128::from(PE_ARRAY))
            }
            Form::Vector {
                n,
                r,
                s,
                d,
                floor,
                x,
            } => {
                let (num, den) = r.scale();
                let c = ceil_div(
                    u128::from(n) * u128::from(num) * u128::from(s),
                    u128::from(den) * u128::from(d),
                );
                c.max(floor).saturating_add(x)
            }
            Form::Pool { n, r, s } => {
                let (num, den) = r.scale();
                GPSIMD_START.saturating_add(ceil_div(
                    u128::from(n) * u128::from(num) * u128::from(s),
                    u128::from(den),
                ))
            }
            Form::Dma { bytes, cce, bw, .. } => {
                let f = if cce { 2 } else { 1 };
                target
                    .dma_fixed_ps()
                    .saturating_add(ceil_div(u128::from(bytes) * f * 1000, u128::from(bw)))
            }
        }
    }

    /// The least cycles the rule gives (its fixed part), for P420's message.
    fn floor(&self) -> u64 {
        match self.form {
            Form::Matmul { .. } | Form::Transpose { .. } => MM_INIT,
            Form::Vector { floor, x, .. } => floor + x,
            Form::Pool { .. } => GPSIMD_START,
            Form::Dma { .. } => 0,
        }
    }

    /// The formula with its values substituted and its result, as the hover shows it
    /// (SPEC §10.2.9): `max(min(64, 128), 512) × 1 = 512 cycles`; for DMA the bytes and
    /// the queue time `q = 1,300 + 262,144 / 17 = 16,720.236 ns`.
    pub fn formula(&self, target: Target) -> String {
        let value = self.value(target);
        let share = |tile: u64| {
            if tile == PE_ARRAY {
                String::new()
            } else {
                format!(" × {tile}/16,384")
            }
        };
        match self.form {
            Form::Matmul {
                st,
                mov,
                ratio,
                f,
                tile,
            } => {
                let mov = if ratio > 1 {
                    format!("{mov} / {ratio}")
                } else {
                    mov.to_string()
                };
                format!(
                    "max(min({MM_INIT}, {st}), {mov}) × {f}{} = {} cycles",
                    share(tile),
                    group(value)
                )
            }
            Form::Transpose { p, n, f, tile } => format!(
                "max({p}, min({MM_INIT}, {n})) × {f}{} = {} cycles",
                share(tile),
                group(value)
            ),
            Form::Vector {
                n,
                r,
                s,
                d,
                floor,
                x,
            } => {
                let mut out = format!("max({floor}, ⌈{} × {s} / {d}⌉)", r.show(n));
                if x > 0 {
                    let _ = write!(out, " + {x}");
                }
                let _ = write!(out, " = {} cycles", group(value));
                out
            }
            Form::Pool { n, r, s } => format!(
                "{GPSIMD_START} + ⌈{} × {s}⌉ = {} cycles",
                r.show(n),
                group(value)
            ),
            Form::Dma {
                bytes,
                per_partition,
                cce,
                bw,
            } => {
                let mut out = format!("{} B", group(bytes));
                if let Some(pp) = per_partition {
                    let _ = write!(out, " ({} B per partition)", group(pp));
                }
                let cce = if cce { " × 2" } else { "" };
                let _ = write!(
                    out,
                    "; q = {} + {}{cce} / {bw} = {}.{:03} ns",
                    group(target.dma_fixed_ps() / 1000),
                    group(bytes),
                    group(value / 1000),
                    value % 1000
                );
                out
            }
        }
    }
}

// ----- the terms (SPEC §10.2.3) --------------------------------------------------------

/// A tensor argument's dtype, access pattern and memory.
fn tensor(arg: &Arg) -> Option<(Dtype, &[[i64; 2]], Memory)> {
    match &arg.kind {
        ArgKind::Tensor {
            tensor, dtype, ap, ..
        } => Some((*dtype, ap.as_slice(), tensor.memory)),
        _ => None,
    }
}

fn count(entry: &[i64; 2]) -> u64 {
    u64::try_from(entry[1]).unwrap_or(0)
}

/// N(a): the product of the counts after the partition pair (1 with no free entry).
fn free_size(arg: &Arg) -> u64 {
    tensor(arg).map_or(1, |(_, ap, _)| {
        ap.iter()
            .skip(1)
            .fold(1u64, |acc, e| acc.saturating_mul(count(e)))
    })
}

/// P(a): the count of the partition pair.
fn partitions(arg: &Arg) -> u64 {
    tensor(arg)
        .and_then(|(_, ap, _)| ap.first())
        .map_or(1, count)
}

/// elements(a): the product of every count.
fn elements(arg: &Arg) -> u64 {
    tensor(arg).map_or(0, |(_, ap, _)| {
        ap.iter().fold(1u64, |acc, e| acc.saturating_mul(count(e)))
    })
}

fn dtype(arg: Option<&Arg>) -> Option<Dtype> {
    match &arg?.kind {
        ArgKind::Tensor { dtype, .. }
        | ArgKind::Register { dtype, .. }
        | ArgKind::Imm { dtype, .. } => Some(*dtype),
    }
}

fn memory(arg: Option<&Arg>) -> Option<Memory> {
    tensor(arg?).map(|(_, _, m)| m)
}

/// contiguous(a): no free entry, or the innermost has step 1 or count 1.
fn contiguous(arg: Option<&Arg>) -> bool {
    arg.and_then(tensor)
        .is_some_and(|(_, ap, _)| ap.len() < 2 || ap.last().is_some_and(|e| e[0] == 1 || e[1] == 1))
}

/// The stride factor s: 2 when an on-chip argument's innermost free entry `[step, n]` has
/// n > 1 and step × bytes > 16 ([A1 L756–762]).
fn stride_factor(inst: &Inst) -> u64 {
    let strided = inst.ins.iter().chain(&inst.outs).any(|arg| {
        tensor(arg).is_some_and(|(dtype, ap, memory)| {
            memory.is_on_chip()
                && ap.len() > 1
                && ap.last().is_some_and(|e| {
                    e[1] > 1 && e[0].unsigned_abs().saturating_mul(dtype.bytes()) > 16
                })
        })
    });
    if strided { 2 } else { 1 }
}

fn find(args: &[Arg], field: &str) -> Option<usize> {
    args.iter().position(|a| a.role.field == field)
}

fn text(inst: &Inst, field: Field) -> Option<&str> {
    match inst.get(field)? {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

fn flag(inst: &Inst, field: Field) -> bool {
    matches!(inst.get(field), Some(Value::Bool(true)))
}

fn nat(value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::Nat(n) => Some(*n),
        Value::Int(i) => u64::try_from(*i).ok(),
        _ => None,
    }
}

fn is_f32(dtype: Option<Dtype>) -> bool {
    matches!(dtype, Some(Dtype::F32 | Dtype::F32r))
}

fn is_half(dtype: Option<Dtype>) -> bool {
    matches!(dtype, Some(Dtype::Bf16 | Dtype::F16))
}

fn in_psum(arg: Option<&Arg>) -> bool {
    memory(arg) == Some(Memory::Psum)
}

fn in_sbuf(arg: Option<&Arg>) -> bool {
    memory(arg) == Some(Memory::Sbuf)
}

// ----- the rules (SPEC §10.2.4–§10.2.6) ------------------------------------------------

/// Why an instruction of `opcode` has no rule, if it has none (SPEC §10.2.7).
fn unestimated(opcode: Opcode) -> Option<Unestimated> {
    match opcode {
        Opcode::BirKernel | Opcode::NkiKernel | Opcode::NkiKlirKernel => {
            Some(Unestimated::KernelNode)
        }
        Opcode::InlineAsm | Opcode::InlineAsmBytes => Some(Unestimated::InlineAsm),
        Opcode::TensorLoad => Some(Unestimated::TensorLoad),
        Opcode::Reduce => Some(Unestimated::Collective),
        _ => None,
    }
}

/// The rule of the `k`-th instruction (0-based) of `insts`, the instructions of an op of
/// class `class`, applied on `target`; `Err` when it has none (SPEC §10.2.7; an op with
/// errors is judged by [`estimate`]).
pub fn rule(class: &str, insts: &[Inst], k: usize, target: Target) -> Result<Applied, Unestimated> {
    let inst = insts.get(k).ok_or(Unestimated::NoRule)?;
    if let Some(why) = unestimated(inst.opcode) {
        return Err(why);
    }
    if inst.opcode == Opcode::DmaCopy {
        return Ok(dma(inst, target));
    }
    if inst.engine == Engine::Pe {
        return pe(inst, target).ok_or(Unestimated::NoRule);
    }
    if !matches!(inst.engine, Engine::Act | Engine::Dve | Engine::Pool) {
        return Err(Unestimated::NoRule);
    }
    vector(class, insts, k, target).ok_or(Unestimated::NoRule)
}

fn dma(inst: &Inst, target: Target) -> Applied {
    let bytes = inst.ins.iter().fold(0u64, |acc, a| {
        let size = dtype(Some(a)).map_or(0, Dtype::bytes);
        acc.saturating_add(elements(a).saturating_mul(size))
    });
    let cce = text(inst, Field::Mode) == Some("CCE");
    Applied {
        rule: if cce { "dma (CCE)" } else { "dma" },
        form: Form::Dma {
            bytes,
            per_partition: on_chip_operand(inst)
                .and_then(|at| at.of(inst))
                .map(|a| free_size(a).saturating_mul(dtype(Some(a)).map_or(0, Dtype::bytes))),
            cce,
            bw: target.dma_bandwidth(),
        },
        source: Some(DMA_GUIDE),
        n_from: on_chip_operand(inst),
    }
}

/// A DMA's on-chip operand: the `dst` in SBUF/PSUM, else the first such `ins` argument
/// (SPEC §10.2.6).
fn on_chip_operand(inst: &Inst) -> Option<ArgAt> {
    let on_chip = |a: &Arg| memory(Some(a)).is_some_and(Memory::is_on_chip);
    if let Some(k) = find(&inst.outs, "dst").filter(|&k| inst.outs.get(k).is_some_and(on_chip)) {
        return Some(ArgAt::Out(k));
    }
    inst.ins.iter().position(on_chip).map(ArgAt::In)
}

fn pe(inst: &Inst, target: Target) -> Option<Applied> {
    let tile = match inst.get(Field::TileSize) {
        Some(Value::List(dims)) => dims
            .iter()
            .map(|d| nat(Some(d)).unwrap_or(128))
            .fold(1u64, u64::saturating_mul),
        _ => PE_ARRAY,
    };
    let transpose_f = if target == Target::Trn1 { 4 } else { 2 };
    if flag(inst, Field::Identity) {
        let at = find(&inst.ins, "src")?;
        let src = inst.ins.get(at)?;
        let four = matches!(
            dtype(Some(src)),
            Some(Dtype::F32 | Dtype::F32r | Dtype::I32 | Dtype::U32)
        );
        return Some(Applied {
            rule: "nc_transpose",
            form: Form::Transpose {
                p: partitions(src),
                n: free_size(src),
                f: if four { transpose_f } else { 1 },
                tile,
            },
            source: Some(isa("L1044")),
            n_from: None,
        });
    }
    let st_at = find(&inst.ins, "stationary")?;
    let mov_at = find(&inst.ins, "moving")?;
    let (st, mov) = (inst.ins.get(st_at)?, inst.ins.get(mov_at)?);
    let double_row = text(inst, Field::PerfMode) == Some("DoubleRow");
    let n = |a: &Arg| {
        if double_row {
            tensor(a)
                .and_then(|(_, ap, _)| if ap.len() > 1 { ap.last() } else { None })
                .map_or(1, count)
        } else {
            free_size(a)
        }
    };
    // Matmult's f, which MatmultSparse shares ("as for Matmult", §10.2.4).
    let matmul_f = if flag(inst, Field::IsTranspose) {
        transpose_f
    } else if is_f32(dtype(Some(mov))) {
        4
    } else {
        1
    };
    let (rule, f, ratio, source) = match inst.opcode {
        Opcode::MatmultMx => ("fallback", 1, 1, Some(isa("L896"))),
        Opcode::MatmultSparse => (
            "fallback",
            matmul_f,
            nat(inst.get(Field::CompressRatio)).unwrap_or(1).max(1),
            Some(isa("L896")),
        ),
        _ => ("nc_matmul", matmul_f, 1, Some(isa("L896"))),
    };
    Some(Applied {
        rule,
        form: Form::Matmul {
            st: n(st),
            mov: n(mov),
            ratio,
            f,
            tile,
        },
        source,
        n_from: Some(ArgAt::In(mov_at)),
    })
}

/// The DVE perf-mode divisor of a copy-like instruction (TensorCopy; TensorScalarPtr from
/// TensorScalarPtrOp without `is_scalar_tensor_tensor`), SPEC §10.2.5.
fn copy_divisor(inst: &Inst, target: Target) -> u64 {
    let (src, dst) = (
        find(&inst.ins, "src").and_then(|k| inst.ins.get(k)),
        find(&inst.outs, "dst").and_then(|k| inst.outs.get(k)),
    );
    let fast = |a: Option<&Arg>| dtype(a).is_some_and(|d| target.dve_fast(d));
    if !(fast(src) && fast(dst)) {
        return 1;
    }
    let both_contiguous = contiguous(src) && contiguous(dst);
    if in_sbuf(src) && in_sbuf(dst) {
        if both_contiguous { 4 } else { 2 }
    } else if both_contiguous && (in_psum(src) != in_psum(dst)) {
        2
    } else {
        1
    }
}

fn vector(class: &str, insts: &[Inst], k: usize, target: Target) -> Option<Applied> {
    let inst = insts.get(k)?;
    let arg = |field: &str| find(&inst.ins, field).and_then(|i| inst.ins.get(i));
    let out = |field: &str| find(&inst.outs, field).and_then(|i| inst.outs.get(i));
    let on_dve = inst.engine == Engine::Dve;
    let mut floor = MIN_II;
    let mut x = 0;
    let mut d = 1;
    let mut n_from_field = "src";
    let mut from_outs = false;
    let mut n_override = None;
    // (rule, source, R on Activation/DVE, R_pool)
    let (rule, source, r, r_pool): (&'static str, Option<Source>, Term, Term) = match inst.opcode {
        Opcode::Activation | Opcode::ActivationAccumulationOp => {
            if inst.get(Field::ReduceOp).is_some() {
                x = MIN_II;
            }
            let copy = text(inst, Field::Func) == Some("Copy");
            if target == Target::Trn3
                && copy
                && is_half(dtype(arg("src")))
                && is_half(dtype(out("dst")))
            {
                d = 2;
            }
            if x > 0 {
                ("activation_reduce", Some(isa("L235")), Term::N, Term::N)
            } else {
                ("activation", Some(isa("L166")), Term::N, Term::N)
            }
        }
        Opcode::TensorScalarPtr => match class {
            "TensorScalarCacheCumulative" => (
                "tensor_tensor_scan",
                Some(isa("L1886")),
                Term::TwoN,
                Term::TwoN,
            ),
            "AffSelTensorScalarOp" => ("affine_select", Some(isa("L289")), Term::N, Term::N),
            "TensorScalarGEPOp" => {
                let dynamic = inst
                    .ins
                    .iter()
                    .find(|a| a.role.field == "index")
                    .is_some_and(|a| !matches!(a.kind, ArgKind::Imm { .. }));
                if dynamic {
                    floor = MIN_II_DYNAMIC;
                }
                (
                    "tensor_copy_dynamic_src",
                    Some(isa("L1465")),
                    Term::N,
                    Term::N,
                )
            }
            _ if flag(inst, Field::IsScalarTensorTensor) => {
                let n = arg("src").map_or(1, free_size);
                let cheap = dtype(arg("src")) == Some(Dtype::Bf16)
                    && dtype(arg("operand1")) == Some(Dtype::Bf16)
                    && text(inst, Field::Op0) == Some("subtract")
                    && text(inst, Field::Op1) == Some("mult")
                    && n.is_multiple_of(2);
                let r = if cheap { Term::N } else { Term::TwoN };
                ("scalar_tensor_tensor", Some(isa("L1215")), r, Term::TwoN)
            }
            _ => {
                if on_dve {
                    d = copy_divisor(inst, target);
                } else if inst.engine == Engine::Act
                    && target == Target::Trn3
                    && is_half(dtype(arg("src")))
                    && is_half(dtype(out("dst")))
                {
                    d = 2;
                }
                ("tensor_scalar", Some(isa("L1676")), Term::N, Term::N)
            }
        },
        Opcode::RangeSelect => {
            n_from_field = "on_true";
            ("range_select", Some(isa("L1133")), Term::N, Term::N)
        }
        Opcode::Select => {
            n_from_field = "on_true";
            if inst.get(Field::ReduceOp).is_some() {
                x = MIN_II;
            }
            let one = in_psum(arg("predicate")) != in_psum(arg("on_true"));
            let r = if one { Term::N } else { Term::TwoN };
            ("fallback", None, r, Term::TwoN)
        }
        Opcode::CopyPredicated => {
            let one = in_psum(arg("src")) != in_psum(arg("predicate"));
            let r = if one { Term::N } else { Term::TwoN };
            ("tensor_copy_predicated", Some(isa("L1513")), r, Term::TwoN)
        }
        Opcode::TensorReduce => {
            // The chain's input: N_0 = N(src), then divided by the src's count on each
            // reduced axis, innermost first (SPEC §10.2.5).
            let first = insts.first()?;
            let src = first.ins.first()?;
            let mut axes: Vec<i64> = match first.get(Field::ReduceAxes) {
                Some(Value::List(axes)) => axes
                    .iter()
                    .filter_map(|a| match a {
                        Value::Int(i) => Some(*i),
                        Value::Nat(n) => i64::try_from(*n).ok(),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            axes.sort_unstable_by(|a, b| b.cmp(a));
            let ap = tensor(src).map_or(&[][..], |(_, ap, _)| ap);
            let mut n = free_size(src);
            for axis in axes.iter().take(k) {
                let c = usize::try_from(*axis)
                    .ok()
                    .and_then(|a| ap.get(a))
                    .map_or(1, count)
                    .max(1);
                n /= c;
            }
            n_override = Some(n);
            let input = if k == 0 {
                dtype(Some(src))
            } else {
                dtype(out("dst"))
            };
            let halves = input == Some(Dtype::Bf16)
                && dtype(out("dst")) == Some(Dtype::Bf16)
                && matches!(text(inst, Field::Op), Some("add" | "max"));
            let r = if halves { Term::HalfN } else { Term::N };
            ("tensor_reduce", Some(isa("L1597")), r, Term::N)
        }
        Opcode::Max => ("max8", Some(isa("L671")), Term::N, Term::N),
        Opcode::MaxIndex => ("nc_find_index8", Some(isa("L746")), Term::N, Term::N),
        Opcode::MatchReplace => ("nc_match_replace8", Some(isa("L793")), Term::N, Term::N),
        Opcode::MaxIndexAndMatchReplace => ("fallback", None, Term::TwoN, Term::TwoN),
        Opcode::Memset => {
            n_from_field = "dst";
            from_outs = true;
            let zero = text(inst, Field::Mode) == Some("Const")
                && matches!(
                    inst.get(Field::Constant),
                    Some(Value::Nat(0) | Value::Int(0))
                );
            let r = if zero && is_half(dtype(out("dst"))) {
                Term::HalfN
            } else {
                Term::N
            };
            ("memset", Some(isa("L709")), r, Term::N)
        }
        Opcode::Iota => {
            n_from_field = "dst";
            from_outs = true;
            ("iota", Some(isa("L565")), Term::N, Term::N)
        }
        Opcode::GetSequenceBounds => ("fallback", None, Term::N, Term::N),
        Opcode::Dropout => ("dropout", Some(isa("L527")), Term::N, Term::N),
        Opcode::StreamShuffle => ("nc_stream_shuffle", Some(isa("L991")), Term::N, Term::N),
        Opcode::TensorCopy => {
            if on_dve {
                d = copy_divisor(inst, target);
            }
            ("tensor_copy", Some(isa("L1396")), Term::N, Term::N)
        }
        Opcode::TensorTensor => {
            n_from_field = "src0";
            let (a, b, dst) = (arg("src0"), arg("src1"), out("dst"));
            let one = in_psum(a) != in_psum(b);
            let bf16 = |x: Option<&Arg>| dtype(x) == Some(Dtype::Bf16);
            let cheap = in_sbuf(a)
                && in_sbuf(b)
                && bf16(a)
                && bf16(b)
                && bf16(dst)
                && matches!(text(inst, Field::Op), Some("add" | "mult" | "subtract"))
                && contiguous(a)
                && contiguous(b);
            let fast = |x: Option<&Arg>| dtype(x).is_some_and(|t| target.dve_fast(t));
            if on_dve && in_sbuf(a) && in_sbuf(b) && fast(a) && fast(b) && fast(dst) {
                d = 2;
            }
            let r = if one || cheap { Term::N } else { Term::TwoN };
            ("tensor_tensor", Some(isa("L1793")), r, Term::TwoN)
        }
        _ => return None,
    };
    let at = if from_outs {
        ArgAt::Out(find(&inst.outs, n_from_field)?)
    } else {
        ArgAt::In(
            find(&inst.ins, n_from_field).or(if inst.opcode == Opcode::TensorReduce {
                Some(0)
            } else {
                None
            })?,
        )
    };
    let n = n_override.unwrap_or_else(|| at.of(inst).map_or(1, free_size));
    let s = stride_factor(inst);
    let form = if inst.engine == Engine::Pool {
        Form::Pool { n, r: r_pool, s }
    } else {
        Form::Vector {
            n,
            r,
            s,
            d,
            floor,
            x,
        }
    };
    let judged = inst.opcode != Opcode::TensorReduce || k == 0;
    Some(Applied {
        rule,
        form,
        source,
        n_from: judged.then_some(at),
    })
}

// ----- the op: the stored estimate and the warnings ------------------------------------

/// The estimate of each of an op's instructions on every target (SPEC §10.2), in order.
/// `has_error`: the op has an error diagnostic (then none is estimated, §10.2.7).
pub fn estimate(class: &str, insts: &[Inst], has_error: bool) -> Vec<InstCost> {
    let on = estimating();
    (0..insts.len())
        .map(|k| {
            if has_error {
                return InstCost::NotEstimated(Unestimated::Error);
            }
            if !on {
                return InstCost::NotEstimated(Unestimated::Off);
            }
            let each = Target::ALL.map(|t| rule(class, insts, k, t));
            match each {
                [Ok(a), Ok(b), Ok(c)] => match a.form {
                    Form::Dma { bytes, .. } => InstCost::Dma {
                        bytes,
                        q_ps: [
                            a.value(Target::Trn1),
                            b.value(Target::Trn2),
                            c.value(Target::Trn3),
                        ],
                    },
                    _ => InstCost::Compute {
                        cycles: [
                            a.value(Target::Trn1),
                            b.value(Target::Trn2),
                            c.value(Target::Trn3),
                        ],
                    },
                },
                [Err(why), ..] | [_, Err(why), _] | [_, _, Err(why)] => InstCost::NotEstimated(why),
            }
        })
        .collect()
}

/// The executed count of one instruction of `op`: the trip product of its loops.
pub fn trips(op: &ResolvedOp) -> u64 {
    op.loops
        .iter()
        .fold(1u64, |acc, l| acc.saturating_mul(l.trip_count()))
}

/// Where argument `arg` of `op` was written: its field's value, or its element.
fn anchor(op: &ResolvedOp, arg: &Arg) -> Anchor {
    match op.fields.iter().position(|f| f.name == arg.role.field) {
        Some(i) => {
            let path = ValuePath::field(i);
            Anchor::Value(match arg.role.index {
                Some(k) => path.element(k as usize),
                None => path,
            })
        }
        None => Anchor::Class,
    }
}

/// P420 and P421 of an op without errors (SPEC §10.2.10): each at most once, on the first
/// instruction that qualifies, when the op's executed count (its instructions × the trip
/// product of its loops) is at least 2. Neither depends on the target.
pub fn warnings(op: &ResolvedOp, insts: &[Inst]) -> Vec<Diag> {
    let executed = trips(op).saturating_mul(insts.len() as u64);
    let mut out = Vec::new();
    if executed < 2 {
        return out;
    }
    // "≥ 18,446,744,073,709,551,615 times" when the count saturated.
    let times = group_executed(executed);
    let (mut p420, mut p421) = (false, false);
    for (k, inst) in insts.iter().enumerate() {
        let Ok(applied) = rule(&op.class, insts, k, Target::default()) else {
            continue;
        };
        let Some(arg) = applied.n_from.and_then(|at| at.of(inst)) else {
            continue;
        };
        if let Form::Dma {
            per_partition: Some(pp),
            ..
        } = applied.form
        {
            if !p421 && pp < P421_MIN_BYTES {
                p421 = true;
                out.push(Diag::new(
                    Code::P421,
                    anchor(op, arg),
                    format!(
                        "small DMA: {} bytes per partition (under 2 KiB), {times} times; the DMA \
                         guide recommends at least 2 KiB per partition and 4 KiB to saturate",
                        group(pp)
                    ),
                ));
            }
            continue;
        }
        let n = match applied.form {
            Form::Matmul { mov, .. } => mov,
            Form::Vector { n, .. } | Form::Pool { n, .. } => n,
            Form::Transpose { .. } | Form::Dma { .. } => continue,
        };
        if !p420 && n < P420_MIN_ELEMENTS {
            p420 = true;
            let plural = if n == 1 { "" } else { "s" };
            out.push(Diag::new(
                Code::P420,
                anchor(op, arg),
                format!(
                    "overhead-bound: {} on {} reads {n} element{plural} per partition (under 128), \
                     {times} times; each costs at least {} cycles, nearly all of it fixed overhead",
                    inst.opcode.name(),
                    inst.engine.bir_name(),
                    applied.floor()
                ),
            ));
        }
    }
    out
}
