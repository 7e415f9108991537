//! The rules that are not one op's: names (P200, P201, P202, P208), declarations (P207,
//! P302, P304, P414), access patterns (P300, P303, P307 and its DMA exemption) and the
//! dataflow warnings (P500, P501) — SPEC §3–§5, §7.

use expect_test::expect;

use crate::common::check;

#[test]
fn undefined_names_with_suggestions() {
    check(
        r#"
kernel @k(%input: hbm f32[128, 4]) {
  tensor %tile : sbuf f32[128, 4]
  DmaCopyOp { dst = %tlie, src = %input }
  DmaCopyOp { dst = %tile, src = %input[%j, :] }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0 errors=["P200"]
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %input
              {"mode":"Copy"}
            5: DMACopy DMA I-2-0 errors=["P200"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %tile start_partition=0
              {"mode":"Copy"}
            P200 error:4:21 `%tlie`: `%tlie` is not defined here; did you mean `%tile`?
            P200 error:5:41 `%j`: No existing axis j found: `%j` is not defined here
        "#]],
    );
}

#[test]
fn a_field_written_twice_points_at_the_first() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {
  DmaCopyOp { dst = %y, src = %x, dst = %y }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P205"]
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %x
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %y
              {"mode":"Copy"}
            P205 error:3:35 `dst`: field `dst` is written twice
                related `dst`: first written here
        "#]],
    );
}

#[test]
fn a_lexical_error_inside_a_value_is_its_only_diagnostic() {
    // `%x§_tile`: the access read before the bad character (`%x`, in hbm) is not what was
    // meant, so no P301 (or P200) follows the P103.
    check(
        r#"
kernel @k(%x: hbm f32[128, 4]) -> (%y: sbuf f32[128, 4]) {
  TensorCopyOp { dst = %y, src = %x§_tile }
}
"#,
        expect![[r#"
            3: TensorCopy DVE I-1-0 errors=["P103"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %y start_partition=0
            P103 error:3:36 `§`: unknown character `§`
        "#]],
    );
}

#[test]
fn duplicate_definitions_and_op_ids() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 4], %x: hbm f32[128, 4]) {
  tensor %t : sbuf f32[128, 4]
  tensor %t : sbuf f32[128, 4]
  for %t in 0..2 {
    NoOp #5 {}
  }
  NoOp #5 {}
  NoOp {}
  NoOp {}
}
kernel @k() {
}
"#,
        expect![[r#"
            L-t {"name":"t","lb":0,"ub":2,"stride":1}
            P201 error:2:32 `%x`: `%x` is already defined in this kernel
                related `%x`: first defined here
            P500 warning:3:10 `%t`: tensor `%t` is declared but no op uses it
            P201 error:4:10 `%t`: `%t` is already defined in this kernel
                related `%t`: first defined here
            P201 error:5:7 `%t`: `%t` is already defined in this kernel
                related `%t`: first defined here
            P208 error:8:8 `#5`: op id 5 is already used in this kernel
                related `#5`: first used here
            P201 error:12:8 `@k`: identical function name: kernel `@k` is defined twice
                related `@k`: first defined here
        "#]],
    );
}

#[test]
fn unknown_op_class_is_not_checked_further() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 4]) {
  MatmulOp { bogus = 1, dst = %nowhere }
  Frobnicate {}
}
"#,
        expect![[r#"
            P202 error:3:3 `MatmulOp`: unknown op class `MatmulOp`; did you mean `MatMulOp`?
            P202 error:4:3 `Frobnicate`: unknown op class `Frobnicate`
        "#]],
    );
}

#[test]
fn declaration_types() {
    check(
        r#"
kernel @k(%a: hmb f32[4], %b: hbm bf61[4], %c: reg f32[1]) {
  tensor %wide : sbuf f32[129, 4]
  tensor %big : sbuf f32[128, 60000]
  tensor %bank : psum f32[128, 4097]
  tensor %empty : sbuf f32[128, 0]
  reg %r : i23
}
"#,
        expect![[r#"
            P207 error:2:15 `hmb`: unknown memory space `hmb`; did you mean `hbm`?
            P207 error:2:35 `bf61`: unknown dtype `bf61`; did you mean `bf16`?
            P207 error:2:48 `reg`: a tensor cannot live in `reg`; declare a register with `reg %name : i32`
            P302 error:3:18 `sbuf f32[129, 4]`: `%wide` declares 129 partitions (dim 0); sbuf has 128: declare a tile of at most 128 and loop over the tiles
            P500 warning:4:10 `%big`: tensor `%big` is declared but no op uses it
            P304 error:4:17 `sbuf f32[128, 60000]`: Allocated memory out of bound: `%big` needs 240000 bytes per partition; sbuf has 212984
            P500 warning:5:10 `%bank`: tensor `%bank` is declared but no op uses it
            P304 error:5:18 `psum f32[128, 4097]`: Allocated memory out of bound: `%bank` needs 16388 bytes per partition; psum has 16384
            P414 error:6:19 `sbuf f32[128, 0]`: a dim of size 0 holds no element
            P207 error:7:12 `i23`: unknown dtype `i23`; did you mean `i32`?
        "#]],
    );
}

#[test]
fn loop_bounds() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 8]) {
  tensor %t : sbuf f32[128, 1]
  for %i in 0..%x {
    NoOp {}
  }
  for %j in 0..8 step 0 {
    NoOp {}
  }
  for %k in -2..8 {
    NoOp {}
  }
  for %m in 2*2..8 step 2 {
    DmaCopyOp { dst = %t, src = %x[:, %m : %m + 1] }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":0,"stride":1}
            L-j {"name":"j","lb":0,"ub":0,"stride":1}
            L-k {"name":"k","lb":0,"ub":0,"stride":1}
            L-m {"name":"m","lb":4,"ub":8,"stride":2}
              14: DMACopy DMA I-4-0
                in src: symbolic_ap float32 ap=[[8,128],[1,1]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"m","coeff":1}],"c":0}] access_shape=[128,1] %x
                out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %t start_partition=0
                {"mode":"Copy"}
            P414 error:4:16 `%x`: a loop bound must be an integer constant
            P414 error:7:23 `0`: a loop step must be positive; got 0
            P414 error:10:13 `-2`: loop bounds are natural numbers (BIR LoopAxis); got -2
            P421 warning:14:23 `%t`: small DMA: 4 bytes per partition (under 2 KiB), 2 times; the DMA guide recommends at least 2 KiB per partition and 4 KiB to saturate
        "#]],
    );
}

#[test]
fn access_pattern_errors() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 64]) {
  tensor %t : sbuf f32[128, 64]
  for %i in 0..4 {
    DmaCopyOp { dst = %t[0:128, 0:64, 0], src = %x }
    DmaCopyOp { dst = %t[:, 8:8], src = %x[:, 0:0] }
    DmaCopyOp { dst = %t[:, 0:64:0], src = %x }
    DmaCopyOp { dst = %t[:, %i*%i], src = %x[:, 0] }
    DmaCopyOp { dst = %t[:, %t], src = %x[:, 0] }
    DmaCopyOp { dst = %t[:, %i : 2*%i], src = %x[:, 0:2] }
    DmaCopyOp { dst = %t[:, %i*16 : %i*16 + 32], src = %x[:, 0:32] }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":4,"stride":1}
              5: DMACopy DMA I-1-0 errors=["P300"]
                in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x
                {"mode":"Copy"}
              6: DMACopy DMA I-2-0 errors=["P300"]
                in src: physical_ap float32 ap=[[64,128],[1,0]] offset=0 %x
                out dst: physical_ap float32 ap=[[64,128],[1,0]] offset=8 %t start_partition=0
                {"mode":"Copy"}
              7: DMACopy DMA I-3-0 errors=["P300"]
                in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %x
                out dst: physical_ap float32 ap=[[64,128],[1,0]] offset=0 %t start_partition=0
                {"mode":"Copy"}
              8: DMACopy DMA I-4-0 errors=["P303"]
                in src: physical_ap float32 ap=[[64,128]] offset=0 %x
                {"mode":"Copy"}
              9: DMACopy DMA I-5-0 errors=["P303"]
                in src: physical_ap float32 ap=[[64,128]] offset=0 %x
                {"mode":"Copy"}
              10: DMACopy DMA I-6-0 errors=["P300"]
                in src: physical_ap float32 ap=[[64,128],[1,2]] offset=0 %x
                {"mode":"Copy"}
              11: DMACopy DMA I-7-0 errors=["P300"]
                in src: physical_ap float32 ap=[[64,128],[1,32]] offset=0 %x
                out dst: symbolic_ap float32 ap=[[64,128],[1,32]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":16}],"c":0}] access_shape=[128,32] %t start_partition=0
                {"mode":"Copy"}
            P300 error:5:23 `%t[0:128, 0:64, 0]`: Incorrect access pattern! `%t` has 2 dims but the access has 3 indices
                related `%t[0:128, 0:64, 0]`: `%t` has 2 dims but the access has 3 indices
            P300 error:6:29 `8:8`: Incorrect access pattern! dim 1: the slice selects no element
                related `8:8`: dim 1: the slice selects no element
            P300 error:6:47 `0:0`: Incorrect access pattern! dim 1: the slice selects no element
                related `0:0`: dim 1: the slice selects no element
            P300 error:7:29 `0:64:0`: Incorrect access pattern! dim 1: the step 0 is not positive
                related `0:64:0`: dim 1: the step 0 is not positive
            P303 error:8:29 `%i*%i`: expression is not affine: a product may have at most one non-constant factor
            P303 error:9:29 `%t`: `%t` is not a loop variable, so it cannot appear in an index expression
            P300 error:10:29 `%i : 2*%i`: Incorrect access pattern! dim 1: the slice length must not depend on a loop variable
                related `%i : 2*%i`: dim 1: the slice length must not depend on a loop variable
            P300 error:11:29 `%i*16 : %i*16 + 32`: Incorrect access pattern! dim 1 of `%t` has 64 elements; the access reaches element 79 when %i = 3
                related `%i*16 : %i*16 + 32`: dim 1 of `%t` has 64 elements; the access reaches element 79 when %i = 3
        "#]],
    );
}

#[test]
fn quadrant_rule_for_compute_engines_only() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 4]) {
  tensor %t : sbuf f32[128, 4]
  tensor %u : sbuf f32[128, 4]
  DmaCopyOp { dst = %t[16:48, :], src = %x[0:32, :] }
  TensorCopyOp { dst = %u[16:48, :], src = %t[16:48, :] }
  TensorCopyOp { dst = %u[64:128, :], src = %t[64:128, :] }
  TensorCopyOp { dst = %u[32:96, :], src = %t[32:96, :] }
  for %q in 0..4 {
    TensorCopyOp { dst = %u[%q*32 : %q*32 + 32, :], src = %t[%q*32 : %q*32 + 32, :] }
    TensorCopyOp { dst = %u[%q*16 : %q*16 + 16, :], src = %t[%q*16 : %q*16 + 16, :] }
  }
}
"#,
        expect![[r#"
            5: DMACopy DMA I-1-0
              in src: physical_ap float32 ap=[[4,32],[1,4]] offset=0 %x
              out dst: physical_ap float32 ap=[[4,32],[1,4]] offset=0 %t start_partition=16
              {"mode":"Copy"}
            6: TensorCopy DVE I-2-0 errors=["P307"]
              in src: physical_ap float32 ap=[[4,32],[1,4]] offset=0 %t start_partition=16
              out dst: physical_ap float32 ap=[[4,32],[1,4]] offset=0 %u start_partition=16
            7: TensorCopy DVE I-3-0
              in src: physical_ap float32 ap=[[4,64],[1,4]] offset=0 %t start_partition=64
              out dst: physical_ap float32 ap=[[4,64],[1,4]] offset=0 %u start_partition=64
            8: TensorCopy DVE I-4-0 errors=["P307"]
              in src: physical_ap float32 ap=[[4,64],[1,4]] offset=0 %t start_partition=32
              out dst: physical_ap float32 ap=[[4,64],[1,4]] offset=0 %u start_partition=32
            L-q {"name":"q","lb":0,"ub":4,"stride":1}
              10: TensorCopy DVE I-5-0
                in src: symbolic_ap float32 ap=[[4,32],[1,4]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"q","coeff":32}],"c":0,"partition":true}] access_shape=[32,4] %t start_partition=0
                out dst: symbolic_ap float32 ap=[[4,32],[1,4]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"q","coeff":32}],"c":0,"partition":true}] access_shape=[32,4] %u start_partition=0
              11: TensorCopy DVE I-6-0 errors=["P307"]
                in src: symbolic_ap float32 ap=[[4,16],[1,4]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"q","coeff":16}],"c":0,"partition":true}] access_shape=[16,4] %t start_partition=0
                out dst: symbolic_ap float32 ap=[[4,16],[1,4]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"q","coeff":16}],"c":0,"partition":true}] access_shape=[16,4] %u start_partition=0
            P307 error:6:24 `%u[16:48, :]`: Invalid access of 32 partitions starting at partition 16: an access starts at partition 0, 32, 64 or 96
            P307 error:6:44 `%t[16:48, :]`: Invalid access of 32 partitions starting at partition 16: an access starts at partition 0, 32, 64 or 96
            P307 error:8:24 `%u[32:96, :]`: Pattern accesses 64 (> 32) partitions starting at partition 32: an access from partition 32 spans at most 32
            P307 error:8:44 `%t[32:96, :]`: Pattern accesses 64 (> 32) partitions starting at partition 32: an access from partition 32 spans at most 32
            P420 warning:10:59 `%t[%q*32 : %q*32 + 32, :]`: overhead-bound: TensorCopy on DVE reads 4 elements per partition (under 128), 4 times; each costs at least 64 cycles, nearly all of it fixed overhead
            P307 error:11:26 `%u[%q*16 : %q*16 + 16, :]`: Invalid access of 16 partitions starting at partition 16 when %q = 1: an access starts at partition 0, 32, 64 or 96
            P307 error:11:59 `%t[%q*16 : %q*16 + 16, :]`: Invalid access of 16 partitions starting at partition 16 when %q = 1: an access starts at partition 0, 32, 64 or 96
        "#]],
    );
}

#[test]
fn dataflow_warnings() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {
  tensor %unused : sbuf f32[128, 4]
  tensor %t : sbuf f32[128, 4]
  tensor %u : sbuf f32[128, 4]
  reg %r : i32
  TensorCopyOp { dst = %u, src = %t }
  DmaCopyOp { dst = %t, src = %x }
  TensorCopyOp { dst = %u, src = %t }
  DmaCopyOp { dst = %y, src = %u }
}
"#,
        expect![[r#"
            7: TensorCopy DVE I-1-0
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %u start_partition=0
            8: DMACopy DMA I-2-0
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %x
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            9: TensorCopy DVE I-3-0
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %u start_partition=0
            10: DMACopy DMA I-4-0
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %u start_partition=0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %y
              {"mode":"Copy"}
            P500 warning:3:10 `%unused`: tensor `%unused` is declared but no op uses it
            P500 warning:6:7 `%r`: register `%r` is declared but no op uses it
            P501 warning:7:34 `%t`: `%t` is read here before any op writes it
        "#]],
    );
}

#[test]
fn more_than_128_partitions_is_on_the_declaration() {
    check(
        r#"
kernel @k(%x: hbm f32[256, 4]) {
  tensor %wide : sbuf f32[256, 4]
  DmaCopyOp { dst = %wide, src = %x }
  TensorCopyOp { dst = %wide[0:128, :], src = %wide[128:256, :] }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0
              in src: physical_ap float32 ap=[[4,256],[1,4]] offset=0 %x
              {"mode":"Copy"}
            5: TensorCopy DVE I-2-0
            P302 error:3:18 `sbuf f32[256, 4]`: `%wide` declares 256 partitions (dim 0); sbuf has 128: declare a tile of at most 128 and loop over the tiles
        "#]],
    );
}

#[test]
fn a_kernel_name_without_its_sigil_is_one_error() {
    check(
        r#"
kernel k(%x: hbm bf16[128, 64]) {
  tensor %t : sbuf bf16[128, 64]
  DmaCopyOp { dst = %t, src = %x }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            P100 error:2:8 `k`: expected `@name`, found `k`: a kernel name starts with `@`
        "#]],
    );
}

#[test]
fn a_misspelt_field_is_its_one_diagnostic() {
    // `reduce_dest` (for `reduce_dst`) is one P203: the tensor it names counts as written
    // (no P501 at the DMA that reads it), also where `reduce_op` needs `reduce_dst` (no
    // P204 "reduce_op needs the field `reduce_dst`"), and `dts` for a required `dst` is no
    // P204 either.
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 1]) {
  tensor %t : sbuf f32[128, 512]
  tensor %sum : sbuf f32[128, 1]
  DmaCopyOp { dts = %t, src = %a }
  ActivationOp { dst = %t, src = %t, func = exp, reduce_dest = %sum }
  ActivationOp { dst = %t, src = %t, func = exp, reduce_op = add, reduce_dest = %sum }
  DmaCopyOp { dst = %o, src = %sum }
}
"#,
        expect![[r#"
            5: DMACopy DMA I-1-0 errors=["P203"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a
              {"mode":"Copy"}
            6: Activation Activation I-2-0 errors=["P203"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"func":"Exp","scale":1.0,"acc":"Idle","is_accumulate":false}
            7: Activation Activation I-3-0 errors=["P203"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"func":"Exp","scale":1.0,"acc":"ZeroAccumulate","reduce_op":"add","is_accumulate":false}
            8: DMACopy DMA I-4-0
              in src: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %sum start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %o
              {"mode":"Copy"}
            P203 error:5:15 `dts`: DmaCopyOp has no field `dts`; did you mean `dst`?
            P203 error:6:50 `reduce_dest`: ActivationOp has no field `reduce_dest`; did you mean `reduce_dst`?
            P203 error:7:67 `reduce_dest`: ActivationOp has no field `reduce_dest`; did you mean `reduce_dst`?
        "#]],
    );
}

#[test]
fn a_semicolon_for_a_comma_is_one_diagnostic() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  tensor %t : sbuf f32[128, 512]
  DmaCopyOp { dst = %t; src = %a }
  DmaCopyOp { dst = %o, src = %t }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0 errors=["P103"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            5: DMACopy DMA I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o
              {"mode":"Copy"}
            P103 error:4:23 `;`: unknown character `;`: fields are separated by `,` or a new line
        "#]],
    );
    // Its quick fix writes the `,`: the op then has no diagnostic.
    let text = "kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {\n  tensor %t : sbuf f32[128, 512]\n  DmaCopyOp { dst = %t; src = %a }\n  DmaCopyOp { dst = %o, src = %t }\n}\n";
    let mut host = analysis::AnalysisHost::new();
    let file = host.add_file(text);
    let at = analysis::TextSize::from(text.find(';').unwrap() as u32);
    let fixes = host
        .snapshot()
        .fixes(file, analysis::TextRange::empty(at))
        .unwrap();
    assert_eq!(fixes.len(), 1, "{fixes:?}");
    assert_eq!(fixes[0].title, "Replace with `,`");
    let [(range, with)] = fixes[0].edits.as_slice() else {
        panic!("{fixes:?}");
    };
    let mut fixed = text.to_string();
    fixed.replace_range(usize::from(range.start())..usize::from(range.end()), with);
    let file = host.add_file(&fixed);
    assert_eq!(host.snapshot().diagnostics(file).unwrap(), Vec::new());
}

#[test]
fn a_stray_closing_brace_is_reported_where_it_stands() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  tensor %t : sbuf f32[128, 512]
  DmaCopyOp { dst = %t, src = %a }
  }
  DmaCopyOp { dst = %o, src = %t }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            6: DMACopy DMA I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o
              {"mode":"Copy"}
            P100 error:5:3 `}`: one `}` too many: this `}` closes its block early (it is indented deeper than the block's first line, and the file has one `}` more than `{`)
        "#]],
    );
}

/// A file written without indentation: no `}` stands deeper than its block's first line,
/// so none can be told to be the extra one. The error is on the `}` that closes the kernel
/// before the op standing outside it, not on that op's line (issue 25).
#[test]
fn a_stray_closing_brace_without_indentation_is_reported_on_the_brace() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
tensor %t : sbuf f32[128, 512]
DmaCopyOp { dst = %t, src = %a }
}
DmaCopyOp { dst = %o, src = %t }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            6: DMACopy DMA I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o
              {"mode":"Copy"}
            P100 error:5:1 `}`: one `}` too many: this `}` closes the kernel early (statements follow it, then a `}` that closes nothing: the file has one `}` more than `{`)
        "#]],
    );
}

#[test]
fn an_extra_closing_brace_in_a_loop_is_one_error_and_later_ops_resolve() {
    // The extra `}` after the first op closes the loop early; each `}` after it closes a
    // block one level out. One P100 on it, and the ops after it still see `%t` and `%i`.
    check(
        r#"
kernel @k(%a: hbm f32[256, 512]) -> (%o: hbm f32[256, 512]) {
  for %i in 0..2 {
    tensor %t : sbuf f32[128, 512]
    DmaCopyOp { dst = %t, src = %a[%i*128 : %i*128 + 128, :] }
    }
    DmaCopyOp { dst = %o[%i*128 : %i*128 + 128, :], src = %t }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              5: DMACopy DMA I-1-0
                in src: symbolic_ap float32 ap=[[512,128],[1,512]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":65536}],"c":0}] access_shape=[128,512] %a
                out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                {"mode":"Copy"}
              7: DMACopy DMA I-2-0
                in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                out dst: symbolic_ap float32 ap=[[512,128],[1,512]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":65536}],"c":0}] access_shape=[128,512] %o
                {"mode":"Copy"}
            P100 error:6:5 `}`: one `}` too many: this `}` closes its block early (it is indented deeper than the block's first line, and the file has one `}` more than `{`)
        "#]],
    );
}

#[test]
fn suggestions_that_fit() {
    // A loop variable for `%j` in an index (not the tensor as close), the memory spaces,
    // a value by its words, a tensor written without `%` (one P206, read as `%t`), and an
    // op people bring from NKI spelt as the op it is.
    check(
        r#"
kernel @k(%a: hbm f32[256, 512]) -> (%o: hbm f32[256, 512]) {
  tensor %u : sram f32[128, 512]
  for %i in 0..2 {
    tensor %t : sbuf f32[128, 512]
    DmaCopyOp { dst = %t, src = %a[%j*128 : %j*128 + 128, :] }
    ActivationOp { dst = %t, src = t, func = gelu_tanh }
    ActivationOp { dst = %t, src = %t, func = banana }
    ReciprocalOp { dst = %t, src = %t }
    DmaCopyOp { dst = %o[%i*128 : %i*128 + 128, :], src = %t }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              6: DMACopy DMA I-1-0 errors=["P200"]
                out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                {"mode":"Copy"}
              7: Activation Activation I-2-0 errors=["P206","P207"]
                in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                {"scale":1.0,"acc":"Idle","is_accumulate":false}
              8: Activation Activation I-3-0 errors=["P207"]
                in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                {"scale":1.0,"acc":"Idle","is_accumulate":false}
              10: DMACopy DMA I-5-0
                in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                out dst: symbolic_ap float32 ap=[[512,128],[1,512]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":65536}],"c":0}] access_shape=[128,512] %o
                {"mode":"Copy"}
            P207 error:3:15 `sram`: unknown memory space `sram`; did you mean `sbuf`?
            P200 error:6:36 `%j`: No existing axis j found: `%j` is not defined here; did you mean `%i`?
            P200 error:6:45 `%j`: No existing axis j found: `%j` is not defined here; did you mean `%i`?
            P206 error:7:36 `t`: `t` is not a name here; did you mean `%t`?
            P207 error:7:46 `gelu_tanh`: unknown act_func value `gelu_tanh`; did you mean `gelu_apprx_tanh`?
            P207 error:8:47 `banana`: unknown act_func value `banana`; expected one of these 20:
            identity, copy, relu, gelu, gelu_apprx_tanh, silu, sigmoid, tanh, exp, log, sqrt, rsqrt, square, reciprocal, softplus, mish, erf, sin, abs, sign
            P202 error:9:5 `ReciprocalOp`: unknown op class `ReciprocalOp`: write `ActivationOp { …, func = reciprocal }`
        "#]],
    );
}

#[test]
fn i64s_least_is_a_number() {
    // `-9223372036854775808` reads as i64's least (the bound is then not a natural number);
    // 9223372036854775808 alone is out of range.
    check(
        r#"
kernel @k(%a: hbm f32[128, 4]) {
  for %i in -9223372036854775808..0 {
    NoOp {}
  }
  for %j in 0..9223372036854775808 {
    NoOp {}
  }
  for %k in 0..-1 {
    NoOp {}
  }
  for %m in 0..-9223372036854775809 {
    NoOp {}
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":0,"stride":1}
            L-j {"name":"j","lb":0,"ub":0,"stride":1}
            L-k {"name":"k","lb":0,"ub":0,"stride":1}
            L-m {"name":"m","lb":0,"ub":0,"stride":1}
            P414 error:3:13 `-9223372036854775808`: loop bounds are natural numbers (BIR LoopAxis); got -9223372036854775808
            P102 error:6:16 `9223372036854775808`: integer out of range `9223372036854775808`
            P414 error:9:16 `-1`: loop bounds are natural numbers (BIR LoopAxis); got -1
            P102 error:12:17 `9223372036854775809`: integer out of range `-9223372036854775809`
        "#]],
    );
}

#[test]
fn one_mistake_one_diagnostic() {
    check(
        r#"
kernel @k(%x: hbm f32[128, 512]) {
  tensor %t : sbuf f32[128, 512]
  tensor %s : sbfu f32[128, 512]
  tensor %p : psum f32[128, 1024]
  DmaCopyOp { dst = %t, scr = %x }
  DmaCopyOp { dst = %s, src = %x }
  MatMulOp { dst = %p, stationary = %t[:, 0:128], moving = %t }
  for %i in 0..2x {
    NoOp {}
  }
  DmaCopyOpp { dst = %t, src = %x }
  TensorCopyOp { dst = %t, src = %t }
}
"#,
        expect![[r#"
            6: DMACopy DMA I-1-0 errors=["P203"]
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            7: DMACopy DMA I-2-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %x
              {"mode":"Copy"}
            8: Matmult PE I-3-0 errors=["P406"]
              in stationary: physical_ap float32 ap=[[512,128],[1,128]] offset=0 %t start_partition=0
              in moving: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[1024,128],[1,1024]] offset=0 %p start_partition=0
              {"start_tensor_calc":true,"stop_tensor_calc":false,"is_transpose":false,"is_fmap_onezero":false,"is_weight_onezero":false,"tile_size":[128,128],"tile_position":[0,0],"perf_mode":"None","ifmap_quant_offset":0,"num_active_channels":128,"psum_buf_shape":[128,1024],"is_accumulate":false}
            L-i {"name":"i","lb":0,"ub":0,"stride":1}
            13: TensorCopy DVE I-6-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
            P207 error:4:15 `sbfu`: unknown memory space `sbfu`; did you mean `sbuf`?
            P203 error:6:25 `scr`: DmaCopyOp has no field `scr`; did you mean `src`?
            P406 error:8:20 `%p`: dst must be [M, N] = [128, 512]; it is [128, 1024]
            P102 error:9:16 `2x`: malformed number `2x`
            P202 error:12:3 `DmaCopyOpp`: unknown op class `DmaCopyOpp`; did you mean `DmaCopyOp`?
        "#]],
    );
}

#[test]
fn a_name_declared_again_in_a_sibling_loop_is_one_p201() {
    // SPEC §13.1.2: the second declaration still declares the name in its own scope, so
    // its uses there resolve to it: P201 is the only diagnostic (no P200 cascade).
    check(
        r#"
kernel @k(%a: hbm f32[128, 64]) -> (%o: hbm f32[128, 64]) {
  for %i in 0..2 {
    tensor %t: sbuf f32[128, 64]
    DmaCopyOp { dst = %t, src = %a }
  }
  for %i in 0..2 {
    tensor %t: sbuf f32[128, 64]
    DmaCopyOp { dst = %t, src = %a }
    DmaCopyOp { dst = %o, src = %t }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              5: DMACopy DMA I-1-0
                in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a
                out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %t start_partition=0
                {"mode":"Copy"}
            L-i-2 {"name":"i","lb":0,"ub":2,"stride":1}
              9: DMACopy DMA I-2-0
                in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a
                out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %t start_partition=0
                {"mode":"Copy"}
              10: DMACopy DMA I-3-0
                in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %t start_partition=0
                out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o
                {"mode":"Copy"}
            P421 warning:5:23 `%t`: small DMA: 256 bytes per partition (under 2 KiB), 2 times; the DMA guide recommends at least 2 KiB per partition and 4 KiB to saturate
            P201 error:8:12 `%t`: `%t` is already defined in this kernel
                related `%t`: first defined here
            P421 warning:9:23 `%t`: small DMA: 256 bytes per partition (under 2 KiB), 2 times; the DMA guide recommends at least 2 KiB per partition and 4 KiB to saturate
            P421 warning:10:33 `%t`: small DMA: 256 bytes per partition (under 2 KiB), 2 times; the DMA guide recommends at least 2 KiB per partition and 4 KiB to saturate
        "#]],
    );
}

#[test]
fn p206_on_a_list_is_one_per_field() {
    // SPEC §13.1.1: one P206 on the first element of the wrong kind; the rest of the list
    // is not checked.
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  OffloadedFMA { dst = %o, srcs = [%a, 0, 1], scales = [1.0, 2.0, 3.0] }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P206"]
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0 access="ap"
              {"mode":"CCE","constants":[1.0,2.0,3.0],"cce_op":"add"}
            P206 error:3:40 `0`: expected acc(hbm|sbuf|psum), found an integer
        "#]],
    );
}

#[test]
fn addrs_terms_are_outermost_loop_first() {
    // SPEC §8 [3]: one term per loop variable with a non-zero coefficient, in the order of
    // the enclosing loops, outermost first — whatever the order of the expression and of
    // the names (`%j` outside `%i` here).
    check(
        r#"
kernel @k(%b: hbm f32[4, 128, 64]) -> (%o: hbm f32[128, 32]) {
  for %j in 0..4 {
    for %i in 0..2 {
      DmaCopyOp { dst = %o, src = %b[%j, :, %i*32 : %i*32 + 32] }
      DmaCopyOp { dst = %o, src = %b[%j*0, :, 0 + %i*32 : 32 + %i*32] }
    }
  }
}
"#,
        expect![[r#"
            L-j {"name":"j","lb":0,"ub":4,"stride":1}
              L-i {"name":"i","lb":0,"ub":2,"stride":1}
                5: DMACopy DMA I-1-0
                  in src: symbolic_ap float32 ap=[[64,128],[1,32]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"j","coeff":8192},{"axis":"i","coeff":32}],"c":0}] access_shape=[128,32] %b
                  out dst: physical_ap float32 ap=[[32,128],[1,32]] offset=0 %o
                  {"mode":"Copy"}
                6: DMACopy DMA I-2-0
                  in src: symbolic_ap float32 ap=[[64,128],[1,32]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0}] access_shape=[128,32] %b
                  out dst: physical_ap float32 ap=[[32,128],[1,32]] offset=0 %o
                  {"mode":"Copy"}
        "#]],
    );
}
