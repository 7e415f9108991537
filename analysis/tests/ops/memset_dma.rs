//! Memset, OffloadedFMA, registers, sequence bounds (SPEC §6.6).

use expect_test::expect;

use crate::common::{check, check_schema};

#[test]
fn memset_bf16_one_is_0x3f80() {
    check(
        r#"
kernel @k() -> (%o: sbuf bf16[128, 512]) {
  MemsetOp { dst = %o, value = 1.0 }
  MemsetOp { dst = %o[0:32, :], value = -2, engine = dve }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0
              out dst: physical_ap bfloat16 ap=[[512,128],[1,512]] offset=0 %o start_partition=0
              {"mode":"Const","constant":16256}
            4: Memset DVE I-2-0
              out dst: physical_ap bfloat16 ap=[[512,32],[1,512]] offset=0 %o start_partition=0
              {"mode":"Const","constant":49152}
        "#]],
    );
}

#[test]
fn memset_int_bit_patterns() {
    check(
        r#"
kernel @k() -> (%a: sbuf i16[128, 4], %b: sbuf u32[128, 4], %c: sbuf f8e4m3[128, 4]) {
  MemsetOp { dst = %a, value = -1 }
  MemsetOp { dst = %b, value = 4294967295 }
  MemsetOp { dst = %c, value = -inf }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0
              out dst: physical_ap int16 ap=[[4,128],[1,4]] offset=0 %a start_partition=0
              {"mode":"Const","constant":65535}
            4: Memset Pool I-2-0
              out dst: physical_ap uint32 ap=[[4,128],[1,4]] offset=0 %b start_partition=0
              {"mode":"Const","constant":4294967295}
            5: Memset Pool I-3-0
              out dst: physical_ap float8e4 ap=[[4,128],[1,4]] offset=0 %c start_partition=0
              {"mode":"Const","constant":248}
        "#]],
    );
}

#[test]
fn memset_value_out_of_range() {
    check(
        r#"
kernel @k() -> (%a: sbuf i8[128, 4], %b: sbuf u8[128, 4], %c: sbuf f8e4m3fn[128, 4], %d: sbuf f8e5m2x4[128, 4], %e: sbuf bf16[128, 4]) {
  MemsetOp { dst = %a, value = 200 }
  MemsetOp { dst = %b, value = 0.5 }
  MemsetOp { dst = %c, value = 1000.0 }
  MemsetOp { dst = %d, value = 1.0 }
  MemsetOp { dst = %e, value = 1e39 }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0 errors=["P412"]
              out dst: physical_ap int8 ap=[[4,128],[1,4]] offset=0 %a start_partition=0
              {"mode":"Const","constant":0}
            4: Memset Pool I-2-0 errors=["P412"]
              out dst: physical_ap uint8 ap=[[4,128],[1,4]] offset=0 %b start_partition=0
              {"mode":"Const","constant":0}
            5: Memset Pool I-3-0 errors=["P412"]
              out dst: physical_ap float8_e4m3fn ap=[[4,128],[1,4]] offset=0 %c start_partition=0
              {"mode":"Const","constant":0}
            6: Memset Pool I-4-0 errors=["P412"]
              out dst: physical_ap float8_e5m2_x4 ap=[[4,128],[1,4]] offset=0 %d start_partition=0
              {"mode":"Const","constant":0}
            7: Memset Pool I-5-0 errors=["P412"]
              out dst: physical_ap bfloat16 ap=[[4,128],[1,4]] offset=0 %e start_partition=0
              {"mode":"Const","constant":0}
            P412 error:3:32 `200`: 200 is outside i8's range -128..=127
            P412 error:4:32 `0.5`: 0.5 is not an integer, as u8 needs
            P412 error:5:32 `1000.0`: 1000 has no f8e4m3fn encoding: it does not round to a finite value (the largest is 448)
            P412 error:6:32 `1.0`: only 0 can be written into the packed dtype f8e5m2x4
            P412 error:7:32 `1e39`: 1e39 has no bf16 encoding: it does not round to a finite value (the largest is 3.3895313892515355e38)
        "#]],
    );
}

#[test]
fn memset_random_ignores_value() {
    check(
        r#"
kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o, mode = random, value = 3.0 }
  MemsetOp { dst = %o, mode = random }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %o start_partition=0
              {"mode":"Random","constant":0}
            4: Memset Pool I-2-0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %o start_partition=0
              {"mode":"Random","constant":0}
            P413 warning:3:47 `3.0`: `value` is ignored in random mode
        "#]],
    );
}

#[test]
fn memset_const_needs_value() {
    check(
        r#"
kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o }
  MemsetOp { dst = %o, mode = randon }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0 errors=["P204"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %o start_partition=0
              {"mode":"Const","constant":0}
            4: Memset Pool I-2-0 errors=["P207"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %o start_partition=0
              {"mode":"Const","constant":0}
            P204 error:3:3 `MemsetOp`: MemsetOp in const mode needs the field `value`
            P207 error:4:31 `randon`: unknown memset_mode value `randon`; did you mean `random`?
        "#]],
    );
}

#[test]
fn memset_engines() {
    check(
        r#"
kernel @k() -> (%p: psum f32[128, 4]) {
  MemsetOp { dst = %p, value = 0 }
  MemsetOp { dst = %p, value = 0, engine = dve }
  MemsetOp { dst = %p, value = 0, engine = act }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0 errors=["P301"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %p start_partition=0
              {"mode":"Const","constant":0}
            4: Memset DVE I-2-0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %p start_partition=0
              {"mode":"Const","constant":0}
            5: Memset Pool I-3-0 errors=["P207","P301"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %p start_partition=0
              {"mode":"Const","constant":0}
            P301 error:3:20 `%p`: Pool-engine ops cannot access PSUM (`%p`)
            P301 error:5:20 `%p`: Pool-engine ops cannot access PSUM (`%p`)
            P207 error:5:44 `act`: MemsetOp cannot run on `act`; its engines are dve, pool
        "#]],
    );
}

#[test]
fn offloaded_fma_is_a_cce_dma_copy() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b[64:128, :]], scales = [0.5, 2], cce_op = max }
  OffloadedFMA { dst = %o[0:64, :], srcs = [%b[0:64, :]], scales = [1.0] }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="seq"
              in srcs[1]: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %b start_partition=64 access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[0.5,2.0],"cce_op":"max"}
            4: DMACopy DMA I-2-0
              in srcs[0]: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %b start_partition=0 access="seq"
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            P305 error:3:40 `%b[64:128, :]`: DMA Copy in/out shape must match: `srcs[1]` has 32768 elements but dst has 65536
        "#]],
    );
}

#[test]
fn offloaded_fma_counts() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 256]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [0.5, 2] }
  OffloadedFMA { dst = %o, srcs = [%a], scales = [0.5, 2] }
  OffloadedFMA { dst = %o, srcs = [], scales = [] }
  OffloadedFMA { srcs = [%b], scales = [1.0], dst = %o }
  OffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], cce_op = mul }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="seq"
              in srcs[1]: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %b start_partition=0 access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[0.5,2.0],"cce_op":"add"}
            4: DMACopy DMA I-2-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[0.5,2.0],"cce_op":"add"}
            5: DMACopy DMA I-3-0 errors=["P414"]
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[],"cce_op":"add"}
            6: DMACopy DMA I-4-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[256,128],[1,256]] offset=0 %b start_partition=0 access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            7: DMACopy DMA I-5-0 errors=["P207"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            P305 error:3:40 `%b`: DMA Copy in/out shape must match: `srcs[1]` has 32768 elements but dst has 65536
            P305 error:4:50 `[0.5, 2]`: 2 scales for 1 srcs: one scale per src
            P414 error:5:35 `[]`: srcs must hold at least one access
            P305 error:6:53 `%o`: DMA Copy in/out shape must match: dst has 65536 elements but `srcs[0]` has 32768
            P207 error:7:66 `mul`: unknown cce_op value `mul`; expected one of add, max, min
        "#]],
    );
}

#[test]
fn tiled_offloaded_fma_one_copy_per_tile() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, 1.0], tiles = 2 }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,256]] offset=0 %a access="ap"
              in srcs[1]: physical_ap float32 ap=[[512,128],[1,256]] offset=0 %b start_partition=0 access="ap"
              out dst: physical_ap float32 ap=[[512,128],[1,256]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0,1.0],"cce_op":"add"}
            3: DMACopy DMA I-1-1
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,256]] offset=256 %a access="ap"
              in srcs[1]: physical_ap float32 ap=[[512,128],[1,256]] offset=256 %b start_partition=0 access="ap"
              out dst: physical_ap float32 ap=[[512,128],[1,256]] offset=256 %o access="ap"
              {"mode":"CCE","constants":[1.0,1.0],"cce_op":"add"}
            P421 warning:3:45 `%b`: small DMA: 1,024 bytes per partition (under 2 KiB), 2 times; the DMA guide recommends at least 2 KiB per partition and 4 KiB to saturate
        "#]],
    );
}

#[test]
fn tiled_offloaded_fma_tiles() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: sbuf f32[128, 4, 128]) -> (%o: hbm f32[128, 512]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 3 }
  TiledOffloadedFMA { dst = %o, srcs = [%b], scales = [1.0], tiles = 256 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 0 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0] }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="ap"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            4: DMACopy DMA I-2-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[128,4],[1,128]] offset=0 %b start_partition=0 access="ap"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            5: DMACopy DMA I-3-0 errors=["P414"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="ap"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            6: DMACopy DMA I-4-0 errors=["P204"]
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="ap"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            P305 error:3:29 `%o`: the dst's last dim (512) does not split into 3 tiles
            P305 error:4:41 `%b`: the last dim of `srcs[0]` (128) does not split into 256 tiles
            P414 error:5:70 `0`: tiles must be at least 1; got 0
            P204 error:6:3 `TiledOffloadedFMA`: TiledOffloadedFMA needs the field `tiles`
        "#]],
    );
}

#[test]
fn load_tensor_to_register() {
    check(
        r#"
kernel @k(%a: sbuf i32[1, 2]) {
  reg %r0 : i32
  reg %r1 : u32
  LoadTensorToRegister { src = %a, dst_registers = [%r0, %r1] }
}
"#,
        expect![[r#"
            5: TensorLoad ALL I-1-0
              in src: physical_ap int32 ap=[[2,1],[1,2]] offset=0 %a start_partition=0 argument=true
              {"registers":[{"name":"r0","result_index":0},{"name":"r1","result_index":1}]}
        "#]],
    );
}

#[test]
fn load_tensor_to_register_rules() {
    check(
        r#"
kernel @k(%a: hbm i32[4], %p: psum i32[1, 1]) {
  reg %r0 : i32
  reg %f : f32
  LoadTensorToRegister { src = %a, dst_registers = [%r0] }
  LoadTensorToRegister { src = %a[0:2], dst_registers = [%r0, %f] }
  LoadTensorToRegister { src = %p, dst_registers = [%r0] }
  LoadTensorToRegister { src = %a[0:1], dst_registers = [%a] }
}
"#,
        expect![[r#"
            5: TensorLoad ALL I-1-0 errors=["P305"]
              in src: physical_ap int32 ap=[[1,4]] offset=0 %a argument=true
              {"registers":[{"name":"r0","result_index":0}]}
            6: TensorLoad ALL I-2-0 errors=["P407"]
              in src: physical_ap int32 ap=[[1,2]] offset=0 %a argument=true
              {"registers":[{"name":"r0","result_index":0},{"name":"f","result_index":1}]}
            7: TensorLoad ALL I-3-0 errors=["P301"]
              {"registers":[{"name":"r0","result_index":0}]}
            8: TensorLoad ALL I-4-0 errors=["P206"]
              in src: physical_ap int32 ap=[[1,1]] offset=0 %a argument=true
              {"registers":[]}
            P305 error:5:52 `[%r0]`: src has 4 elements for 1 registers: one element per register
            P407 error:6:63 `%f`: register `%f` is f32; TensorLoad writes 32-bit integer registers (i32, u32)
            P301 error:7:32 `%p`: `%p` is in psum, but this operand must be in hbm|sbuf
            P206 error:8:58 `%a`: expected reg, found an access
        "#]],
    );
}

#[test]
fn get_sequence_bounds() {
    check(
        r#"
kernel @k(%ids: sbuf f32[1, 512]) -> (%b: sbuf f32[1, 2, 512], %c: sbuf i32[1, 1024]) {
  GetSequenceBounds { dst = %b, src = %ids }
  GetSequenceBounds { dst = %c, src = %ids, engine = dve }
}
"#,
        expect![[r#"
            3: GetSequenceBounds Pool I-1-0
              in src: physical_ap float32 ap=[[512,1],[1,512]] offset=0 %ids start_partition=0
              out dst: physical_ap float32 ap=[[1024,1],[512,2],[1,512]] offset=0 %b start_partition=0
            4: GetSequenceBounds DVE I-2-0
              in src: physical_ap float32 ap=[[512,1],[1,512]] offset=0 %ids start_partition=0
              out dst: physical_ap int32 ap=[[1024,1],[1,1024]] offset=0 %c start_partition=0
        "#]],
    );
}

#[test]
fn get_sequence_bounds_rules() {
    check(
        r#"
kernel @k(%ids: sbuf f32[2, 512], %one: sbuf bf16[1, 512]) -> (%b: sbuf f32[1, 1024], %c: sbuf f32[1, 512], %d: sbuf f32[2, 512]) {
  GetSequenceBounds { dst = %b, src = %ids }
  GetSequenceBounds { dst = %c, src = %one }
  GetSequenceBounds { dst = %d, src = %one[:, 0:256], engine = pe }
}
"#,
        expect![[r#"
            3: GetSequenceBounds Pool I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[512,2],[1,512]] offset=0 %ids start_partition=0
              out dst: physical_ap float32 ap=[[1024,1],[1,1024]] offset=0 %b start_partition=0
            4: GetSequenceBounds Pool I-2-0 errors=["P305","P407"]
              in src: physical_ap bfloat16 ap=[[512,1],[1,512]] offset=0 %one start_partition=0
              out dst: physical_ap float32 ap=[[512,1],[1,512]] offset=0 %c start_partition=0
            5: GetSequenceBounds Pool I-3-0 errors=["P207","P305","P407"]
              in src: physical_ap bfloat16 ap=[[512,1],[1,256]] offset=0 %one start_partition=0
              out dst: physical_ap float32 ap=[[512,2],[1,512]] offset=0 %d start_partition=0
            P305 error:3:39 `%ids`: the segment ids are one partition, [1, N]; src has 2
            P305 error:4:39 `%one`: dst holds a start and an end per id: 1024 elements for N = 512; it has 512
            P407 error:4:39 `%one`: `src` is bf16; sequence bounds take f32 or i32
            P305 error:5:29 `%d`: the bounds are one partition, [1, 2·N]; dst has 2
            P407 error:5:39 `%one[:, 0:256]`: `src` is bf16; sequence bounds take f32 or i32
            P207 error:5:64 `pe`: GetSequenceBounds cannot run on `pe`; its engines are pool, dve, act
        "#]],
    );
}

#[test]
fn memset_dma_bir_passes_the_schema() {
    check_schema(
        r#"
kernel @k(%a: hbm f32[128, 512], %ids: sbuf i32[1, 512]) -> (%o: hbm f32[128, 512], %s: sbuf bf16[128, 512], %b: sbuf i32[1, 1024]) {
  reg %r0 : i32
  MemsetOp { dst = %s, value = 1.0 }
  MemsetOp { dst = %s, mode = random, engine = dve }
  OffloadedFMA { dst = %o, srcs = [%a, %a], scales = [0.5, 2], cce_op = min }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 4 }
  LoadTensorToRegister { src = %ids[:, 0:1], dst_registers = [%r0] }
  GetSequenceBounds { dst = %b, src = %ids }
  DmaCopyOp { dst = %o, src = %a }
}
"#,
    );
}

#[test]
fn offloaded_fma_element_count_saturates() {
    // Found by fuzzing: `srcs` and `dst` element counts overflowed u64.
    check(
        r#"
kernel @k(%a: hbm f32[4294967296, 4294967296]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a], scales = [1.0] }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P305"]
              in srcs[0]: physical_ap float32 ap=[[4294967296,4294967296],[1,4294967296]] offset=0 %a access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            P305 error:3:36 `%a`: DMA Copy in/out shape must match: `srcs[0]` has 18446744073709551615 elements but dst has 65536
        "#]],
    );
}

#[test]
fn tiled_offloaded_fma_without_a_dst_is_one_instruction() {
    // Found by fuzzing: with no resolved operand, any `tiles` "split" every operand (there
    // were none), and `tiles = 9223372036854775807` emitted instructions forever.
    check(
        r#"
kernel @k() {
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 1000 }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P200"]
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            P200 error:3:29 `%o`: `%o` is not defined here
            P200 error:3:41 `%a`: `%a` is not defined here
        "#]],
    );
}

#[test]
fn tiled_offloaded_fma_tiles_are_capped() {
    // One DMACopy per tile: more than 65536 tiles is P414, and the op is not split.
    check(
        r#"
kernel @k(%a: hbm f32[1, 1099511627776]) -> (%o: hbm f32[1, 1099511627776]) {
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 1099511627776 }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0 errors=["P414"]
              in srcs[0]: physical_ap float32 ap=[[1099511627776,1],[1,1099511627776]] offset=0 %a access="ap"
              out dst: physical_ap float32 ap=[[1099511627776,1],[1,1099511627776]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            P414 error:3:70 `1099511627776`: tiles must be at most 65536; got 1099511627776
        "#]],
    );
}

#[test]
fn memset_values_round_first() {
    // pir-spec/2 §4 / §6.6: a value is rounded to the dtype first and is P412 only when it
    // does not round to a finite value. pir-spec/1 called every value beyond the largest
    // finite one P412 and emitted `constant: 0` (numpy's `-3.4028235e38` for f32's lowest,
    // f16's `65519`, f8e4m3's `247`, bf16's `-3.39e38`).
    check(
        r#"
kernel @k() -> (%f: sbuf f32[128, 4], %h: sbuf f16[128, 4], %e4: sbuf f8e4m3[128, 4], %b: sbuf bf16[128, 4], %fn: sbuf f8e4m3fn[128, 4], %e5: sbuf f8e5m2[128, 4], %e3: sbuf f8e3m4[128, 4]) {
  MemsetOp { dst = %f, value = -3.4028235e38 }
  MemsetOp { dst = %h, value = 65504 }
  MemsetOp { dst = %h, value = 65519 }
  MemsetOp { dst = %h, value = 65520 }
  MemsetOp { dst = %e4, value = 247 }
  MemsetOp { dst = %e4, value = -248 }
  MemsetOp { dst = %b, value = -3.39e38 }
  MemsetOp { dst = %fn, value = 463 }
  MemsetOp { dst = %fn, value = 464 }
  MemsetOp { dst = %e5, value = 61439 }
  MemsetOp { dst = %e5, value = 61440 }
  MemsetOp { dst = %e3, value = 15.74 }
  MemsetOp { dst = %e3, value = 15.75 }
  MemsetOp { dst = %f, value = 3.4028235677973366e38 }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %f start_partition=0
              {"mode":"Const","constant":4286578687}
            4: Memset Pool I-2-0
              out dst: physical_ap float16 ap=[[4,128],[1,4]] offset=0 %h start_partition=0
              {"mode":"Const","constant":31743}
            5: Memset Pool I-3-0
              out dst: physical_ap float16 ap=[[4,128],[1,4]] offset=0 %h start_partition=0
              {"mode":"Const","constant":31743}
            6: Memset Pool I-4-0 errors=["P412"]
              out dst: physical_ap float16 ap=[[4,128],[1,4]] offset=0 %h start_partition=0
              {"mode":"Const","constant":0}
            7: Memset Pool I-5-0
              out dst: physical_ap float8e4 ap=[[4,128],[1,4]] offset=0 %e4 start_partition=0
              {"mode":"Const","constant":119}
            8: Memset Pool I-6-0 errors=["P412"]
              out dst: physical_ap float8e4 ap=[[4,128],[1,4]] offset=0 %e4 start_partition=0
              {"mode":"Const","constant":0}
            9: Memset Pool I-7-0
              out dst: physical_ap bfloat16 ap=[[4,128],[1,4]] offset=0 %b start_partition=0
              {"mode":"Const","constant":65407}
            10: Memset Pool I-8-0
              out dst: physical_ap float8_e4m3fn ap=[[4,128],[1,4]] offset=0 %fn start_partition=0
              {"mode":"Const","constant":126}
            11: Memset Pool I-9-0 errors=["P412"]
              out dst: physical_ap float8_e4m3fn ap=[[4,128],[1,4]] offset=0 %fn start_partition=0
              {"mode":"Const","constant":0}
            12: Memset Pool I-10-0
              out dst: physical_ap float8e5 ap=[[4,128],[1,4]] offset=0 %e5 start_partition=0
              {"mode":"Const","constant":123}
            13: Memset Pool I-11-0 errors=["P412"]
              out dst: physical_ap float8e5 ap=[[4,128],[1,4]] offset=0 %e5 start_partition=0
              {"mode":"Const","constant":0}
            14: Memset Pool I-12-0
              out dst: physical_ap float8e3 ap=[[4,128],[1,4]] offset=0 %e3 start_partition=0
              {"mode":"Const","constant":111}
            15: Memset Pool I-13-0 errors=["P412"]
              out dst: physical_ap float8e3 ap=[[4,128],[1,4]] offset=0 %e3 start_partition=0
              {"mode":"Const","constant":0}
            16: Memset Pool I-14-0 errors=["P412"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %f start_partition=0
              {"mode":"Const","constant":0}
            P412 error:6:32 `65520`: 65520 has no f16 encoding: it does not round to a finite value (the largest is 65504)
            P412 error:8:33 `-248`: -248 has no f8e4m3 encoding: it does not round to a finite value (the largest is 240)
            P412 error:11:33 `464`: 464 has no f8e4m3fn encoding: it does not round to a finite value (the largest is 448)
            P412 error:13:33 `61440`: 61440 has no f8e5m2 encoding: it does not round to a finite value (the largest is 57344)
            P412 error:15:33 `15.75`: 15.75 has no f8e3m4 encoding: it does not round to a finite value (the largest is 15.5)
            P412 error:16:32 `3.4028235677973366e38`: 3.4028235677973366e38 has no f32 encoding: it does not round to a finite value (the largest is 3.4028234663852886e38)
        "#]],
    );
}

#[test]
fn memset_e8m0_holds_powers_of_two_only() {
    // pir-spec/2 §4: e8m0 holds 2^-127 … 2^127 only; pir-spec/1 rounded 3.0 to a power of
    // two and accepted it. pir-spec/3 §4 (decision): powers of two and `nan` (0xFF) only;
    // zero, negatives and ±inf are P412.
    check(
        r#"
kernel @k() -> (%s: sbuf e8m0[128, 4]) {
  MemsetOp { dst = %s, value = 0.25 }
  MemsetOp { dst = %s, value = 1.7014118346046923e38 }
  MemsetOp { dst = %s, value = 3.0 }
  MemsetOp { dst = %s, value = 0 }
  MemsetOp { dst = %s, value = -2.0 }
  MemsetOp { dst = %s, value = 3.402823669209385e38 }
  MemsetOp { dst = %s, value = nan }
  MemsetOp { dst = %s, value = inf }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":125}
            4: Memset Pool I-2-0
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":254}
            5: Memset Pool I-3-0 errors=["P412"]
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":0}
            6: Memset Pool I-4-0 errors=["P412"]
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":0}
            7: Memset Pool I-5-0 errors=["P412"]
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":0}
            8: Memset Pool I-6-0 errors=["P412"]
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":0}
            9: Memset Pool I-7-0
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":255}
            10: Memset Pool I-8-0 errors=["P412"]
              out dst: physical_ap float8_e8m0fnu ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":0}
            P412 error:5:32 `3.0`: 3 is not a power of two in 2^-127 … 2^127, the only values e8m0 holds
            P412 error:6:32 `0`: 0 is not a power of two in 2^-127 … 2^127, the only values e8m0 holds
            P412 error:7:32 `-2.0`: -2 is not a power of two in 2^-127 … 2^127, the only values e8m0 holds
            P412 error:8:32 `3.402823669209385e38`: 3.402823669209385e38 is not a power of two in 2^-127 … 2^127, the only values e8m0 holds
            P412 error:10:32 `inf`: inf is not a power of two in 2^-127 … 2^127, the only values e8m0 holds
        "#]],
    );
}

#[test]
fn memset_hex_literals_are_bit_patterns_into_integers() {
    // pir-spec/2 §6.6: a hex literal into an integer dtype is a bit pattern that must fit the
    // dtype's width; pir-spec/1 read `0xFFFFFFFF` as the number 4294967295, P412 in i32.
    // A negative hex literal is a signed number; into a float dtype hex is a number.
    check(
        r#"
kernel @k() -> (%i: sbuf i32[128, 4], %s: sbuf i16[128, 4], %b: sbuf i8[128, 4], %f: sbuf bf16[128, 4]) {
  MemsetOp { dst = %i, value = 0xFFFFFFFF }
  MemsetOp { dst = %i, value = -1 }
  MemsetOp { dst = %s, value = 0x1FFFF }
  MemsetOp { dst = %s, value = 0xFFFF }
  MemsetOp { dst = %b, value = -0x80 }
  MemsetOp { dst = %b, value = -0x81 }
  MemsetOp { dst = %f, value = 0x3f80 }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0
              out dst: physical_ap int32 ap=[[4,128],[1,4]] offset=0 %i start_partition=0
              {"mode":"Const","constant":4294967295}
            4: Memset Pool I-2-0
              out dst: physical_ap int32 ap=[[4,128],[1,4]] offset=0 %i start_partition=0
              {"mode":"Const","constant":4294967295}
            5: Memset Pool I-3-0 errors=["P412"]
              out dst: physical_ap int16 ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":0}
            6: Memset Pool I-4-0
              out dst: physical_ap int16 ap=[[4,128],[1,4]] offset=0 %s start_partition=0
              {"mode":"Const","constant":65535}
            7: Memset Pool I-5-0
              out dst: physical_ap int8 ap=[[4,128],[1,4]] offset=0 %b start_partition=0
              {"mode":"Const","constant":128}
            8: Memset Pool I-6-0 errors=["P412"]
              out dst: physical_ap int8 ap=[[4,128],[1,4]] offset=0 %b start_partition=0
              {"mode":"Const","constant":0}
            9: Memset Pool I-7-0
              out dst: physical_ap bfloat16 ap=[[4,128],[1,4]] offset=0 %f start_partition=0
              {"mode":"Const","constant":18046}
            P412 error:5:32 `0x1FFFF`: 0x1FFFF does not fit i16's 16 bits
            P412 error:8:32 `-0x81`: -129 is outside i8's range -128..=127
        "#]],
    );
}

#[test]
fn memset_value_rounding_to_infinity_is_p102_and_counts_as_written() {
    // pir-spec/2 §2: `1e400` is P102 (never infinity) and the field counts as written, so
    // there is no P204 "needs `value`"; pir-spec/1 emitted the bit pattern of infinity.
    check(
        r#"
kernel @k() -> (%o: sbuf f32[128, 4]) {
  MemsetOp { dst = %o, value = 1e400 }
  MemsetOp { dst = %o, value = -1e400 }
}
"#,
        expect![[r#"
            3: Memset Pool I-1-0 errors=["P102"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %o start_partition=0
              {"mode":"Const","constant":0}
            4: Memset Pool I-2-0 errors=["P102"]
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %o start_partition=0
              {"mode":"Const","constant":0}
            P102 error:3:32 `1e400`: number `1e400` rounds to infinity as an f64 (the largest is 1.7976931348623157e308; write `inf` for infinity)
            P102 error:4:33 `1e400`: number `1e400` rounds to infinity as an f64 (the largest is 1.7976931348623157e308; write `inf` for infinity)
        "#]],
    );
}

#[test]
fn offloaded_fma_non_finite_scales_and_ap_dst() {
    // pir-spec/2 §6.6: non-finite `scales` are written as `"inf"`/`"-inf"`/`"nan"`
    // (pir-spec/1 wrote `null`, which the schema rejects), and the dst is `"access": "ap"`
    // (seed 000 §7.2 `addAP(dst, isOutput=True)`; pir-spec/1 made it `"seq"`).
    check(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, nan], cce_op = max }
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [-inf, inf] }
}
"#,
        expect![[r#"
            3: DMACopy DMA I-1-0
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="seq"
              in srcs[1]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %b access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0,"nan"],"cce_op":"max"}
            4: DMACopy DMA I-2-0
              in srcs[0]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="seq"
              in srcs[1]: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %b access="seq"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="ap"
              {"mode":"CCE","constants":["-inf","inf"],"cce_op":"add"}
        "#]],
    );
    check_schema(
        r#"
kernel @k(%a: hbm f32[128, 512], %b: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [1.0, nan], cce_op = max }
  OffloadedFMA { dst = %o, srcs = [%a, %b], scales = [-inf, inf] }
}
"#,
    );
}
