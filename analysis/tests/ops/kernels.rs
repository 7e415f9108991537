//! Kernel nodes (SPEC §6.8) and the access kinds of their operands (SPEC §6.9): the
//! generic BIRKernel, the bespoke library kernels and their tiled twins (IT 54), the user
//! NKIKernel (IT 55) and the registry-traced NKIKLIRKernel (IT 56).

use analysis::{Db, RootDatabase, SourceFile};
use expect_test::expect;
use salsa::Setter;

use crate::common::{check, check_schema};

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
        expect![[r#"
            4: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[2048,1024],[1,2048]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[128,2048],[1,128]] offset=0 %w access="seq"
              out dsts[0]: physical_ap float32 ap=[[128,1024],[1,128]] offset=0 %logits access="seq"
              out dsts[1]: physical_ap uint32 ap=[[8,1024],[1,8]] offset=0 %index access="seq"
              {"kernel_name":"RouterTopK","srcs_shape":[[1024,2048],[2048,128]],"dsts_shape":[[1024,128],[1024,8]],"kernel_attrs":[["act_fn","softmax"],["k","8"],["norm_topk_prob","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
        "#]],
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
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"ExpertMLPs","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[["name","a b"],["on","true"],["k","-8"],["eps","1e-6"],["scale","1.0"],["third","0.125"],["act","silu"],["dt","bf16"],["dims","[1,2,\"x\"]"],["nested","{\"a\":1,\"b\":false}"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
        "#]],
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
        expect![[r#"
            4: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[64,256],[1,64]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="nd_subtensor"
              in srcs[2]: physical_ap bfloat16 ap=[[64,256],[1,64]] offset=0 %x access="seq"
              in srcs[3]: physical_ap bfloat16 ap=[[64,256],[1,64]] offset=0 %x access="seq"
              in srcs[4]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=8192 %x access="nd_subtensor"
              in srcs[5]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %s start_partition=0 access="tile"
              in srcs[6]: physical_ap bfloat16 ap=[[64,256],[1,64]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,32]] offset=0 %y access="nd_subtensor"
              {"kernel_name":"RowTiledMM","srcs_shape":[[256,64],[128,64],[256,64],[256,64],[128,64],[64,64],[256,64]],"dsts_shape":[[128,32]],"kernel_attrs":[],"sb_buf_shape":[128,4096],"psum_buf_shape":[2,[128,2048]],"auto_cast":"matmult","auto_cast_type":"bfloat16"}
            P501 warning:6:80 `%s[0:64, :]`: `%s` is read here before any op writes it
        "#]],
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
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              4: BIRKernel Unassigned I-1-0 IT54
                in srcs[0]: symbolic_ap bfloat16 ap=[[64,128],[1,64]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":8192}],"c":0}] access_shape=[128,64] %x access="nd_subtensor"
                out dsts[0]: symbolic_ap bfloat16 ap=[[64,128],[1,64]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":8192}],"c":0}] access_shape=[128,64] %y access="nd_subtensor"
                {"kernel_name":"ColumnTiledMM","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
        "#]],
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
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54 errors=["P204"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            4: BIRKernel Unassigned I-2-0 IT54 errors=["P414"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            5: BIRKernel Unassigned I-3-0 IT54 errors=["P203"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            6: BIRKernel Unassigned I-4-0 IT54 errors=["P207"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            7: BIRKernel Unassigned I-5-0 IT54 errors=["P206"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            P204 error:3:3 `BIRKernel`: BIRKernel needs the field `kernel_name`
            P414 error:4:29 `""`: `kernel_name` must name a kernel; it is empty
            P203 error:5:34 `kernel_atrs`: BIRKernel has no field `kernel_atrs`; did you mean `kernel_attrs`?
            P207 error:6:77 `bf61`: unknown dtype `bf61`; did you mean `bf16`?
            P206 error:7:29 `7`: expected string, found an integer
        "#]],
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
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54 errors=["P205","P206"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[["a","1"],["b","2"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            P206 error:5:35 `%x`: a kernel attribute is a string, bool, number, identifier, list or record; found an access
            P205 error:5:52 `"3"`: the attribute `a` is written twice
                related `"1"`: first written here
            P205 error:5:74 `2`: the key `c` is written twice
                related `1`: first written here
            P206 error:5:87 `x"00"`: a kernel attribute is a string, bool, number, identifier, list or record; found a bytes literal
            P206 error:5:102 `full(%x)`: a kernel attribute is a string, bool, number, identifier, list or record; found a call
        "#]],
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
        expect![[r#"
            4: BIRKernel Unassigned I-1-0 IT54 errors=["P207"]
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            5: BIRKernel Unassigned I-2-0 IT54 errors=["P206"]
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            6: BIRKernel Unassigned I-3-0 IT54 errors=["P206"]
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            7: BIRKernel Unassigned I-4-0 IT54 errors=["P300"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,256],[1,64]] offset=0 %x access="nd_subtensor"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[[256,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            8: BIRKernel Unassigned I-5-0 IT54 errors=["P414"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"K","srcs_shape":[[128,64]],"dsts_shape":[[128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            P207 error:4:42 `tiles(%x)`: unknown access kind `tiles`; expected full, subtensor, tile or opaque; did you mean `tile`?
            P206 error:5:42 `full(%x, %x)`: `full(…)` takes exactly one tensor access
            P206 error:6:42 `%r`: expected access or full/subtensor/tile/opaque(access), found a register
            P300 error:7:45 `0:256`: Incorrect access pattern! dim 0 of `%x` has 128 elements; the access reaches element 255
                related `0:256`: dim 0 of `%x` has 128 elements; the access reaches element 255
            P414 error:8:75 `[1, 2, 3]`: `sb_buf_shape` takes 2 non-negative integers; it has 3
            P414 error:8:107 `-2`: `psum_buf_shape` entries are sizes; -2 is negative
        "#]],
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
        expect![[r#"
            6: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8388608,1],[4096,2048],[1,4096]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[4096,1],[1,4096]] offset=0 %ln_w access="seq"
              in srcs[2]: physical_ap bfloat16 ap=[[1792,4096],[1,1792]] offset=0 %gate_w access="seq"
              in srcs[3]: physical_ap bfloat16 ap=[[1792,4096],[1,1792]] offset=0 %up_w access="seq"
              in srcs[4]: physical_ap bfloat16 ap=[[4096,1792],[1,4096]] offset=0 %down_w access="seq"
              in up_bias: physical_ap bfloat16 ap=[[1792,1],[1,1792]] offset=0 %ub access="seq"
              in down_bias: physical_ap bfloat16 ap=[[4096,1],[1,4096]] offset=0 %db access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[8388608,1],[4096,2048],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[1,2048,4096],[1,4096],[4096,1792],[4096,1792],[1792,4096],[1,1792],[1,4096]],"dsts_shape":[[1,2048,4096]],"kernel_attrs":[["skip_gate","false"],["act_fn","silu"],["eps","1e-5"],["is_tkg","false"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":true,"norm_type":2,"lower_bound":-3.0,"store_add":true,"quant_kernel":true}
        "#]],
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
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[1792,4096],[1,1792]] offset=0 %w access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[4,1,4096],[4096,1792]],"dsts_shape":[[4,1,4096]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            4: BIRKernel Unassigned I-2-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[1,4096]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[1792,4096],[1,1792]] offset=0 %w access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[4,4096],[4096,1792]],"dsts_shape":[[4,1,4096]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
        "#]],
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
    expect![[r#"
        (
            [
                "[[\"is_tkg\",\"false\"]]",
                "[[\"useTkgQKVKernel\",\"false\"]]",
            ],
            [
                "[[\"is_tkg\",\"true\"]]",
                "[[\"useTkgQKVKernel\",\"true\"]]",
            ],
        )
    "#]]
    .assert_debug_eq(&(before, after));
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
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54 errors=["P204"]
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[],"dsts_shape":[[4,1,4096]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            4: BIRKernel Unassigned I-2-0 IT54 errors=["P206","P207"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[4,1,4096]],"dsts_shape":[[4,1,4096]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            5: BIRKernel Unassigned I-3-0 IT54 errors=["P203"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[4,1,4096]],"dsts_shape":[[4,1,4096]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            6: BIRKernel Unassigned I-4-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[4,1,4096],[4,1,4096]],"dsts_shape":[[4,1,4096]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            P204 error:3:3 `MLPKernel`: MLPKernel needs the field `srcs`
            P207 error:4:55 `rms`: unknown norm_type value `rms`; expected one of none, rms_norm, layer_norm
            P207 error:4:69 `sigmoidd`: unknown act_func value `sigmoidd`; did you mean `sigmoid`?
            P206 error:4:85 `"1e-5"`: expected float, found a string
            P203 error:5:43 `is_causal`: MLPKernel has no field `is_causal`
            P413 warning:6:23 `tile(%x)`: MLPKernel passes every operand as `seq` (a whole-tensor sequential access); `tile(…)` is ignored
            P413 warning:6:52 `opaque(%out)`: MLPKernel passes every operand as `seq` (a whole-tensor sequential access); `opaque(…)` is ignored
        "#]],
    );
}

#[test]
fn tiled_twins_use_access_patterns() {
    // pir-spec/2 §6.8: a bare operand of a tiled twin is `ap`, an access-kind call keeps its
    // own kind (`tile(%w)` is `tile`, `full(%x)` is `seq`; pir-spec/1 made every operand
    // `ap` with P413 on the call), and NormQKV's flag is `useTkgQKVKernel`.
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
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %w access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"MLP","srcs_shape":[[4,128,64],[64,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[["act_fn","gelu"],["is_tkg","false"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            4: BIRKernel Unassigned I-2-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %w access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"QKV","srcs_shape":[[4,128,64],[64,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[["eps","1e-6"],["useTkgQKVKernel","false"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":1,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            5: BIRKernel Unassigned I-3-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"RMSNormQuant","srcs_shape":[[4,128,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[["quant_dtype","f8e4m3"],["eps","1e-6"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            6: BIRKernel Unassigned I-4-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              in srcs[2]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"Attention","srcs_shape":[[4,128,64],[4,128,64],[4,128,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[["scale","0.125"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":true,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            7: BIRKernel Unassigned I-5-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %x access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"MLP","srcs_shape":[[4,128,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[["is_tkg","false"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            P413 warning:3:32 `tile(%w)`: TiledMLPKernel passes every operand as `ap` (a pre-tiled access pattern, `addAP`); `tile(…)` is ignored
            P413 warning:7:28 `full(%x)`: TiledMLPKernel passes every operand as `ap` (a pre-tiled access pattern, `addAP`); `full(…)` is ignored
        "#]],
    );
}

#[test]
fn norm_qkv_rmsnorm_quant_attention() {
    // pir-spec/2 §6.8: NormQKV names its token-generation flag `useTkgQKVKernel` (seed 004
    // §3); pir-spec/1 wrote `is_tkg`.
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
        expect![[r#"
            4: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[4096,2],[1,4096]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[768,4096],[1,768]] offset=0 %w access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[768,2],[1,768]] offset=0 %qkv access="seq"
              {"kernel_name":"QKV","srcs_shape":[[2,4096],[4096,768]],"dsts_shape":[[2,768]],"kernel_attrs":[["eps","1e-6"],["useTkgQKVKernel","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":true,"norm_type":1,"lower_bound":0.5,"store_add":false,"quant_kernel":false}
            5: BIRKernel Unassigned I-2-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[4096,2],[1,4096]] offset=0 %x access="seq"
              out dsts[0]: physical_ap float8e4 ap=[[4096,2],[1,4096]] offset=0 %xq access="seq"
              {"kernel_name":"RMSNormQuant","srcs_shape":[[2,4096]],"dsts_shape":[[2,4096]],"kernel_attrs":[["quant_dtype","f8e4m3"],["eps","1e-6"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":-448.0,"store_add":false,"quant_kernel":false}
            6: BIRKernel Unassigned I-3-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[524288,4],[4096,128],[1,4096]] offset=0 %q access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[524288,4],[4096,128],[1,4096]] offset=0 %q access="seq"
              in srcs[2]: physical_ap bfloat16 ap=[[524288,4],[4096,128],[1,4096]] offset=0 %q access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[524288,4],[128,4096],[1,128]] offset=0 %o access="seq"
              {"kernel_name":"Attention","srcs_shape":[[4,128,4096],[4,128,4096],[4,128,4096]],"dsts_shape":[[4,4096,128]],"kernel_attrs":[["scale","1.0"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            7: BIRKernel Unassigned I-4-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[524288,4],[4096,128],[1,4096]] offset=0 %q access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[524288,4],[128,4096],[1,128]] offset=0 %o access="seq"
              {"kernel_name":"BackwardsAttention","srcs_shape":[[4,128,4096]],"dsts_shape":[[4,4096,128]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
        "#]],
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
        expect![[r#"
            3: NKIKLIRKernel Unassigned I-1-0 IT56
              in srcs[0]: physical_ap bfloat16 ap=[[2048,1025],[1,2048]] offset=0 %h access="opaque"
              in srcs[1]: physical_ap bfloat16 ap=[[128,1025],[1,128]] offset=0 %a access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[2048,1025],[1,2048]] offset=0 %out access="opaque"
              {"klir_binary":"blockwise_mm.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["h","a"],"func_outs":["out"]}
            4: NKIKLIRKernel Unassigned I-2-0 IT56
              in srcs[0]: physical_ap bfloat16 ap=[[2048,1025],[1,2048]] offset=0 %h access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[2048,1025],[1,2048]] offset=0 %out access="opaque"
              {"klir_binary":"tiled_pf_transpose.json","kernel_format":"bir","nki_binary_version_identifier":"2.24","func_args":["h"],"func_outs":["out"],"sb_buf_shape":[128,8192],"psum_buf_shape":[8,[128,2048]]}
            13: NKIKLIRKernel Unassigned I-3-0 IT56
              in srcs[0]: physical_ap bfloat16 ap=[[2048,1025],[1,2048]] offset=0 %h access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[2048,1025],[1,2048]] offset=0 %out access="opaque"
              {"klir_binary":"/tmp/resize.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["h"],"func_outs":["out"]}
        "#]],
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
        expect![[r#"
            3: NKIKLIRKernel Unassigned I-1-0 IT56 errors=["P408"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"klir_binary":"MLP.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            4: NKIKLIRKernel Unassigned I-2-0 IT56 errors=["P408"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"klir_binary":"Blockwise_MM.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            5: NKIKLIRKernel Unassigned I-3-0 IT56 errors=["P408"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"klir_binary":"RouterTopK.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            6: NKIKLIRKernel Unassigned I-4-0 IT56 errors=["P408"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"klir_binary":"my_conv.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            P408 error:3:41 `"MLP"`: `MLP` is not in the internal kernel registry (the closest key is `blockwise_mm`)
                related `"MLP"`: `MLP` is a library kernel: a BIRKernel (IT 54) node spliced in by name, never registry-traced; write it as MLPKernel { … }
            P408 error:4:41 `"Blockwise_MM"`: `Blockwise_MM` is not in the internal kernel registry; did you mean `blockwise_mm`?
            P408 error:5:41 `"RouterTopK"`: `RouterTopK` is not in the internal kernel registry (the closest key is `ResizeNearest`)
                related `"RouterTopK"`: `RouterTopK` is a library kernel: a BIRKernel (IT 54) node spliced in by name, never registry-traced; write it as BIRKernel { kernel_name = "RouterTopK" }
            P408 error:6:41 `"my_conv"`: `my_conv` is not in the internal kernel registry (the closest key is `blockwise_mm`)
        "#]],
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
        expect![[r#"
            3: NKIKLIRKernel Unassigned I-1-0 IT56 errors=["P204"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            4: NKIKLIRKernel Unassigned I-2-0 IT56 errors=["P207"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"klir_binary":"blockwise_mm.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            5: NKIKLIRKernel Unassigned I-3-0 IT56 errors=["P414"]
              in srcs[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %x access="opaque"
              out dsts[0]: physical_ap bfloat16 ap=[[4096,4],[4096,1],[1,4096]] offset=0 %out access="opaque"
              {"klir_binary":"blockwise_mm.klir","kernel_format":"klir","nki_binary_version_identifier":"0","func_args":["x"],"func_outs":["out"]}
            P204 error:3:3 `InternalNativeNkiKernel`: InternalNativeNkiKernel needs the field `func_name`
            P413 warning:4:65 `full(%x)`: InternalNativeNkiKernel passes every operand as `opaque` (the traced kernel owns its tiling); `full(…)` is ignored
            P207 error:4:106 `beta4`: unknown nki_frontend value `beta4`; did you mean `beta2`?
            P414 error:5:100 `[1]`: `sb_buf_shape` takes 2 non-negative integers; it has 1
        "#]],
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
        expect![[r#"
            3: NKIKernel Unassigned I-1-0 IT55
              in func_args[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %a
              in func_args[1]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %b
              out func_outs[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %c
              {"func":"nki_tensor_add","func_args":["a","b"],"func_outs":["c"],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]]}
            4: NKIKernel Unassigned I-2-0 IT55
              in func_args[0]: physical_ap float16 ap=[[1024,128],[1,1024]] offset=0 %a
              in func_args[1]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %b
              out func_outs[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %c
              {"func":"nki_tensor_add","func_args":["a","b"],"func_outs":["c"],"sb_buf_shape":[128,2048],"psum_buf_shape":[1,[128,2048]]}
            5: NKIKernel Unassigned I-3-0 IT55 errors=["P204","P206"]
              in func_args[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %a
              {"func_args":["a"],"func_outs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]]}
            6: NKIKernel Unassigned I-4-0 IT55 errors=["P414"]
              {"func":"","func_args":[],"func_outs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]]}
            P204 error:5:3 `ExternalNativeNkiKernel`: ExternalNativeNkiKernel needs the field `func`
            P206 error:5:60 `full(%c)`: expected acc(hbm|sbuf|psum), found a call
            P414 error:6:36 `""`: `func` must name a kernel; it is empty
        "#]],
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
        expect![[r#"
            3: NKIKLIRKernel Unassigned I-1-0 IT56
              in srcs[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %a access="opaque"
              in srcs[1]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %b access="opaque"
              out dsts[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %c access="opaque"
              {"func":"add","klir_binary":"add.klir","kernel_format":"klir","nki_binary_version_identifier":"0","klir_input_names":["a","b"],"func_args":["a","b"],"func_outs":["c"]}
            4: NKIKLIRKernel Unassigned I-2-0 IT56 errors=["P204","P206"]
              in srcs[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %a access="opaque"
              out dsts[0]: physical_ap float16 ap=[[1024,256],[1,1024]] offset=0 %c access="opaque"
              {"func":"add","kernel_format":"klir","nki_binary_version_identifier":"0","klir_input_names":[],"func_args":["a"],"func_outs":["c"]}
            P413 warning:3:116 `tile(%b)`: ExternalNativeNkiKlirKernel passes every operand as `opaque` (the traced kernel owns its tiling); `tile(…)` is ignored
            P204 error:4:3 `ExternalNativeNkiKlirKernel`: ExternalNativeNkiKlirKernel needs the field `klir_binary`
            P206 error:4:93 `1`: expected string, found an integer
        "#]],
    );
}

// ----- schema ----------------------------------------------------------------------------

/// Every kernel node of one error-free file validates against the public schema
/// (`bir_schema.py`, exit 0).
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
    check_schema(text);
}

#[test]
fn bir_kernel_with_a_registry_name_is_p408() {
    // pir-spec/2 §6.8: a registry kernel has no precompiled leaf to splice by name, so a
    // BIRKernel naming one is P408 on `kernel_name` (IT 56 if and only if registry);
    // pir-spec/1 emitted an IT 54 node for it.
    check(
        r#"
kernel @k(%x: hbm bf16[4, 64]) -> (%y: hbm bf16[4, 64]) {
  BIRKernel { kernel_name = "tiled_pf_transpose", srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "conv2d_column_packing_io10_1", srcs = [%x], dsts = [%y] }
  BIRKernel { kernel_name = "RouterTopK", srcs = [%x], dsts = [%y] }
}
"#,
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54 errors=["P408"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"tiled_pf_transpose","srcs_shape":[[4,64]],"dsts_shape":[[4,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            4: BIRKernel Unassigned I-2-0 IT54 errors=["P408"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"conv2d_column_packing_io10_1","srcs_shape":[[4,64]],"dsts_shape":[[4,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            5: BIRKernel Unassigned I-3-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"RouterTopK","srcs_shape":[[4,64]],"dsts_shape":[[4,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            P408 error:3:29 `"tiled_pf_transpose"`: `tiled_pf_transpose` is a registry kernel: it has no precompiled leaf to splice in by name, so it is traced at codegen time; write it as InternalNativeNkiKernel { func_name = "tiled_pf_transpose" } (NKIKLIRKernel, IT 56)
            P408 error:4:29 `"conv2d_column_packing_io10_1"`: `conv2d_column_packing_io10_1` is a registry kernel: it has no precompiled leaf to splice in by name, so it is traced at codegen time; write it as InternalNativeNkiKernel { func_name = "conv2d_column_packing_io10_1" } (NKIKLIRKernel, IT 56)
        "#]],
    );
}

#[test]
fn untiled_bespoke_kernels_take_whole_tensors() {
    // pir-spec/2 §6.8: the untiled bespoke ops pass operands with `addSeqAccess` (whole
    // tensor), so a part of a tensor is P300 on that operand, naming the tiled twin;
    // pir-spec/1 emitted `seq` for a slice. A dropped dim of size 1 still selects all.
    check(
        r#"
kernel @k(%x: hbm bf16[4, 1, 64], %w: hbm bf16[64, 64], %b: hbm bf16[1, 64]) -> (%out: hbm bf16[4, 1, 64]) {
  MLPKernel { srcs = [%x[0:2, :, :], %w], dsts = [%out], up_bias = %b[:, 0:32] }
  MLPKernel { srcs = [%x[0:4, 0, :], tile(%w[0:32, :])], dsts = [%out] }
  NormQKV { srcs = [%x], dsts = [%out[1, :, :]] }
  BackwardsAttention { srcs = [%x[:, :, 0:32]], dsts = [%out] }
  TiledMLPKernel { srcs = [%x[0:2, :, :], %w], dsts = [%out[0:2, :, :]] }
}
"#,
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54 errors=["P300"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,2],[64,1],[1,64]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %w access="seq"
              in up_bias: physical_ap bfloat16 ap=[[64,1],[1,32]] offset=0 %b access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[64,1],[1,64]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[2,1,64],[64,64],[1,32]],"dsts_shape":[[4,1,64]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            4: BIRKernel Unassigned I-2-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %w access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[64,1],[1,64]] offset=0 %out access="seq"
              {"kernel_name":"MLP","srcs_shape":[[4,64],[32,64]],"dsts_shape":[[4,1,64]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            5: BIRKernel Unassigned I-3-0 IT54 errors=["P300"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[64,1],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,1],[1,64]] offset=64 %out access="seq"
              {"kernel_name":"QKV","srcs_shape":[[4,1,64]],"dsts_shape":[[1,64]],"kernel_attrs":[["useTkgQKVKernel","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            6: BIRKernel Unassigned I-4-0 IT54 errors=["P300"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[64,1],[1,32]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[64,1],[1,64]] offset=0 %out access="seq"
              {"kernel_name":"BackwardsAttention","srcs_shape":[[4,1,32]],"dsts_shape":[[4,1,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            7: BIRKernel Unassigned I-5-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[64,2],[64,1],[1,64]] offset=0 %x access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %w access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[64,2],[64,1],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"MLP","srcs_shape":[[2,1,64],[64,64]],"dsts_shape":[[2,1,64]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            P300 error:3:23 `%x[0:2, :, :]`: Incorrect access pattern! MLPKernel passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%x`; write TiledMLPKernel for a part of a tensor
                related `%x[0:2, :, :]`: MLPKernel passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%x`; write TiledMLPKernel for a part of a tensor
            P300 error:3:68 `%b[:, 0:32]`: Incorrect access pattern! MLPKernel passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%b`; write TiledMLPKernel for a part of a tensor
                related `%b[:, 0:32]`: MLPKernel passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%b`; write TiledMLPKernel for a part of a tensor
            P413 warning:4:38 `tile(%w[0:32, :])`: MLPKernel passes every operand as `seq` (a whole-tensor sequential access); `tile(…)` is ignored
            P300 error:5:34 `%out[1, :, :]`: Incorrect access pattern! NormQKV passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%out`; write TiledNormQKV for a part of a tensor
                related `%out[1, :, :]`: NormQKV passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%out`; write TiledNormQKV for a part of a tensor
            P300 error:6:32 `%x[:, :, 0:32]`: Incorrect access pattern! BackwardsAttention passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%x`
                related `%x[:, :, 0:32]`: BackwardsAttention passes each operand as a whole tensor (`addSeqAccess`), but this access selects part of `%x`
        "#]],
    );
}

#[test]
fn full_of_a_partial_access_is_p300() {
    // pir-spec/2 §6.9: `full(…)` is a whole-tensor sequential access, so `full` of an access
    // that selects part of its tensor is P300 on the access; pir-spec/1 emitted `seq`.
    check(
        r#"
kernel @k(%x: hbm bf16[4, 64]) -> (%y: hbm bf16[4, 64]) {
  BIRKernel { kernel_name = "RowTiledMM", srcs = [full(%x[0:2, :]), full(%x[:, :])], dsts = [full(%y)] }
  TiledMLPKernel { srcs = [full(%x[:, 0:32])], dsts = [%y] }
}
"#,
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54 errors=["P300"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,2],[1,64]] offset=0 %x access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %x access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %y access="seq"
              {"kernel_name":"RowTiledMM","srcs_shape":[[2,64],[4,64]],"dsts_shape":[[4,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":""}
            4: BIRKernel Unassigned I-2-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[64,4],[1,32]] offset=0 %x access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[64,4],[1,64]] offset=0 %y access="ap"
              {"kernel_name":"MLP","srcs_shape":[[4,32]],"dsts_shape":[[4,64]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            P300 error:3:56 `%x[0:2, :]`: Incorrect access pattern! `full(…)` is a whole-tensor sequential access, but this access selects part of its tensor; write the access bare (`nd_subtensor`) or `subtensor(…)`
                related `%x[0:2, :]`: `full(…)` is a whole-tensor sequential access, but this access selects part of its tensor; write the access bare (`nd_subtensor`) or `subtensor(…)`
            P413 warning:4:28 `full(%x[:, 0:32])`: TiledMLPKernel passes every operand as `ap` (a pre-tiled access pattern, `addAP`); `full(…)` is ignored
        "#]],
    );
}

#[test]
fn tiled_twins_token_generation_reads_the_access_shape() {
    // pir-spec/2 §6.8: the token count is the product of the first src **access** shape's
    // dims but the last (4 × 16 = 64 < 96 here, while the tensor's 4 × 128 is not).
    check(
        r#"
kernel @k(%x: hbm bf16[4, 128, 64], %w: hbm bf16[64, 64]) -> (%out: hbm bf16[4, 128, 64]) {
  TiledNormQKV { srcs = [%x[:, 0:16, :], %w], dsts = [%out[:, 0:16, :]] }
  TiledMLPKernel { srcs = [%x[:, 0:16, :], %w], dsts = [%out[:, 0:16, :]] }
}
"#,
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,16],[1,64]] offset=0 %x access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %w access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,16],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"QKV","srcs_shape":[[4,16,64],[64,64]],"dsts_shape":[[4,16,64]],"kernel_attrs":[["useTkgQKVKernel","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            4: BIRKernel Unassigned I-2-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,4],[64,16],[1,64]] offset=0 %x access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %w access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,16],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"MLP","srcs_shape":[[4,16,64],[64,64]],"dsts_shape":[[4,16,64]],"kernel_attrs":[["is_tkg","true"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
        "#]],
    );
    check_schema(
        r#"
kernel @k(%x: hbm bf16[4, 128, 64], %w: hbm bf16[64, 64]) -> (%out: hbm bf16[4, 128, 64]) {
  TiledNormQKV { srcs = [%x[:, 0:16, :], tile(%w)], dsts = [%out[:, 0:16, :]] }
  MLPKernel { srcs = [%x, %w], dsts = [%out] }
}
"#,
    );
}

#[test]
fn attention_binds_each_operand_as_birkernel_does() {
    // SPEC §6.8 [3]: seed 004 §6 nests the per-operand dispatcher codegenBIRKernelAccess in
    // codegenAttentionMMSoftmaxMM, so its operands follow §6.9 (a bare whole tensor `seq`,
    // a bare part `nd_subtensor`, a call its own kind; `full(…)` of a part is P300), not
    // the untiled ops' whole-tensor rule. Its tiled twin passes every operand as `ap`.
    check(
        r#"
kernel @k(%q: hbm bf16[4, 128, 64], %k: hbm bf16[4, 128, 64], %v: hbm bf16[4, 128, 64]) -> (%out: hbm bf16[4, 128, 64]) {
  AttentionMMSoftmaxMM { srcs = [%q[0:2, :, :], tile(%k), %v], dsts = [opaque(%out)], scale = 0.125 }
  AttentionMMSoftmaxMM { srcs = [full(%q[0, :, :]), %k, %v], dsts = [%out] }
  TiledAttentionMMSoftmaxMM { srcs = [%q[0:2, :, :], subtensor(%k), %v], dsts = [%out] }
}
"#,
        expect![[r#"
            3: BIRKernel Unassigned I-1-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,2],[64,128],[1,64]] offset=0 %q access="nd_subtensor"
              in srcs[1]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %k access="tile"
              in srcs[2]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %v access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="opaque"
              {"kernel_name":"Attention","srcs_shape":[[2,128,64],[4,128,64],[4,128,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[["scale","0.125"]],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            4: BIRKernel Unassigned I-2-0 IT54 errors=["P300"]
              in srcs[0]: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %q access="seq"
              in srcs[1]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %k access="seq"
              in srcs[2]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %v access="seq"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="seq"
              {"kernel_name":"Attention","srcs_shape":[[128,64],[4,128,64],[4,128,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            5: BIRKernel Unassigned I-3-0 IT54
              in srcs[0]: physical_ap bfloat16 ap=[[8192,2],[64,128],[1,64]] offset=0 %q access="ap"
              in srcs[1]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %k access="ap"
              in srcs[2]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %v access="ap"
              out dsts[0]: physical_ap bfloat16 ap=[[8192,4],[64,128],[1,64]] offset=0 %out access="ap"
              {"kernel_name":"Attention","srcs_shape":[[2,128,64],[4,128,64],[4,128,64]],"dsts_shape":[[4,128,64]],"kernel_attrs":[],"sb_buf_shape":[0,0],"psum_buf_shape":[0,[0,0]],"auto_cast":"none","auto_cast_type":"","is_causal":false,"fused_rmsnorm":false,"norm_type":0,"lower_bound":0.0,"store_add":false,"quant_kernel":false}
            P300 error:4:39 `%q[0, :, :]`: Incorrect access pattern! `full(…)` is a whole-tensor sequential access, but this access selects part of its tensor; write the access bare (`nd_subtensor`) or `subtensor(…)`
                related `%q[0, :, :]`: `full(…)` is a whole-tensor sequential access, but this access selects part of its tensor; write the access bare (`nd_subtensor`) or `subtensor(…)`
            P413 warning:5:54 `subtensor(%k)`: TiledAttentionMMSoftmaxMM passes every operand as `ap` (a pre-tiled access pattern, `addAP`); `subtensor(…)` is ignored
        "#]],
    );
}
