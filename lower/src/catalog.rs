//! The op catalog: one table of every op class of SPEC §6, as data.
//!
//! Each [`OpSpec`] names the op's fields (kind, default, the BIR field it sets, a doc
//! line), its BIR opcode and engine, its InstructionType, its seed section, and the pure
//! function that checks and lowers it. The specs live beside their lowering functions in
//! `ops/`; [`CATALOG`] lists them all. Parsing checks (P203–P207), completion, hover and
//! lowering all read this table, so adding an op is one spec and one line here.

use crate::cx::Cx;

/// A BIR engine (SPEC §6 `engine`; seed 000 §1.3 `engineTrans`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The tensor (matmul) engine, `PE`.
    Pe,
    /// The scalar engine, `Activation`.
    Act,
    /// The vector engine, `DVE`.
    Dve,
    /// GpSimd, `Pool`.
    Pool,
    /// The sync engine, `SP`.
    Sp,
    /// A DMA queue, `DMA`.
    Dma,
    /// Every engine (TensorLoad only, seed 000 §7.3), `ALL`.
    All,
    /// Kernel nodes (seed 004 §1), `Unassigned`.
    Unassigned,
}

impl Engine {
    /// The BIR engine string.
    pub fn bir_name(self) -> &'static str {
        match self {
            Engine::Pe => "PE",
            Engine::Act => "Activation",
            Engine::Dve => "DVE",
            Engine::Pool => "Pool",
            Engine::Sp => "SP",
            Engine::Dma => "DMA",
            Engine::All => "ALL",
            Engine::Unassigned => "Unassigned",
        }
    }

    /// The value of the `engine` field naming this engine (`pe act dve pool sp dma`).
    pub fn field_name(self) -> Option<&'static str> {
        Some(match self {
            Engine::Pe => "pe",
            Engine::Act => "act",
            Engine::Dve => "dve",
            Engine::Pool => "pool",
            Engine::Sp => "sp",
            Engine::Dma => "dma",
            Engine::All | Engine::Unassigned => return None,
        })
    }

    /// Every engine, in SPEC §10.1's order (`PE`, `Activation`, `DVE`, `Pool`, `SP`, `DMA`,
    /// `ALL`, `Unassigned`).
    pub const ALL: [Engine; 8] = [
        Engine::Pe,
        Engine::Act,
        Engine::Dve,
        Engine::Pool,
        Engine::Sp,
        Engine::Dma,
        Engine::All,
        Engine::Unassigned,
    ];

    /// Every engine an `engine` field may name (`pe act dve pool sp dma`): [`Engine::ALL`]
    /// but `ALL` and `Unassigned`.
    pub const NAMEABLE: &'static [Engine] = Engine::ALL.split_at(6).0;

    /// Parses an `engine` field value.
    pub fn from_field_name(name: &str) -> Option<Engine> {
        Engine::NAMEABLE
            .iter()
            .copied()
            .find(|e| e.field_name() == Some(name))
    }

    /// Whether the quadrant rule P307 applies to this engine's operands (SPEC §5: the
    /// compute engines PE, Activation, DVE and Pool).
    pub fn is_compute(self) -> bool {
        matches!(self, Engine::Pe | Engine::Act | Engine::Dve | Engine::Pool)
    }
}

/// How an op's engine is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// Always this engine.
    Fixed(Engine),
    /// From the `engine` field: one of `allowed`, `default` when absent.
    Field {
        /// When the field is absent.
        default: Engine,
        /// The values the field may take (others are P207).
        allowed: &'static [Engine],
    },
}

/// Memory spaces an access may be in, as a small bit set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mems(pub u8);

impl Mems {
    /// `hbm`
    pub const HBM: Mems = Mems(1);
    /// `sbuf`
    pub const SBUF: Mems = Mems(2);
    /// `psum`
    pub const PSUM: Mems = Mems(4);
    /// `sbuf | psum`
    pub const ON_CHIP: Mems = Mems(6);
    /// `sbuf | hbm`
    pub const SBUF_HBM: Mems = Mems(3);
    /// Any tensor memory.
    pub const ANY: Mems = Mems(7);

    /// Whether `memory` is in the set.
    pub fn contains(self, memory: crate::types::Memory) -> bool {
        use crate::types::Memory;
        let bit = match memory {
            Memory::Hbm => 1,
            Memory::Sbuf => 2,
            Memory::Psum => 4,
            Memory::Reg => 0,
        };
        self.0 & bit != 0
    }

    /// The set as text: `sbuf|psum`.
    pub fn describe(self) -> String {
        let names: Vec<&str> = [(1, "hbm"), (2, "sbuf"), (4, "psum")]
            .into_iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, name)| name)
            .collect();
        names.join("|")
    }
}

/// Whether an access operand is read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Read: a BIR `ins` argument.
    In,
    /// Written: a BIR `outs` argument.
    Out,
}

/// The kind of a field's value (SPEC §6 "Kinds").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `acc(M)`: an access in one of `mems`.
    Acc(Mems, Dir),
    /// `imm`: a number (an instruction field) or an access pointer (an `ins` argument).
    Imm(Mems),
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `float` (an int is allowed).
    Float,
    /// `string`.
    Str,
    /// `bytes`.
    Bytes,
    /// A dtype name.
    Dtype,
    /// A declared register.
    Reg,
    /// A predicate.
    Pred,
    /// A record `{ … }`.
    Record,
    /// One of an enum's values.
    Enum(&'static EnumSpec),
    /// A list of values of one kind.
    List(&'static Kind),
    /// `int | acc | reg` (TensorScalarGEPOp's `index`).
    IntAccReg,
    /// A kernel operand: an access or an access-kind call `full(…)`, `subtensor(…)`,
    /// `tile(…)`, `opaque(…)` (SPEC §6.9).
    KernelOperand(Dir),
}

impl Kind {
    /// Whether a value of this kind may be an access (`%t`, `%t[…]`): the kinds of
    /// operands, registers and access pointers.
    pub fn takes_access(&self) -> bool {
        match self {
            Kind::Acc(..) | Kind::Imm(_) | Kind::Reg | Kind::IntAccReg | Kind::KernelOperand(_) => {
                true
            }
            Kind::List(inner) => inner.takes_access(),
            _ => false,
        }
    }

    /// Whether an access in a field of this kind is written (`outs`) or read (`ins`, and
    /// every kind that is not an access).
    pub fn direction(&self) -> Dir {
        match self {
            Kind::Acc(_, dir) | Kind::KernelOperand(dir) => *dir,
            Kind::List(Kind::Acc(_, dir)) | Kind::List(Kind::KernelOperand(dir)) => *dir,
            _ => Dir::In,
        }
    }

    /// The kind as SPEC §6 writes it: `acc(psum)`, `list<int>`, `enum{none, double_row}`.
    pub fn describe(&self) -> String {
        match self {
            Kind::Acc(mems, _) => format!("acc({})", mems.describe()),
            Kind::Imm(_) => "imm (a number or an access pointer)".into(),
            Kind::Bool => "bool".into(),
            Kind::Int => "int".into(),
            Kind::Float => "float".into(),
            Kind::Str => "string".into(),
            Kind::Bytes => "bytes".into(),
            Kind::Dtype => "dtype".into(),
            Kind::Reg => "reg".into(),
            Kind::Pred => "pred".into(),
            Kind::Record => "record".into(),
            Kind::Enum(e) => {
                let values: Vec<&str> = e.values.iter().map(|v| v.text).collect();
                format!("enum {}{{{}}}", e.name, values.join(", "))
            }
            Kind::List(inner) => format!("list<{}>", inner.describe()),
            Kind::IntAccReg => "int | acc | reg".into(),
            Kind::KernelOperand(_) => "access or full/subtensor/tile/opaque(access)".into(),
        }
    }
}

/// A field's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    /// Must be written (P204 when absent).
    Required,
    /// Optional with no value when absent.
    Absent,
    /// A bool default.
    Bool(bool),
    /// An integer default.
    Int(i64),
    /// A float default.
    Float(f64),
    /// An enum value or identifier default.
    Ident(&'static str),
    /// A string default.
    Str(&'static str),
    /// An empty list.
    EmptyList,
    /// Computed from other fields; the text says how (for hover).
    Computed(&'static str),
}

impl Default {
    /// The default as text for hover: `false`, `required`, `stationary partition count`.
    pub fn describe(&self) -> String {
        match self {
            Default::Required => "required".into(),
            Default::Absent => "none (optional)".into(),
            Default::Bool(b) => b.to_string(),
            Default::Int(i) => i.to_string(),
            Default::Float(f) => format!("{f:?}"),
            Default::Ident(s) => (*s).into(),
            Default::Str(s) => format!("{s:?}"),
            Default::EmptyList => "[]".into(),
            Default::Computed(how) => (*how).into(),
        }
    }
}

/// One field of an op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldSpec {
    /// The Penguin field name (seed spelling).
    pub name: &'static str,
    /// The value kind.
    pub kind: Kind,
    /// The default.
    pub default: Default,
    /// The BIR field or operand it sets, as text (`is_transpose`, "operand `dst`").
    pub bir: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
}

impl FieldSpec {
    /// Whether the field must be written.
    pub fn is_required(&self) -> bool {
        self.default == Default::Required
    }
}

/// One enum value: its text, its BIR spelling and its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumValue {
    /// As written in the text IR.
    pub text: &'static str,
    /// As emitted in BIR.
    pub bir: &'static str,
    /// What it means, for hover.
    pub doc: &'static str,
}

/// A named enum of SPEC §6.
#[derive(Debug, PartialEq, Eq)]
pub struct EnumSpec {
    /// The enum's name (`alu`, `act_func`, …).
    pub name: &'static str,
    /// Its values.
    pub values: &'static [EnumValue],
}

impl EnumSpec {
    /// The value written `text`.
    pub fn get(&self, text: &str) -> Option<&'static EnumValue> {
        self.values.iter().find(|v| v.text == text)
    }

    /// The BIR spelling of `text` (the text itself when unknown).
    pub fn bir<'a>(&self, text: &'a str) -> &'a str {
        self.get(text).map_or(text, |v| v.bir)
    }
}

/// An op class of SPEC §6.
pub struct OpSpec {
    /// The Penguin class name, e.g. `MatMulOp` (dispatch is `codegen` + this name).
    pub class: &'static str,
    /// The BIR opcode(s) it emits, as text for hover and hints (`Matmult`;
    /// `Activation | ActivationAccumulationOp`; empty for NoOp).
    pub opcode: &'static str,
    /// Its engine.
    pub engine: EngineSpec,
    /// The InstructionType number where a seed pins it (SPEC §6).
    pub instruction_type: Option<u32>,
    /// One paragraph of documentation.
    pub doc: &'static str,
    /// Where the behaviour comes from: "seed 000 §2.1; SPEC §6.1".
    pub source: &'static str,
    /// The fields, in table order (also the order of `ins`/`outs` arguments).
    pub fields: &'static [FieldSpec],
    /// Checks and lowers the op (after the catalog's generic checks).
    pub lower: fn(&mut Cx<'_>),
}

/// Second spellings of catalog fields, `(alias, field)`: the name a written field may
/// also have on every op that has the field (SPEC §6.1 [3]: seed 000 §2.1's NOTE, "The
/// Penguin op exposes is_lhs_onezero / is_rhs_onezero"). Both spellings in one op is P205.
pub const FIELD_ALIASES: &[(&str, &str)] = &[
    ("is_lhs_onezero", fname::isStationaryOneZero),
    ("is_rhs_onezero", fname::isMovingZero),
];

/// The catalog name of a written field name: `name` itself, or the field an alias of
/// [`FIELD_ALIASES`] spells.
pub fn canonical_field(name: &str) -> &str {
    FIELD_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, field)| field)
}

impl OpSpec {
    /// The field named `name` (or spelt by an alias of [`FIELD_ALIASES`]).
    pub fn field(&self, name: &str) -> Option<&'static FieldSpec> {
        let name = canonical_field(name);
        self.fields.iter().find(|f| f.name == name)
    }

    /// The index in [`OpSpec::fields`] of the field named (or aliased) `name`.
    pub fn field_position(&self, name: &str) -> Option<usize> {
        let name = canonical_field(name);
        self.fields.iter().position(|f| f.name == name)
    }

    /// The seed's codegen method name, `codegen` + the class name (seed 000 §1.2).
    pub fn codegen(&self) -> String {
        format!("codegen{}", self.class)
    }
}

impl std::fmt::Debug for OpSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpSpec")
            .field("class", &self.class)
            .finish()
    }
}

pub use crate::ops::CATALOG;

/// The spec of op class `class`.
pub fn lookup(class: &str) -> Option<&'static OpSpec> {
    CATALOG.iter().copied().find(|s| s.class == class)
}

/// An op class people write that pir spells as another op with one field set: what
/// [`alias`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The op class to write (`ActivationOp`).
    pub class: &'static str,
    /// The field that picks the operation (`func`).
    pub field: &'static str,
    /// Its value (`reciprocal`).
    pub value: &'static str,
}

/// The op an unknown class `name` stands for, if it names an operation that is one value
/// of an op's enum: `ReciprocalOp`, `Exp`, `ExpOp` → `ActivationOp` with `func =
/// reciprocal`/`exp` (each `act_func` value); `AddOp`, `TensorAddOp`, `MultiplyOp` →
/// `TensorTensorOp` with `op = add`/`multiply` (each `alu` value, case-folded, `_`
/// ignored). For P202's hint.
pub fn alias(name: &str) -> Option<Alias> {
    let bare = name.strip_suffix("Op").unwrap_or(name);
    let word = |v: &str, w: &str| v.replace('_', "").eq_ignore_ascii_case(w);
    if let Some(v) = ACT_FUNC.values.iter().find(|v| word(v.text, bare)) {
        return Some(Alias {
            class: "ActivationOp",
            field: fname::func,
            value: v.text,
        });
    }
    let alu = bare.strip_prefix("Tensor").unwrap_or(bare);
    ALU.values
        .iter()
        .find(|v| word(v.text, alu))
        .map(|v| Alias {
            class: "TensorTensorOp",
            field: fname::op,
            value: v.text,
        })
}

macro_rules! enum_spec {
    ($name:ident, $text:literal, [$(($v:literal, $bir:literal, $doc:literal)),* $(,)?]) => {
        #[doc = concat!("The `", $text, "` enum of SPEC §6.")]
        pub static $name: EnumSpec = EnumSpec {
            name: $text,
            values: &[$(EnumValue { text: $v, bir: $bir, doc: $doc }),*],
        };
    };
}

enum_spec!(
    ALU,
    "alu",
    [
        ("bypass", "bypass", "pass the input through"),
        ("add", "add", "a + b"),
        ("subtract", "subtract", "a − b"),
        ("multiply", "mult", "a × b (BIR `mult`)"),
        ("divide", "divide", "a ÷ b"),
        ("max", "max", "the larger of a and b"),
        ("min", "min", "the smaller of a and b"),
        ("pow", "pow", "a to the power b"),
        ("abs_max", "abs_max", "the larger of |a| and |b|"),
        ("is_equal", "is_equal", "1 if a = b else 0"),
        ("not_equal", "not_equal", "1 if a ≠ b else 0"),
        ("is_gt", "is_gt", "1 if a > b else 0"),
        ("is_ge", "is_ge", "1 if a ≥ b else 0"),
        ("is_lt", "is_lt", "1 if a < b else 0"),
        ("is_le", "is_le", "1 if a ≤ b else 0"),
        ("bitwise_and", "bitwise_and", "bitwise a AND b"),
        ("bitwise_or", "bitwise_or", "bitwise a OR b"),
        ("bitwise_xor", "bitwise_xor", "bitwise a XOR b"),
        ("logical_and", "logical_and", "a AND b as truth values"),
        ("logical_or", "logical_or", "a OR b as truth values"),
        ("rsqrt", "rsqrt", "1 / √a"),
    ]
);

enum_spec!(
    ACT_FUNC,
    "act_func",
    [
        ("identity", "Identity", "f(x) = x"),
        ("copy", "Copy", "copy (no arithmetic)"),
        ("relu", "Relu", "max(x, 0)"),
        ("gelu", "Gelu", "GELU"),
        (
            "gelu_apprx_tanh",
            "Gelu_apprx_tanh",
            "GELU, tanh approximation"
        ),
        ("silu", "Silu", "x · sigmoid(x)"),
        ("sigmoid", "Sigmoid", "1 / (1 + e^−x)"),
        ("tanh", "Tanh", "tanh x"),
        ("exp", "Exp", "e^x"),
        ("log", "Ln", "natural logarithm (BIR `Ln`)"),
        ("sqrt", "Sqrt", "√x"),
        ("rsqrt", "Rsqrt", "1 / √x"),
        ("square", "Square", "x²"),
        ("reciprocal", "Reciprocal", "1 / x"),
        ("softplus", "Softplus", "ln(1 + e^x)"),
        ("mish", "Mish", "x · tanh(softplus(x))"),
        ("erf", "Erf", "the error function"),
        ("sin", "Sin", "sin x"),
        ("abs", "Abs", "|x|"),
        ("sign", "Sign", "the sign of x"),
    ]
);

enum_spec!(
    ENGINE,
    "engine",
    [
        ("pe", "PE", "the tensor (matmul) engine"),
        ("act", "Activation", "the scalar (activation) engine"),
        ("dve", "DVE", "the vector engine"),
        (
            "pool",
            "Pool",
            "GpSimd (the pool engine); cannot access PSUM"
        ),
        ("sp", "SP", "the sync engine"),
        ("dma", "DMA", "a DMA queue"),
    ]
);

/// The field names of the catalog, each written once (as an identifier): the op rows
/// (`FieldSpec::name`) and the lowering functions (`cx.ident(fname::op0)`) name a field
/// through these constants, so a misspelt name does not compile, and a tidy test rejects
/// a string-literal field read (`tests/tidy.rs`). [`fname::ALL`] is exactly the set of
/// the catalog's field names (a test checks it).
#[allow(non_upper_case_globals)]
pub mod fname {
    macro_rules! names {
        ($($name:ident,)*) => {
            $(
                #[doc = concat!("The field `", stringify!($name), "`.")]
                pub const $name: &str = stringify!($name);
            )*
            /// Every field name, sorted.
            pub const ALL: &[&str] = &[$($name,)*];
        };
    }

    names! {
        act_fn,
        asm_attrs,
        asm_bytes,
        auto_cast,
        auto_cast_type,
        base,
        bias,
        bound0,
        bound1,
        cce_op,
        channel_multiplier,
        comp_op0,
        comp_op1,
        compress_ratio,
        down_bias,
        dst,
        dst2,
        dst_idx,
        dst_registers,
        dst_scale,
        dsts,
        engine,
        eps,
        fill_value,
        func,
        func2,
        func_args,
        func_name,
        func_outs,
        fused_rmsnorm,
        groups,
        ifmap_quant_offset,
        imm,
        imm0,
        imm1,
        index,
        isMovingZero,
        isStationaryOneZero,
        isTranspose,
        is_accumulate,
        is_causal,
        is_keep_rate,
        is_scalar_tensor_tensor,
        keep_rate,
        kernel_attrs,
        kernel_name,
        kind,
        klir_binary,
        klir_input_names,
        latency_estimate,
        lhs_scale,
        lower_bound,
        max_vals,
        mode,
        moving,
        nki_binary_version_identifier,
        nki_frontend,
        norm_type,
        num_active_partitions,
        num_inputs,
        offset_scale,
        on_false,
        on_true,
        op,
        op0,
        op1,
        opcode,
        operand0,
        operand1,
        operands,
        pe_tile_position,
        pe_tile_size,
        perf_mode,
        predicate,
        predicates,
        psum_buf_shape,
        ptr,
        quant_dtype,
        quant_kernel,
        range_start,
        reduce_axes,
        reduce_cmd,
        reduce_dst,
        reduce_op,
        replication_num_rows,
        replication_resolution,
        replication_shift_amnt,
        reverse0,
        reverse1,
        reverse_pred,
        rhs_scale,
        sb_buf_shape,
        scale,
        scale_ptr,
        scales,
        shuffle_mask,
        skip_gate,
        src,
        src0,
        src1,
        srcs,
        stationary,
        step,
        store_add,
        sync_type,
        tags,
        tiles,
        up_bias,
        vals,
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every alias names an op of the catalog, a field of it, and a value of that field's
    /// enum.
    #[test]
    fn aliases_are_ops_of_the_catalog() {
        let cases = [
            ("ReciprocalOp", Some(("ActivationOp", "func", "reciprocal"))),
            ("Exp", Some(("ActivationOp", "func", "exp"))),
            (
                "GeluApprxTanhOp",
                Some(("ActivationOp", "func", "gelu_apprx_tanh")),
            ),
            ("TensorAddOp", Some(("TensorTensorOp", "op", "add"))),
            ("MultiplyOp", Some(("TensorTensorOp", "op", "multiply"))),
            ("BananaOp", None),
        ];
        for (name, want) in cases {
            let got = alias(name);
            assert_eq!(got.map(|a| (a.class, a.field, a.value)), want, "{name}");
            if let Some(a) = got {
                let field = lookup(a.class).and_then(|s| s.field(a.field));
                let Some(Kind::Enum(e)) = field.map(|f| &f.kind) else {
                    panic!("{name}: {} has no enum field {}", a.class, a.field);
                };
                assert!(e.get(a.value).is_some(), "{name}");
            }
        }
    }

    #[test]
    fn field_names_are_the_catalogs() {
        let mut used: Vec<&str> = CATALOG
            .iter()
            .flat_map(|s| s.fields.iter().map(|f| f.name))
            .collect();
        used.sort_unstable();
        used.dedup();
        assert_eq!(
            used,
            fname::ALL,
            "fname::ALL must list exactly the catalog's field names"
        );
    }

    #[test]
    fn catalog_is_consistent() {
        let mut classes = std::collections::HashSet::new();
        for spec in CATALOG {
            assert!(classes.insert(spec.class), "duplicate class {}", spec.class);
            let mut names = std::collections::HashSet::new();
            for field in spec.fields {
                assert!(
                    names.insert(field.name),
                    "{}.{} twice",
                    spec.class,
                    field.name
                );
                assert!(
                    !field.doc.is_empty(),
                    "{}.{} has no doc",
                    spec.class,
                    field.name
                );
            }
            assert!(
                !spec.doc.is_empty() && !spec.source.is_empty(),
                "{}",
                spec.class
            );
            // Hovers show the doc; the SPEC section belongs in `source`.
            assert!(
                !spec.doc.contains("SPEC §")
                    && spec.fields.iter().all(|f| !f.doc.contains("SPEC §")),
                "{}: an op's or field's doc cites no SPEC section (put it in `source`)",
                spec.class
            );
            if let EngineSpec::Field { default, allowed } = spec.engine {
                assert!(allowed.contains(&default), "{}", spec.class);
                assert!(
                    spec.field("engine").is_some(),
                    "{} needs an engine field",
                    spec.class
                );
            }
        }
    }
}
