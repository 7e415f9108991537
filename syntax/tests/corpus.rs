//! The corpus of real kernels (`tests/corpus/*.pir`, a copy of `shared/corpus`) parses
//! without any syntax error.

mod common;

use expect_test::expect;

fn corpus() -> Vec<(String, String)> {
    common::corpus_files()
}

fn count_stmts(body: &[syntax::Stmt]) -> (usize, usize) {
    body.iter().fold((0, 0), |(ops, all), s| match s {
        syntax::Stmt::Loop(l) => {
            let (o, a) = count_stmts(&l.body);
            (ops + o, all + a + 1)
        }
        syntax::Stmt::Op(_) => (ops + 1, all + 1),
        _ => (ops, all + 1),
    })
}

#[test]
fn every_corpus_file_parses_without_errors() {
    let files = corpus();
    assert_eq!(files.len(), 18, "the corpus has 18 files");
    let mut summary = String::new();
    for (name, text) in &files {
        let parse = syntax::parse(text);
        assert_eq!(parse.errors, vec![], "{name}");
        let len = text.len();
        for r in common::all_ranges(&parse.file) {
            assert!(usize::from(r.end()) <= len, "{name}: {r:?}");
        }
        let (ops, stmts) = parse.file.kernels.iter().fold((0, 0), |(o, s), k| {
            let (ko, ks) = count_stmts(&k.body);
            (o + ko, s + ks)
        });
        summary.push_str(&format!(
            "{name}: {} kernels, {stmts} statements, {ops} ops\n",
            parse.file.kernels.len()
        ));
    }
    expect![[r#"
        attention_fwd.pir: 1 kernels, 35 statements, 18 ops
        avgpool2d.pir: 1 kernels, 9 statements, 4 ops
        library_kernels.pir: 6 kernels, 6 statements, 6 ops
        matmul_basic.pir: 1 kernels, 9 statements, 5 ops
        matmul_tiled.pir: 1 kernels, 12 statements, 5 ops
        rmsnorm.pir: 1 kernels, 18 statements, 10 ops
        rule_P203_misspelt_field.pir: 1 kernels, 6 statements, 3 ops
        rule_P300_last_iteration.pir: 1 kernels, 6 statements, 3 ops
        rule_P306_start_partition.pir: 1 kernels, 5 statements, 3 ops
        rule_P307_quadrant.pir: 1 kernels, 4 statements, 3 ops
        rule_P400_weight_rank.pir: 1 kernels, 6 statements, 3 ops
        rule_P401_double_row_step.pir: 1 kernels, 6 statements, 3 ops
        rule_P402_mx_scale_ptr.pir: 1 kernels, 5 statements, 3 ops
        rule_P403_mx_offset_scale.pir: 1 kernels, 5 statements, 3 ops
        rule_P404_tsc_op1.pir: 1 kernels, 7 statements, 3 ops
        rule_P408_unregistered_kernel.pir: 2 kernels, 2 statements, 2 ops
        tensor_add.pir: 1 kernels, 9 statements, 4 ops
        topk.pir: 1 kernels, 15 statements, 9 ops
    "#]]
    .assert_eq(&summary);
}

#[test]
fn matmul_tiled_tree() {
    let (_, text) = corpus()
        .into_iter()
        .find(|(name, _)| name == "matmul_tiled.pir")
        .expect("matmul_tiled.pir in the corpus");
    expect![[r#"
        kernel @matmul_tiled (%lhsT: hbm bf16[1024, 4096], %rhs: hbm bf16[1024, 2048]) -> (%result: hbm bf16[4096, 2048]) 555..2165
          for %m in 0..32 676..2163
            for %n in 0..4 698..2159
              tensor %res_psum : psum f32[128, 512] 721..758
              for %k in 0..8 765..1903
                tensor %lhsT_tile : sbuf bf16[128, 128] 790..829
                tensor %rhs_tile : sbuf bf16[128, 512] 838..877
                DmaCopyOp {dst = %lhsT_tile, src = %lhsT[(%k * 128):((%k * 128) + 128), (%m * 128):((%m * 128) + 128)]} 886..1019
                DmaCopyOp {dst = %rhs_tile, src = %rhs[(%k * 128):((%k * 128) + 128), (%n * 512):((%n * 512) + 512)]} 1028..1159
                MatMulOp {dst = %res_psum, stationary = %lhsT_tile, moving = %rhs_tile, is_accumulate = true} 1581..1895
              tensor %res_sb : sbuf bf16[128, 512] 1910..1946
              TensorCopyOp {dst = %res_sb, src = %res_psum} 1953..2000
              DmaCopyOp {dst = %result[(%m * 128):((%m * 128) + 128), (%n * 512):((%n * 512) + 512)], src = %res_sb} 2027..2153
    "#]].assert_eq(&common::render(&text));
}

#[test]
fn crlf_line_ends_change_nothing() {
    for (name, text) in corpus() {
        let crlf = text.replace('\n', "\r\n");
        let (lf, crlf) = (syntax::parse(&text), syntax::parse(&crlf));
        assert_eq!(crlf.errors, vec![], "{name}");
        let shape = |p: &syntax::Parse| {
            p.file
                .kernels
                .iter()
                .map(|k| count_stmts(&k.body))
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&lf), shape(&crlf), "{name}");
    }
}
