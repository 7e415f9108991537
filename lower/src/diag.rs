//! Diagnostic codes (SPEC §7) and position-free diagnostics.
//!
//! A lowering diagnostic points at an [`Anchor`] — a place *within the op* such as "the
//! value of field 3" — never at a byte offset, so that an op's lowering stays valid when
//! text above it moves. The analysis maps anchors back to ranges through the syntax tree.

use std::fmt;

/// Severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Makes `pir check` exit 1.
    Error,
    /// Reported, exit status unaffected.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`, as in `pir check --format json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! codes {
    ($($code:ident $sev:ident $summary:literal,)*) => {
        /// Every diagnostic code of SPEC §7.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $(#[doc = $summary] $code,)*
        }

        impl Code {
            /// Every code, in SPEC §7 order.
            pub const ALL: &'static [Code] = &[$(Code::$code,)*];

            /// The code as printed, `"P400"`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$code => stringify!($code),)* }
            }

            /// The severity SPEC §7 gives the code.
            pub fn severity(self) -> Severity {
                match self { $(Code::$code => Severity::$sev,)* }
            }

            /// One line saying what the code means (SPEC §7's table).
            pub fn summary(self) -> &'static str {
                match self { $(Code::$code => $summary,)* }
            }
        }
    };
}

codes! {
    P100 Error "syntax error",
    P101 Error "unterminated string or bytes literal",
    P102 Error "malformed number",
    P103 Error "unknown character or invalid UTF-8",
    P200 Error "undefined tensor, register or loop variable",
    P201 Error "duplicate definition",
    P202 Error "unknown op class",
    P203 Error "unknown field for this op",
    P204 Error "missing required field",
    P205 Error "duplicate field",
    P206 Error "wrong value kind",
    P207 Error "unknown enum value, dtype or memory space",
    P208 Error "duplicate op id",
    P300 Error "incorrect access pattern (bounds, step, rank, predicate dims)",
    P301 Error "operand in the wrong memory space",
    P302 Error "more than 128 partitions",
    P303 Error "expression is not affine",
    P304 Error "capacity exceeded (SBUF/PSUM per partition, PSUM bank)",
    P305 Error "shape or element-count mismatch",
    P306 Error "src and dst start partitions differ and one is not a multiple of 32",
    P307 Error "partition start not 0/32/64/96, or more partitions than that start allows",
    P400 Error "matmul stationary (weight) access must be rank 2",
    P401 Error "incorrect double row step",
    P402 Error "MX scale must be 1.0 with scale_ptr",
    P403 Error "MX offset_scale differs from the moving free size",
    P404 Error "TSC mode without op1",
    P405 Error "matmul contraction (partition) mismatch or over 128",
    P406 Error "matmul size limit",
    P407 Error "dtype not allowed for this operand",
    P408 Error "kernel not in the internal kernel registry, or a registry kernel written as a BIRKernel",
    P409 Error "PE tile size/position invalid",
    P410 Warning "index output reinterpreted to an unsigned dtype",
    P411 Warning "immediate clipped to the dtype's range",
    P412 Error "value out of the dtype's range",
    P413 Warning "field ignored in this mode",
    P414 Error "value out of range for this field",
    P415 Error "Mask pattern only support 1 step multiplier",
    P416 Warning "peak SBUF or PSUM occupancy of a kernel exceeds the capacity",
    P417 Error "one instruction's SBUF operands together exceed the partition ([GCA035])",
    P418 Error "too many free dims in an access pattern (Too many strides!)",
    P419 Warning "a kernel output is never written",
    P420 Warning "overhead-bound compute instruction: under 128 elements per partition, executed repeatedly",
    P421 Warning "small DMA: under 2 KiB per partition, executed repeatedly",
    P500 Warning "tensor or register declared but never used",
    P501 Warning "op reads a tensor that nothing wrote before",
}

impl Code {
    /// Whether the code is cost advice (P420, P421: SPEC §10.2.10, a warning on an op's
    /// size, not on its meaning), which an editor is sent only the first of
    /// (`analysis::MAX_COST_WARNINGS`).
    pub fn is_cost_advice(self) -> bool {
        matches!(self, Code::P420 | Code::P421)
    }

    /// Whether the code is a syntax error (P100–P103, SPEC §7): the text does not read as
    /// written, so `pir fmt` and formatting leave it alone and `pir stats` says its counts
    /// are of what parses.
    pub fn is_syntax(self) -> bool {
        matches!(self, Code::P100 | Code::P101 | Code::P102 | Code::P103)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The compiler's own texts that pir's messages lead with, so that a search for the line
/// `neuronx-cc` printed finds pir's diagnostic too (SPEC §7.1 [3]; public reports
/// aws-neuron-sdk#1060, #1055, #1120, #1281, #1000, #1112, nki-llama#20). Each is written
/// here once; P300's `Incorrect access pattern!` is [`Diag::incorrect_access_pattern`]'s,
/// P306's and P307's take numbers and are built where they are checked
/// (`ops::common::check_start_partition`, `access::check_quadrant`).
pub mod compiler {
    /// P305 on a DMA op's shapes.
    pub const DMA_SHAPE: &str = "DMA Copy in/out shape must match";
    /// P301 on a matmul-family dst outside PSUM.
    pub const MATMULT_DST_NOT_PSUM: &str = "Matmult dst tensor is not psum";
    /// P407 on a PE input (stationary, moving) of a dtype the PE does not take; the
    /// allowed dtypes follow.
    pub const PE_INPUT_DTYPE: &str = "Expect ap datatype to be of type";
    /// P201 on a kernel named as an earlier one.
    pub const IDENTICAL_FUNCTION_NAME: &str = "identical function name";
    /// P407 on an activation's `bias` of a dtype other than f32, f16 or bf16 (the NKI
    /// error text).
    pub const ACTIVATION_BIAS_DTYPE: &str = "Bias parameter of activation or activation_reduce \
                                              must be a vector of type float32, float16, or \
                                              bfloat16";
    /// P417's first line: `[GCA035] Instruction: {inst} couldn't be allocated in SB`,
    /// `{inst}` the op's `Class #id` ([`super::INSTRUCTION_PLACEHOLDER`]).
    pub const GCA035: &str = "[GCA035] Instruction: {inst} couldn't be allocated in SB";
    /// P418's lead (`BirCodeGenLoop:Too many strides!`).
    pub const TOO_MANY_STRIDES: &str = "Too many strides!";
    /// P304, every capacity rule.
    pub const ALLOCATED_OUT_OF_BOUND: &str = "Allocated memory out of bound";

    /// P200 on a loop variable: `No existing axis {v} found` (`v` without `%`).
    pub fn no_existing_axis(name: &str) -> String {
        format!("No existing axis {name} found")
    }
}

/// A place inside one op, position-free.
///
/// Field indices count the op's fields as written (duplicates and unknown fields
/// included), 0-based.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Anchor {
    /// The op class name.
    Class,
    /// The written `#id`, or the class name when the id is implicit.
    OpId,
    /// The name of field `n`.
    FieldName(usize),
    /// A value, or a value nested in lists, calls or records.
    Value(ValuePath),
    /// Index `k` (0-based) of the access at the path.
    Index(ValuePath, usize),
    /// The header of enclosing loop `n` (0 = outermost).
    Loop(usize),
}

/// The path to a (nested) value: field `n`, then element indices into lists, call
/// arguments and record fields, outermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ValuePath {
    /// Field index within the op.
    pub field: usize,
    /// Element indices, outermost first.
    pub elements: Vec<usize>,
}

impl ValuePath {
    /// The path of field `field`'s value itself.
    pub fn field(field: usize) -> ValuePath {
        ValuePath {
            field,
            elements: Vec::new(),
        }
    }

    /// The path of element `index` of this (list, call or record) value.
    pub fn element(&self, index: usize) -> ValuePath {
        let mut elements = self.elements.clone();
        elements.push(index);
        ValuePath {
            field: self.field,
            elements,
        }
    }
}

/// A secondary location with a note.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Related {
    /// Where.
    pub anchor: Anchor,
    /// The note.
    pub message: String,
}

/// The seed's placeholder for the instruction a message names (seed 000 §2.2, P403).
pub const INSTRUCTION_PLACEHOLDER: &str = "{inst}";

/// A diagnostic of one op, position-free.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diag {
    /// The code; its severity is [`Code::severity`].
    pub code: Code,
    /// The primary location (SPEC §7 primary ranges).
    pub anchor: Anchor,
    /// The message (seed literals verbatim), no final period.
    pub message: String,
    /// Secondary locations.
    pub related: Vec<Related>,
    /// The message holds the seed's `{inst}` placeholder, which names the op's instruction
    /// as `Class #id` (SPEC §6.1 P403). The op id is not part of the lowering's input, so
    /// whoever knows it replaces the placeholder ([`Diag::message_for`]).
    pub names_instruction: bool,
    /// The quick fix, as data (SPEC §10 `codeAction`): the IDE reads this, never the
    /// message.
    pub fix: Option<FixHint>,
}

/// A diagnostic's quick fix (SPEC §10 `codeAction`), set where the message is built.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FixHint {
    /// Replace the text of the diagnostic's primary range with `with` (a did-you-mean
    /// suggestion: the name as written, e.g. `isTranspose`, `%x`; inside a string literal
    /// the fix keeps the quotes).
    Replace {
        /// The replacement text.
        with: String,
    },
    /// Add the field `name` to the op the diagnostic is on, as `name = value`; with no
    /// `value` the IDE picks one (a tensor in scope, the kind's first value).
    InsertField {
        /// The field name (from the catalog).
        name: String,
        /// The value text, when the rule knows it.
        value: Option<String>,
    },
    /// Replace the text of the diagnostic's primary range with one of `values` (an unknown
    /// enum value with no close one: each value is a fix).
    OneOf {
        /// The values, in the catalog's order.
        values: Vec<String>,
    },
    /// Delete the declaration whose name is the diagnostic's primary range (P500), with its
    /// line when it stands alone there.
    DeleteDeclaration,
}

impl FixHint {
    /// The replacement by a did-you-mean `suggestion`, if there is one.
    pub fn replace(suggestion: Option<&str>) -> Option<FixHint> {
        suggestion.map(|s| FixHint::Replace {
            with: s.to_string(),
        })
    }
}

impl Diag {
    /// A diagnostic without related locations.
    pub fn new(code: Code, anchor: Anchor, message: impl Into<String>) -> Diag {
        Diag {
            code,
            anchor,
            message: message.into(),
            related: Vec::new(),
            names_instruction: false,
            fix: None,
        }
    }

    /// The diagnostic with the quick fix `fix` (none when `None`).
    #[must_use]
    pub fn with_fix(mut self, fix: Option<FixHint>) -> Diag {
        self.fix = fix;
        self
    }

    /// The message of this diagnostic on the op `class` with op id `op_id`: the `{inst}`
    /// placeholder replaced by `Class #id` where [`names_instruction`](Self::names_instruction)
    /// says it stands.
    pub fn message_for(&self, class: &str, op_id: u32) -> String {
        if self.names_instruction {
            self.message
                .replace(INSTRUCTION_PLACEHOLDER, &format!("{class} #{op_id}"))
        } else {
            self.message.clone()
        }
    }

    /// P300 with the seed literal `Incorrect access pattern!` (seed 000 §2.1) followed by
    /// what is wrong, which is also the related note at `related` (SPEC §5: "a related note
    /// naming the dim and the loop values"; clients that hide related notes still show it).
    pub fn incorrect_access_pattern(anchor: Anchor, related: Anchor, note: String) -> Diag {
        Diag::new(
            Code::P300,
            anchor,
            format!("Incorrect access pattern! {note}"),
        )
        .with_related(related, note)
    }

    /// Adds a related location.
    pub fn with_related(mut self, anchor: Anchor, message: impl Into<String>) -> Diag {
        self.related.push(Related {
            anchor,
            message: message.into(),
        });
        self
    }
}

/// The closest candidate to `name` for a did-you-mean, if any is close enough.
///
/// Closeness is the Damerau–Levenshtein (optimal string alignment) distance, case-folded,
/// at most a third of the longer name (and at least 1 for short names). When none is that
/// close and `name` has two or more `_`-separated words, the shortest candidate that has
/// all of them in order among more words is it (`gelu_tanh` for `gelu_apprx_tanh`).
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower: Vec<char> = name.chars().map(|c| c.to_ascii_lowercase()).collect();
    let lower_name = name.to_ascii_lowercase();
    let words: Vec<&str> = lower_name.split('_').filter(|w| !w.is_empty()).collect();
    let mut by_words: Option<&'a str> = None;
    let mut rows = OsaRows::default();
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if words.len() >= 2
            && by_words.is_none_or(|b| candidate.len() < b.len())
            && has_words_in_order(candidate, &words)
        {
            by_words = Some(candidate);
        }
        let limit = (name.len().max(candidate.len()) / 3).max(1);
        // Only a closer candidate counts: the distance must be at most `bound`, and its
        // computation stops as soon as it cannot be (most candidates of a big scope,
        // thousands of names, are passed over after a row or two, or on their length).
        let bound = match best {
            Some((0, _)) => break,
            Some((d, _)) => limit.min(d - 1),
            None => limit,
        };
        if let Some(distance) = rows.distance_within(&lower, candidate, bound) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c).or(by_words)
}

/// Whether `candidate` has more `_`-separated words than `words` (lowercase), each of them
/// the start of one of its own, in order (case-folded: `gelu_tan` is in `gelu_apprx_tanh`).
fn has_words_in_order(candidate: &str, words: &[&str]) -> bool {
    let mut own = candidate.split('_').filter(|w| !w.is_empty());
    let mut count = 0;
    let mut found = 0;
    for word in own.by_ref() {
        count += 1;
        if words.get(found).is_some_and(|w| {
            word.get(..w.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(w))
        }) {
            found += 1;
        }
    }
    found == words.len() && count > words.len()
}

/// Names people bring from NKI (`nki.language`) for what pir spells otherwise, as
/// `(foreign, pir)`; a foreign name is suggested as its pir name when that is a candidate.
/// (BIR spellings, `mult` or `bfloat16`, come with the candidates: [`did_you_mean_spelt`].)
const FOREIGN: &[(&str, &str)] = &[
    ("mul", "multiply"),
    ("sub", "subtract"),
    ("div", "divide"),
    ("maximum", "max"),
    ("minimum", "min"),
    ("power", "pow"),
    ("equal", "is_equal"),
    ("greater", "is_gt"),
    ("greater_equal", "is_ge"),
    ("less", "is_lt"),
    ("less_equal", "is_le"),
    // SBUF is the on-chip SRAM (the NKI docs' word for it).
    ("sram", "sbuf"),
    ("fp32", "f32"),
    ("fp16", "f16"),
    ("bfp16", "bf16"),
];

/// [`did_you_mean`] for names that people write as in NKI or BIR: each candidate comes
/// with its other spelling (its BIR name: `mult` for `multiply`, `bfloat16` for `bf16`),
/// a module path is ignored (`nl.exp`, `nki.language.multiply`, `nl.bfloat16`), and the
/// NKI names of [`FOREIGN`] are known. A name equal to a spelling, ignoring case (`SBUF`,
/// `Exp`), is that candidate; else the closest spelling within [`did_you_mean`]'s limit.
pub fn did_you_mean_spelt<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<&'a str> {
    let candidates: Vec<(&'a str, &'a str)> = candidates.into_iter().collect();
    let bare = name.rsplit('.').next().unwrap_or(name);
    let foreign = FOREIGN
        .iter()
        .find(|(from, _)| from.eq_ignore_ascii_case(bare))
        .map(|(_, to)| *to);
    if let Some(&(c, _)) = candidates.iter().find(|(c, other)| {
        c.eq_ignore_ascii_case(bare)
            || other.eq_ignore_ascii_case(bare)
            || foreign.is_some_and(|f| f == *c)
    }) {
        return Some(c);
    }
    let spellings = candidates.iter().flat_map(|(c, other)| [*c, *other]);
    let best = did_you_mean(bare, spellings)?;
    candidates
        .iter()
        .find(|(c, other)| *c == best || *other == best)
        .map(|(c, _)| *c)
}

/// The candidate closest to `name` (case-folded optimal string alignment distance), however
/// far; the first of equally close ones. For messages that must name the nearest choice
/// even when no did-you-mean is close enough (SPEC §6.8 P408).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = osa_distance(&lower, &candidate.to_ascii_lowercase());
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

fn osa_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    OsaRows::default()
        .distance_within(&a, b, usize::MAX)
        .unwrap_or(usize::MAX)
}

/// The rows of an optimal string alignment distance, kept between computations (no
/// allocation per candidate of a did-you-mean).
#[derive(Default)]
struct OsaRows {
    b: Vec<char>,
    rows: [Vec<usize>; 3],
}

impl OsaRows {
    /// The optimal string alignment (Damerau–Levenshtein without repeated edits) distance
    /// between `a` (chars, ASCII-lowercased) and `b` (ASCII-lowercased here), if it is at
    /// most `bound`; `None` as soon as it cannot be: the lengths differ by more, or two
    /// rows in a row exceed it (a row's least entry is at least the least of the row before
    /// it and one more than the least of the row before that).
    fn distance_within(&mut self, a: &[char], b: &str, bound: usize) -> Option<usize> {
        self.b.clear();
        self.b.extend(b.chars().map(|c| c.to_ascii_lowercase()));
        let (a, b) = (a, &self.b);
        let (n, m) = (a.len(), b.len());
        if n.abs_diff(m) > bound {
            return None;
        }
        let [before, last, row] = &mut self.rows;
        for r in [&mut *before, &mut *last, &mut *row] {
            r.clear();
            r.resize(m + 1, 0);
        }
        for (j, cell) in last.iter_mut().enumerate() {
            *cell = j;
        }
        let mut over_before = false;
        for i in 1..=n {
            row[0] = i;
            let mut least = i;
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut d = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d = d.min(before[j - 2] + 1);
                }
                row[j] = d;
                least = least.min(d);
            }
            let over = least > bound;
            if over && over_before {
                return None;
            }
            over_before = over;
            std::mem::swap(before, last);
            std::mem::swap(last, row);
        }
        let distance = last[m];
        (distance <= bound).then_some(distance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded distance is the distance when within the bound, on pseudo-random names
    /// over a small alphabet (many near misses, transpositions, case).
    #[test]
    fn bounded_distance_agrees() {
        fn plain(a: &[char], b: &[char]) -> usize {
            let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for (i, row) in d.iter_mut().enumerate() {
                row[0] = i;
            }
            for (j, cell) in d[0].iter_mut().enumerate() {
                *cell = j;
            }
            for i in 1..=a.len() {
                for j in 1..=b.len() {
                    let cost = usize::from(a[i - 1] != b[j - 1]);
                    d[i][j] = (d[i - 1][j] + 1)
                        .min(d[i][j - 1] + 1)
                        .min(d[i - 1][j - 1] + cost);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                    }
                }
            }
            d[a.len()][b.len()]
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet: Vec<char> = "abAB_1é".chars().collect();
        let mut rows = OsaRows::default();
        for _ in 0..20_000 {
            let (la, lb) = (next() % 9, next() % 9);
            let mut word = |len: u64| -> String {
                (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            };
            let (a, b) = (word(la), word(lb));
            let fa: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
            let fb: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
            let want = plain(&fa, &fb);
            let bound = (next() % 6) as usize;
            let got = rows.distance_within(&fa, &b, bound);
            assert_eq!(
                got,
                (want <= bound).then_some(want),
                "{a:?} {b:?} within {bound}"
            );
        }
    }

    #[test]
    fn suggestions() {
        let fields = ["isTranspose", "isMovingZero", "dst"];
        assert_eq!(did_you_mean("isTranpose", fields), Some("isTranspose"));
        assert_eq!(did_you_mean("dts", fields), Some("dst"));
        assert_eq!(did_you_mean("banana", fields), None);
        let funcs = ["gelu", "gelu_apprx_tanh", "tanh", "gelu_apprx_sigmoid"];
        assert_eq!(did_you_mean("gelu_tanh", funcs), Some("gelu_apprx_tanh"));
        assert_eq!(did_you_mean("GELU_TANH", funcs), Some("gelu_apprx_tanh"));
        assert_eq!(did_you_mean("gelu_tan", funcs), Some("gelu_apprx_tanh"));
        assert_eq!(did_you_mean("tanh_gelu", funcs), None);
        assert_eq!(
            did_you_mean("MatmulOp", ["MatMulOp", "MemsetOp"]),
            Some("MatMulOp")
        );
    }

    #[test]
    fn names_from_nki_and_bir() {
        let alu = [
            ("add", "add"),
            ("multiply", "mult"),
            ("subtract", "subtract"),
            ("max", "max"),
        ];
        for (name, want) in [
            ("mult", "multiply"),
            ("mul", "multiply"),
            ("MULT", "multiply"),
            ("nl.multiply", "multiply"),
            ("nki.language.multiply", "multiply"),
            ("sub", "subtract"),
            ("nl.maximum", "max"),
            ("multiplyy", "multiply"),
        ] {
            assert_eq!(did_you_mean_spelt(name, alu), Some(want), "{name}");
        }
        let funcs = [("exp", "Exp"), ("log", "Ln"), ("sigmoid", "Sigmoid")];
        assert_eq!(did_you_mean_spelt("nl.exp", funcs), Some("exp"));
        assert_eq!(did_you_mean_spelt("Ln", funcs), Some("log"));
        let dtypes = [("f32", "float32"), ("bf16", "bfloat16"), ("f16", "float16")];
        assert_eq!(did_you_mean_spelt("bfloat16", dtypes), Some("bf16"));
        assert_eq!(did_you_mean_spelt("nl.float32", dtypes), Some("f32"));
        assert_eq!(did_you_mean_spelt("fp16", dtypes), Some("f16"));
        assert_eq!(did_you_mean_spelt("banana", dtypes), None);
        let memories = [("sbuf", "sbuf"), ("psum", "psum"), ("hbm", "hbm")];
        assert_eq!(did_you_mean_spelt("SBUF", memories), Some("sbuf"));
        assert_eq!(did_you_mean_spelt("Psum", memories), Some("psum"));
        assert_eq!(did_you_mean_spelt("nl.sbuf", memories), Some("sbuf"));
        assert_eq!(did_you_mean_spelt("sram", memories), Some("sbuf"));
    }
}
