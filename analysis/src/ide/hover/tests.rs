//! Tests of [`super`]: fixtures with cursor markers and snapshots.

use expect_test::{Expect, expect};

use crate::ide::fixture::with_cursor;

#[track_caller]
fn check(fixture: &str, expect: Expect) {
    let (db, doc, offset) = with_cursor(fixture);
    let text = match super::hover(&db, &doc, offset) {
        Some(h) => {
            let covered = &doc.text(&db)[usize::from(h.range.start())..usize::from(h.range.end())];
            format!("[{covered}]\n{}", h.markdown)
        }
        None => "no hover".to_string(),
    };
    expect.assert_eq(&text);
}

const KERNEL: &str = "kernel @k(%x: hbm f32[128, 512]) {\n  tensor %t : sbuf f32[128, 512]\n  DmaCopyOp { dst = %t, src = %x }\n}\n";

#[test]
fn tensor_use_shows_declaration_and_bytes() {
    check(
        &KERNEL.replace("dst = %t", "dst = %<|>t"),
        expect![[r#"
            [%t]
            tensor `%t` : sbuf f32[128, 512]

            2048 bytes per partition of 212984 (1.0%), 128 partitions"#]],
    );
}

#[test]
fn dtype_in_a_declaration() {
    check(
        &KERNEL.replace("sbuf f32", "sbuf f<|>32"),
        expect![[r#"
            [f32]
            `f32`: float, 4 byte(s) per element, BIR `float32`"#]],
    );
}

const ACT: &str = "kernel @k(%x: hbm f32[128, 4],\n          %w: hbm f32[4]) -> (%y: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  for %i in 0..8 step 2 {\n    ActivationOp { dst = %t, src = %t, func = exp }\n    TensorTensorOp { dst = %t, src0 = %t, src1 = %t, op = multiply }\n  }\n}\n";

/// Issue 11: no seed citation a user cannot open, the access patterns on one line,
/// numbers as `pir lower` writes them (`1.0`).
#[test]
fn op_shows_doc_method_and_compact_bir() {
    check(
        &ACT.replace("ActivationOp {", "Activation<|>Op {"),
        expect![[r#"
            [ActivationOp]
            **ActivationOp** #1 → `Activation`

            `dst = func(src · scale + bias)` on the Activation engine, optionally reducing the result along the free dim into `reduce_dst`. With `is_accumulate` it emits `ActivationAccumulationOp`.

            compiler method: `codegenActivationOp`

            ```json
            [
              {
                "opcode": "Activation",
                "name": "I-1-0",
                "engine": "Activation",
                "ins": [
                  {
                    "kind": "physical_ap",
                    "ap": [[4, 128], [1, 4]],
                    "dtype": "float32",
                    "offset": 0,
                    "memsetref": "t_set",
                    "memref": "t",
                    "start_partition": 0,
                    "role": "src"
                  }
                ],
                "outs": [
                  {
                    "kind": "physical_ap",
                    "ap": [[4, 128], [1, 4]],
                    "dtype": "float32",
                    "offset": 0,
                    "memsetref": "t_set",
                    "memref": "t",
                    "start_partition": 0,
                    "role": "dst"
                  }
                ],
                "func": "Exp",
                "scale": 1.0,
                "acc": "Idle",
                "is_accumulate": false,
                "debuginfo": {
                  "op": "ActivationOp",
                  "op_id": 1,
                  "codegen": "codegenActivationOp",
                  "instruction_type": null,
                  "line": 5,
                  "column": 5,
                  "errors": []
                }
              }
            ]
            ```

            **Cost on trn2** (§10.2)

            ```text
            I-1-0 Activation · Activation — activation: max(64, ⌈4 × 1 / 1⌉) = 64 cycles = 53 ns at 1.2 GHz
              [I] aws-neuron-sdk@49ee15c5 general/nki/api/nki/isa/__init__.py L166
              executed 4× → 256 cycles = 213 ns, 100% of Activation
            ```"#]],
    );
}

#[test]
fn enum_value_names_its_bir_spelling_once() {
    check(
        &ACT.replace("op = multiply", "op = multi<|>ply"),
        expect![[r#"
        [multiply]
        `multiply` (alu): a × b (BIR `mult`)"#]],
    );
    check(
        &ACT.replace("func = exp", "func = e<|>xp"),
        expect![[r#"
        [exp]
        `exp` (act_func): e^x — BIR `Exp`"#]],
    );
}

#[test]
fn required_field_says_required() {
    check(
        &ACT.replace("func = exp", "fu<|>nc = exp"),
        expect![[r#"
        [func]
        **ActivationOp**.`func`: enum act_func{identity, copy, relu, gelu, gelu_apprx_tanh, silu, sigmoid, tanh, exp, log, sqrt, rsqrt, square, reciprocal, softplus, mish, erf, sin, abs, sign}

        required · BIR: func (capitalised: exp → "Exp", log → "Ln")

        the activation function"#]],
    );
}

#[test]
fn loop_variable_shows_its_values() {
    check(
        &ACT.replace("for %i", "for %<|>i"),
        expect![[r#"
        [%i]
        loop variable `%i` in `0..8` step 2

        4 iterations: `%i` = 0, 2, …, 6 (BIR loop `L-i`, axis `i`)"#]],
    );
}

const TILED: &str = "kernel @k(%a: hbm f16[256, 1024]) {\n  reg %r : i32\n  for %m in 0..2 {\n    for %n in 0..2 {\n      tensor %t : sbuf f16[128, 512]\n      DmaCopyOp { dst = %t, src = %a[%m*128 : %m*128 + 128, %n*512 : %n*512 + 512] }\n      ActivationOp { dst = %t, src = %t, func = exp, reduce_dest = %t }\n    }\n  }\n}\n";

#[test]
fn an_access_shows_its_shape_per_iteration() {
    check(
        &TILED.replace("%n*512 : %n*512 + 512]", "%n*512 : %n*512 + 512<|>]"),
        expect![[r#"
            [%a[%m*128 : %m*128 + 128, %n*512 : %n*512 + 512]]
            access of `%a` : hbm f16[256, 1024]

            shape **[128, 512]** = 65536 elements per iteration
            * dim 0: 128 from `128·%m`; it starts at 0 … 128 over the loops
            * dim 1: 512 from `512·%n`; it starts at 0 … 512 over the loops"#]],
    );
    // On the name of a sliced access too; a bare name is its declaration.
    check(
        &TILED.replace("src = %a[", "src = %<|>a["),
        expect![[r#"
            [%a[%m*128 : %m*128 + 128, %n*512 : %n*512 + 512]]
            access of `%a` : hbm f16[256, 1024]

            shape **[128, 512]** = 65536 elements per iteration
            * dim 0: 128 from `128·%m`; it starts at 0 … 128 over the loops
            * dim 1: 512 from `512·%n`; it starts at 0 … 512 over the loops"#]],
    );
}

#[test]
fn an_unknown_field_is_told_as_a_field() {
    check(
        &TILED.replace("reduce_dest", "reduce_d<|>est"),
        expect![[r#"
            [reduce_dest]
            `reduce_dest` is not a field of **ActivationOp**; did you mean `reduce_dst`?

            its fields: `dst`, `src`, `func`, `func_args`, `func_outs`, `scale`, `bias`, `up_bias`, `down_bias`, `imm0`, `imm1`, `reduce_op`, `reduce_cmd`, `reduce_dst`, `is_accumulate`"#]],
    );
}

#[test]
fn an_unknown_enum_value_is_told_with_the_values() {
    check(
        &TILED.replace("func = exp", "func = gelu_t<|>anh"),
        expect![[r#"
            [gelu_tanh]
            `gelu_tanh` is not a value of `func` (act_func); did you mean `gelu_apprx_tanh`?

            its values: `identity`, `copy`, `relu`, `gelu`, `gelu_apprx_tanh`, `silu`, `sigmoid`, `tanh`, `exp`, `log`, `sqrt`, `rsqrt`, `square`, `reciprocal`, `softplus`, `mish`, `erf`, `sin`, `abs`, `sign`"#]],
    );
}

#[test]
fn an_op_is_headed_by_the_opcode_it_emits() {
    check(
        &TILED.replace("ActivationOp {", "Activation<|>Op {"),
        expect![[r#"
            [ActivationOp]
            **ActivationOp** #2 → `Activation`

            `dst = func(src · scale + bias)` on the Activation engine, optionally reducing the result along the free dim into `reduce_dst`. With `is_accumulate` it emits `ActivationAccumulationOp`.

            compiler method: `codegenActivationOp`

            ```json
            [
              {
                "opcode": "Activation",
                "name": "I-2-0",
                "engine": "Activation",
                "ins": [
                  {
                    "kind": "physical_ap",
                    "ap": [[512, 128], [1, 512]],
                    "dtype": "float16",
                    "offset": 0,
                    "memsetref": "t_set",
                    "memref": "t",
                    "start_partition": 0,
                    "role": "src"
                  }
                ],
                "outs": [
                  {
                    "kind": "physical_ap",
                    "ap": [[512, 128], [1, 512]],
                    "dtype": "float16",
                    "offset": 0,
                    "memsetref": "t_set",
                    "memref": "t",
                    "start_partition": 0,
                    "role": "dst"
                  }
                ],
                "func": "Exp",
                "scale": 1.0,
                "acc": "Idle",
                "is_accumulate": false,
                "debuginfo": {
                  "op": "ActivationOp",
                  "op_id": 2,
                  "codegen": "codegenActivationOp",
                  "instruction_type": null,
                  "line": 7,
                  "column": 7,
                  "errors": ["P203"]
                }
              }
            ]
            ```

            **Cost on trn2** (§10.2)

            ```text
            I-2-0 Activation · Activation — not estimated: the op has an error
            ```"#]],
    );
}

#[test]
fn a_kernel_counts_its_tensors_and_registers() {
    check(
        &TILED.replace("@k(", "@<|>k("),
        expect![[r#"
            [@k]
            kernel `@k` (a BIR function)

            inputs: `%a: hbm f16[256, 1024]`

            outputs: none

            2 ops, 2 loops; 1 tensor and 1 register declared

            | engine | static | executed |
            |:--|--:|--:|
            | Activation | 1 | 4 |
            | DMA | 1 | 4 |
            | total | 2 | 8 |

            **SBUF** peak 1,024 of 212,984 bytes per partition (0.5%) at op #1 `DmaCopyOp`; largest live there: `%t` 1,024

            **PSUM** peak 0 of 16,384 bytes per partition (0.0%)

            **Cost on trn2** (NeuronCore-v3; PE 2,400 MHz, Activation 1,200 MHz, DVE 960 MHz, Pool 1,200 MHz; DMA 23 B/ns × 16 queues)

            | engine | executed | busy cycles | busy | of bound |
            |:--|--:|--:|--:|--:|
            | DMA | 4 | — (524,288 B) | 1.75 µs | 100% |

            Lower bound ≥ 1.75 µs (DMA-bound): a roofline bound, not a schedule

            Not estimated: 4 executed (`Activation` 4)

            SBUF per partition on trn2: 212,984 usable of 229,376 physical"#]],
    );
}

#[test]
fn kernel_shows_its_signature_and_body() {
    check(
        &ACT.replace("@k(", "@<|>k("),
        expect![[r#"
            [@k]
            kernel `@k` (a BIR function)

            inputs: `%x: hbm f32[128, 4]`, `%w: hbm f32[4]`

            outputs: `%y: hbm f32[128, 4]`

            2 ops, 1 loop; 1 tensor declared

            | engine | static | executed |
            |:--|--:|--:|
            | Activation | 1 | 4 |
            | DVE | 1 | 4 |
            | total | 2 | 8 |

            **SBUF** peak 16 of 212,984 bytes per partition (0.0%) at op #1 `ActivationOp`; largest live there: `%t` 16

            **PSUM** peak 0 of 16,384 bytes per partition (0.0%)

            **Cost on trn2** (NeuronCore-v3; PE 2,400 MHz, Activation 1,200 MHz, DVE 960 MHz, Pool 1,200 MHz; DMA 23 B/ns × 16 queues)

            | engine | executed | busy cycles | busy | of bound |
            |:--|--:|--:|--:|--:|
            | Activation | 4 | 256 | 213 ns | 80% |
            | DVE | 4 | 256 | 267 ns | 100% |

            Lower bound ≥ 267 ns (DVE-bound): a roofline bound, not a schedule

            SBUF per partition on trn2: 212,984 usable of 229,376 physical"#]],
    );
}

#[test]
fn pir_spec_2_fields_come_from_the_catalog() {
    // pir-spec/2 §6.7: `is_keep_rate` is a DropoutMaskInst field, with its BIR field.
    check(
        "kernel @k(%a: sbuf f32[128, 4]) -> (%o: sbuf f32[128, 4]) {\n  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.5, is_k<|>eep_rate = false }\n}\n",
        expect![[r#"
            [is_keep_rate]
            **DropoutMaskInst**.`is_keep_rate`: bool

            default: `true` · BIR: is_keep_threshold

            true: `keep_rate` is the probability of keeping an element; false: of dropping it (the seed gates the rate with `is_keep_rate`)"#]],
    );
}

#[test]
fn nothing_outside_ops_and_names() {
    check(&format!("<|>{KERNEL}"), expect!["no hover"]);
}
