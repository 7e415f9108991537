//! DmaCopyOp and TensorCopyOp (SPEC §6.6, §6.7).

use expect_test::expect;

use crate::common::check;

#[test]
fn dma_copy_hbm_to_sbuf() {
    check(
        r#"
kernel @k(%x: hbm bf16[256, 512]) {
  tensor %t : sbuf bf16[128, 512]
  for %i in 0..2 {
    DmaCopyOp { dst = %t, src = %x[%i*128 : %i*128 + 128, :] }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":2,"stride":1}
              5: DMACopy DMA I-1-0
                in src: symbolic_ap bfloat16 ap=[[512,128],[1,512]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":65536}],"c":0}] access_shape=[128,512] %x
                out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                {"mode":"Copy"}
            P421 warning:5:23 `%t`: small DMA: 1,024 bytes per partition (under 2 KiB), 2 times; the DMA guide recommends at least 2 KiB per partition and 4 KiB to saturate
        "#]],
    );
}

#[test]
fn dma_copy_element_count_mismatch() {
    check(
        r#"
kernel @k(%x: hbm bf16[256, 512]) {
  tensor %t : sbuf bf16[128, 512]
  DmaCopyOp { dst = %t, src = %x }
}
"#,
        expect![[r#"
            4: DMACopy DMA I-1-0 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[512,256],[1,512]] offset=0 %x
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
              {"mode":"Copy"}
            P305 error:4:31 `%x`: DMA Copy in/out shape must match: `src` has 131072 elements but `dst` has 65536
        "#]],
    );
}

#[test]
fn tensor_copy_start_partition_mismatch() {
    // pir-spec/3 §6.7: 0 → 32 is legal; 16 → 0 is P306 (16 is not a multiple of 32), with
    // no P307 for the access at 16.
    check(
        r#"
kernel @k() {
  tensor %a : sbuf f32[64, 16]
  tensor %b : sbuf f32[64, 16]
  MemsetOp { dst = %a, value = 0.0 }
  TensorCopyOp { dst = %b[32:64, :], src = %a[0:32, :], engine = act }
  TensorCopyOp { dst = %b[0:16, :], src = %a[16:32, :] }
}
"#,
        expect![[r#"
            5: Memset Pool I-1-0
              out dst: physical_ap float32 ap=[[16,64],[1,16]] offset=0 %a start_partition=0
              {"mode":"Const","constant":0}
            6: Activation Activation I-2-0
              in src: physical_ap float32 ap=[[16,32],[1,16]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[16,32],[1,16]] offset=0 %b start_partition=32
              {"func":"Copy","scale":1.0,"acc":"Idle","is_accumulate":false}
            7: TensorCopy DVE I-3-0 errors=["P306"]
              in src: physical_ap float32 ap=[[16,16],[1,16]] offset=0 %a start_partition=16
              out dst: physical_ap float32 ap=[[16,16],[1,16]] offset=0 %b start_partition=0
            P306 error:7:24 `%b[0:16, :]`: tensorcopy src start_partition(16) or dst start_partition(0) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%a[16:32, :]`: the src starts here
        "#]],
    );
}

#[test]
fn tensor_copy_psum_to_sbuf_casts() {
    check(
        r#"
kernel @k(%p: psum f32[64, 512]) -> (%o: sbuf bf16[64, 512]) {
  TensorCopyOp { dst = %o, src = %p }
  TensorCopyOp { dst = %o, src = %p, engine = pool }
  TensorCopyOp { dst = %o, src = %p, engine = pe }
}
"#,
        expect![[r#"
            3: TensorCopy DVE I-1-0
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %p start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %o start_partition=0
            4: TensorCopy Pool I-2-0 errors=["P301"]
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %p start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %o start_partition=0
            5: TensorCopy DVE I-3-0 errors=["P207"]
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %p start_partition=0
              out dst: physical_ap bfloat16 ap=[[512,64],[1,512]] offset=0 %o start_partition=0
            P301 error:4:34 `%p`: Pool-engine ops cannot access PSUM (`%p`)
            P207 error:5:47 `pe`: TensorCopyOp cannot run on `pe`; its engines are dve, act, pool
        "#]],
    );
}

#[test]
fn tensor_copy_element_count_mismatch() {
    check(
        r#"
kernel @k(%a: sbuf f32[64, 512]) -> (%o: sbuf f32[64, 256]) {
  TensorCopyOp { dst = %o, src = %a }
}
"#,
        expect![[r#"
            3: TensorCopy DVE I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[256,64],[1,256]] offset=0 %o start_partition=0
            P305 error:3:34 `%a`: `src` has 32768 elements but `dst` has 16384
        "#]],
    );
}

#[test]
fn dma_copy_any_partition_range() {
    // DMA is not bound by the compute engines' quadrant rule (SPEC §5).
    check(
        r#"
kernel @k(%x: hbm bf16[16, 512]) -> (%t: sbuf bf16[128, 512]) {
  DmaCopyOp { dst = %t[5:21, :], src = %x }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0
              in src: physical_ap bfloat16 ap=[[512,16],[1,512]] offset=0 %x
              out dst: physical_ap bfloat16 ap=[[512,16],[1,512]] offset=0 %t start_partition=5
              {"mode":"Copy"}
        "#]],
    );
}

#[test]
fn dma_copy_element_count_saturates() {
    // Found by fuzzing: the element count of a huge hbm tensor overflowed u64 (a panic in
    // debug builds); it saturates, and the mismatch is still one P305.
    check(
        r#"
kernel @k(%a: hbm f32[128, 4]) -> (%o: hbm f32[128, 521111111111111114]) {
  DmaCopyOp { dst = %o, src = %a }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %a
              out dst: physical_ap float32 ap=[[521111111111111114,128],[1,521111111111111114]] offset=0 %o
              {"mode":"Copy"}
            P305 error:3:31 `%a`: DMA Copy in/out shape must match: `src` has 512 elements but `dst` has 18446744073709551615
        "#]],
    );
}

#[test]
fn tensor_copy_on_act_is_identity_activation() {
    // pir-spec/2 §6.7: seed 000 §3 `generateCopyAct` lowers a copy on the Activation engine
    // as an identity `Activation` (pir-spec/1 emitted `TensorCopy` on Activation).
    check(
        r#"
kernel @k(%a: sbuf f32[64, 16]) -> (%o: sbuf bf16[64, 16]) {
  TensorCopyOp { dst = %o, src = %a, engine = act }
}
"#,
        expect![[r#"
            3: Activation Activation I-1-0
              in src: physical_ap float32 ap=[[16,64],[1,16]] offset=0 %a start_partition=0
              out dst: physical_ap bfloat16 ap=[[16,64],[1,16]] offset=0 %o start_partition=0
              {"func":"Copy","scale":1.0,"acc":"Idle","is_accumulate":false}
        "#]],
    );
}

#[test]
fn tensor_copy_p306_in_every_loop_iteration() {
    // pir-spec/2 §6.7: TensorCopyOp's start partitions are checked in every loop iteration
    // with the numbers of the first one that breaks the rule; pir-spec/3: differing starts
    // are legal when both are multiples of 32.
    check(
        r#"
kernel @k(%a: sbuf f32[128, 16]) -> (%b: sbuf f32[128, 16]) {
  for %i in 0..4 {
    TensorCopyOp { dst = %b[%i*32 : %i*32 + 32, :], src = %a[%i*32 : %i*32 + 32, :] }
    TensorCopyOp { dst = %b[%i*32 : %i*32 + 32, :], src = %a[0:32, :], engine = act }
    TensorCopyOp { dst = %b[%i*16 : %i*16 + 16, :], src = %a[0:16, :] }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":4,"stride":1}
              4: TensorCopy DVE I-1-0
                in src: symbolic_ap float32 ap=[[16,32],[1,16]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[32,16] %a start_partition=0
                out dst: symbolic_ap float32 ap=[[16,32],[1,16]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[32,16] %b start_partition=0
              5: Activation Activation I-2-0
                in src: physical_ap float32 ap=[[16,32],[1,16]] offset=0 %a start_partition=0
                out dst: symbolic_ap float32 ap=[[16,32],[1,16]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":32}],"c":0,"partition":true}] access_shape=[32,16] %b start_partition=0
                {"func":"Copy","scale":1.0,"acc":"Idle","is_accumulate":false}
              6: TensorCopy DVE I-3-0 errors=["P306"]
                in src: physical_ap float32 ap=[[16,16],[1,16]] offset=0 %a start_partition=0
                out dst: symbolic_ap float32 ap=[[16,16],[1,16]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"i","coeff":16}],"c":0,"partition":true}] access_shape=[16,16] %b start_partition=0
            P420 warning:4:59 `%a[%i*32 : %i*32 + 32, :]`: overhead-bound: TensorCopy on DVE reads 16 elements per partition (under 128), 4 times; each costs at least 64 cycles, nearly all of it fixed overhead
            P420 warning:5:59 `%a[0:32, :]`: overhead-bound: Activation on Activation reads 16 elements per partition (under 128), 4 times; each costs at least 64 cycles, nearly all of it fixed overhead
            P306 error:6:26 `%b[%i*16 : %i*16 + 16, :]`: tensorcopy src start_partition(0) or dst start_partition(16) is not multiple of partitions_per_bank (32): starts that differ must each be a multiple of 32
                related `%a[0:16, :]`: the src starts here when %i = 1
        "#]],
    );
}
