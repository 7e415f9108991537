//! Kernel nodes (SPEC §6.8) and the access kinds of their operands (SPEC §6.9): the
//! generic BIRKernel, the bespoke library kernels and their tiled twins (IT 54), the user
//! NKIKernel (IT 55) and the registry-traced NKIKLIRKernel (IT 56).

use analysis::{Db, RootDatabase, SourceFile};
use expect_test::expect;
use salsa::Setter;

use crate::common::check;

// ----- BIRKernel -----------------------------------------------------------------------

#[test]
fn bir_kernel_router_topk() {
    check(
        r#"
kernel @router(%x: hbm bf16[1024, 2048], %w: hbm bf16[2048, 128])
    -> (%logits: hbm f32[1024, 128], %index: hbm u32[1024, 8]) {
  BIRKernel {
    kernel_name = "RouterTopK"
    kernel_attrs = { act_fn = "softmax", k = "8", norm_topk_prob = "true" }
    srcs = [%x, %w]
    dsts = [%logits, %index]
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn bir_kernel_attribute_values_are_strings() {
    check(
        r#"
kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  BIRKernel {
    kernel_name = "ExpertMLPs"
    kernel_attrs = { name = "a b", on = true, k = -8, eps = 1e-6, scale = 1.0, third = 0.125, act = silu, dt = bf16, dims = [1, 2, "x"], nested = { a = 1, b = false } }
    srcs = [%x]
    dsts = [%y]
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn bir_kernel_access_kinds() {
    check(
        r#"
kernel @k(%x: hbm bf16[256, 64]) -> (%y: hbm bf16[256, 64]) {
  tensor %s : sbuf bf16[128, 64]
  BIRKernel {
    kernel_name = "RowTiledMM"
    srcs = [%x, %x[0:128, :], %x[:, :], full(%x), subtensor(%x[128:256]), tile(%s[0:64, :]), opaque(%x)]
    dsts = [%y[0:128, 0:32]]
    sb_buf_shape = [128, 4096]
    psum_buf_shape = [2, 128, 2048]
    auto_cast = "matmult"
    auto_cast_type = bf16
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn bir_kernel_in_a_loop() {
    check(
        r#"
kernel @k(%x: hbm bf16[256, 64]) -> (%y: hbm bf16[256, 64]) {
  for %i in 0..2 {
    BIRKernel { kernel_name = "ColumnTiledMM", srcs = [%x[%i*128 : %i*128 + 128, :]], dsts = [subtensor(%y[%i*128 : %i*128 + 128, :])] }
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn bir_kernel_field_errors() {
    check(
        r#"
kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  BIRKernel { kernel_attrs = {}, srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "", srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "K", kernel_atrs = { a = 1 }, srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%x], dsts = [%y], auto_cast_type = bf61 }
  BIRKernel { kernel_name = 7, srcs = [%x], dsts = [%y] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn bir_kernel_attribute_errors() {
    check(
        r#"
kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  BIRKernel {
    kernel_name = "K"
    kernel_attrs = { a = "1", t = %x, b = "2", a = "3", r = { c = 1, c = 2 }, bytes = x"00", p = [1, full(%x)] }
    srcs = [%x]
    dsts = [%y]
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn bir_kernel_operand_errors() {
    check(
        r#"
kernel @k(%x: hbm bf16[128, 64]) -> (%y: hbm bf16[128, 64]) {
  reg %r : i32
  BIRKernel { kernel_name = "K", srcs = [tiles(%x)], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [full(%x, %x)], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%r], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%x[0:256, :]], dsts = [%y] }
  BIRKernel { kernel_name = "K", srcs = [%x], dsts = [%y], sb_buf_shape = [1, 2, 3], psum_buf_shape = [1, -2, 3] }
}
"#,
        expect![[r#""#]],
    );
}

// ----- bespoke library kernels ---------------------------------------------------------

#[test]
fn mlp_kernel_every_field() {
    check(
        r#"
kernel @mlp(%x: hbm bf16[1, 2048, 4096], %ln_w: hbm bf16[1, 4096], %gate_w: hbm bf16[4096, 1792],
            %up_w: hbm bf16[4096, 1792], %down_w: hbm bf16[1792, 4096], %ub: hbm bf16[1, 1792],
            %db: hbm bf16[1, 4096])
    -> (%out: hbm bf16[1, 2048, 4096]) {
  MLPKernel {
    srcs = [%x, %ln_w, %gate_w, %up_w, %down_w]
    dsts = [%out]
    eps = 1e-5
    act_fn = silu
    fused_rmsnorm = true
    norm_type = layer_norm
    store_add = true
    quant_kernel = true
    lower_bound = -3
    skip_gate = false
    up_bias = %ub
    down_bias = %db
  }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn mlp_kernel_defaults_and_token_generation() {
    check(
        r#"
kernel @mlp(%x: hbm bf16[4, 1, 4096], %w: hbm bf16[4096, 1792]) -> (%out: hbm bf16[4, 1, 4096]) {
  MLPKernel { srcs = [%x, %w], dsts = [%out] }
  MLPKernel { srcs = [%x[0:4, 0, :], %w], dsts = [%out] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn mlp_kernel_threshold_setting() {
    let text = r#"
kernel @mlp(%x: hbm bf16[1, 2048, 4096], %w: hbm bf16[4096, 1792]) -> (%out: hbm bf16[1, 2048, 4096]) {
  MLPKernel { srcs = [%x, %w], dsts = [%out] }
  NormQKV { srcs = [%x, %w], dsts = [%out] }
}
"#;
    let mut db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let is_tkg = |db: &RootDatabase| -> Vec<String> {
        let bir = analysis::file_bir(db, file);
        bir["functions"][0]["blocks"][0]["instructions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|inst| inst["kernel_attrs"].to_string())
            .collect()
    };
    let before = is_tkg(&db);
    db.settings().set_tkg_seqlen_threshold(&mut db).to(4096);
    let after = is_tkg(&db);
    expect![[r#""#]].assert_debug_eq(&(before, after));
}

#[test]
fn mlp_kernel_errors() {
    check(
        r#"
kernel @mlp(%x: hbm bf16[4, 1, 4096]) -> (%out: hbm bf16[4, 1, 4096]) {
  MLPKernel { dsts = [%out] }
  MLPKernel { srcs = [%x], dsts = [%out], norm_type = rms, act_fn = sigmoidd, eps = "1e-5" }
  MLPKernel { srcs = [%x], dsts = [%out], is_causal = true }
  MLPKernel { srcs = [tile(%x), full(%x)], dsts = [opaque(%out)] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn tiled_twins_use_access_patterns() {
    check(
        r#"
kernel @k(%x: hbm bf16[4, 128, 64], %w: hbm bf16[64, 64]) -> (%out: hbm bf16[4, 128, 64]) {
  TiledMLPKernel { srcs = [%x, tile(%w)], dsts = [%out], act_fn = gelu }
  TiledNormQKV { srcs = [%x, %w], dsts = [%out], norm_type = rms_norm, eps = 1e-6 }
  TiledRMSNormQuantKernel { srcs = [%x], dsts = [%out], quant_dtype = f8e4m3, eps = 1e-6 }
  TiledAttentionMMSoftmaxMM { srcs = [%x, %x, %x], dsts = [%out], scale = 0.125, is_causal = true }
  TiledMLPKernel { srcs = [full(%x)], dsts = [%out] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn norm_qkv_rmsnorm_quant_attention() {
    check(
        r#"
kernel @k(%x: hbm bf16[2, 4096], %w: hbm bf16[4096, 768], %q: hbm bf16[4, 128, 4096])
    -> (%qkv: hbm bf16[2, 768], %xq: hbm f8e4m3[2, 4096], %o: hbm bf16[4, 4096, 128]) {
  NormQKV { srcs = [%x, %w], dsts = [%qkv], fused_rmsnorm = true, norm_type = rms_norm, eps = 1e-6, lower_bound = 0.5 }
  RMSNormQuantKernel { srcs = [%x], dsts = [%xq], quant_dtype = f8e4m3, eps = 1e-6, lower_bound = -448.0 }
  AttentionMMSoftmaxMM { srcs = [%q, %q, %q], dsts = [%o], scale = 1 }
  BackwardsAttention { srcs = [%q], dsts = [%o] }
}
"#,
        expect![[r#""#]],
    );
}

// ----- InternalNativeNkiKernel ---------------------------------------------------------

#[test]
fn internal_kernel_defaults() {
    check(
        r#"
kernel @k(%h: hbm bf16[1025, 2048], %a: hbm bf16[1025, 128]) -> (%out: hbm bf16[1025, 2048]) {
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [%h, opaque(%a)], dsts = [%out] }
  InternalNativeNkiKernel {
    func_name = "tiled_pf_transpose"
    srcs = [%h]
    dsts = [%out]
    nki_frontend = beta3
    nki_binary_version_identifier = "2.24"
    sb_buf_shape = [128, 8192]
    psum_buf_shape = [8, 128, 2048]
  }
  InternalNativeNkiKernel { func_name = "ResizeNearest", srcs = [%h], dsts = [%out], klir_binary = "/tmp/resize.klir" }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn internal_kernel_not_in_registry() {
    check(
        r#"
kernel @k(%x: hbm bf16[4, 1, 4096]) -> (%out: hbm bf16[4, 1, 4096]) {
  InternalNativeNkiKernel { func_name = "MLP", srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "Blockwise_MM", srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "RouterTopK", srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "my_conv", srcs = [%x], dsts = [%out] }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn internal_kernel_field_errors() {
    check(
        r#"
kernel @k(%x: hbm bf16[4, 1, 4096]) -> (%out: hbm bf16[4, 1, 4096]) {
  InternalNativeNkiKernel { srcs = [%x], dsts = [%out] }
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [full(%x)], dsts = [%out], nki_frontend = beta4 }
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [%x], dsts = [%out], sb_buf_shape = [1] }
}
"#,
        expect![[r#""#]],
    );
}

// ----- external NKI kernels ------------------------------------------------------------

#[test]
fn external_nki_kernel() {
    check(
        r#"
kernel @k(%a: hbm f16[256, 1024], %b: hbm f16[256, 1024]) -> (%c: hbm f16[256, 1024]) {
  ExternalNativeNkiKernel { func = "nki_tensor_add", func_args = [%a, %b], func_outs = [%c] }
  ExternalNativeNkiKernel { func = "nki_tensor_add", func_args = [%a[0:128, :], %b], func_outs = [%c], sb_buf_shape = [128, 2048], psum_buf_shape = [1, 128, 2048] }
  ExternalNativeNkiKernel { func_args = [%a], func_outs = [full(%c)] }
  ExternalNativeNkiKernel { func = "" }
}
"#,
        expect![[r#""#]],
    );
}

#[test]
fn external_klir_kernel() {
    check(
        r#"
kernel @k(%a: hbm f16[256, 1024], %b: hbm f16[256, 1024]) -> (%c: hbm f16[256, 1024]) {
  ExternalNativeNkiKlirKernel { func = "add", klir_binary = "add.klir", klir_input_names = ["a", "b"], srcs = [%a, tile(%b)], dsts = [%c] }
  ExternalNativeNkiKlirKernel { func = "add", srcs = [%a], dsts = [%c], klir_input_names = [1] }
}
"#,
        expect![[r#""#]],
    );
}

// ----- schema ----------------------------------------------------------------------------

/// Every kernel node of one error-free file validates against the public schema
/// (`shared/tools/bir_schema.py`, exit 0).
#[test]
fn kernel_nodes_pass_the_schema_tool() {
    let text = r#"
kernel @k(%x: hbm bf16[4, 1, 4096], %w: hbm bf16[4096, 1792], %q: hbm bf16[4, 128, 4096])
    -> (%out: hbm bf16[4, 1, 4096], %o: hbm bf16[4, 4096, 128]) {
  tensor %s : sbuf bf16[128, 64]
  BIRKernel { kernel_name = "RouterTopK", kernel_attrs = { k = 8, act = silu }, srcs = [%x, tile(%s)], dsts = [%out], psum_buf_shape = [1, 2, 3] }
  MLPKernel { srcs = [%x, %w], dsts = [%out], act_fn = silu, eps = 1e-5, norm_type = rms_norm }
  TiledMLPKernel { srcs = [%x, %w], dsts = [%out] }
  NormQKV { srcs = [%x, %w], dsts = [%out] }
  TiledNormQKV { srcs = [%x, %w], dsts = [%out] }
  RMSNormQuantKernel { srcs = [%x], dsts = [%out], quant_dtype = f8e4m3 }
  TiledRMSNormQuantKernel { srcs = [%x], dsts = [%out] }
  AttentionMMSoftmaxMM { srcs = [%q, %q, %q], dsts = [%o], scale = 1.0, is_causal = true }
  TiledAttentionMMSoftmaxMM { srcs = [%q, %q, %q], dsts = [%o] }
  BackwardsAttention { srcs = [%q], dsts = [%o], is_causal = true }
  InternalNativeNkiKernel { func_name = "blockwise_mm", srcs = [%x], dsts = [%out], sb_buf_shape = [1, 2] }
  ExternalNativeNkiKernel { func = "f", func_args = [%x], func_outs = [%out] }
  ExternalNativeNkiKlirKernel { func = "f", klir_binary = "f.klir", srcs = [%x], dsts = [%out] }
}
"#;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let errors: Vec<String> = analysis::diagnostics(&db, file)
        .iter()
        .filter(|d| d.severity == lower::Severity::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let bir = analysis::file_bir(&db, file);
    // The shared tools sit beside the repository (../shared), or beside the worktrees.
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(tool) = ["../../shared", "../../../shared"]
        .iter()
        .map(|dir| manifest.join(dir).join("tools/bir_schema.py"))
        .find(|tool| tool.exists())
    else {
        println!("note: shared/tools/bir_schema.py not found; schema check skipped");
        return;
    };
    let path = std::env::temp_dir().join(format!("pir-kernels-schema-{}.json", std::process::id()));
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&bir).unwrap_or_default(),
    )
    .expect("write temp file");
    let output = std::process::Command::new("python3")
        .arg(&tool)
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match output {
        Err(e) => println!("note: python3 not available ({e}); schema check skipped"),
        Ok(output) => assert!(
            output.status.success(),
            "bir_schema.py failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}
