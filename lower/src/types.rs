//! Memory spaces, dtypes, target limits and number formats (SPEC §4).
//!
//! Architecture Invariant: every hardware limit the checks use is a named constant in
//! [`limits`], with its source; no other module writes a limit as a literal.

/// Hardware limits the same on every target (SPEC §4; what differs is in
/// [`crate::target`]).
pub mod limits {
    /// Partitions of SBUF and PSUM (and of the PE array's rows).
    pub const PARTITIONS: u64 = 128;
    /// Partitions of one quadrant: accesses start at 0/32/64/96 (the BIR verifier's rule).
    pub const QUADRANT: u64 = 32;
    /// Partitions of one bank: starts of a src/dst pair that differ must each be a
    /// multiple of it (the compiler's `partitions_per_bank (32)`, aws-neuron-sdk#1055;
    /// SPEC §6.2 [3] P306).
    pub const PARTITIONS_PER_BANK: u64 = 32;
    /// Free dims an access of a compute-engine instruction may have after merging (SPEC
    /// §7.1 [3] P418: the public NKI guide's "up to four-dimensional arrays").
    pub const MAX_FREE_DIMS: usize = 4;
    /// Free dims an Activation-engine access may have (SPEC §7.1 [3] P418, decision: both
    /// public `Too many strides!` reports are Activation patterns of four free dims).
    pub const MAX_FREE_DIMS_ACTIVATION: usize = 3;
    /// PSUM bytes per partition: 8 banks × 2 KiB, on every target (SBUF's capacity is the
    /// target's, [`crate::target::Target::capacity`]).
    pub const PSUM_PARTITION_BYTES: u64 = 16_384;
    /// One PSUM bank per partition, what one matmul may write (SPEC §4).
    pub const PSUM_BANK_BYTES: u64 = 2_048;
    /// Matmul stationary free size M and contraction K limit (public `nc_matmul`).
    pub const MATMUL_MAX_STATIONARY_FREE: u64 = 128;
    /// Matmul moving free size N limit: one PSUM bank of f32 (public `nc_matmul`).
    pub const MATMUL_MAX_MOVING_FREE: u64 = 512;
    /// MX matmul moving free size with an f32 dst (SPEC §6.1).
    pub const MX_MAX_MOVING_FREE_F32: u64 = 4_096;
    /// MX matmul moving free size with a bf16 dst (SPEC §6.1).
    pub const MX_MAX_MOVING_FREE_BF16: u64 = 8_192;
    /// Fewest elements per partition the max8 family reads (public `nki.isa.max8`; SPEC
    /// §6.5 [2]).
    pub const MAX8_MIN_FREE: u64 = 8;
    /// Most elements per partition the max8 family reads (public `nki.isa.max8`; SPEC
    /// §6.5 [2]).
    pub const MAX8_MAX_FREE: u64 = 16_384;
    /// Token-generation threshold of MLPKernel / NormQKV `is_tkg` (SPEC §6.8 decision; the
    /// real `TKG_BS_SEQLEN_THRESHOLD` lives in a compiled module the seeds do not show).
    pub const DEFAULT_TKG_SEQLEN_THRESHOLD: u64 = 96;
}

/// A memory space (SPEC §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Memory {
    /// Device DRAM; no partition dim.
    Hbm,
    /// State buffer; dim 0 is the partition dim.
    Sbuf,
    /// Partial-sum buffer; dim 0 is the partition dim.
    Psum,
    /// A 32-bit scalar register.
    Reg,
}

impl Memory {
    /// Every memory space, in the order SPEC §4 lists them.
    pub const ALL: [Memory; 4] = [Memory::Hbm, Memory::Sbuf, Memory::Psum, Memory::Reg];

    /// Parses the text name (`hbm`, `sbuf`, `psum`, `reg`).
    pub fn from_name(name: &str) -> Option<Memory> {
        Memory::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The text name.
    pub fn name(self) -> &'static str {
        match self {
            Memory::Hbm => "hbm",
            Memory::Sbuf => "sbuf",
            Memory::Psum => "psum",
            Memory::Reg => "reg",
        }
    }

    /// The BIR `MemoryType` string.
    pub fn bir_type(self) -> &'static str {
        match self {
            Memory::Hbm => "DRAM",
            Memory::Sbuf => "SB",
            Memory::Psum => "PSUM",
            Memory::Reg => "REG",
        }
    }

    /// Whether dim 0 is a partition dim (SBUF and PSUM).
    pub fn is_on_chip(self) -> bool {
        matches!(self, Memory::Sbuf | Memory::Psum)
    }

    /// What the memory is, for hover.
    pub fn doc(self) -> &'static str {
        match self {
            Memory::Hbm => "device memory (BIR `DRAM`); no partition dim, unbounded",
            Memory::Sbuf => {
                "state buffer (BIR `SB`): dim 0 is the partition dim (≤ 128); usable bytes per partition: 180,224 on trn1, 212,984 on trn2, 245,752 on trn3"
            }
            Memory::Psum => {
                "partial-sum buffer (BIR `PSUM`): dim 0 is the partition dim (≤ 128), 8 banks × 2,048 bytes per partition"
            }
            Memory::Reg => "a 32-bit scalar register (BIR `REG`)",
        }
    }
}

/// `n` with a comma every three digits (`212,984`), as every figure shown to a user is
/// written (SPEC §10.1, §10.2.8).
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An executed count as shown: with thousands separators, and `≥ ` before it when it
/// reached `u64::MAX` (executed counts saturate there: loop trip counts multiply).
pub fn group_executed(n: u64) -> String {
    if n == u64::MAX {
        format!("≥ {}", group(n))
    } else {
        group(n)
    }
}

/// How a float dtype encodes values (SPEC §4 "Float formats").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Exponent bits.
    pub exponent_bits: u32,
    /// Mantissa (fraction) bits.
    pub mantissa_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// IEEE-style (all-ones exponent is ±inf / nan) or OCP "fn" (no infinity; all-ones
    /// exponent with all-ones mantissa is nan).
    pub ieee: bool,
}

impl FloatFormat {
    /// The largest finite value.
    pub fn max_finite(self) -> f64 {
        let max_exp_field = if self.ieee {
            (1 << self.exponent_bits) - 2
        } else {
            (1 << self.exponent_bits) - 1
        };
        let max_mantissa = if self.ieee {
            (1u64 << self.mantissa_bits) - 1
        } else {
            (1u64 << self.mantissa_bits) - 2
        };
        let frac = 1.0 + max_mantissa as f64 / (1u64 << self.mantissa_bits) as f64;
        frac * 2f64.powi(max_exp_field - self.bias)
    }

    /// One unit in the last place of the largest finite value.
    fn ulp_of_max(self) -> f64 {
        let max_exp_field = if self.ieee {
            (1 << self.exponent_bits) - 2
        } else {
            (1 << self.exponent_bits) - 1
        };
        2f64.powi(max_exp_field - self.bias - self.mantissa_bits as i32)
    }

    /// The smallest magnitude that does not round to a finite value: max + ½ ulp(max)
    /// (SPEC §4 [2]: for IEEE-style formats it rounds to infinity, for the formats without
    /// infinity it has no encoding, even where ties-to-even would round it down).
    pub fn overflow_threshold(self) -> f64 {
        self.max_finite() + self.ulp_of_max() / 2.0
    }

    /// The bit pattern of `value`, rounded to nearest, ties to even.
    ///
    /// Errors: a finite value that does not round to a finite value (at or beyond
    /// [`overflow_threshold`](Self::overflow_threshold)), or an infinity in a format
    /// without one, has no encoding.
    pub fn encode(self, value: f64) -> Result<u64, String> {
        let e_bits = self.exponent_bits;
        let m_bits = self.mantissa_bits;
        let sign: u64 = if value.is_sign_negative() { 1 } else { 0 };
        let sign_bit = sign << (e_bits + m_bits);
        let exp_all_ones: u64 = (1 << e_bits) - 1;
        if value.is_nan() {
            // A quiet nan: IEEE all-ones exponent with the top mantissa bit; fn all ones.
            return Ok(if self.ieee {
                (exp_all_ones << m_bits) | (1 << (m_bits - 1))
            } else {
                (exp_all_ones << m_bits) | ((1 << m_bits) - 1)
            });
        }
        if value.is_infinite() {
            if self.ieee {
                return Ok(sign_bit | (exp_all_ones << m_bits));
            }
            return Err("this format has no infinity".into());
        }
        let abs = value.abs();
        if abs >= self.overflow_threshold() {
            return Err(format!(
                "it does not round to a finite value (the largest is {})",
                show_number(self.max_finite())
            ));
        }
        if abs == 0.0 {
            return Ok(sign_bit);
        }
        let min_normal_exp = 1 - self.bias;
        // The exact binary exponent of `abs` (from the f64 bits; f64 subnormals are far
        // below every format's normal range, so they take the clamp below).
        let f64_exp = ((abs.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let exp = f64_exp.max(min_normal_exp);
        // Scaling by a power of two is exact in f64, so the only rounding is the one below.
        let scaled = abs * 2f64.powi(m_bits as i32 - exp);
        let mut mantissa = scaled.round_ties_even() as u64;
        let mut biased = if abs < 2f64.powi(min_normal_exp) {
            0
        } else {
            (exp + self.bias) as u64
        };
        if biased == 0 {
            // Subnormal: `mantissa` counts units of 2^(min_normal_exp - m_bits); rounding up
            // to 2^m_bits is the smallest normal, which the same bits express.
            return Ok(sign_bit | mantissa);
        }
        if mantissa >= (2 << m_bits) {
            mantissa >>= 1;
            biased += 1;
        }
        Ok(sign_bit | (biased << m_bits) | (mantissa - (1 << m_bits)))
    }

    /// The value of bit pattern `bits` (the inverse of [`encode`](Self::encode)).
    pub fn decode(self, bits: u64) -> f64 {
        let m_bits = self.mantissa_bits;
        let exp_all_ones: u64 = (1 << self.exponent_bits) - 1;
        let sign = if bits >> (self.exponent_bits + m_bits) & 1 == 1 {
            -1.0
        } else {
            1.0
        };
        let biased = (bits >> m_bits) & exp_all_ones;
        let mantissa = bits & ((1 << m_bits) - 1);
        if self.ieee && biased == exp_all_ones {
            return if mantissa == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if !self.ieee && biased == exp_all_ones && mantissa == (1 << m_bits) - 1 {
            return f64::NAN;
        }
        let unit = 2f64.powi(1 - self.bias - m_bits as i32);
        if biased == 0 {
            return sign * mantissa as f64 * unit;
        }
        sign * ((1 << m_bits) + mantissa) as f64
            * 2f64.powi(biased as i32 - self.bias - m_bits as i32)
    }
}

/// The element types of SPEC §4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// `f32`
    F32,
    /// `f32r`, the fp32 "replicated" type, emitted as `float32` (seed `strip_fp32r`).
    F32r,
    /// `tf32`
    Tf32,
    /// `bf16`
    Bf16,
    /// `f16`
    F16,
    /// `f8e4m3`, IEEE-style.
    F8e4m3,
    /// `f8e5m2`, IEEE-style.
    F8e5m2,
    /// `f8e3m4`, IEEE-style.
    F8e3m4,
    /// `f8e4m3fn`, OCP "fn" (no infinity).
    F8e4m3fn,
    /// `f8e5m2x4`: four fp8 values per element (MX data).
    F8e5m2x4,
    /// `f8e4m3fnx4`: four fp8 values per element (MX data).
    F8e4m3fnx4,
    /// `f4e2m1fnx4`: four fp4 values per element (MX data).
    F4e2m1fnx4,
    /// `e8m0`: exponent-only scale, value 2^(e−127).
    E8m0,
    /// `i8`
    I8,
    /// `u8`
    U8,
    /// `i16`
    I16,
    /// `u16`
    U16,
    /// `i32`
    I32,
    /// `u32`
    U32,
}

impl Dtype {
    /// Every dtype, in SPEC §4 order.
    pub const ALL: [Dtype; 19] = [
        Dtype::F32,
        Dtype::F32r,
        Dtype::Tf32,
        Dtype::Bf16,
        Dtype::F16,
        Dtype::F8e4m3,
        Dtype::F8e5m2,
        Dtype::F8e3m4,
        Dtype::F8e4m3fn,
        Dtype::F8e5m2x4,
        Dtype::F8e4m3fnx4,
        Dtype::F4e2m1fnx4,
        Dtype::E8m0,
        Dtype::I8,
        Dtype::U8,
        Dtype::I16,
        Dtype::U16,
        Dtype::I32,
        Dtype::U32,
    ];

    /// Parses a text name (`bf16`, …).
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The text name.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F32r => "f32r",
            Dtype::Tf32 => "tf32",
            Dtype::Bf16 => "bf16",
            Dtype::F16 => "f16",
            Dtype::F8e4m3 => "f8e4m3",
            Dtype::F8e5m2 => "f8e5m2",
            Dtype::F8e3m4 => "f8e3m4",
            Dtype::F8e4m3fn => "f8e4m3fn",
            Dtype::F8e5m2x4 => "f8e5m2x4",
            Dtype::F8e4m3fnx4 => "f8e4m3fnx4",
            Dtype::F4e2m1fnx4 => "f4e2m1fnx4",
            Dtype::E8m0 => "e8m0",
            Dtype::I8 => "i8",
            Dtype::U8 => "u8",
            Dtype::I16 => "i16",
            Dtype::U16 => "u16",
            Dtype::I32 => "i32",
            Dtype::U32 => "u32",
        }
    }

    /// The BIR dtype string as emitted (`f32r` is emitted as `float32`, seed 000 §5.2
    /// `strip_fp32r`).
    pub fn bir_name(self) -> &'static str {
        match self {
            Dtype::F32 | Dtype::F32r => "float32",
            Dtype::Tf32 => "tfloat32",
            Dtype::Bf16 => "bfloat16",
            Dtype::F16 => "float16",
            Dtype::F8e4m3 => "float8e4",
            Dtype::F8e5m2 => "float8e5",
            Dtype::F8e3m4 => "float8e3",
            Dtype::F8e4m3fn => "float8_e4m3fn",
            Dtype::F8e5m2x4 => "float8_e5m2_x4",
            Dtype::F8e4m3fnx4 => "float8_e4m3fn_x4",
            Dtype::F4e2m1fnx4 => "float4_e2m1fn_x4",
            Dtype::E8m0 => "float8_e8m0fnu",
            Dtype::I8 => "int8",
            Dtype::U8 => "uint8",
            Dtype::I16 => "int16",
            Dtype::U16 => "uint16",
            Dtype::I32 => "int32",
            Dtype::U32 => "uint32",
        }
    }

    /// Size of one element in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            Dtype::F32 | Dtype::F32r | Dtype::Tf32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::F8e5m2x4 | Dtype::F8e4m3fnx4 => 4,
            Dtype::Bf16 | Dtype::F16 | Dtype::I16 | Dtype::U16 | Dtype::F4e2m1fnx4 => 2,
            Dtype::F8e4m3 | Dtype::F8e5m2 | Dtype::F8e3m4 | Dtype::F8e4m3fn => 1,
            Dtype::E8m0 | Dtype::I8 | Dtype::U8 => 1,
        }
    }

    /// Whether this is an integer dtype.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Dtype::I8 | Dtype::U8 | Dtype::I16 | Dtype::U16 | Dtype::I32 | Dtype::U32
        )
    }

    /// Whether this packs four values per element (`…x4`, MX data).
    pub fn is_x4(self) -> bool {
        matches!(
            self,
            Dtype::F8e5m2x4 | Dtype::F8e4m3fnx4 | Dtype::F4e2m1fnx4
        )
    }

    /// Whether this is one of the 1-byte fp8 formats the PE takes (SPEC §6.1 double_row).
    pub fn is_fp8(self) -> bool {
        matches!(
            self,
            Dtype::F8e4m3 | Dtype::F8e5m2 | Dtype::F8e3m4 | Dtype::F8e4m3fn
        )
    }

    /// The inclusive range of an integer dtype.
    pub fn int_range(self) -> Option<(i64, i64)> {
        Some(match self {
            Dtype::I8 => (i8::MIN as i64, i8::MAX as i64),
            Dtype::U8 => (0, u8::MAX as i64),
            Dtype::I16 => (i16::MIN as i64, i16::MAX as i64),
            Dtype::U16 => (0, u16::MAX as i64),
            Dtype::I32 => (i32::MIN as i64, i32::MAX as i64),
            Dtype::U32 => (0, u32::MAX as i64),
            _ => return None,
        })
    }

    /// The float format of a scalar float dtype (`None` for ints, e8m0 and the x4 types).
    pub fn float_format(self) -> Option<FloatFormat> {
        let f = |exponent_bits, mantissa_bits, bias, ieee| FloatFormat {
            exponent_bits,
            mantissa_bits,
            bias,
            ieee,
        };
        Some(match self {
            Dtype::F32 | Dtype::F32r | Dtype::Tf32 => f(8, 23, 127, true),
            Dtype::Bf16 => f(8, 7, 127, true),
            Dtype::F16 => f(5, 10, 15, true),
            Dtype::F8e4m3 => f(4, 3, 7, true),
            Dtype::F8e4m3fn => f(4, 3, 7, false),
            Dtype::F8e5m2 => f(5, 2, 15, true),
            Dtype::F8e3m4 => f(3, 4, 3, true),
            _ => return None,
        })
    }

    /// The largest finite value of a float dtype (e8m0: 2^127).
    pub fn max_finite(self) -> Option<f64> {
        match self {
            Dtype::E8m0 => Some(2f64.powi(127)),
            _ => self.float_format().map(FloatFormat::max_finite),
        }
    }

    /// The unsigned dtype of the same width, as an index output is reinterpreted
    /// (seed 000 §6.2 `reinterpret_dst_inplace`): `uint16` for 2-byte, `uint32` for 4-byte.
    pub fn unsigned_of_width(self) -> Option<Dtype> {
        match self.bytes() {
            1 => Some(Dtype::U8),
            2 => Some(Dtype::U16),
            4 => Some(Dtype::U32),
            _ => None,
        }
    }

    /// What the dtype is, for hover.
    pub fn doc(self) -> String {
        let kind = if self.is_int() {
            "integer"
        } else if self.is_x4() {
            "MX data, four values packed per element"
        } else if self == Dtype::E8m0 {
            "exponent-only scale, value 2^(e−127)"
        } else {
            "float"
        };
        format!(
            "`{}`: {kind}, {} byte(s) per element, BIR `{}`",
            self.name(),
            self.bytes(),
            self.bir_name()
        )
    }
}

/// A number as messages show it: integers without a fraction (`200`), others in the
/// shortest form that reads back (`0.5`, `1e39`), `inf`, `-inf`, `nan`.
pub fn show_number(value: f64) -> String {
    if value.is_nan() {
        "nan".into()
    } else if value.is_infinite() {
        if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if value.fract() == 0.0 && value.abs() < 1e16 {
        format!("{}", value as i64)
    } else {
        format!("{value:?}")
    }
}

/// Whether `value` is one of e8m0's values, the powers of two 2^−127 … 2^127 (SPEC §4
/// [2]: any other value, zero and negatives included, is out of range).
fn e8m0_exponent(value: f64) -> Option<u64> {
    if !(value.is_finite() && value > 0.0) {
        return None;
    }
    let e = value.log2().round();
    (2f64.powi(e as i32) == value && (-127.0..=127.0).contains(&e)).then(|| (e as i64 + 127) as u64)
}

/// SPEC §4 [2] "in range means rounds to a finite value": `value` rounded to the float
/// dtype `dtype` (nearest, ties to even), or why it is out of range: it overflows (a
/// magnitude at or beyond max + ½ ulp(max)), it is an infinity of a format without one, or,
/// for `e8m0`, it is not a power of two in 2^−127 … 2^127. ±inf (IEEE formats) and nan
/// round to themselves. Integer and `…x4` dtypes return the value unchanged.
///
/// This is the one rule behind Memset's bit pattern (P412), `clip_scalar` (P411),
/// RangeSelect's `fill_value` (P414) and Iota's range (P412).
pub fn round_to(dtype: Dtype, value: f64) -> Result<f64, String> {
    let shown = show_number(value);
    if dtype == Dtype::E8m0 {
        if value.is_nan() {
            return Ok(value);
        }
        return match e8m0_exponent(value) {
            Some(_) => Ok(value),
            None => Err(format!(
                "{shown} is not a power of two in 2^-127 … 2^127, the only values e8m0 holds"
            )),
        };
    }
    match dtype.float_format() {
        Some(format) => format
            .encode(value)
            .map(|bits| format.decode(bits))
            .map_err(|why| format!("{shown} has no {} encoding: {why}", dtype.name())),
        None => Ok(value),
    }
}

/// Whether the finite `value` overflows the float dtype `dtype`: its magnitude is at or
/// beyond max + ½ ulp(max), so it does not round to a finite value (SPEC §4 [2]). For
/// `e8m0` the next value past 2^127 would be 2^128, so the threshold is 1.5 · 2^127.
/// False for integer and `…x4` dtypes, and for non-finite values.
pub fn overflows(dtype: Dtype, value: f64) -> bool {
    let threshold = match dtype {
        Dtype::E8m0 => 1.5 * 2f64.powi(127),
        _ => match dtype.float_format() {
            Some(format) => format.overflow_threshold(),
            None => return false,
        },
    };
    value.is_finite() && value.abs() >= threshold
}

/// The bit pattern of `value` stored in `dtype`, read as an unsigned integer of the
/// dtype's width (Memset's `constant`, SPEC §6.6; seed 000 §7.1 `reinterpret_dst_inplace`).
///
/// Errors (P412): an integer out of range or with a fraction, a float that does not round
/// to a finite value of the dtype ([`round_to`]), a non-zero value in an `…x4` dtype.
pub fn bit_pattern(dtype: Dtype, value: f64) -> Result<u64, String> {
    let shown = show_number(value);
    if dtype.is_x4() {
        return if value == 0.0 {
            Ok(0)
        } else {
            Err(format!(
                "only 0 can be written into the packed dtype {}",
                dtype.name()
            ))
        };
    }
    if let Some((lo, hi)) = dtype.int_range() {
        if value.fract() != 0.0 || !value.is_finite() {
            return Err(format!(
                "{shown} is not an integer, as {} needs",
                dtype.name()
            ));
        }
        if value < lo as f64 || value > hi as f64 {
            return Err(format!(
                "{shown} is outside {}'s range {lo}..={hi}",
                dtype.name()
            ));
        }
        let bits = dtype.bytes() * 8;
        return Ok((value as i64 as u64) & ((1u128 << bits) - 1) as u64);
    }
    if dtype == Dtype::E8m0 {
        if value.is_nan() {
            return Ok(0xFF);
        }
        round_to(dtype, value)?;
        return e8m0_exponent(value).ok_or_else(|| format!("{shown} has no e8m0 encoding"));
    }
    match dtype.float_format() {
        Some(format) => format
            .encode(value)
            .map_err(|why| format!("{shown} has no {} encoding: {why}", dtype.name())),
        None => Err(format!("no bit pattern for {}", dtype.name())),
    }
}

/// The bit pattern of a hex literal written into an integer dtype (SPEC §6.6 [2]): the
/// literal is a bit pattern, accepted when it fits the dtype's width as an unsigned number
/// (`0xFFFFFFFF` into i32 is 4294967295); `None` for other dtypes, which read the literal
/// as a number. Errors (P412): more bits than the dtype's width.
pub fn hex_bit_pattern(dtype: Dtype, bits: u64) -> Option<Result<u64, String>> {
    if !dtype.is_int() {
        return None;
    }
    let width = dtype.bytes() * 8;
    Some(if width >= 64 || bits >> width == 0 {
        Ok(bits)
    } else {
        Err(format!(
            "0x{bits:X} does not fit {}'s {width} bits",
            dtype.name()
        ))
    })
}

/// `clip_scalar` (seed 000 §6.1 "clamp to operand dtype range"): an immediate brought
/// into `dtype`'s range.
///
/// Floats (SPEC §6.5 [3]): ±inf and nan pass unchanged, a finite value beyond the largest
/// finite magnitude is clamped to ±max (247 into f8e4m3 is 240); any other value passes
/// unchanged. Integers: clipped to the range, fraction truncated toward zero, nan is 0.
/// Returns the emitted value; [`clip_warns`] says whether the caller warns P411.
pub fn clip_scalar(dtype: Dtype, value: f64) -> f64 {
    if let Some((lo, hi)) = dtype.int_range() {
        if value.is_nan() {
            return 0.0;
        }
        return value.trunc().clamp(lo as f64, hi as f64);
    }
    match dtype.max_finite() {
        Some(max) if value.is_finite() && value.abs() > max => max.copysign(value),
        _ => value,
    }
}

/// Whether `clip_scalar(dtype, value)` is warned (P411, SPEC §6.5 [3]): for a float dtype
/// only when the value would not round to a finite value anyway ([`overflows`], §4's
/// threshold: 300 into f8e4m3 warns, 247 does not, the device holds 240 either way); for
/// an integer dtype whenever the value changes.
pub fn clip_warns(dtype: Dtype, value: f64) -> bool {
    if dtype.int_range().is_some() {
        return clip_scalar(dtype, value) != value;
    }
    overflows(dtype, value)
}

/// Whether `value` lies in `dtype`'s range (Iota's P412): integers within the int range;
/// floats when they round to a finite value of the dtype ([`round_to`], SPEC §4 [2]).
pub fn in_range(dtype: Dtype, value: f64) -> bool {
    if let Some((lo, hi)) = dtype.int_range() {
        return value >= lo as f64 && value <= hi as f64;
    }
    if dtype.is_x4() {
        return true;
    }
    round_to(dtype, value).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_finite_matches_spec() {
        assert_eq!(Dtype::F8e4m3.max_finite(), Some(240.0));
        assert_eq!(Dtype::F8e4m3fn.max_finite(), Some(448.0));
        assert_eq!(Dtype::F8e5m2.max_finite(), Some(57344.0));
        assert_eq!(Dtype::F8e3m4.max_finite(), Some(15.5));
        assert_eq!(Dtype::F32.max_finite(), Some(f32::MAX as f64));
    }

    #[test]
    fn bit_patterns() {
        assert_eq!(bit_pattern(Dtype::Bf16, 1.0), Ok(0x3f80));
        assert_eq!(bit_pattern(Dtype::I16, -1.0), Ok(65535));
        assert_eq!(bit_pattern(Dtype::F32, 1.0), Ok(0x3f80_0000));
        assert_eq!(bit_pattern(Dtype::F16, 1.0), Ok(0x3c00));
        assert_eq!(bit_pattern(Dtype::F16, -2.0), Ok(0xc000));
        // nki-library's BFLOAT16_MIN = -9948.0 rounds to -9920 (0xC61B), SPEC §6.6.
        assert_eq!(bit_pattern(Dtype::Bf16, -9948.0), Ok(0xC61B));
        assert_eq!(bit_pattern(Dtype::F8e4m3, 240.0), Ok(0x77));
        assert_eq!(bit_pattern(Dtype::F8e4m3fn, 448.0), Ok(0x7e));
        assert!(bit_pattern(Dtype::F8e4m3fn, f64::INFINITY).is_err());
        assert_eq!(bit_pattern(Dtype::F8e4m3, 241.0), Ok(0x77));
        assert_eq!(bit_pattern(Dtype::F16, f64::NEG_INFINITY), Ok(0xfc00));
        // f16 smallest subnormal 2^-24.
        assert_eq!(bit_pattern(Dtype::F16, 2f64.powi(-24)), Ok(1));
        assert_eq!(bit_pattern(Dtype::E8m0, 1.0), Ok(127));
        // pir-spec/2 §4: e8m0 holds powers of two only; nothing rounds into it.
        assert!(bit_pattern(Dtype::E8m0, 2.9).is_err());
        assert!(bit_pattern(Dtype::E8m0, 0.75).is_err());
        assert_eq!(bit_pattern(Dtype::E8m0, 0.5), Ok(126));
        assert_eq!(bit_pattern(Dtype::E8m0, 8.0), Ok(130));
        assert!(bit_pattern(Dtype::I8, 128.0).is_err());
        assert!(bit_pattern(Dtype::I32, 0.5).is_err());
        assert!(bit_pattern(Dtype::F8e5m2x4, 1.0).is_err());
        assert_eq!(bit_pattern(Dtype::F8e5m2x4, 0.0), Ok(0));
    }

    #[test]
    fn in_range_means_rounds_to_a_finite_value() {
        // SPEC §4 [2]: the examples, and the threshold max + ½ ulp(max) for each format.
        assert_eq!(bit_pattern(Dtype::F32, -3.4028235e38), Ok(0xff7f_ffff));
        assert_eq!(bit_pattern(Dtype::F32, -3.4028235e38), Ok(4286578687));
        assert_eq!(bit_pattern(Dtype::F16, 65504.0), Ok(0x7bff));
        assert_eq!(bit_pattern(Dtype::F16, 65519.0), Ok(0x7bff));
        assert!(bit_pattern(Dtype::F16, 65520.0).is_err());
        assert_eq!(bit_pattern(Dtype::F8e4m3, 247.0), Ok(0x77));
        assert!(bit_pattern(Dtype::F8e4m3, 248.0).is_err());
        assert_eq!(bit_pattern(Dtype::Bf16, -3.39e38), Ok(0xff7f));
        assert_eq!(bit_pattern(Dtype::F8e4m3fn, 463.0), Ok(0x7e));
        assert!(bit_pattern(Dtype::F8e4m3fn, 464.0).is_err());
        assert_eq!(bit_pattern(Dtype::F8e5m2, 61439.0), Ok(0x7b));
        assert!(bit_pattern(Dtype::F8e5m2, 61440.0).is_err());
        assert_eq!(bit_pattern(Dtype::F8e3m4, 15.74), Ok(0x6f));
        assert!(bit_pattern(Dtype::F8e3m4, 15.75).is_err());
        // f32's threshold is exactly what Rust's own f64 → f32 rounding overflows at.
        let threshold = Dtype::F32.float_format().unwrap().overflow_threshold();
        assert!((threshold as f32).is_infinite());
        assert!((threshold.next_down() as f32).is_finite());
        assert!(bit_pattern(Dtype::F32, threshold).is_err());
        assert_eq!(
            bit_pattern(Dtype::F32, threshold.next_down()),
            Ok(0x7f7f_ffff)
        );
        // e8m0: powers of two only.
        assert_eq!(bit_pattern(Dtype::E8m0, 2f64.powi(-127)), Ok(0));
        assert_eq!(bit_pattern(Dtype::E8m0, 2f64.powi(127)), Ok(254));
        assert!(bit_pattern(Dtype::E8m0, 3.0).is_err());
        assert!(bit_pattern(Dtype::E8m0, 0.0).is_err());
        assert!(bit_pattern(Dtype::E8m0, -2.0).is_err());
        assert!(bit_pattern(Dtype::E8m0, 2f64.powi(128)).is_err());
        assert_eq!(round_to(Dtype::F16, 65519.0), Ok(65504.0));
        assert_eq!(round_to(Dtype::F32, -3.4028235e38), Ok(f32::MIN as f64));
        assert!(round_to(Dtype::F16, 65520.0).is_err());
        assert!(in_range(Dtype::F8e4m3, 247.0) && !in_range(Dtype::F8e4m3, 248.0));
        assert!(!in_range(Dtype::E8m0, 0.0) && in_range(Dtype::E8m0, 64.0));
    }

    #[test]
    fn round_trip_every_fp8_pattern() {
        for dtype in [Dtype::F8e4m3, Dtype::F8e4m3fn, Dtype::F8e5m2, Dtype::F8e3m4] {
            let format = dtype.float_format().unwrap();
            for bits in 0..=255u64 {
                let v = format.decode(bits);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(format.encode(v), Ok(bits), "{dtype:?} {bits:#x} = {v}");
            }
        }
    }

    #[test]
    fn hex_literals_are_bit_patterns_into_integers() {
        assert_eq!(
            hex_bit_pattern(Dtype::I32, 0xFFFF_FFFF),
            Some(Ok(4294967295))
        );
        assert!(matches!(hex_bit_pattern(Dtype::I16, 0x1FFFF), Some(Err(_))));
        assert_eq!(hex_bit_pattern(Dtype::U8, 0xFF), Some(Ok(255)));
        assert_eq!(hex_bit_pattern(Dtype::Bf16, 0x3f80), None);
    }

    #[test]
    fn bf16_round_half_even() {
        // 1 + 2^-8 is halfway between 1.0 and the next bf16 (1 + 2^-7): ties to even → 1.0.
        assert_eq!(bit_pattern(Dtype::Bf16, 1.0 + 2f64.powi(-8)), Ok(0x3f80));
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even) → up.
        assert_eq!(
            bit_pattern(Dtype::Bf16, 1.0 + 3.0 * 2f64.powi(-8)),
            Ok(0x3f82)
        );
    }

    #[test]
    fn clipping() {
        assert_eq!(
            clip_scalar(Dtype::Bf16, f64::NEG_INFINITY),
            f64::NEG_INFINITY
        );
        assert_eq!(clip_scalar(Dtype::F8e4m3, 1000.0), 240.0);
        assert_eq!(clip_scalar(Dtype::F8e4m3, -1000.0), -240.0);
        // Beyond the largest finite value: clamped, but not warned (SPEC §6.5 [3]).
        assert_eq!(clip_scalar(Dtype::F8e4m3, 247.0), 240.0);
        assert!(!clip_warns(Dtype::F8e4m3, 247.0));
        assert!(clip_warns(Dtype::F8e4m3, 300.0));
        assert_eq!(clip_scalar(Dtype::Bf16, 3.39e38), 3.3895313892515355e38);
        assert_eq!(clip_scalar(Dtype::F32, -3.4028235e38), f32::MIN as f64);
        assert!(!clip_warns(Dtype::F32, -3.4028235e38));
        assert_eq!(
            clip_scalar(Dtype::E8m0, 2f64.powi(127) * 1.25),
            2f64.powi(127)
        );
        assert!(!clip_warns(Dtype::E8m0, 2f64.powi(127) * 1.25));
        assert!(clip_warns(Dtype::E8m0, 2f64.powi(127) * 1.5));
        assert_eq!(clip_scalar(Dtype::U8, -3.7), 0.0);
        assert_eq!(clip_scalar(Dtype::I8, -3.7), -3.0);
        assert_eq!(clip_scalar(Dtype::I16, 1e9), 32767.0);
    }
}
