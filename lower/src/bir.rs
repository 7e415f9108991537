//! The typed BIR model (SPEC §8): opcodes with their fields and key order in one table
//! ([`Opcode::spec`]), typed field values ([`Value`]), the four argument kinds
//! ([`Arg`]), instructions ([`Inst`]), and the one serializer that writes them as §8 JSON.
//!
//! Lowering builds [`Inst`]s; the analysis memoizes them per op and serializes them only
//! when the JSON is asked for (`pir lower`, showBir, hover). The key order of every
//! opcode is data: [`OPCODES`] lists each opcode's keys in emission order, the serializer
//! writes the set fields in that order, and `docs/bir-fields.md` is generated from the same
//! table ([`fields_doc`]; a test fails when the file is stale).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::access::Affine;
use crate::catalog::Engine;
use crate::model::Tensor;
use crate::types::Dtype;

macro_rules! fields {
    ($($variant:ident = $key:literal,)*) => {
        /// An opcode field of a BIR instruction (a key after `outs`, SPEC §8). Each
        /// variant's BIR key is [`Field::key`]; a misspelt key does not compile.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Field {
            $($variant,)*
        }

        impl Field {
            /// Every field, in declaration order.
            pub const ALL: &'static [Field] = &[$(Field::$variant,)*];

            /// The JSON key (SPEC §8).
            pub fn key(self) -> &'static str {
                match self {
                    $(Field::$variant => $key,)*
                }
            }
        }
    };
}

fields! {
    StartTensorCalc = "start_tensor_calc",
    StopTensorCalc = "stop_tensor_calc",
    ReplicationResolution = "replication_resolution",
    ReplicationShiftAmnt = "replication_shift_amnt",
    IsTranspose = "is_transpose",
    Identity = "identity",
    IsFmapOnezero = "is_fmap_onezero",
    IsWeightOnezero = "is_weight_onezero",
    TileSize = "tile_size",
    TilePosition = "tile_position",
    PerfMode = "perf_mode",
    ReplicationNumRows = "replication_num_rows",
    IfmapQuantOffset = "ifmap_quant_offset",
    NumActiveChannels = "num_active_channels",
    Scale = "scale",
    OffsetScale = "offset_scale",
    CompressRatio = "compress_ratio",
    PsumBufShape = "psum_buf_shape",
    IsAccumulate = "is_accumulate",
    Func = "func",
    IsActivate2 = "is_activate2",
    Func2 = "func2",
    FuncArgs = "func_args",
    Acc = "acc",
    ReduceOp = "reduce_op",
    Imm0 = "imm0",
    Imm1 = "imm1",
    Op0 = "op0",
    Operand0 = "operand0",
    Reverse0 = "reverse0",
    Op1 = "op1",
    Operand1 = "operand1",
    Reverse1 = "reverse1",
    IsTensorScalarAddr = "is_tensor_scalar_addr",
    IsScalarTensorTensor = "is_scalar_tensor_tensor",
    Predicates = "predicates",
    FillValue = "fill_value",
    ReversePred = "reverse_pred",
    Base = "base",
    CompareOp0 = "compare_op0",
    CompareOp1 = "compare_op1",
    Bound0 = "bound0",
    Bound1 = "bound1",
    OnFalse = "on_false",
    Op = "op",
    Kind = "kind",
    ReplicaGroups = "replica_groups",
    Local = "local",
    Axis = "axis",
    Negate = "negate",
    ApplyTranspose = "apply_transpose",
    ReduceAxes = "reduce_axes",
    IsFirstReduce = "is_first_reduce",
    ImmValue = "imm_value",
    Mode = "mode",
    Constant = "constant",
    Constants = "constants",
    CceOp = "cce_op",
    Registers = "registers",
    AsmOpcode = "asm_opcode",
    AsmAttrs = "asm_attrs",
    AsmBytes = "asm_bytes",
    SyncType = "sync_type",
    LatencyEstimate = "latency_estimate",
    NumInputs = "num_inputs",
    IsKeepThreshold = "is_keep_threshold",
    Pattern = "pattern",
    ChannelMultiplier = "channel_multiplier",
    Mask = "mask",
    KernelName = "kernel_name",
    SrcsShape = "srcs_shape",
    DstsShape = "dsts_shape",
    KernelAttrs = "kernel_attrs",
    SbBufShape = "sb_buf_shape",
    AutoCast = "auto_cast",
    AutoCastType = "auto_cast_type",
    IsCausal = "is_causal",
    FusedRmsnorm = "fused_rmsnorm",
    NormType = "norm_type",
    LowerBound = "lower_bound",
    StoreAdd = "store_add",
    QuantKernel = "quant_kernel",
    KlirBinary = "klir_binary",
    KernelFormat = "kernel_format",
    NkiBinaryVersionIdentifier = "nki_binary_version_identifier",
    KlirInputNames = "klir_input_names",
    FuncOuts = "func_outs",
}

/// One key of an opcode's row: the field, and when it is written (`None`: always, for an
/// op without errors; `Some(when)`: only then, as the note says).
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The field.
    pub field: Field,
    /// When the key is written, if not always.
    pub when: Option<&'static str>,
}

const fn always(field: Field) -> Key {
    Key { field, when: None }
}

const fn when(field: Field, note: &'static str) -> Key {
    Key {
        field,
        when: Some(note),
    }
}

/// One row of the opcode table: the BIR name, the op classes that lower to it, its keys
/// after `outs` in emission order, and a note on its arguments.
#[derive(Debug)]
pub struct OpcodeSpec {
    /// The opcode.
    pub opcode: Opcode,
    /// The BIR `opcode` string.
    pub name: &'static str,
    /// The op classes that lower to it (markdown, for `docs/bir-fields.md`).
    pub classes: &'static str,
    /// The keys after `outs`, in order.
    pub keys: &'static [Key],
    /// A note on the arguments or values (markdown), or "".
    pub note: &'static str,
}

macro_rules! opcodes {
    ($($variant:ident = $name:literal { classes: $classes:literal, keys: $keys:expr, note: $note:expr, })*) => {
        /// A BIR opcode (SPEC §8 `opcode`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Opcode {
            $($variant,)*
        }

        /// The opcode table, one row per [`Opcode`], in declaration order.
        pub static OPCODES: &[OpcodeSpec] = &[
            $(OpcodeSpec {
                opcode: Opcode::$variant,
                name: $name,
                classes: $classes,
                keys: $keys,
                note: $note,
            },)*
        ];
    };
}

use Field as F;

const MATMULT_KEYS: &[Key] = &[
    always(F::StartTensorCalc),
    always(F::StopTensorCalc),
    always(F::IsTranspose),
    when(F::Identity, "TransposeOp"),
    always(F::IsFmapOnezero),
    always(F::IsWeightOnezero),
    always(F::TileSize),
    always(F::TilePosition),
    always(F::PerfMode),
    when(F::ReplicationNumRows, "DoubleRow"),
    always(F::IfmapQuantOffset),
    always(F::NumActiveChannels),
    always(F::PsumBufShape),
    always(F::IsAccumulate),
];

const ACTIVATION_KEYS: &[Key] = &[
    always(F::Func),
    when(F::IsActivate2, "Activate2"),
    when(F::Func2, "Activate2"),
    when(F::FuncArgs, "when not empty"),
    always(F::Scale),
    always(F::Acc),
    when(F::ReduceOp, "when written"),
    when(F::Imm0, "when a number"),
    when(F::Imm1, "when a number"),
    always(F::IsAccumulate),
];

const MAX_NOTE: &str = "`MaxIndex`'s and `MaxIndexAndMatchReplace`'s index `outs` take the \
                        index dtype";

opcodes! {
    Matmult = "Matmult" {
        classes: "MatMulOp, TransposeOp",
        keys: MATMULT_KEYS,
        note: "",
    }
    MatmultMx = "MatmultMx" {
        classes: "MatMulMXOp",
        keys: &[
            always(F::StartTensorCalc),
            always(F::StopTensorCalc),
            always(F::TileSize),
            always(F::TilePosition),
            always(F::Scale),
            when(F::OffsetScale, "when written"),
            always(F::PsumBufShape),
            always(F::IsAccumulate),
        ],
        note: "`ins`: stationary, moving, lhs_scale, rhs_scale, *(scale_ptr)*, *(dst_scale)* last",
    }
    MatmultSparse = "MatmultSparse" {
        classes: "MatMulSparseOp",
        keys: &[
            always(F::StartTensorCalc),
            always(F::StopTensorCalc),
            always(F::ReplicationResolution),
            always(F::ReplicationShiftAmnt),
            always(F::ReplicationNumRows),
            always(F::IsTranspose),
            always(F::IsFmapOnezero),
            always(F::IsWeightOnezero),
            always(F::TileSize),
            always(F::TilePosition),
            always(F::CompressRatio),
            always(F::IsAccumulate),
        ],
        note: "no `psum_buf_shape`, `num_active_channels`, `perf_mode` or `ifmap_quant_offset` (SPEC §6.1 [3]: seed 000 §2.3's setter set)",
    }
    Activation = "Activation" {
        classes: "ActivationOp, Activate2; TensorCopyOp on `act` (`func` `\"Copy\"`, `scale` 1.0, `acc` `\"Idle\"`)",
        keys: ACTIVATION_KEYS,
        note: "",
    }
    ActivationAccumulationOp = "ActivationAccumulationOp" {
        classes: "ActivationOp, Activate2 with `is_accumulate`",
        keys: ACTIVATION_KEYS,
        note: "",
    }
    TensorScalarPtr = "TensorScalarPtr" {
        classes: "TensorScalarPtrOp, TensorScalarCacheCumulative, AffSelTensorScalarOp, TensorScalarGEPOp",
        keys: &[
            always(F::Op0),
            when(F::Operand0, "a number"),
            always(F::Reverse0),
            always(F::Op1),
            when(F::Operand1, "a number"),
            always(F::Reverse1),
            always(F::IsTensorScalarAddr),
            always(F::IsScalarTensorTensor),
            always(F::Acc),
            when(F::Predicates, "AffSelTensorScalarOp"),
            when(F::FillValue, "AffSelTensorScalarOp; TensorScalarPtrOp and TensorScalarCacheCumulative when written"),
            when(F::ReversePred, "TensorScalarPtrOp and TensorScalarCacheCumulative, when written"),
        ],
        note: "`op1` is `\"bypass\"` when absent, `acc` is `\"Idle\"`; TensorScalarGEPOp: a number or register `index` is an `imm_value` or `register_access` argument last in `ins`",
    }
    RangeSelect = "RangeSelect" {
        classes: "RangeSelect",
        keys: &[
            always(F::Base),
            always(F::CompareOp0),
            always(F::CompareOp1),
            when(F::Bound0, "a number"),
            when(F::Bound1, "a number"),
            always(F::ReduceOp),
            always(F::FillValue),
            always(F::NumActiveChannels),
        ],
        note: "",
    }
    Select = "Select" {
        classes: "TensorSelect, SelectReduce",
        keys: &[
            when(F::OnFalse, "a number"),
            when(F::ReduceOp, "SelectReduce"),
        ],
        note: "",
    }
    CopyPredicated = "CopyPredicated" {
        classes: "TensorCopyPredicated",
        keys: &[always(F::ReversePred)],
        note: "",
    }
    Reduce = "Reduce" {
        classes: "LocalReduceOp",
        keys: &[
            always(F::Op),
            always(F::Kind),
            when(F::ReplicaGroups, "when written"),
            always(F::Local),
        ],
        note: "every argument has `\"access\": \"nd_dma\"`",
    }
    TensorReduce = "TensorReduce" {
        classes: "NeuronReduceMacro, one per axis",
        keys: &[
            always(F::Op),
            always(F::Axis),
            always(F::Negate),
            always(F::ApplyTranspose),
            always(F::ReduceAxes),
            always(F::IsFirstReduce),
        ],
        note: "",
    }
    Max = "Max" {
        classes: "SundaMax8",
        keys: &[],
        note: "",
    }
    MaxIndex = "MaxIndex" {
        classes: "SundaMaxIndex8",
        keys: &[],
        note: MAX_NOTE,
    }
    MatchReplace = "MatchReplace" {
        classes: "MatchReplace",
        keys: &[always(F::ImmValue)],
        note: "",
    }
    MaxIndexAndMatchReplace = "MaxIndexAndMatchReplace" {
        classes: "MaxIndexAndMatchReplace",
        keys: &[always(F::ImmValue)],
        note: MAX_NOTE,
    }
    Memset = "Memset" {
        classes: "MemsetOp",
        keys: &[always(F::Mode), always(F::Constant)],
        note: "",
    }
    DmaCopy = "DMACopy" {
        classes: "DmaCopyOp, OffloadedFMA, TiledOffloadedFMA",
        keys: &[
            always(F::Mode),
            when(F::Constants, "the FMAs"),
            when(F::CceOp, "the FMAs"),
        ],
        note: "`constants` writes non-finite values as `\"inf\"`/`\"-inf\"`/`\"nan\"`; OffloadedFMA: srcs `\"access\": \"seq\"`, dst `\"ap\"`; tiled: all `\"ap\"`",
    }
    TensorLoad = "TensorLoad" {
        classes: "LoadTensorToRegister",
        keys: &[always(F::Registers)],
        note: "the src argument carries `\"argument\": true`",
    }
    GetSequenceBounds = "GetSequenceBounds" {
        classes: "GetSequenceBounds",
        keys: &[],
        note: "",
    }
    TensorCopy = "TensorCopy" {
        classes: "TensorCopyOp off `act`",
        keys: &[],
        note: "",
    }
    InlineAsm = "InlineASM" {
        classes: "InlineASMInst",
        keys: &[
            always(F::AsmOpcode),
            always(F::AsmAttrs),
            always(F::NumInputs),
        ],
        note: "",
    }
    InlineAsmBytes = "InlineASMBytes" {
        classes: "InlineASMBytesInst",
        keys: &[
            always(F::AsmBytes),
            always(F::SyncType),
            always(F::LatencyEstimate),
            always(F::NumInputs),
        ],
        note: "",
    }
    Dropout = "Dropout" {
        classes: "DropoutMaskInst",
        keys: &[always(F::IsKeepThreshold)],
        note: "the rate is an `imm_value` argument (`float32`, role `keep_rate`) last in `ins` (SPEC §6.7 [3], seed 000 §7.6 addImmValue); `is_keep_threshold` is the `is_keep_rate` field",
    }
    Iota = "Iota" {
        classes: "IndexValueInst",
        keys: &[
            always(F::Base),
            always(F::Pattern),
            always(F::ChannelMultiplier),
        ],
        note: "",
    }
    StreamShuffle = "StreamShuffle" {
        classes: "StreamShuffleInst",
        keys: &[always(F::Mask)],
        note: "",
    }
    TensorTensor = "TensorTensor" {
        classes: "TensorTensorOp",
        keys: &[always(F::Op), always(F::Acc)],
        note: "",
    }
    BirKernel = "BIRKernel" {
        classes: "BIRKernel; the bespoke library kernels and their tiled twins",
        keys: &[
            always(F::KernelName),
            always(F::SrcsShape),
            always(F::DstsShape),
            always(F::KernelAttrs),
            always(F::SbBufShape),
            always(F::PsumBufShape),
            always(F::AutoCast),
            always(F::AutoCastType),
            when(F::IsCausal, "library kernels"),
            when(F::FusedRmsnorm, "library kernels"),
            when(F::NormType, "library kernels"),
            when(F::LowerBound, "library kernels"),
            when(F::StoreAdd, "library kernels"),
            when(F::QuantKernel, "library kernels"),
        ],
        note: "library kernels: the token-generation pair last in `kernel_attrs` (`is_tkg` for MLP, `useTkgQKVKernel` for QKV)",
    }
    NkiKlirKernel = "NKIKLIRKernel" {
        classes: "InternalNativeNkiKernel, ExternalNativeNkiKlirKernel",
        // Every IT 56 node carries klir_binary, kernel_format and
        // nki_binary_version_identifier, and its operands are opaque (seed 004 §1, §4;
        // SPEC §6.8 [3]).
        keys: &[
            when(F::Func, "ExternalNativeNkiKlirKernel"),
            always(F::KlirBinary),
            always(F::KernelFormat),
            when(F::NkiBinaryVersionIdentifier, "unless the op's value is bad"),
            when(F::KlirInputNames, "ExternalNativeNkiKlirKernel"),
            always(F::FuncArgs),
            always(F::FuncOuts),
            when(F::SbBufShape, "InternalNativeNkiKernel, when given"),
            when(F::PsumBufShape, "InternalNativeNkiKernel, when given"),
        ],
        note: "",
    }
    NkiKernel = "NKIKernel" {
        classes: "ExternalNativeNkiKernel",
        keys: &[
            always(F::Func),
            always(F::FuncArgs),
            always(F::FuncOuts),
            always(F::SbBufShape),
            always(F::PsumBufShape),
        ],
        note: "",
    }
}

impl Opcode {
    /// The opcode's row in [`OPCODES`].
    pub fn spec(self) -> &'static OpcodeSpec {
        &OPCODES[self as usize]
    }

    /// The BIR `opcode` string.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Where `field` stands among the opcode's keys, if it is one of them.
    pub fn position(self, field: Field) -> Option<usize> {
        self.spec().keys.iter().position(|k| k.field == field)
    }
}

// ----- values --------------------------------------------------------------------------

/// A field value (SPEC §8): what a key after `outs` holds.
#[derive(Clone, Debug)]
pub enum Value {
    /// `null` (a record entry with no JSON value, e.g. a predicate in InlineASM's
    /// `asm_attrs`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (sizes).
    Nat(u64),
    /// A float: the shortest round-trip number, or `"inf"`, `"-inf"`, `"nan"`.
    Float(f64),
    /// A string.
    Str(Cow<'static, str>),
    /// A list.
    List(Vec<Value>),
    /// An object, keys in order.
    Record(Vec<(Cow<'static, str>, Value)>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Nat(a), Value::Nat(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Record(a), Value::Record(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Value {
    /// A string known at compile time (no allocation).
    pub const fn name(s: &'static str) -> Value {
        Value::Str(Cow::Borrowed(s))
    }

    /// A list of floats, each as [`Value::Float`] (SPEC §8; never `null`, §6.2/§6.6 [2]).
    pub fn floats(values: &[f64]) -> Value {
        Value::List(values.iter().copied().map(Value::Float).collect())
    }

    /// An object of `pairs`; a key given twice keeps its first place and its last value.
    pub fn record(pairs: impl IntoIterator<Item = (Cow<'static, str>, Value)>) -> Value {
        let mut out: Vec<(Cow<'static, str>, Value)> = Vec::new();
        for (key, value) in pairs {
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => out.push((key, value)),
            }
        }
        Value::Record(out)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<i32> for Value {
    fn from(i: i32) -> Value {
        Value::Int(i.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Nat(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Nat(n.into())
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Nat(n as u64)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(Cow::Owned(s.to_string()))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(Cow::Owned(s))
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::Str(Cow::Owned(s.clone()))
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        Value::List(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Value> + Clone> From<&[T]> for Value {
    fn from(items: &[T]) -> Value {
        Value::List(items.iter().cloned().map(Into::into).collect())
    }
}

impl<T: Into<Value>, const N: usize> From<[T; N]> for Value {
    fn from(items: [T; N]) -> Value {
        Value::List(items.into_iter().map(Into::into).collect())
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Nat(n) => s.serialize_u64(*n),
            Value::Float(f) => serialize_float(*f, s),
            Value::Str(text) => s.serialize_str(text),
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Record(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (key, value) in pairs {
                    map.serialize_entry(key.as_ref(), value)?;
                }
                map.end()
            }
        }
    }
}

/// A float as SPEC §8 writes it: the shortest round-trip number, or `"inf"`, `"-inf"`,
/// `"nan"` for non-finite values.
fn serialize_float<S: Serializer>(value: f64, s: S) -> Result<S::Ok, S::Error> {
    if value.is_nan() {
        s.serialize_str("nan")
    } else if value.is_infinite() {
        s.serialize_str(if value > 0.0 { "inf" } else { "-inf" })
    } else {
        s.serialize_f64(value)
    }
}

// ----- arguments -----------------------------------------------------------------------

/// The Penguin field an argument comes from (SPEC §8 `role`): `field` or `field[index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    /// The field name (from the op's catalog row).
    pub field: &'static str,
    /// The 0-based element index in a list field.
    pub index: Option<u32>,
}

impl Role {
    /// The role of field `field`.
    pub fn field(field: &'static str) -> Role {
        Role { field, index: None }
    }

    /// The role of element `index` (0-based) of list field `field`.
    pub fn element(field: &'static str, index: usize) -> Role {
        Role {
            field,
            index: Some(index as u32),
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(k) => write!(f, "{}[{k}]", self.field),
            None => f.write_str(self.field),
        }
    }
}

/// How a tensor argument is addressed (SPEC §8 "Arguments").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addressing {
    /// `physical_ap`: a constant element `offset`.
    Physical {
        /// The element offset.
        offset: i64,
    },
    /// `symbolic_ap` (boxed: most accesses are physical, and an argument is kept as long
    /// as its op).
    Symbolic(Box<Symbolic>),
}

/// The addressing of a `symbolic_ap`: the offset (and, when it depends on a loop variable,
/// the start partition, written with `"partition": true`) as affine `addrs`, and the
/// `access_shape`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbolic {
    /// The element offset.
    pub offset: Affine,
    /// The start partition, when not constant.
    pub partition: Option<Affine>,
    /// The kept counts.
    pub access_shape: Vec<u64>,
}

/// What an argument is (SPEC §8 `kind`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// An access of a tensor: `physical_ap` or `symbolic_ap`.
    Tensor {
        /// The tensor (`memref`; `memsetref` is `<name>_set`).
        tensor: Arc<Tensor>,
        /// The element dtype (the tensor's, or the one the op reinterprets it as).
        dtype: Dtype,
        /// The access pattern `[[step, num], …]` in elements.
        ap: Vec<[i64; 2]>,
        /// Physical or symbolic.
        addressing: Addressing,
        /// The start partition in the loop box's first iteration (on chip only).
        start_partition: Option<i64>,
    },
    /// `register_access`: a register.
    Register {
        /// The register's dtype.
        dtype: Dtype,
        /// The register's name.
        regref: String,
    },
    /// `imm_value`: an immediate.
    Imm {
        /// The immediate's dtype.
        dtype: Dtype,
        /// The value: an integer, or a float written as [`Value::Float`] writes it.
        value: Value,
    },
}

/// One argument of an instruction (an element of `ins` or `outs`, SPEC §8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The kind and its keys.
    pub kind: ArgKind,
    /// The Penguin field it comes from.
    pub role: Role,
    /// The extra `access` key (kernel operands, DMA queues; SPEC §6.4, §6.6, §6.9).
    pub access: Option<&'static str>,
    /// The extra `"argument": true` (TensorLoad's src, SPEC §6.6).
    pub argument: bool,
}

impl Arg {
    /// An argument of `kind` from `role`, without extra keys.
    pub fn new(kind: ArgKind, role: Role) -> Arg {
        Arg {
            kind,
            role,
            access: None,
            argument: false,
        }
    }

    /// The argument with `"access": access`.
    #[must_use]
    pub fn with_access(mut self, access: &'static str) -> Arg {
        self.access = Some(access);
        self
    }
}

struct AffineJson<'a>(&'a Affine, bool);

impl Serialize for AffineJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Terms<'a>(&'a [(String, i64)]);
        impl Serialize for Terms<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (axis, coeff) in self.0 {
                    seq.serialize_element(&Value::Record(vec![
                        ("axis".into(), Value::Str(Cow::Owned(axis.clone()))),
                        ("coeff".into(), Value::Int(*coeff)),
                    ]))?;
                }
                seq.end()
            }
        }
        let AffineJson(affine, partition) = *self;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", "AffExprKind")?;
        map.serialize_entry("terms", &Terms(&affine.terms))?;
        map.serialize_entry("c", &affine.c)?;
        if partition {
            map.serialize_entry("partition", &true)?;
        }
        map.end()
    }
}

impl Serialize for Arg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match &self.kind {
            ArgKind::Tensor {
                tensor,
                dtype,
                ap,
                addressing,
                start_partition,
            } => {
                match addressing {
                    Addressing::Physical { offset } => {
                        map.serialize_entry("kind", "physical_ap")?;
                        map.serialize_entry("ap", ap)?;
                        map.serialize_entry("dtype", dtype.bir_name())?;
                        map.serialize_entry("offset", offset)?;
                    }
                    Addressing::Symbolic(symbolic) => {
                        let Symbolic {
                            offset,
                            partition,
                            access_shape,
                        } = &**symbolic;
                        map.serialize_entry("kind", "symbolic_ap")?;
                        map.serialize_entry("ap", ap)?;
                        map.serialize_entry("dtype", dtype.bir_name())?;
                        let mut addrs = vec![AffineJson(offset, false)];
                        addrs.extend(partition.as_ref().map(|p| AffineJson(p, true)));
                        map.serialize_entry("addrs", &addrs)?;
                        map.serialize_entry("access_shape", access_shape)?;
                    }
                }
                map.serialize_entry("memsetref", &format!("{}_set", tensor.name))?;
                map.serialize_entry("memref", &tensor.name)?;
                if let Some(p) = start_partition {
                    map.serialize_entry("start_partition", p)?;
                }
            }
            ArgKind::Register { dtype, regref } => {
                map.serialize_entry("kind", "register_access")?;
                map.serialize_entry("dtype", dtype.bir_name())?;
                map.serialize_entry("regref", regref)?;
            }
            ArgKind::Imm { dtype, value } => {
                map.serialize_entry("kind", "imm_value")?;
                map.serialize_entry("dtype", dtype.bir_name())?;
                map.serialize_entry("value", value)?;
            }
        }
        map.serialize_entry("role", &self.role.to_string())?;
        if let Some(access) = self.access {
            map.serialize_entry("access", access)?;
        }
        if self.argument {
            map.serialize_entry("argument", &true)?;
        }
        map.end()
    }
}

// ----- instructions --------------------------------------------------------------------

/// One BIR instruction without what depends on where its op stands (`name`, `debuginfo`:
/// see [`crate::stamp_instruction`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// The opcode.
    pub opcode: Opcode,
    /// The engine.
    pub engine: Engine,
    /// Read arguments.
    pub ins: Vec<Arg>,
    /// Written arguments.
    pub outs: Vec<Arg>,
    /// The opcode's fields, in the order they were set (written in table order).
    pub fields: Vec<(Field, Value)>,
}

impl Inst {
    /// An instruction of `opcode` on `engine` without arguments or fields.
    pub fn new(opcode: Opcode, engine: Engine) -> Inst {
        Inst {
            opcode,
            engine,
            ins: Vec::new(),
            outs: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// Sets a field (a second set replaces the value). The field must be one of the
    /// opcode's keys ([`OPCODES`]); a test run panics when it is not.
    pub fn set(&mut self, field: Field, value: impl Into<Value>) -> &mut Inst {
        debug_assert!(
            self.opcode.position(field).is_some(),
            "{} has no key {} in the opcode table",
            self.opcode.name(),
            field.key()
        );
        let value = value.into();
        match self.fields.iter_mut().find(|(f, _)| *f == field) {
            Some(slot) => slot.1 = value,
            None => self.fields.push((field, value)),
        }
        self
    }

    /// Sets a float field (SPEC §8: non-finite as `"inf"`, `"-inf"`, `"nan"`).
    pub fn set_float(&mut self, field: Field, value: f64) -> &mut Inst {
        self.set(field, Value::Float(value))
    }

    /// Sets a list-of-floats field (each as [`Inst::set_float`] writes it).
    pub fn set_floats(&mut self, field: Field, values: &[f64]) -> &mut Inst {
        self.set(field, Value::floats(values))
    }

    /// Drops the spare capacity of the arguments and fields (an instruction is kept as
    /// long as its op, SPEC §10 memoization).
    pub fn shrink_to_fit(&mut self) {
        self.ins.shrink_to_fit();
        self.outs.shrink_to_fit();
        self.fields.shrink_to_fit();
    }

    /// The value of `field`, if set.
    pub fn get(&self, field: Field) -> Option<&Value> {
        self.fields
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, v)| v)
    }

    /// The set fields in the opcode's key order (any field outside the table last).
    pub fn ordered_fields(&self) -> Vec<&(Field, Value)> {
        let mut fields: Vec<&(Field, Value)> = self.fields.iter().collect();
        fields.sort_by_key(|(f, _)| self.opcode.position(*f).unwrap_or(usize::MAX));
        fields
    }

    /// The keys of the table the instruction should hold but does not (for an op
    /// without errors every `always` key is written).
    pub fn missing_keys(&self) -> Vec<&'static str> {
        self.opcode
            .spec()
            .keys
            .iter()
            .filter(|k| k.when.is_none() && self.get(k.field).is_none())
            .map(|k| k.field.key())
            .collect()
    }

    /// The instruction as SPEC §8 writes it, with `name` after `opcode` and `debuginfo`
    /// last when given (see [`crate::stamp_instruction`]).
    pub fn json<'a, D: Serialize>(
        &'a self,
        name: Option<&'a str>,
        debuginfo: Option<&'a D>,
    ) -> InstJson<'a, D> {
        InstJson {
            inst: self,
            name,
            debuginfo,
        }
    }
}

/// An [`Inst`] with its `name` and `debuginfo`: the one §8 serializer of an instruction.
pub struct InstJson<'a, D> {
    inst: &'a Inst,
    name: Option<&'a str>,
    debuginfo: Option<&'a D>,
}

impl<D: Serialize> Serialize for InstJson<'_, D> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let inst = self.inst;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("opcode", inst.opcode.name())?;
        if let Some(name) = self.name {
            map.serialize_entry("name", name)?;
        }
        map.serialize_entry("engine", inst.engine.bir_name())?;
        map.serialize_entry("ins", &inst.ins)?;
        map.serialize_entry("outs", &inst.outs)?;
        for (field, value) in inst.ordered_fields() {
            map.serialize_entry(field.key(), value)?;
        }
        if let Some(debuginfo) = self.debuginfo {
            map.serialize_entry("debuginfo", debuginfo)?;
        }
        map.end()
    }
}

impl Serialize for Inst {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json::<()>(None, None).serialize(s)
    }
}

// ----- the documentation ---------------------------------------------------------------

/// `docs/bir-fields.md`, generated from [`OPCODES`].
pub fn fields_doc() -> String {
    let mut out = String::from(
        "# BIR instruction keys, per opcode\n\n\
         <!-- Generated from `lower::bir::OPCODES` by the test `bir_fields_doc_is_fresh` \
         (`UPDATE_EXPECT=1 cargo test -p pir-lower bir_fields_doc` regenerates it). -->\n\n\
         SPEC §8: every instruction starts with `opcode`, `name`, `engine`, `ins`, `outs`, then the\n\
         opcode's own fields \"in a fixed order of your choice per opcode (documented)\", then\n\
         `debuginfo`. This is that order. Keys in *(parentheses)* are written only when they apply;\n\
         all others are always written by an op without errors (a test checks it).\n\n\
         | opcode (op classes) | keys after `outs`, in order | notes |\n|---|---|---|\n",
    );
    for spec in OPCODES {
        let keys: Vec<String> = spec
            .keys
            .iter()
            .map(|k| match k.when {
                None => format!("`{}`", k.field.key()),
                Some(when) => format!("*(`{}`: {when})*", k.field.key()),
            })
            .collect();
        let keys = if keys.is_empty() {
            "—".to_string()
        } else {
            keys.join(", ")
        };
        let _ = writeln!(
            out,
            "| `{}` ({}) | {keys} | {} |",
            spec.name, spec.classes, spec.note
        );
    }
    out.push_str("| none (NoOp) | — | |\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_indexed_by_opcode() {
        for (i, spec) in OPCODES.iter().enumerate() {
            assert_eq!(spec.opcode as usize, i, "{}", spec.name);
            let mut seen = Vec::new();
            for key in spec.keys {
                assert!(
                    !seen.contains(&key.field),
                    "{} repeats {:?}",
                    spec.name,
                    key.field
                );
                seen.push(key.field);
            }
        }
    }

    #[test]
    fn bir_fields_doc_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/bir-fields.md");
        let want = fields_doc();
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, &want).expect("write docs/bir-fields.md");
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/bir-fields.md is stale: regenerate it from lower::bir::OPCODES with \
             `UPDATE_EXPECT=1 cargo test -p pir-lower bir_fields_doc`"
        );
    }

    #[test]
    fn floats_follow_spec_8() {
        let v = Value::floats(&[1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.5]);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"[1.0,"inf","-inf","nan",0.5]"#
        );
    }
}
