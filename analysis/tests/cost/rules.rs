//! Every opcode rule of SPEC §10.2.4–§10.2.7, each on a kernel of one op against a figure
//! computed by hand from §10.2's formulas: the arithmetic is in the comment above each
//! assertion. Constants: `MM_INIT` = `MIN_II` = 64, `GPSIMD_START` = 150,
//! `MIN_II_DYNAMIC` = 600; DMA `L` = 1,300 ns, `BW` 17 / 23 / 33 B/ns, 16 queues.

use super::*;

// ----- PE (§10.2.4): c = ⌈B × f × share⌉ -------------------------------------------------

#[test]
fn nc_matmul() {
    let decls = "%a: sbuf bf16[128, 64], %b: sbuf bf16[128, 512], %c: sbuf bf16[128, 32], %o: psum f32[64, 512], %p: psum f32[64, 32]";
    // max(min(64, 64), 512) × 1 = 512, on every target.
    let op = "MatMulOp { dst = %o, stationary = %a, moving = %b }";
    for t in Target::ALL {
        assert_eq!(engine_cycles(decls, op, t), (Engine::Pe, 512));
    }
    // A moving of 32: max(min(64, 64), 32) = 64, the stationary load.
    let op = "MatMulOp { dst = %p, stationary = %a, moving = %c }";
    assert_eq!(cycles(decls, op, Target::Trn2), 64);
}

#[test]
fn nc_matmul_fp32_is_four_times() {
    let decls = "%a: sbuf f32[128, 128], %b: sbuf f32[128, 512], %ar: sbuf f32r[128, 128], %br: sbuf f32r[128, 512], %at: sbuf tf32[128, 128], %bt: sbuf tf32[128, 512], %o: psum f32[128, 512]";
    // f32 and f32r: max(min(64, 128), 512) × 4 = 2,048, on every target.
    for op in [
        "MatMulOp { dst = %o, stationary = %a, moving = %b }",
        "MatMulOp { dst = %o, stationary = %ar, moving = %br }",
    ] {
        for t in Target::ALL {
            assert_eq!(cycles(decls, op, t), 2_048, "{op} on {t}");
        }
    }
    // tf32 is ×1 ([I] L896): max(min(64, 128), 512) × 1 = 512.
    let op = "MatMulOp { dst = %o, stationary = %at, moving = %bt }";
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
}

#[test]
fn nc_matmul_in_transpose_mode() {
    let decls = "%i: sbuf f32[128, 128], %x: sbuf f32[128, 128], %o: psum f32[128, 128]";
    // isTranspose: B = max(min(64, 128), 128) = 128; f = 4 on trn1: 512; f = 2 on trn2
    // and trn3 ([A2 L201], "2x speedup in FP32 transpose"): 256.
    let op = "MatMulOp { dst = %o, stationary = %i, moving = %x, isTranspose = true }";
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    assert_eq!(cycles(decls, op, Target::Trn3), 256);
    // The same f32 matmul without the flag: 128 × 4 = 512 on every target.
    let op = "MatMulOp { dst = %o, stationary = %i, moving = %x }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
}

#[test]
fn nc_matmul_on_a_tile_takes_its_share() {
    // A [32, 32] tile: share = 32 × 32 / 16,384 = 1/16; B = max(min(64, 32), 100) = 100;
    // ⌈100 × 1 / 16⌉ = ⌈6.25⌉ = 7 (rounded up once).
    let decls = "%a: sbuf bf16[32, 32], %b: sbuf bf16[32, 100], %o: psum f32[32, 100]";
    let op = "MatMulOp { dst = %o, stationary = %a, moving = %b, pe_tile_size = [32, 32] }";
    assert_eq!(cycles(decls, op, Target::Trn2), 7);
    // A [64, 128] tile: share = 8,192 / 16,384 = 1/2; B = max(min(64, 128), 512) = 512;
    // 512 / 2 = 256.
    let decls = "%a: sbuf bf16[64, 128], %b: sbuf bf16[64, 512], %o: psum f32[128, 512]";
    let op = "MatMulOp { dst = %o, stationary = %a, moving = %b, pe_tile_size = [64, 128] }";
    assert_eq!(cycles(decls, op, Target::Trn1), 256);
}

#[test]
fn nc_matmul_double_row_reads_the_per_row_f() {
    // DoubleRow ([A2 L101]): N_st and N_mov are the innermost counts (the per-row F), not
    // the free sizes 2 × F. Moving [128, 2, 512]: max(min(64, 128), 512) × 1 = 512 (the
    // free size would give 1,024).
    let decls =
        "%a: sbuf f8e4m3[128, 2, 128], %b: sbuf f8e4m3[128, 2, 512], %o: psum f32[128, 512]";
    let op = "MatMulOp { dst = %o, stationary = %a, moving = %b, perf_mode = double_row }";
    for t in Target::ALL {
        assert_eq!(cycles(decls, op, t), 512, "{t}");
    }
    // Moving [128, 2, 48]: max(min(64, 128), 48) = 64 (the free size 96 would give 96).
    let decls = "%a: sbuf f8e4m3[128, 2, 128], %b: sbuf f8e4m3[128, 2, 48], %o: psum f32[128, 48]";
    assert_eq!(cycles(decls, op, Target::Trn2), 64);
}

#[test]
fn matmult_mx_is_a_bf16_matmul_of_the_packed_shape() {
    // MatmultMx: max(min(64, N_st), N_mov) in packed elements, f = 1 (the 4-byte packed
    // dtype is not fp32): max(min(64, 64), 512) × 1 = 512, on every target (no gating).
    let decls = "%st: sbuf f8e4m3fnx4[128, 64], %mv: sbuf f8e4m3fnx4[128, 512], %ls: sbuf u8[16, 64], %rs: sbuf u8[16, 512], %o: psum f32[64, 512]";
    let op =
        "MatMulMXOp { dst = %o, stationary = %st, moving = %mv, lhs_scale = %ls, rhs_scale = %rs }";
    for t in Target::ALL {
        assert_eq!(engine_cycles(decls, op, t), (Engine::Pe, 512), "{t}");
    }
    // A moving of 32 packed elements: max(min(64, 64), 32) = 64.
    let decls = "%st: sbuf f8e4m3fnx4[128, 64], %mv: sbuf f8e4m3fnx4[128, 32], %ls: sbuf u8[16, 64], %rs: sbuf u8[16, 32], %o: psum f32[64, 32]";
    assert_eq!(cycles(decls, op, Target::Trn1), 64);
}

#[test]
fn matmult_sparse_follows_the_dst_free_size() {
    // compress_ratio 4: max(min(64, 128), 2,048 / 4) × 1 = 512.
    let decls = "%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 2048], %t: sbuf u8[128, 2048], %o: psum f32[128, 512]";
    let op =
        "MatMulSparseOp { dst = %o, stationary = %w, moving = %x, tags = %t, compress_ratio = 4 }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Pe, 512));
    // f32, ratio 2: max(min(64, 64), 1,000 / 2) × 4 = 500 × 4 = 2,000.
    let decls = "%w: sbuf f32[128, 64], %x: sbuf f32[128, 1000], %t: sbuf u8[128, 1000], %o: psum f32[64, 500]";
    let op =
        "MatMulSparseOp { dst = %o, stationary = %w, moving = %x, tags = %t, compress_ratio = 2 }";
    assert_eq!(cycles(decls, op, Target::Trn1), 2_000);
    // isTranspose applies as for Matmult: f32, ratio 2, B = 500; f = 4 on trn1 (2,000),
    // 2 on trn2 (1,000).
    let decls = "%w: sbuf f32[128, 64], %x: sbuf f32[128, 1000], %t: sbuf u8[128, 1000], %o: psum f32[64, 500]";
    let op = "MatMulSparseOp { dst = %o, stationary = %w, moving = %x, tags = %t, compress_ratio = 2, isTranspose = true }";
    assert_eq!(cycles(decls, op, Target::Trn1), 2_000);
    assert_eq!(cycles(decls, op, Target::Trn2), 1_000);
    // A small moving: max(min(64, 128), 128 / 4 = 32) = 64.
    let decls = "%w: sbuf bf16[128, 128], %x: sbuf bf16[128, 128], %t: sbuf u8[128, 128], %o: psum f32[128, 32]";
    let op =
        "MatMulSparseOp { dst = %o, stationary = %w, moving = %x, tags = %t, compress_ratio = 4 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 64);
}

#[test]
fn nc_transpose() {
    let decls = "%s: sbuf bf16[32, 128], %t: psum bf16[128, 32], %f: sbuf f32[128, 128], %g: psum f32[128, 128]";
    // bf16: max(P = 32, min(64, N = 128)) × 1 = 64.
    assert_eq!(
        cycles(decls, "TransposeOp { dst = %t, src = %s }", Target::Trn1),
        64
    );
    // f32: max(128, min(64, 128)) × 4 on trn1 = 512, × 2 on trn2 = 256.
    let op = "TransposeOp { dst = %g, src = %f }";
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    assert_eq!(cycles(decls, op, Target::Trn3), 256);
}

// ----- Activation (§10.2.5): c = max(MIN_II, ⌈R × s / d⌉) + X -------------------------------

#[test]
fn activation() {
    let decls = "%a: sbuf f32[128, 512], %b: sbuf f32[128, 512], %c: sbuf f32[128, 32]";
    // max(64, ⌈512 × 1 / 1⌉) = 512.
    let op = "ActivationOp { dst = %b, src = %a, func = exp }";
    assert_eq!(engine_cycles(decls, op, Target::Trn1), (Engine::Act, 512));
    // 32 elements: the floor, max(64, 32) = 64.
    let decls = "%a: sbuf f32[128, 32], %c: sbuf f32[128, 32]";
    let op = "ActivationOp { dst = %c, src = %a, func = exp }";
    assert_eq!(cycles(decls, op, Target::Trn2), 64);
}

#[test]
fn activation_accumulate_and_activate2_cost_as_activation() {
    let decls = "%a: sbuf f32[128, 512], %b: sbuf f32[128, 512], %c: sbuf f32[128, 512]";
    // ActivationAccumulationOp: max(64, 512) = 512.
    let op = "ActivationOp { dst = %b, src = %a, func = exp, is_accumulate = true }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Act, 512));
    // Activate2 (two functions, two outputs): still max(64, 512) = 512.
    let op = "Activate2 { dst = %b, src = %a, func = exp, func2 = relu, dst2 = %c }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Act, 512));
}

#[test]
fn activation_reduce_adds_min_ii() {
    // With `reduce_op`: max(64, 512) + 64 = 576.
    let decls = "%a: sbuf f32[128, 512], %b: sbuf f32[128, 512], %r: sbuf f32[128, 1]";
    let op = "ActivationOp { dst = %b, src = %a, func = exp, reduce_op = add, reduce_dst = %r }";
    assert_eq!(cycles(decls, op, Target::Trn2), 576);
}

#[test]
fn scalar_engine_copy_mode_on_trn3() {
    // TensorCopyOp on `act` is an `Activation` with `func: "Copy"`: bf16 to bf16 halves on
    // trn3 ([A3 L218]): max(64, ⌈512 / 2⌉) = 256; trn2: 512.
    let decls = "%a: sbuf bf16[128, 512], %b: sbuf bf16[128, 512]";
    let op = "TensorCopyOp { dst = %b, src = %a, engine = act }";
    assert_eq!(cycles(decls, op, Target::Trn3), 256);
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
    // ActivationOp `copy` likewise: 256 on trn3; another function keeps d = 1: 512.
    let op = "ActivationOp { dst = %b, src = %a, func = copy }";
    assert_eq!(cycles(decls, op, Target::Trn3), 256);
    let op = "ActivationOp { dst = %b, src = %a, func = exp }";
    assert_eq!(cycles(decls, op, Target::Trn3), 512);
    // f32 is no half dtype: 512 on trn3.
    let decls = "%a: sbuf f32[128, 512], %b: sbuf f32[128, 512]";
    let op = "ActivationOp { dst = %b, src = %a, func = copy }";
    assert_eq!(cycles(decls, op, Target::Trn3), 512);
}

// ----- the tensor-scalar family (§10.2.5) ---------------------------------------------------

#[test]
fn tensor_scalar_and_its_perf_mode() {
    let decls = "%a: sbuf bf16[128, 1024], %b: sbuf bf16[128, 1024]";
    let op = "TensorScalarPtrOp { dst = %b, src = %a, op0 = multiply, operand0 = 2.0 }";
    // trn1: max(64, ⌈1024 × 1 / 1⌉) = 1024; trn2, bf16 SBUF to SBUF, contiguous:
    // d = 4, ⌈1024 / 4⌉ = 256.
    assert_eq!(engine_cycles(decls, op, Target::Trn1), (Engine::Dve, 1024));
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    // f32 is not a fast dtype: d = 1, 1024 on trn2.
    let decls = "%a: sbuf f32[128, 1024], %b: sbuf f32[128, 1024]";
    assert_eq!(cycles(decls, op, Target::Trn2), 1024);
    // 128 bf16: ⌈128 / 4⌉ = 32, floored: max(64, 32) = 64.
    let decls = "%a: sbuf bf16[128, 128], %b: sbuf bf16[128, 128]";
    assert_eq!(cycles(decls, op, Target::Trn2), 64);
}

#[test]
fn tensor_scalar_perf_mode_halves() {
    let op =
        "TensorScalarPtrOp { dst = %b, src = %a[:, 0:1024:2], op0 = multiply, operand0 = 2.0 }";
    // Both in SBUF, the src not contiguous (step 2 × 2 B = 4 ≤ 16: s = 1): d = 2,
    // N = 512: ⌈512 / 2⌉ = 256 on trn2; 512 on trn1 (no perf mode).
    let decls = "%a: sbuf bf16[128, 1024], %b: sbuf bf16[128, 512]";
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    // Both contiguous, exactly one in PSUM: d = 2, ⌈512 / 2⌉ = 256.
    let decls = "%p: psum bf16[128, 512], %b: sbuf bf16[128, 512]";
    let op = "TensorScalarPtrOp { dst = %b, src = %p, op0 = multiply, operand0 = 2.0 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
}

#[test]
fn fp8_is_fast_on_trn3_only() {
    // [A3 L52]: the 1-byte fp8 types are perf-mode dtypes on trn3: d = 4, ⌈1024 / 4⌉ = 256;
    // on trn2 they are not: 1024.
    let decls = "%a: sbuf f8e4m3[128, 1024], %b: sbuf f8e4m3[128, 1024]";
    let op = "TensorScalarPtrOp { dst = %b, src = %a, op0 = multiply, operand0 = 2.0 }";
    assert_eq!(cycles(decls, op, Target::Trn3), 256);
    assert_eq!(cycles(decls, op, Target::Trn2), 1024);
}

#[test]
fn tensor_scalar_on_pool_and_activation() {
    let decls = "%a: sbuf bf16[128, 1024], %b: sbuf bf16[128, 1024]";
    // Pool: 150 + ⌈1024 × 1⌉ = 1,174 (no perf mode on Pool), on every target.
    let op =
        "TensorScalarPtrOp { dst = %b, src = %a, op0 = multiply, operand0 = 2.0, engine = pool }";
    for t in Target::ALL {
        assert_eq!(engine_cycles(decls, op, t), (Engine::Pool, 1_174), "{t}");
    }
    // Activation: max(64, 1024) = 1024 on trn2; bf16 to bf16 on trn3 ([A3 L218]): d = 2,
    // 512.
    let op =
        "TensorScalarPtrOp { dst = %b, src = %a, op0 = multiply, operand0 = 2.0, engine = act }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Act, 1024));
    assert_eq!(cycles(decls, op, Target::Trn3), 512);
}

#[test]
fn scalar_tensor_tensor() {
    let op = |op0: &str| {
        format!(
            "TensorScalarPtrOp {{ dst = %y, src = %x, op0 = {op0}, operand0 = 1.0, op1 = multiply, operand1 = %o, is_scalar_tensor_tensor = true }}"
        )
    };
    // bf16 src and operand1, subtract then mult, N = 512 even: R = N, max(64, 512) = 512;
    // on trn2 too (the copy perf mode is not this rule's).
    let decls = "%x: sbuf bf16[128, 512], %o: sbuf bf16[128, 512], %y: sbuf bf16[128, 512]";
    assert_eq!(cycles(decls, &op("subtract"), Target::Trn1), 512);
    assert_eq!(cycles(decls, &op("subtract"), Target::Trn2), 512);
    // op0 = add: 2N = 1,024.
    assert_eq!(cycles(decls, &op("add"), Target::Trn2), 1_024);
    // N = 511 is odd: 2 × 511 = 1,022.
    let odd = "%x: sbuf bf16[128, 511], %o: sbuf bf16[128, 511], %y: sbuf bf16[128, 511]";
    assert_eq!(cycles(odd, &op("subtract"), Target::Trn2), 1_022);
    // f32: 2N = 1,024.
    let f32 = "%x: sbuf f32[128, 512], %o: sbuf f32[128, 512], %y: sbuf f32[128, 512]";
    assert_eq!(cycles(f32, &op("subtract"), Target::Trn2), 1_024);
    // Pool: 150 + 2 × 512 = 1,174, even in the cheap case.
    let pool = op("subtract").replace(" }", ", engine = pool }");
    assert_eq!(
        engine_cycles(decls, &pool, Target::Trn2),
        (Engine::Pool, 1_174)
    );
}

#[test]
fn tensor_scalar_variants() {
    let decls = "%x: sbuf f32[128, 512], %y: sbuf f32[128, 512], %s: sbuf f32[128, 1]";
    // The cumulative form is tensor_tensor_scan: 2N = 1024.
    let op =
        "TensorScalarCacheCumulative { dst = %y, src = %x, op0 = add, operand0 = 0, op1 = add }";
    assert_eq!(cycles(decls, op, Target::Trn2), 1024);
    // affine_select on Pool (its default engine): 150 + 512.
    let op = "AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 - $1 >= 0], fill_value = -inf }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Pool, 662));
    // On DVE it takes the tensor_scalar rule: max(64, 512) = 512.
    let op = "AffSelTensorScalarOp { dst = %y, src = %x, predicates = [$0 - $1 >= 0], fill_value = -inf, engine = dve }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Dve, 512));
    // range_select: max(64, 512).
    let op = "RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = %s }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
}

#[test]
fn tensor_scalar_gep_floor_is_dynamic_with_a_dynamic_index() {
    let decls = "%x: sbuf f32[128, 128], %y: sbuf f32[128, 128], %table: sbuf f32[128, 16], %idx: sbuf i32[128, 1]";
    let gep = |index: &str, engine: &str| {
        format!(
            "reg %r : i32\n  TensorScalarGEPOp {{ dst = %y, src = %x, op0 = add, ptr = %table, index = {index}{engine} }}"
        )
    };
    // A constant index: max(64, 128) = 128.
    assert_eq!(cycles(decls, &gep("5", ""), Target::Trn2), 128);
    // A register or an access (a dynamic address): max(600, 128) = 600.
    assert_eq!(cycles(decls, &gep("%r", ""), Target::Trn2), 600);
    assert_eq!(cycles(decls, &gep("%idx", ""), Target::Trn1), 600);
    // Pool has no floor: 150 + 128 = 278.
    assert_eq!(
        engine_cycles(decls, &gep("%r", ", engine = pool"), Target::Trn2),
        (Engine::Pool, 278)
    );
}

// ----- select and predicated copy (§10.2.5) -------------------------------------------------

#[test]
fn predicated_copy_and_select() {
    // Both in SBUF: 2N = 1024; a predicate in PSUM: N = 512.
    let decls = "%x: sbuf f32[128, 512], %y: sbuf f32[128, 512], %m: sbuf f32[128, 512], %p: psum f32[128, 512]";
    let op = "TensorCopyPredicated { dst = %y, src = %x, predicate = %m }";
    assert_eq!(cycles(decls, op, Target::Trn2), 1024);
    let op = "TensorCopyPredicated { dst = %y, src = %x, predicate = %p }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
    // Select, both in SBUF: 2N = 1024; the predicate in PSUM: N = 512.
    let op = "TensorSelect { dst = %y, predicate = %m, on_true = %x, on_false = 0.0 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 1024);
    let op = "TensorSelect { dst = %y, predicate = %p, on_true = %x, on_false = 0.0 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
}

#[test]
fn range_select_is_n_of_on_true() {
    // range_select [I] L1133: N = on_true's 512 elements per partition, wherever it is
    // (no PSUM factor); on trn1 too.
    let decls = "%x: sbuf f32[128, 512], %y: sbuf f32[128, 512], %p: psum f32[128, 512]";
    let op = "RangeSelect { dst = %y, on_true = %x, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 10 }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Dve, 512));
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    let op = "RangeSelect { dst = %y, on_true = %p, comp_op0 = is_ge, comp_op1 = is_lt, bound0 = 0, bound1 = 10 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
}

#[test]
fn select_reduce_adds_min_ii() {
    // Both in SBUF: max(64, 2 × 512) + 64 = 1,088.
    let decls = "%x: sbuf f32[128, 512], %y: sbuf f32[128, 512], %m: sbuf f32[128, 512], %r: sbuf f32[128, 1]";
    let op = "SelectReduce { dst = %y, predicate = %m, on_true = %x, on_false = 0.0, reduce_op = add, reduce_dst = %r }";
    assert_eq!(engine_cycles(decls, op, Target::Trn1), (Engine::Dve, 1_088));
}

// ----- reduce and the max family (§10.2.5) --------------------------------------------------

#[test]
fn tensor_reduce_chain() {
    // reduce_axes [1, 2] of [128, 4, 256] f32, innermost first: N_0 = 1024 → 1024; then
    // N_1 = 1024 / 256 = 4 → max(64, 4) = 64: 1,088 in all (SPEC §10.2.9's inlay example).
    let decls = "%a: sbuf f32[128, 4, 256], %b: sbuf f32[128, 1]";
    let op = "NeuronReduceMacro { dst = %b, src = %a, op = add, reduce_axes = [1, 2] }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1088);
}

#[test]
fn tensor_reduce_halves_bf16_add_and_max() {
    let reduce = |op: &str| {
        format!("NeuronReduceMacro {{ dst = %b, src = %a, op = {op}, reduce_axes = [1] }}")
    };
    // bf16 in and out, add or max: ⌈1024 / 2⌉ = 512.
    let decls = "%a: sbuf bf16[128, 1024], %b: sbuf bf16[128, 1]";
    assert_eq!(cycles(decls, &reduce("add"), Target::Trn2), 512);
    assert_eq!(cycles(decls, &reduce("max"), Target::Trn2), 512);
    // multiply is not halved: 1024.
    assert_eq!(cycles(decls, &reduce("multiply"), Target::Trn2), 1024);
    // An f32 dst: not halved, 1024.
    let decls = "%a: sbuf bf16[128, 1024], %b: sbuf f32[128, 1]";
    assert_eq!(cycles(decls, &reduce("add"), Target::Trn2), 1024);
    // A bf16 chain over [128, 4, 256], axes [1, 2]: N_0 = 1024 → 512; N_1 = 4, its input
    // the (bf16) dst → ⌈4 / 2⌉ = 2, floored to 64: 576.
    let decls = "%a: sbuf bf16[128, 4, 256], %b: sbuf bf16[128, 1]";
    let op = "NeuronReduceMacro { dst = %b, src = %a, op = add, reduce_axes = [1, 2] }";
    assert_eq!(cycles(decls, op, Target::Trn2), 576);
}

#[test]
fn max8() {
    let decls = "%a: sbuf f32[128, 256], %b: sbuf f32[128, 8]";
    // max(64, 256) = 256.
    assert_eq!(
        cycles(decls, "SundaMax8 { dst = %b, src = %a }", Target::Trn2),
        256
    );
    // 16 elements: max(64, 16) = 64.
    let decls = "%a: sbuf f32[128, 16], %b: sbuf f32[128, 8]";
    assert_eq!(
        cycles(decls, "SundaMax8 { dst = %b, src = %a }", Target::Trn2),
        64
    );
}

#[test]
fn find_index8_match_replace8_and_the_fused_pair() {
    let decls = "%s: sbuf f32[128, 256], %d: sbuf f32[128, 256], %v: sbuf f32[128, 8], %ix: sbuf u32[128, 8]";
    // nc_find_index8: max(64, 256) = 256.
    let op = "SundaMaxIndex8 { dst = %ix, max_vals = %v, src = %s }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Dve, 256));
    // nc_match_replace8: max(64, 256) = 256.
    let op = "SundaMatchReplace8 { dst = %d, src = %s, vals = %v, imm = 0.0 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    // MaxIndexAndMatchReplace, the two fused: 2N = 2 × 256 = 512.
    let op = "MaxIndexAndMatchReplace { dst = %d, dst_idx = %ix, src = %s, vals = %v, imm = -inf }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
}

// ----- memset, iota, sequence bounds, dropout, shuffle (§10.2.5) -----------------------------

#[test]
fn memset_on_dve_and_pool() {
    let decls = "%a: sbuf bf16[128, 1024]";
    // DVE, bf16 zero: max(64, ⌈1024 / 2⌉) = 512.
    let op = "MemsetOp { dst = %a, value = 0, engine = dve }";
    assert_eq!(engine_cycles(decls, op, Target::Trn1), (Engine::Dve, 512));
    // Pool: 150 + 1024 = 1174 (Pool's R_pool is N: no halving).
    let op = "MemsetOp { dst = %a, value = 0 }";
    assert_eq!(engine_cycles(decls, op, Target::Trn1), (Engine::Pool, 1174));
    // DVE, bf16 one: N = 1024.
    let op = "MemsetOp { dst = %a, value = 1.0, engine = dve }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1024);
    // DVE, random: not Const, N = 1024.
    let op = "MemsetOp { dst = %a, mode = random, engine = dve }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1024);
    // f16 zero halves too: 512; f32 zero does not: 1024.
    let op = "MemsetOp { dst = %a, value = 0, engine = dve }";
    assert_eq!(cycles("%a: sbuf f16[128, 1024]", op, Target::Trn2), 512);
    assert_eq!(cycles("%a: sbuf f32[128, 1024]", op, Target::Trn2), 1024);
}

#[test]
fn iota_dropout_and_stream_shuffle() {
    // Iota on Pool: 150 + N = 150 + 512.
    let decls = "%a: sbuf i32[128, 512]";
    assert_eq!(
        engine_cycles(
            decls,
            "IndexValueInst { dst = %a, channel_multiplier = 1 }",
            Target::Trn2
        ),
        (Engine::Pool, 662)
    );
    // Dropout on DVE: max(64, 512) = 512.
    let decls = "%a: sbuf f32[128, 512], %o: sbuf f32[128, 512]";
    let op = "DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.9 }";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
    // Stream shuffle of 32 partitions × 256: max(64, 256) = 256.
    let decls = "%s: sbuf f32[32, 256], %d: sbuf f32[32, 256]";
    let mask: Vec<String> = (0..32).map(|i| i.to_string()).collect();
    let op = format!(
        "StreamShuffleInst {{ dst = %d, src = %s, shuffle_mask = [{}] }}",
        mask.join(", ")
    );
    assert_eq!(cycles(decls, &op, Target::Trn2), 256);
}

#[test]
fn sequence_bounds_fallback() {
    // No published figure: the one-input form on each engine, N = N(src) = 512.
    let decls = "%s: sbuf f32[1, 512], %d: sbuf f32[1, 1024]";
    // Pool (the default): 150 + 512 = 662.
    let op = "GetSequenceBounds { dst = %d, src = %s }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Pool, 662));
    // DVE and Activation: max(64, 512) = 512.
    let op = "GetSequenceBounds { dst = %d, src = %s, engine = dve }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Dve, 512));
    let op = "GetSequenceBounds { dst = %d, src = %s, engine = act }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Act, 512));
}

// ----- copy and tensor-tensor (§10.2.5), the stride factor (§10.2.3) -------------------------

#[test]
fn tensor_copy_perf_mode() {
    let op = "TensorCopyOp { dst = %b, src = %a }";
    // bf16 SBUF to SBUF, contiguous: d = 4 on trn2 and trn3: ⌈512 / 4⌉ = 128; trn1 512.
    let decls = "%a: sbuf bf16[128, 512], %b: sbuf bf16[128, 512]";
    assert_eq!(cycles(decls, op, Target::Trn2), 128);
    assert_eq!(cycles(decls, op, Target::Trn3), 128);
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    // From PSUM, bf16: d = 2, 256. From PSUM, f32 (not fast): 512.
    let decls = "%a: psum bf16[128, 512], %b: sbuf bf16[128, 512]";
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    let decls = "%a: psum f32[128, 512], %b: sbuf bf16[128, 512]";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
    // On Pool: 150 + 512 = 662, no perf mode.
    let decls = "%a: sbuf bf16[128, 512], %b: sbuf bf16[128, 512]";
    let op = "TensorCopyOp { dst = %b, src = %a, engine = pool }";
    assert_eq!(engine_cycles(decls, op, Target::Trn2), (Engine::Pool, 662));
}

#[test]
fn tensor_copy_and_the_stride_factor() {
    // A step of 2 f32 (8 bytes ≤ 16): s = 1, N = 512.
    let decls = "%a: sbuf f32[128, 4096], %b: sbuf f32[128, 512]";
    let op = "TensorCopyOp { dst = %b, src = %a[:, 0:1024:2] }";
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    // A step of 4 f32 is exactly 16 bytes, not over: s = 1, 512.
    let op = "TensorCopyOp { dst = %b, src = %a[:, 0:2048:4] }";
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    // A step of 8 f32 (32 bytes > 16): s = 2, ⌈512 × 2⌉ = 1024.
    let op = "TensorCopyOp { dst = %b, src = %a[:, 0:4096:8] }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1024);
    // A strided dst counts too: s = 2, 1024.
    let decls = "%a: sbuf f32[128, 512], %b: sbuf f32[128, 4096]";
    let op = "TensorCopyOp { dst = %b[:, 0:4096:8], src = %a }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1024);
    // On Pool: 150 + ⌈512 × 2⌉ = 1,174.
    let op = "TensorCopyOp { dst = %b[:, 0:4096:8], src = %a, engine = pool }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1_174);
}

#[test]
fn tensor_tensor() {
    // f32, both in SBUF: 2N = 2 × 512 = 1024 (no perf mode for f32).
    let decls = "%a: sbuf f32[128, 512], %b: sbuf f32[128, 512], %c: sbuf f32[128, 512]";
    let op = "TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }";
    assert_eq!(engine_cycles(decls, op, Target::Trn1), (Engine::Dve, 1024));
    assert_eq!(cycles(decls, op, Target::Trn2), 1024);
    // bf16 add, both in SBUF, contiguous: N = 512 on trn1; trn2's perf mode d = 2: 256.
    let decls = "%a: sbuf bf16[128, 512], %b: sbuf bf16[128, 512], %c: sbuf bf16[128, 512]";
    assert_eq!(cycles(decls, op, Target::Trn1), 512);
    assert_eq!(cycles(decls, op, Target::Trn2), 256);
    // One source in PSUM: N = 512.
    let decls = "%a: sbuf f32[128, 512], %b: psum f32[128, 512], %c: sbuf f32[128, 512]";
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
}

#[test]
fn tensor_tensor_outside_the_bf16_case() {
    let decls = "%a: sbuf bf16[128, 512], %b: sbuf bf16[128, 512], %c: sbuf bf16[128, 512]";
    // bf16 max is not add, mult or subtract: 2N = 1,024 on trn1; trn2 d = 2: 512.
    let op = "TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = max }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1_024);
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
    // bf16 add with a non-contiguous src0 (step 2 × 2 B = 4: s = 1): 2N = 1,024 on trn1;
    // trn2's d = 2 asks only SBUF and fast dtypes: 512.
    let decls = "%a: sbuf bf16[128, 1024], %b: sbuf bf16[128, 512], %c: sbuf bf16[128, 512]";
    let op = "TensorTensorOp { dst = %c, src0 = %a[:, 0:1024:2], src1 = %b, op = add }";
    assert_eq!(cycles(decls, op, Target::Trn1), 1_024);
    assert_eq!(cycles(decls, op, Target::Trn2), 512);
    // fp8 add: 2N = 1,024; fast on trn3 only (d = 2): 512.
    let decls = "%a: sbuf f8e4m3[128, 512], %b: sbuf f8e4m3[128, 512], %c: sbuf f8e4m3[128, 512]";
    let op = "TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }";
    assert_eq!(cycles(decls, op, Target::Trn2), 1_024);
    assert_eq!(cycles(decls, op, Target::Trn3), 512);
    // On Pool: 150 + 2 × 512 = 1,174, even for bf16 add.
    let decls = "%a: sbuf bf16[128, 512], %b: sbuf bf16[128, 512], %c: sbuf bf16[128, 512]";
    let op = "TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add, engine = pool }";
    assert_eq!(
        engine_cycles(decls, op, Target::Trn2),
        (Engine::Pool, 1_174)
    );
}

// ----- DMA (§10.2.6): q = 1,300,000 + ⌈bytes × f_cce × 1,000 / BW⌉ ps, Σ executed × q / 16,000 --

/// The DMA engine's executed count, bytes and ns of the one kernel of `text` on `target`.
fn dma(text: &str, target: Target) -> (u64, u64, u64) {
    let c = cost(text, target);
    assert_eq!(c.not_estimated, 0, "{text}: {:?}", diagnostics(text));
    let e = engine(&c, Engine::Dma);
    (e.executed, e.bytes.expect("DMA bytes"), e.ns)
}

#[test]
fn dma_queue_model() {
    // Eight loads of 128 × 1,024 bf16 = 262,144 bytes each (2,097,152 in all).
    let text = "kernel @k(%a: hbm bf16[1024, 1024]) {
  tensor %t : sbuf bf16[128, 1024]
  for %i in 0..8 {
    DmaCopyOp { dst = %t, src = %a[%i*128 : %i*128 + 128, :] }
  }
}
";
    // trn1: ⌈262,144,000 / 17⌉ = ⌈15,420,235.3⌉ = 15,420,236; q = 16,720,236 ps (SPEC
    // §10.2.9's 16,720.236 ns); 8 × q = 133,761,888; / 16,000 = 8,360.1 → 8,360 ns.
    assert_eq!(dma(text, Target::Trn1), (8, 2_097_152, 8_360));
    // trn2: ⌈262,144,000 / 23⌉ = ⌈11,397,565.2⌉ = 11,397,566; q = 12,697,566; × 8 =
    // 101,580,528; / 16,000 = 6,348.8 → 6,349 ns.
    assert_eq!(dma(text, Target::Trn2), (8, 2_097_152, 6_349));
    // trn3: ⌈262,144,000 / 33⌉ = ⌈7,943,757.6⌉ = 7,943,758; q = 9,243,758; × 8 =
    // 73,950,064; / 16,000 = 4,621.9 → 4,622 ns.
    assert_eq!(dma(text, Target::Trn3), (8, 2_097_152, 4_622));
}

#[test]
fn dma_queues_overlap() {
    // Sixteen small loads of 128 × 1 f32 = 512 bytes on trn2: ⌈512,000 / 23⌉ = 22,261;
    // q = 1,322,261 ps; 16 × q / 16,000 = 1,322.3 → 1,322 ns: sixteen transfers hold the
    // sixteen queues for one q.
    let text = "kernel @k(%a: hbm f32[2048, 1]) {
  tensor %t : sbuf f32[128, 1]
  for %i in 0..16 {
    DmaCopyOp { dst = %t, src = %a[%i*128 : %i*128 + 128, :] }
  }
}
";
    assert_eq!(dma(text, Target::Trn2), (16, 8_192, 1_322));
}

#[test]
fn dma_time_rounds_half_up() {
    // 68 bytes HBM to HBM on trn1: ⌈68,000 / 17⌉ = 4,000; q = 1,304,000 ps; / 16,000 =
    // 81.5 → 82 ns (half up, SPEC §10.2.8).
    let text = "kernel @k(%a: hbm u8[4, 17]) -> (%o: hbm u8[4, 17]) {
  DmaCopyOp { dst = %o, src = %a }
}
";
    assert_eq!(dma(text, Target::Trn1), (1, 68, 82));
}

#[test]
fn dma_cce_is_half_speed() {
    // OffloadedFMA (mode CCE): two srcs of 128 × 512 f32 = 2 × 262,144 bytes read; q =
    // 1,300,000 + ⌈524,288 × 2 × 1,000 / 23⌉ = 1,300,000 + 45,590,261 = 46,890,261 ps; once
    // executed: ÷ 16,000 = 2,931 ns.
    let text =
        "kernel @k(%a: hbm f32[128, 512], %b: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, 1.0] }
}
";
    assert_eq!(dma(text, Target::Trn2), (1, 524_288, 2_931));
}

#[test]
fn tiled_offloaded_fma_costs_each_tile() {
    // Two tiles, each a CCE DMACopy reading two srcs of 128 × 256 f32 = 262,144 bytes.
    // trn2: q = 1,300,000 + ⌈262,144 × 2 × 1,000 / 23⌉ = 1,300,000 + ⌈22,795,130.4⌉ =
    // 24,095,131 ps; 2 × q = 48,190,262; / 16,000 = 3,011.9 → 3,012 ns.
    // trn1: q = 1,300,000 + ⌈524,288,000 / 17⌉ = 1,300,000 + 30,840,471 = 32,140,471;
    // 2 × q = 64,280,942; / 16,000 = 4,017.6 → 4,018 ns.
    let text =
        "kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, 1.0], tiles = 2 }
}
";
    assert_eq!(dma(text, Target::Trn2), (2, 524_288, 3_012));
    assert_eq!(dma(text, Target::Trn1), (2, 524_288, 4_018));
}

// ----- not estimated (§10.2.7) ----------------------------------------------------------------

#[test]
fn unestimated_instructions_are_counted_and_the_bound_covers_the_rest() {
    // A register load, a collective and inline assembly: 3 not estimated. The copy:
    // max(64, 512) = 512 DVE cycles; × 1,000 / 960 = 533.3 → 533 ns on trn2.
    let text = "kernel @k(%a: sbuf f32[128, 512], %b: sbuf f32[128, 512], %i: sbuf i32[1, 1]) {
  reg %r : i32
  LoadTensorToRegister { src = %i, dst_registers = [%r] }
  LocalReduceOp { dst = %b, src = %a, op = add }
  InlineASMInst { engine = dve, opcode = \"X\", operands = [%a, %b] }
  TensorCopyOp { dst = %b, src = %a }
}
";
    let c = cost(text, Target::Trn2);
    assert_eq!(c.not_estimated, 3, "{:?}", diagnostics(text));
    assert_eq!(engine(&c, Engine::Dve).ns, 533);
    assert_eq!(
        c.lens().as_deref(),
        Some("trn2 ≥ 533 ns · DVE-bound · 3 not estimated")
    );
    // Nothing estimated: no bound, no bottleneck.
    let text = "kernel @k(%a: sbuf f32[128, 512], %b: sbuf f32[128, 512]) {
  InlineASMInst { engine = dve, opcode = \"X\", operands = [%a, %b] }
}
";
    let c = cost(text, Target::Trn1);
    assert_eq!((c.bottleneck, c.lower_bound_ns), (None, 0));
    assert_eq!(
        c.lens().as_deref(),
        Some("trn1 · no estimate (1 not estimated)")
    );
}
