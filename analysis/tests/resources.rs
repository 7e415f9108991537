//! A kernel's resources (SPEC §10.1 [2]): engine counts, SBUF/PSUM peaks over the live
//! ranges, P416, the code lens and the kernel-name hover, on fixtures whose numbers are
//! worked out by hand in their comments (footprint per partition = Π dims 1.. × dtype
//! bytes, SPEC §4; ops are numbered 0.. in source order, `#N` is the op id).

use analysis::resources::{KernelStats, Peak};
use analysis::{Analysis, AnalysisHost, FileId, TextRange, TextSize, ide};
use expect_test::{Expect, expect};
use lower::Severity;

/// `text` opened in a host (one chunk), and its file.
fn open(text: &str) -> (Analysis, FileId) {
    let mut host = AnalysisHost::new();
    let file = host.add_file(text);
    (host.snapshot(), file)
}

/// The 1-based line of `offset`.
fn line(text: &str, offset: TextSize) -> usize {
    text[..usize::from(offset)].matches('\n').count() + 1
}

fn peak(text: &str, p: &Peak) -> String {
    let at = p.op.as_ref().map_or(String::new(), |op| {
        format!(
            " at #{} {} (line {})",
            op.op_id,
            op.class,
            line(text, op.range.start())
        )
    });
    let live: Vec<String> = p
        .largest
        .iter()
        .map(|t| {
            let decl = t
                .declaration
                .map_or("?".to_string(), |d| line(text, d.start()).to_string());
            format!("%{} {} (declared line {decl})", t.name, t.bytes)
        })
        .collect();
    format!(
        "{} {}/{}{at}; largest live: [{}]",
        p.memory.name(),
        p.bytes,
        p.capacity,
        live.join(", ")
    )
}

fn render(text: &str, kernels: &[KernelStats]) -> String {
    let mut out = String::new();
    for k in kernels {
        out.push_str(&format!("@{}: {}\n", k.name, ide::lens_title(k)));
        let counts: Vec<String> = k
            .engines
            .iter()
            .filter(|c| c.static_count > 0)
            .map(|c| format!("{} {}/{}", c.engine.bir_name(), c.static_count, c.executed))
            .collect();
        out.push_str(&format!("  static/executed: {}\n", counts.join(", ")));
        for p in k.peaks() {
            out.push_str(&format!("  {}\n", peak(text, p)));
        }
    }
    out
}

/// The resources of every kernel of `text`, and its P416 diagnostics (line: message, then
/// each related location's line and note). The fixture must have no error.
#[track_caller]
fn check(text: &str, expect: Expect) {
    let (analysis, file) = open(text);
    let diagnostics = analysis.diagnostics(file).unwrap();
    let errors: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let mut out = render(text, &analysis.kernel_stats(file).unwrap());
    for d in diagnostics.iter().filter(|d| d.code == lower::Code::P416) {
        out.push_str(&format!(
            "P416 line {}: {}\n",
            line(text, d.range.start()),
            d.message
        ));
        for (range, note) in &d.related {
            out.push_str(&format!("  ↳ line {}: {note}\n", line(text, range.start())));
        }
    }
    expect.assert_eq(&out);
}

#[test]
fn loop_carried_accumulator_is_live_over_its_whole_loop() {
    check(
        r#"
// Footprints: %w_sb bf16 128 × 2 = 256, %x_sb bf16 512 × 2 = 1,024, %out f32 512 × 4 =
// 2,048 (SBUF); %acc f32 512 × 4 = 2,048 (PSUM).
// Live ranges: %w_sb {0, 2}: op 2's loop %k (ops 1–2) does not hold op 0, so 0–2.
// %x_sb {1, 2}: loop %k holds both, 1–2. %acc {2, 3}: loop %k does not hold op 3, so the
// whole loop joins: 1–3 (live at op 1 although first written at op 2: the sum crosses
// iterations). %out {3, 4}: 3–4.
// SBUF: op 0 256; op 1 256 + 1,024 = 1,280; op 2 1,280; op 3 2,048; op 4 2,048 → peak
// 2,048 at op 3 (#4). PSUM: 0, 2,048, 2,048, 2,048, 0 → 2,048 first at op 1 (#2).
// Counts: DMA 3 static, 1 + 4 + 1 = 6 executed; PE 1, 4; DVE 1, 1.
kernel @acc(%x: hbm bf16[128, 2048], %w: hbm bf16[128, 128]) -> (%y: hbm f32[128, 512]) {
  tensor %w_sb : sbuf bf16[128, 128]
  tensor %x_sb : sbuf bf16[128, 512]
  tensor %acc  : psum f32[128, 512]
  tensor %out  : sbuf f32[128, 512]
  DmaCopyOp { dst = %w_sb, src = %w }
  for %k in 0..4 {
    DmaCopyOp { dst = %x_sb, src = %x[:, %k*512 : %k*512 + 512] }
    MatMulOp { dst = %acc, stationary = %w_sb, moving = %x_sb, is_accumulate = true }
  }
  TensorCopyOp { dst = %out, src = %acc }
  DmaCopyOp { dst = %y, src = %out }
}
"#,
        expect![[r#"
            @acc: PE 1 · DVE 1 · DMA 3 · SBUF 2.0/208.0 KiB · PSUM 2.0/16.0 KiB
              static/executed: PE 1/4, DVE 1/1, DMA 3/6
              sbuf 2048/212984 at #4 TensorCopyOp (line 21); largest live: [%out 2048 (declared line 15)]
              psum 2048/16384 at #2 DmaCopyOp (line 18); largest live: [%acc 2048 (declared line 14)]
        "#]],
    );
}

#[test]
fn a_temporary_of_an_inner_loop_lives_only_there() {
    check(
        r#"
// Footprints: %big f32 1,024 × 4 = 4,096; %tmp f32 256 × 4 = 1,024; %row f32 512 × 4 = 2,048.
// Ops: 0 DMA; loop %i { 1 TT; loop %j { 2 copy, 3 copy }; 4 copy, 5 copy }; 6 DMA.
// %big {0..6}: 0–6. %tmp {2, 3}: loops %j and %i both hold every access: 2–3 (not the
// whole of %i, so it never meets %row). %row {4, 5}: 4–5.
// SBUF: 4,096 at ops 0, 1, 6; 4,096 + 1,024 = 5,120 at ops 2, 3; 4,096 + 2,048 = 6,144 at
// ops 4, 5 → peak 6,144 first at op 4 (#5). (Had %tmp lived over all of %i: 7,168.)
// Counts: DVE 5 static, 2 + 2·4 + 2·4 + 2 + 2 = 22 executed; DMA 2, 2.
kernel @tmp(%x: hbm f32[128, 1024]) -> (%y: hbm f32[128, 1024]) {
  tensor %big : sbuf f32[128, 1024]
  DmaCopyOp { dst = %big, src = %x }
  for %i in 0..2 {
    TensorTensorOp { dst = %big, src0 = %big, src1 = %big, op = add }
    for %j in 0..4 {
      tensor %tmp : sbuf f32[128, 256]
      TensorCopyOp { dst = %tmp, src = %big[:, %j*256 : %j*256 + 256] }
      TensorCopyOp { dst = %big[:, %j*256 : %j*256 + 256], src = %tmp }
    }
    tensor %row : sbuf f32[128, 512]
    TensorCopyOp { dst = %row, src = %big[:, 0:512] }
    TensorCopyOp { dst = %big[:, 512:1024], src = %row }
  }
  DmaCopyOp { dst = %y, src = %big }
}
"#,
        expect![[r#"
            @tmp: DVE 5 · DMA 2 · SBUF 6.0/208.0 KiB · PSUM 0.0/16.0 KiB
              static/executed: DVE 5/22, DMA 2/2
              sbuf 6144/212984 at #5 TensorCopyOp (line 20); largest live: [%big 4096 (declared line 10), %row 2048 (declared line 19)]
              psum 0/16384; largest live: []
        "#]],
    );
}

#[test]
fn a_parameter_in_sbuf_is_live_over_the_whole_kernel() {
    check(
        r#"
// Footprints: %p f32 1,024 × 4 = 4,096 and %q f32 256 × 4 = 1,024 (parameters: live at
// every op); %t f32 512 × 4 = 2,048 {0, 1}; %u f32 256 × 4 = 1,024 {1, 2}.
// SBUF: op 0 4,096 + 1,024 + 2,048 = 7,168; op 1 7,168 + 1,024 = 8,192; op 2 4,096 +
// 1,024 + 1,024 = 6,144 → peak 8,192 at op 1 (#2); largest there %p, %t, then %q (ties
// with %u, and comes first in BIR order: parameters first).
kernel @param(%p: sbuf f32[128, 1024]) -> (%q: sbuf f32[128, 256]) {
  tensor %t : sbuf f32[128, 512]
  tensor %u : sbuf f32[128, 256]
  TensorCopyOp { dst = %t, src = %p[:, 0:512] }
  TensorCopyOp { dst = %u, src = %t[:, 0:256] }
  TensorCopyOp { dst = %q, src = %u }
}
"#,
        expect![[r#"
            @param: DVE 3 · SBUF 8.0/208.0 KiB · PSUM 0.0/16.0 KiB
              static/executed: DVE 3/3
              sbuf 8192/212984 at #2 TensorCopyOp (line 11); largest live: [%p 4096 (declared line 7), %t 2048 (declared line 8), %q 1024 (declared line 7)]
              psum 0/16384; largest live: []
        "#]],
    );
}

/// Two tensors of 106,492 bytes each (u8) live together: 212,984, exactly the SBUF capacity
/// (no P416); one byte more is P416. PSUM likewise with 8,192 + 8,192 = 16,384.
const CAPACITY: &str = r#"
// SBUF: %a {0, 1}, %b {1, 2}: op 1 holds 106,492 + 106,492 = 212,984 = the capacity.
kernel @sbuf_full(%x: hbm u8[128, 106492]) -> (%y: hbm u8[128, 106492]) {
  tensor %a : sbuf u8[128, 106492]
  tensor %b : sbuf u8[128, 106492]
  DmaCopyOp { dst = %a, src = %x }
  TensorCopyOp { dst = %b, src = %a }
  DmaCopyOp { dst = %y, src = %b }
}

// %b one byte larger: op 1 holds 106,492 + 106,493 = 212,985 > 212,984 → P416.
kernel @sbuf_over(%x: hbm u8[128, 106492]) -> (%y: hbm u8[128, 106492]) {
  tensor %a : sbuf u8[128, 106492]
  tensor %b : sbuf u8[128, 106493]
  DmaCopyOp { dst = %a, src = %x }
  TensorCopyOp { dst = %b[:, 0:106492], src = %a }
  DmaCopyOp { dst = %y, src = %b[:, 0:106492] }
}

// PSUM: %p0 {1, 2}, %p1 {2, 3}: op 2 holds 8,192 + 8,192 = 16,384 = the capacity.
// SBUF: %s {0, 1, 3, 4}: 8,192 at every op, first at op 0.
kernel @psum_full(%x: hbm u8[128, 8192]) -> (%y: hbm u8[128, 8192]) {
  tensor %s  : sbuf u8[128, 8192]
  tensor %p0 : psum u8[128, 8192]
  tensor %p1 : psum u8[128, 8192]
  DmaCopyOp { dst = %s, src = %x }
  TensorCopyOp { dst = %p0, src = %s }
  TensorCopyOp { dst = %p1, src = %p0 }
  TensorCopyOp { dst = %s, src = %p1 }
  DmaCopyOp { dst = %y, src = %s }
}

// %p1 one byte larger: op 2 holds 8,192 + 8,193 = 16,385 > 16,384 → P416.
kernel @psum_over(%x: hbm u8[128, 8192]) -> (%y: hbm u8[128, 8192]) {
  tensor %s  : sbuf u8[128, 8192]
  tensor %p0 : psum u8[128, 8192]
  tensor %p1 : psum u8[128, 8193]
  DmaCopyOp { dst = %s, src = %x }
  TensorCopyOp { dst = %p0, src = %s }
  TensorCopyOp { dst = %p1[:, 0:8192], src = %p0 }
  TensorCopyOp { dst = %s, src = %p1[:, 0:8192] }
  DmaCopyOp { dst = %y, src = %s }
}
"#;

#[test]
fn just_under_and_just_over_each_capacity() {
    check(
        CAPACITY,
        expect![[r#"
            @sbuf_full: DVE 1 · DMA 2 · SBUF 208.0/208.0 KiB · PSUM 0.0/16.0 KiB
              static/executed: DVE 1/1, DMA 2/2
              sbuf 212984/212984 at #2 TensorCopyOp (line 7); largest live: [%a 106492 (declared line 4), %b 106492 (declared line 5)]
              psum 0/16384; largest live: []
            @sbuf_over: DVE 1 · DMA 2 · SBUF 208.0/208.0 KiB (P416) · PSUM 0.0/16.0 KiB
              static/executed: DVE 1/1, DMA 2/2
              sbuf 212985/212984 at #2 TensorCopyOp (line 16); largest live: [%b 106493 (declared line 14), %a 106492 (declared line 13)]
              psum 0/16384; largest live: []
            @psum_full: DVE 3 · DMA 2 · SBUF 8.0/208.0 KiB · PSUM 16.0/16.0 KiB
              static/executed: DVE 3/3, DMA 2/2
              sbuf 8192/212984 at #1 DmaCopyOp (line 26); largest live: [%s 8192 (declared line 23)]
              psum 16384/16384 at #3 TensorCopyOp (line 28); largest live: [%p0 8192 (declared line 24), %p1 8192 (declared line 25)]
            @psum_over: DVE 3 · DMA 2 · SBUF 8.0/208.0 KiB · PSUM 16.0/16.0 KiB (P416)
              static/executed: DVE 3/3, DMA 2/2
              sbuf 8192/212984 at #1 DmaCopyOp (line 38); largest live: [%s 8192 (declared line 35)]
              psum 16385/16384 at #3 TensorCopyOp (line 40); largest live: [%p1 8193 (declared line 37), %p0 8192 (declared line 36)]
            P416 line 12: peak SBUF occupancy 212,985 bytes per partition exceeds the capacity of 212,984 bytes at op #2 `TensorCopyOp`
              ↳ line 16: SBUF peak of 212,985 bytes reached here
              ↳ line 14: `%b` is live there: 106,493 bytes per partition
              ↳ line 13: `%a` is live there: 106,492 bytes per partition
            P416 line 34: peak PSUM occupancy 16,385 bytes per partition exceeds the capacity of 16,384 bytes at op #3 `TensorCopyOp`
              ↳ line 40: PSUM peak of 16,385 bytes reached here
              ↳ line 37: `%p1` is live there: 8,193 bytes per partition
              ↳ line 36: `%p0` is live there: 8,192 bytes per partition
        "#]],
    );
}

/// Invalid loops and empty kernels give zeros, never a panic: a loop without ops, a kernel
/// without ops (a parameter in SBUF is live at no op: the peak is taken over ops), a loop
/// of 0 trips (its ops count statically, execute 0 times).
#[test]
fn empty_kernels_and_loops() {
    check(
        r#"
kernel @nothing(%p: sbuf f32[128, 4]) {
}
kernel @zero_trips(%x: hbm f32[128, 4]) {
  tensor %t : sbuf f32[128, 4]
  for %i in 0..0 { DmaCopyOp { dst = %t, src = %x } }
  for %j in 0..3 { }
}
"#,
        expect![[r#"
            @nothing: SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
              static/executed: 
              sbuf 0/212984; largest live: []
              psum 0/16384; largest live: []
            @zero_trips: DMA 1 · SBUF <0.1/208.0 KiB · PSUM 0.0/16.0 KiB
              static/executed: DMA 1/0
              sbuf 16/212984 at #1 DmaCopyOp (line 6); largest live: [%t 16 (declared line 5)]
              psum 0/16384; largest live: []
        "#]],
    );
}

/// The corpus kernels' numbers, checked by hand for RMSNorm and the tiled matmul (see the
/// comments) and pinned for the rest.
#[test]
fn corpus_kernels() {
    let mut out = String::new();
    for (name, text) in test_utils::corpus_files() {
        if name.starts_with("rule_") {
            continue;
        }
        let (analysis, file) = open(&text);
        out.push_str(&format!(
            "{name}\n{}",
            render(&text, &analysis.kernel_stats(file).unwrap())
        ));
    }
    // rmsnorm.pir by hand: footprints %g_tile bf16 2,048 × 2 = 4,096, %a 4,096, %t 4,096,
    // %s f32 4, %g_bcast 4,096 (SBUF), %sq_sum f32 4 (PSUM). Ops: 0 DMA %g_tile; loop %i
    // { 1 DMA %a, 2 TT %t, 3 reduce %sq_sum, 4 TSP %s, 5 Act %s, 6 TSP %t, loop %j { 7
    // shuffle %g_bcast ← %g_tile }, 8 TT %t, 9 DMA out }. Live: %g_tile {0, 7}: loops %j
    // and %i do not hold op 0, so 0–9; %a {1, 2, 6} 1–6; %t {2, 3, 6, 8, 9} 2–9; %s {4, 5,
    // 6} 4–6; %g_bcast {7, 8}: loop %j does not hold op 8 (joins, 7–7) → 7–8; %sq_sum 3–4.
    // SBUF: 4,096; 8,192; 12,288; 12,288; 12,292 (op 4, #5); 12,292; 12,292; 12,288;
    // 12,288; 8,192 → peak 12,292 at #5. PSUM 4 at op 3 (#4). Executed: DVE 2 + 2 + 2 + 2
    // + 2·4 + 2 = 18, DMA 1 + 2 + 2 = 5, Act 2.
    // matmul_tiled.pir by hand: loops %m (32) › %n (4) › %k (8); ops 0 DMA %lhsT_tile
    // (256), 1 DMA %rhs_tile (1,024), 2 matmul → %res_psum (2,048, PSUM), then in %n: 3
    // copy → %res_sb (1,024), 4 DMA. %res_psum {2, 3}: loop %k does not hold op 3, so 0–3.
    // SBUF: 256, 1,280, 1,280, 1,024, 1,024 → 1,280 at #2; PSUM 2,048 from op 0 (#1).
    // Executed: DMA 2 · 1,024 + 128 = 2,176, PE 1,024, DVE 128.
    expect![[r#"
        attention_fwd.pir
        @attn_fwd_v2: PE 4 · Act 1 · DVE 9 · DMA 4 · SBUF 1.5/208.0 KiB · PSUM 0.5/16.0 KiB
          static/executed: PE 4/4, Activation 1/1, DVE 9/9, DMA 4/4
          sbuf 1540/212984 at #7 TensorScalarPtrOp (line 44); largest live: [%v_sbuf 512 (declared line 13), %qk_sbuf 512 (declared line 15), %norm 512 (declared line 17)]
          psum 512/16384 at #4 MatMulOp (line 34); largest live: [%qk 512 (declared line 14)]
        avgpool2d.pir
        @tensor_avgpool: DVE 3 · DMA 2 · SBUF 0.1/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: DVE 3/3, DMA 2/7
          sbuf 90/212984 at #2 NeuronReduceMacro (line 29); largest live: [%in_tile 72 (declared line 16), %sum_tile 18 (declared line 17)]
          psum 0/16384; largest live: []
        library_kernels.pir
        @llama_attention_cte: Unassigned 1 · SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Unassigned 1/1
          sbuf 0/212984; largest live: []
          psum 0/16384; largest live: []
        @llama_mlp_cte: Unassigned 1 · SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Unassigned 1/1
          sbuf 0/212984; largest live: []
          psum 0/16384; largest live: []
        @flash_attn_bwd: Unassigned 1 · SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Unassigned 1/1
          sbuf 0/212984; largest live: []
          psum 0/16384; largest live: []
        @qwen3_moe_router: Unassigned 1 · SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Unassigned 1/1
          sbuf 0/212984; largest live: []
          psum 0/16384; largest live: []
        @qwen3_moe_experts: Unassigned 1 · SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Unassigned 1/1
          sbuf 0/212984; largest live: []
          psum 0/16384; largest live: []
        @user_nki_call: Unassigned 1 · SBUF 0.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Unassigned 1/1
          sbuf 0/212984; largest live: []
          psum 0/16384; largest live: []
        matmul_basic.pir
        @matmul_basic: PE 1 · DVE 1 · DMA 3 · SBUF 1.1/208.0 KiB · PSUM 2.0/16.0 KiB
          static/executed: PE 1/1, DVE 1/1, DMA 3/3
          sbuf 1152/212984 at #2 DmaCopyOp (line 18); largest live: [%rhs_tile 1024 (declared line 13), %lhs_tile 128 (declared line 12)]
          psum 2048/16384 at #3 MatMulOp (line 20); largest live: [%result_psum 2048 (declared line 14)]
        matmul_tiled.pir
        @matmul_tiled: PE 1 · DVE 1 · DMA 3 · SBUF 1.2/208.0 KiB · PSUM 2.0/16.0 KiB
          static/executed: PE 1/1024, DVE 1/128, DMA 3/2176
          sbuf 1280/212984 at #2 DmaCopyOp (line 22); largest live: [%rhs_tile 1024 (declared line 17), %lhsT_tile 256 (declared line 16)]
          psum 2048/16384 at #1 DmaCopyOp (line 18); largest live: [%res_psum 2048 (declared line 14)]
        rmsnorm.pir
        @nki_rmsnorm: Act 1 · DVE 6 · DMA 3 · SBUF 12.0/208.0 KiB · PSUM <0.1/16.0 KiB
          static/executed: Activation 1/2, DVE 6/18, DMA 3/5
          sbuf 12292/212984 at #5 TensorScalarPtrOp (line 36); largest live: [%g_tile 4096 (declared line 10), %a 4096 (declared line 11), %t 4096 (declared line 12)]
          psum 4/16384 at #4 NeuronReduceMacro (line 29); largest live: [%sq_sum 4 (declared line 13)]
        tensor_add.pir
        @nki_tensor_add: DVE 1 · DMA 3 · SBUF 3.0/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: DVE 1/4, DMA 3/12
          sbuf 3072/212984 at #3 TensorTensorOp (line 24); largest live: [%a_tile 1024 (declared line 13), %b_tile 1024 (declared line 14), %c_tile 1024 (declared line 23)]
          psum 0/16384; largest live: []
        topk.pir
        @topk: Act 2 · DVE 4 · DMA 3 · SBUF 32.2/208.0 KiB · PSUM 0.0/16.0 KiB
          static/executed: Activation 2/2, DVE 4/6, DMA 3/3
          sbuf 32936/212984 at #5 SundaMaxIndex8 (line 34); largest live: [%data 32768 (declared line 10), %out_inds 80 (declared line 12), %out_vals 40 (declared line 11)]
          psum 0/16384; largest live: []
    "#]]
    .assert_eq(&out);
}

/// An edit inside one op recomputes that kernel's resources only: each kernel its own
/// chunk, the others' memoized part resources are reused.
#[test]
fn an_edit_in_one_kernel_recomputes_only_its_table() {
    let mut host = AnalysisHost::with_execution_log().with_chunk_target(64);
    let text = CAPACITY.to_string();
    let file = host.add_file(&text);
    let _ = host.snapshot().diagnostics(file).unwrap();
    let count = |host: &AnalysisHost| {
        host.take_executions()
            .iter()
            .filter(|e| e.starts_with("part_resources"))
            .count()
    };
    let chunks = host.snapshot().semantic_token_chunks(file).unwrap().len();
    assert!(chunks >= 4, "{chunks} chunks: one per kernel or more");
    assert_eq!(count(&host), chunks, "one per chunk");
    // The last kernel's %p1 copy reads %p0 in full: the peak there is unchanged, but its
    // op changed, so its kernel's resources (only) are recomputed.
    let from = "TensorCopyOp { dst = %s, src = %p1[:, 0:8192] }";
    let at = text.find(from).unwrap();
    let range = TextRange::at(TextSize::from(at as u32), TextSize::of(from));
    host.edit_file(file, range, "TensorCopyOp { dst = %s, src = %p0 }");
    let diagnostics = host.snapshot().diagnostics(file).unwrap();
    assert_eq!(count(&host), 1);
    // %p1 {2}: live at op 2 only; the peak is still 16,385 there.
    assert_eq!(
        diagnostics
            .iter()
            .filter(|d| d.code == lower::Code::P416)
            .count(),
        2
    );
}

/// The code lens of each kernel stands on its name, with the §10.1 text.
#[test]
fn code_lenses_stand_on_kernel_names() {
    let text = CAPACITY.to_string();
    let (analysis, file) = open(&text);
    let lenses: Vec<String> = analysis
        .code_lenses(file)
        .unwrap()
        .into_iter()
        .map(|l| {
            format!(
                "{} {}: {}",
                line(&text, l.range.start()),
                &text[l.range],
                l.title
            )
        })
        .collect();
    expect![[r#"
        [
            "3 @sbuf_full: DVE 1 · DMA 2 · SBUF 208.0/208.0 KiB · PSUM 0.0/16.0 KiB",
            "3 @sbuf_full: trn2 ≥ 111 µs · DVE-bound · DMA 67%",
            "12 @sbuf_over: DVE 1 · DMA 2 · SBUF 208.0/208.0 KiB (P416) · PSUM 0.0/16.0 KiB",
            "12 @sbuf_over: trn2 ≥ 111 µs · DVE-bound · DMA 67%",
            "22 @psum_full: DVE 3 · DMA 2 · SBUF 8.0/208.0 KiB · PSUM 16.0/16.0 KiB",
            "22 @psum_full: trn2 ≥ 25.6 µs · DVE-bound · DMA 23%",
            "34 @psum_over: DVE 3 · DMA 2 · SBUF 8.0/208.0 KiB · PSUM 16.0/16.0 KiB (P416)",
            "34 @psum_over: trn2 ≥ 25.6 µs · DVE-bound · DMA 23%",
        ]
    "#]]
    .assert_debug_eq(&lenses);
}

/// The kernel-name hover: the signature, then the table of static and executed counts and
/// each peak with its op.
#[test]
fn kernel_name_hover_shows_the_table() {
    let (text, offset) = test_utils::cursor(
        "kernel @<|>k(%x: hbm bf16[128, 2048], %w: hbm bf16[128, 128]) -> (%y: hbm f32[128, 512]) {
  tensor %w_sb : sbuf bf16[128, 128]
  tensor %x_sb : sbuf bf16[128, 512]
  tensor %acc  : psum f32[128, 512]
  tensor %out  : sbuf f32[128, 512]
  DmaCopyOp { dst = %w_sb, src = %w }
  for %k in 0..4 {
    DmaCopyOp { dst = %x_sb, src = %x[:, %k*512 : %k*512 + 512] }
    MatMulOp { dst = %acc, stationary = %w_sb, moving = %x_sb, is_accumulate = true }
  }
  TensorCopyOp { dst = %out, src = %acc }
  DmaCopyOp { dst = %y, src = %out }
}
",
    );
    let (analysis, file) = open(&text);
    let hover = analysis
        .hover(file, offset)
        .unwrap()
        .expect("a hover on the kernel name");
    expect![[r#"
        kernel `@k` (a BIR function)

        inputs: `%x: hbm bf16[128, 2048]`, `%w: hbm bf16[128, 128]`

        outputs: `%y: hbm f32[128, 512]`

        5 ops, 1 loop; 4 tensors declared

        | engine | static | executed |
        |:--|--:|--:|
        | PE | 1 | 4 |
        | DVE | 1 | 1 |
        | DMA | 3 | 6 |
        | total | 5 | 11 |

        **SBUF** peak 2,048 of 212,984 bytes per partition (1.0%) at op #4 `TensorCopyOp`; largest live there: `%out` 2,048

        **PSUM** peak 2,048 of 16,384 bytes per partition (12.5%) at op #2 `DmaCopyOp`; largest live there: `%acc` 2,048

        **Cost on trn2** (NeuronCore-v3; PE 2,400 MHz, Activation 1,200 MHz, DVE 960 MHz, Pool 1,200 MHz; DMA 23 B/ns × 16 queues)

        | engine | executed | busy cycles | busy | of bound |
        |:--|--:|--:|--:|--:|
        | PE | 4 | 2,048 | 853 ns | 31% |
        | DVE | 1 | 512 | 533 ns | 20% |
        | DMA | 6 | — (819,200 B) | 2.71 µs | 100% |

        Lower bound ≥ 2.71 µs (DMA-bound): a roofline bound, not a schedule

        SBUF per partition on trn2: 212,984 usable of 229,376 physical"#]]
    .assert_eq(&hover.markdown);
}

/// A tensor that alone exceeds the capacity is P304 on its declaration; the peak it makes
/// is not P416 as well (one mistake, one diagnostic), though the numbers still count it.
#[test]
fn a_tensor_over_capacity_alone_is_p304_not_p416() {
    let text = "kernel @k(%x: hbm u8[128, 212985]) {\n  tensor %t : sbuf u8[128, 212985]\n  DmaCopyOp { dst = %t, src = %x }\n}\n";
    let (analysis, file) = open(text);
    let codes: Vec<&str> = analysis
        .diagnostics(file)
        .unwrap()
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(codes, ["P304"]);
    assert_eq!(analysis.kernel_stats(file).unwrap()[0].sbuf.bytes, 212_985);
}
