//! Inline assembly, dropout, iota, shuffle, no-op, tensor-tensor (SPEC §6.7).

use expect_test::expect;

use crate::common::check;
use crate::common::check_schema;

#[test]
fn inline_asm_splits_operands() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64], %b: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMInst { engine = pool, opcode = "IotaX", asm_attrs = { mode = 2, name = "x", fast = true, kind = relu }, operands = [%a, %b, %o] }
  InlineASMInst { engine = sp, opcode = "Nop" }
  InlineASMInst { engine = dma, opcode = "Copy", operands = [%a, %o], num_inputs = 0 }
}
"#,
        expect![[r#"
            3: InlineASM Pool I-1-0
              in operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %b start_partition=0
              out operands[2]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_opcode":"IotaX","asm_attrs":{"mode":2,"name":"x","fast":true,"kind":"relu"},"num_inputs":2}
            4: InlineASM SP I-2-0
              {"asm_opcode":"Nop","asm_attrs":{},"num_inputs":0}
            5: InlineASM DMA I-3-0
              out operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              out operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_opcode":"Copy","asm_attrs":{},"num_inputs":0}
        "#]],
    );
}

#[test]
fn inline_asm_rules() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMInst { engine = dve, opcode = "A", operands = [%a, %o], num_inputs = 3 }
  InlineASMInst { engine = dve, opcode = "A", operands = [%a, %o], num_inputs = -1 }
  InlineASMInst { opcode = "A", operands = [%a, %o] }
  InlineASMInst { engine = dve, operands = [%a, %o] }
  InlineASMInst { engine = gpsimd, opcode = "A" }
}
"#,
        expect![[r#"
            3: InlineASM DVE I-1-0 errors=["P305"]
              in operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_opcode":"A","asm_attrs":{},"num_inputs":2}
            4: InlineASM DVE I-2-0 errors=["P414"]
              in operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              out operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_opcode":"A","asm_attrs":{},"num_inputs":1}
            5: InlineASM DVE I-3-0 errors=["P204"]
              in operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              out operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_opcode":"A","asm_attrs":{},"num_inputs":1}
            6: InlineASM DVE I-4-0 errors=["P204"]
              in operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              out operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_attrs":{},"num_inputs":1}
            7: InlineASM DVE I-5-0 errors=["P207"]
              {"asm_opcode":"A","asm_attrs":{},"num_inputs":0}
            P305 error:3:81 `3`: num_inputs is 3 but there are 2 operands
            P414 error:4:81 `-1`: num_inputs is a count; got -1
            P204 error:5:3 `InlineASMInst`: InlineASMInst needs the field `engine`
            P204 error:6:3 `InlineASMInst`: InlineASMInst needs the field `opcode`
            P207 error:7:28 `gpsimd`: unknown engine value `gpsimd`; expected one of pe, act, dve, pool, sp, dma
        "#]],
    );
}

#[test]
fn inline_asm_bytes() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  InlineASMBytesInst { engine = act, asm_bytes = x"DE AD be ef", sync_type = sequencer, latency_estimate = 12, operands = [%a, %o] }
  InlineASMBytesInst { engine = act, asm_bytes = x"", sync_type = dma, latency_estimate = -1 }
  InlineASMBytesInst { engine = act, asm_bytes = x"00", sync_type = datapath, latency_estimate = 1 }
}
"#,
        expect![[r#"
            3: InlineASMBytes Activation I-1-0
              in operands[0]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              out operands[1]: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"asm_bytes":"deadbeef","sync_type":"SequencerType","latency_estimate":12,"num_inputs":1}
            4: InlineASMBytes Activation I-2-0 errors=["P414"]
              {"asm_bytes":"","sync_type":"DMAType","latency_estimate":0,"num_inputs":0}
            5: InlineASMBytes Activation I-3-0 errors=["P207"]
              {"asm_bytes":"00","sync_type":"DataPathType","latency_estimate":1,"num_inputs":0}
            P414 error:4:50 `x""`: asm_bytes is empty
            P414 error:4:91 `-1`: latency_estimate is a number of cycles (≥ 0); got -1
            P207 error:5:69 `datapath`: unknown sync_type value `datapath`; did you mean `data_path`?
        "#]],
    );
}

#[test]
fn dropout() {
    check(
        r#"
kernel @k(%a: sbuf bf16[128, 64]) -> (%o: sbuf bf16[128, 64], %p: sbuf bf16[128, 32]) {
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.9 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 1 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.0 }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 1.5 }
  DropoutMaskInst { dst = %p, src = %a, keep_rate = 0.5 }
}
"#,
        expect![[r#"
            3: Dropout DVE I-1-0
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=0.9
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":true}
            4: Dropout DVE I-2-0
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=1.0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":true}
            5: Dropout DVE I-3-0 errors=["P414"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=0.0
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":true}
            6: Dropout DVE I-4-0 errors=["P414"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=1.5
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":true}
            7: Dropout DVE I-5-0 errors=["P305"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=0.5
              out dst: physical_ap bfloat16 ap=[[32,128],[1,32]] offset=0 %p start_partition=0
              {"is_keep_threshold":true}
            P414 error:5:53 `0.0`: keep_rate is a probability in (0, 1]; got 0
            P414 error:6:53 `1.5`: keep_rate is a probability in (0, 1]; got 1.5
            P305 error:7:37 `%a`: `dst` has 128 partitions × 32 elements but `src` has 128 × 64
        "#]],
    );
}

#[test]
fn iota() {
    check(
        r#"
kernel @k() -> (%a: sbuf i32[128, 64], %b: sbuf f32[128, 2, 32]) {
  IndexValueInst { dst = %a, channel_multiplier = 64 }
  IndexValueInst { dst = %b, base = -5, step = 2 }
}
"#,
        expect![[r#"
            3: Iota Pool I-1-0
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              {"base":0,"pattern":[{"step":1,"num":64}],"channel_multiplier":64}
            4: Iota Pool I-2-0
              out dst: physical_ap float32 ap=[[64,128],[32,2],[1,32]] offset=0 %b start_partition=0
              {"base":-5,"pattern":[{"step":2,"num":64}],"channel_multiplier":0}
        "#]],
    );
}

#[test]
fn iota_range_and_memory() {
    check(
        r#"
kernel @k() -> (%u: sbuf u8[128, 64], %v: sbuf u8[1, 512], %p: psum i32[128, 4], %h: sbuf bf16[128, 4]) {
  IndexValueInst { dst = %u, base = 300 }
  IndexValueInst { dst = %u, step = -1 }
  IndexValueInst { dst = %u, channel_multiplier = 64 }
  IndexValueInst { dst = %v }
  IndexValueInst { dst = %p }
  IndexValueInst { dst = %h, base = 1e6 }
}
"#,
        expect![[r#"
            3: Iota Pool I-1-0 errors=["P412"]
              out dst: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u start_partition=0
              {"base":300,"pattern":[{"step":1,"num":64}],"channel_multiplier":0}
            4: Iota Pool I-2-0 errors=["P412"]
              out dst: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u start_partition=0
              {"base":0,"pattern":[{"step":-1,"num":64}],"channel_multiplier":0}
            5: Iota Pool I-3-0 errors=["P412"]
              out dst: physical_ap uint8 ap=[[64,128],[1,64]] offset=0 %u start_partition=0
              {"base":0,"pattern":[{"step":1,"num":64}],"channel_multiplier":64}
            6: Iota Pool I-4-0 errors=["P412"]
              out dst: physical_ap uint8 ap=[[512,1],[1,512]] offset=0 %v start_partition=0
              {"base":0,"pattern":[{"step":1,"num":512}],"channel_multiplier":0}
            7: Iota Pool I-5-0 errors=["P301"]
              {"base":0,"pattern":[{"step":1,"num":1}],"channel_multiplier":0}
            8: Iota Pool I-6-0 errors=["P206"]
              out dst: physical_ap bfloat16 ap=[[4,128],[1,4]] offset=0 %h start_partition=0
              {"pattern":[{"step":1,"num":4}],"channel_multiplier":0}
            P412 error:3:37 `300`: iota reaches 300, outside u8's range (base 300, step 1, channel_multiplier 0 over [128, 64])
            P412 error:4:37 `-1`: iota reaches -63, outside u8's range (base 0, step -1, channel_multiplier 0 over [128, 64])
            P412 error:5:3 `IndexValueInst`: iota reaches 8191, outside u8's range (base 0, step 1, channel_multiplier 64 over [128, 64])
            P412 error:6:3 `IndexValueInst`: iota reaches 511, outside u8's range (base 0, step 1, channel_multiplier 0 over [1, 512])
            P301 error:7:26 `%p`: `%p` is in psum, but this operand must be in sbuf
            P206 error:8:37 `1e6`: expected int, found a float
        "#]],
    );
}

#[test]
fn stream_shuffle_broadcast() {
    // rmsnorm.pir: one partition broadcast to each quadrant.
    check(
        r#"
kernel @k(%g: sbuf bf16[1, 2048]) -> (%b: sbuf bf16[128, 2048]) {
  for %j in 0..4 {
    StreamShuffleInst {
      dst = %b[%j*32 : %j*32 + 32, :]
      src = %g[0:1, :]
      shuffle_mask = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    }
  }
}
"#,
        expect![[r#"
            L-j {"name":"j","lb":0,"ub":4,"stride":1}
              4: StreamShuffle DVE I-1-0
                in src: physical_ap bfloat16 ap=[[2048,1],[1,2048]] offset=0 %g start_partition=0
                out dst: symbolic_ap bfloat16 ap=[[2048,32],[1,2048]] addrs=[{"kind":"AffExprKind","terms":[],"c":0},{"kind":"AffExprKind","terms":[{"axis":"j","coeff":32}],"c":0,"partition":true}] access_shape=[32,2048] %b start_partition=0
                {"mask":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}
        "#]],
    );
}

#[test]
fn stream_shuffle_rules() {
    check(
        r#"
kernel @k(%s: sbuf bf16[128, 64], %f: sbuf f32[32, 64]) -> (%d: sbuf bf16[128, 64]) {
  StreamShuffleInst { dst = %d[0:32, :], src = %s[32:64, :], shuffle_mask = [31, 30, 29, 255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 32] }
  StreamShuffleInst { dst = %d[0:32, :], src = %s[0:32, :], shuffle_mask = [0, 1, 2] }
  StreamShuffleInst { dst = %d[0:64, :], src = %s[0:32, :], shuffle_mask = [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255] }
  StreamShuffleInst { dst = %d[0:32, :], src = %f, shuffle_mask = [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255] }
}
"#,
        expect![[r#"
            3: StreamShuffle DVE I-1-0 errors=["P414"]
              in src: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %s start_partition=32
              out dst: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %d start_partition=0
              {"mask":[31,30,29,255,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,32]}
            4: StreamShuffle DVE I-2-0 errors=["P414"]
              in src: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %d start_partition=0
              {"mask":[0,1,2]}
            5: StreamShuffle DVE I-3-0 errors=["P414"]
              in src: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,64],[1,64]] offset=0 %d start_partition=0
              {"mask":[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255]}
            6: StreamShuffle DVE I-4-0 errors=["P305"]
              in src: physical_ap float32 ap=[[64,32],[1,64]] offset=0 %f start_partition=0
              out dst: physical_ap bfloat16 ap=[[64,32],[1,64]] offset=0 %d start_partition=0
              {"mask":[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255]}
            P414 error:3:193 `32`: mask entry 32 is neither 255 (unchanged) nor a src partition (0..32)
            P414 error:4:76 `[0, 1, 2]`: shuffle_mask has one entry per lane of a quadrant: 32, not 3
            P414 error:5:29 `%d[0:64, :]`: a stream shuffle stays inside one 32-partition quadrant; `dst` spans 64 partitions
            P305 error:6:48 `%f`: a shuffle moves whole partitions: src is f32 × 64 per partition, dst bf16 × 64
        "#]],
    );
}

#[test]
fn no_op_emits_nothing() {
    check(
        r#"
kernel @k() {
  NoOp {}
  NoOp { engine = dve }
}
"#,
        expect![[r#"
            P203 error:4:10 `engine`: NoOp has no field `engine`
        "#]],
    );
}

#[test]
fn tensor_tensor() {
    check(
        r#"
kernel @k(%a: sbuf f16[128, 512], %b: sbuf f16[128, 512]) -> (%c: sbuf f16[128, 512]) {
  TensorTensorOp { dst = %c, src0 = %a, src1 = %b, op = add }
  TensorTensorOp { dst = %c[0:32, :], src0 = %a[32:64, :], src1 = %b[64:96, :], op = multiply, engine = pool }
}
"#,
        expect![[r#"
            3: TensorTensor DVE I-1-0
              in src0: physical_ap float16 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              in src1: physical_ap float16 ap=[[512,128],[1,512]] offset=0 %b start_partition=0
              out dst: physical_ap float16 ap=[[512,128],[1,512]] offset=0 %c start_partition=0
              {"op":"add","acc":"Idle"}
            4: TensorTensor Pool I-2-0
              in src0: physical_ap float16 ap=[[512,32],[1,512]] offset=0 %a start_partition=32
              in src1: physical_ap float16 ap=[[512,32],[1,512]] offset=0 %b start_partition=64
              out dst: physical_ap float16 ap=[[512,32],[1,512]] offset=0 %c start_partition=0
              {"op":"mult","acc":"Idle"}
        "#]],
    );
}

#[test]
fn tensor_tensor_rules() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 512], %p: psum f32[128, 512], %q: psum f32[128, 512]) -> (%c: sbuf f32[128, 512]) {
  TensorTensorOp { dst = %c, src0 = %p, src1 = %q, op = add }
  TensorTensorOp { dst = %c, src0 = %a, src1 = %p, op = add, engine = pool }
  TensorTensorOp { dst = %c, src0 = %a[:, 0:256], src1 = %a, op = subtract }
  TensorTensorOp { dst = %c[0:64, :], src0 = %a, src1 = %a, op = max }
  TensorTensorOp { dst = %c, src0 = %a, src1 = %a }
}
"#,
        expect![[r#"
            3: TensorTensor DVE I-1-0 errors=["P301"]
              in src0: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %p start_partition=0
              in src1: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %q start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %c start_partition=0
              {"op":"add","acc":"Idle"}
            4: TensorTensor Pool I-2-0 errors=["P301"]
              in src0: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %p start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %c start_partition=0
              {"op":"add","acc":"Idle"}
            5: TensorTensor DVE I-3-0 errors=["P305"]
              in src0: physical_ap float32 ap=[[512,128],[1,256]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %c start_partition=0
              {"op":"subtract","acc":"Idle"}
            6: TensorTensor DVE I-4-0 errors=["P305"]
              in src0: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[512,64],[1,512]] offset=0 %c start_partition=0
              {"op":"max","acc":"Idle"}
            7: TensorTensor DVE I-5-0 errors=["P204"]
              in src0: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              in src1: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %c start_partition=0
              {"acc":"Idle"}
            P301 error:3:48 `%q`: src0 and src1 cannot both be in PSUM
            P301 error:4:48 `%p`: Pool-engine ops cannot access PSUM (`%p`)
            P305 error:5:37 `%a[:, 0:256]`: `src0` has 128 partitions × 256 elements but `dst` has 128 × 512
            P305 error:6:46 `%a`: `src0` has 128 partitions × 512 elements but `dst` has 64 × 512
            P204 error:7:3 `TensorTensorOp`: TensorTensorOp needs the field `op`
        "#]],
    );
}

#[test]
fn misc_bir_passes_the_schema() {
    check_schema(
        r#"
kernel @k(%a: sbuf f32[128, 64], %g: sbuf f32[1, 64]) -> (%o: sbuf f32[128, 64], %i: sbuf i32[128, 64]) {
  InlineASMInst { engine = pool, opcode = "X", asm_attrs = { k = 1 }, operands = [%a, %o] }
  InlineASMBytesInst { engine = dve, asm_bytes = x"0102", sync_type = data_path, latency_estimate = 3, operands = [%a, %o] }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.5 }
  IndexValueInst { dst = %i, base = 1, step = 2, channel_multiplier = 64 }
  StreamShuffleInst { dst = %o[0:32, :], src = %g, shuffle_mask = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }
  NoOp {}
  TensorTensorOp { dst = %o, src0 = %a, src1 = %o, op = multiply }
  TensorCopyOp { dst = %o, src = %a }
}
"#,
    );
}

#[test]
fn extreme_values_are_diagnosed_not_panics() {
    check(
        r#"
kernel @k(%a: sbuf i32[128, 64], %v: sbuf f32[128, 8]) -> (%o: hbm i32[128, 64], %d: sbuf f32[128, 64]) {
  IndexValueInst { dst = %a, base = 9223372036854775807, step = -9223372036854775807, channel_multiplier = 9223372036854775807 }
  TiledOffloadedFMA { dst = %o, srcs = [%a], scales = [1.0], tiles = 9223372036854775807 }
  SundaMatchReplace8 { dst = %d, src = %d, vals = %v, imm = nan }
  MemsetOp { dst = %a, value = -9223372036854775807 }
  NeuronReduceMacro { dst = %d, src = %d, op = add, reduce_axes = [-9223372036854775807, 9223372036854775807] }
  InlineASMInst { engine = dve, opcode = "x", operands = [%a], num_inputs = 9223372036854775807 }
  LocalReduceOp { dst = %o, src = %a, op = add, groups = [[]] }
  DropoutMaskInst { dst = %d, src = %d, keep_rate = nan }
}
"#,
        expect![[r#"
            3: Iota Pool I-1-0 errors=["P412"]
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              {"base":9223372036854775807,"pattern":[{"step":-9223372036854775807,"num":64}],"channel_multiplier":9223372036854775807}
            4: DMACopy DMA I-2-0 errors=["P414"]
              in srcs[0]: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0 access="ap"
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %o access="ap"
              {"mode":"CCE","constants":[1.0],"cce_op":"add"}
            5: MatchReplace DVE I-3-0 IT90
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in vals: physical_ap float32 ap=[[8,128],[1,8]] offset=0 %v start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"imm_value":"nan"}
            6: Memset Pool I-4-0 errors=["P412"]
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              {"mode":"Const","constant":0}
            7: TensorReduce DVE I-5-0 errors=["P414"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[-9223372036854775807,9223372036854775807],"is_first_reduce":true}
            7: TensorReduce DVE I-5-1 errors=["P414"]
              in dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[-9223372036854775807,9223372036854775807],"is_first_reduce":false}
            8: InlineASM DVE I-6-0 errors=["P305"]
              in operands[0]: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              {"asm_opcode":"x","asm_attrs":{},"num_inputs":1}
            9: Reduce Pool I-7-0
              in src: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0 access="nd_dma"
              out dst: physical_ap int32 ap=[[64,128],[1,64]] offset=0 %o access="nd_dma"
              {"op":"add","kind":"all_reduce","replica_groups":[[]],"local":true}
            10: Dropout DVE I-8-0 errors=["P414"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              in keep_rate: imm_value float32 value="nan"
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %d start_partition=0
              {"is_keep_threshold":true}
            P412 error:3:65 `-9223372036854775807`: iota reaches 9223372036854775807, outside i32's range (base 9223372036854775807, step -9223372036854775807, channel_multiplier 9223372036854775807 over [128, 64])
            P414 error:4:70 `9223372036854775807`: tiles must be at most 65536; got 9223372036854775807
            P412 error:6:32 `-9223372036854775807`: -9.223372036854776e18 is outside i32's range -2147483648..=2147483647
            P414 error:7:68 `-9223372036854775807`: axis -9223372036854775807 is not a free dim of the rank-2 src access (1 to 1)
            P414 error:7:90 `9223372036854775807`: axis 9223372036854775807 is not a free dim of the rank-2 src access (1 to 1)
            P305 error:8:77 `9223372036854775807`: num_inputs is 9223372036854775807 but there are 1 operands
            P414 error:10:53 `nan`: keep_rate is a probability in (0, 1]; got nan
        "#]],
    );
}

#[test]
fn unknown_fields_are_capped() {
    let fields = (0..150)
        .map(|k| format!("f{k} = 1"))
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!("kernel @k() {{\n  NoOp {{ {fields} }}\n}}\n");
    let rendered = crate::common::render(&text);
    assert_eq!(rendered.matches("P203").count(), 101, "{rendered}");
    assert!(
        rendered.contains("50 more unknown or repeated fields of NoOp are not reported"),
        "{rendered}"
    );
}

#[test]
fn iota_float_range_rounds_first() {
    // pir-spec/2 §4 / §7: Iota's range in a float dtype is "rounds to a finite value"
    // (f8e4m3 holds 0…247 after rounding; pir-spec/1 stopped at 240), and P412 sits on
    // `step` when written and non-zero, else on `base` when written, else on the class name
    // (pir-spec/1 blamed the field whose contribution left the range, or the dst).
    check(
        r#"
kernel @k() -> (%a: sbuf f8e4m3[1, 248], %b: sbuf f8e4m3[1, 249], %c: sbuf f8e4m3[128, 1]) {
  IndexValueInst { dst = %a }
  IndexValueInst { dst = %b, step = 1 }
  IndexValueInst { dst = %c, base = 0, step = 0, channel_multiplier = 2 }
  IndexValueInst { dst = %c, channel_multiplier = 2 }
}
"#,
        expect![[r#"
            3: Iota Pool I-1-0
              out dst: physical_ap float8e4 ap=[[248,1],[1,248]] offset=0 %a start_partition=0
              {"base":0,"pattern":[{"step":1,"num":248}],"channel_multiplier":0}
            4: Iota Pool I-2-0 errors=["P412"]
              out dst: physical_ap float8e4 ap=[[249,1],[1,249]] offset=0 %b start_partition=0
              {"base":0,"pattern":[{"step":1,"num":249}],"channel_multiplier":0}
            5: Iota Pool I-3-0 errors=["P412"]
              out dst: physical_ap float8e4 ap=[[1,128],[1,1]] offset=0 %c start_partition=0
              {"base":0,"pattern":[{"step":0,"num":1}],"channel_multiplier":2}
            6: Iota Pool I-4-0 errors=["P412"]
              out dst: physical_ap float8e4 ap=[[1,128],[1,1]] offset=0 %c start_partition=0
              {"base":0,"pattern":[{"step":1,"num":1}],"channel_multiplier":2}
            P412 error:4:37 `1`: iota reaches 248, outside f8e4m3's range (base 0, step 1, channel_multiplier 0 over [1, 249])
            P412 error:5:37 `0`: iota reaches 254, outside f8e4m3's range (base 0, step 0, channel_multiplier 2 over [128, 1])
            P412 error:6:3 `IndexValueInst`: iota reaches 254, outside f8e4m3's range (base 0, step 1, channel_multiplier 2 over [128, 1])
        "#]],
    );
}

#[test]
fn dropout_is_keep_rate() {
    // pir-spec/2 §6.7: `is_keep_rate` (default true) → `is_keep_threshold`: false means the
    // rate is the probability of dropping an element; pir-spec/1 had no such field (P203)
    // and always wrote `true`.
    check(
        r#"
kernel @k(%a: sbuf bf16[128, 64]) -> (%o: sbuf bf16[128, 64]) {
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.1, is_keep_rate = false }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.9, is_keep_rate = true }
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.9, is_keep_rate = 1 }
}
"#,
        expect![[r#"
            3: Dropout DVE I-1-0
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=0.1
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":false}
            4: Dropout DVE I-2-0
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=0.9
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":true}
            5: Dropout DVE I-3-0 errors=["P206"]
              in src: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %a start_partition=0
              in keep_rate: imm_value float32 value=0.9
              out dst: physical_ap bfloat16 ap=[[64,128],[1,64]] offset=0 %o start_partition=0
              {"is_keep_threshold":true}
            P206 error:5:73 `1`: expected bool, found an integer
        "#]],
    );
    check_schema(
        r#"
kernel @k(%a: sbuf bf16[128, 64]) -> (%o: sbuf bf16[128, 64]) {
  DropoutMaskInst { dst = %o, src = %a, keep_rate = 0.1, is_keep_rate = false }
}
"#,
    );
}

#[test]
fn stream_shuffle_stepped_partitions_are_p415() {
    // pir-spec/2 §6.7: a `src` or `dst` whose partition slice has a step other than 1 is
    // P415 `Mask pattern only support 1 step multiplier` on that operand (seed 000 §2.3);
    // pir-spec/1 accepted it.
    check(
        r#"
kernel @k(%s: sbuf bf16[128, 64]) -> (%d: sbuf bf16[128, 64]) {
  StreamShuffleInst { dst = %d[0:32:2, :], src = %s[0:16, :], shuffle_mask = [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255] }
  StreamShuffleInst { dst = %d[0:16, :], src = %s[32:64:2, :], shuffle_mask = [255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255] }
}
"#,
        expect![[r#"
            3: StreamShuffle DVE I-1-0 errors=["P415"]
              in src: physical_ap bfloat16 ap=[[64,16],[1,64]] offset=0 %s start_partition=0
              out dst: physical_ap bfloat16 ap=[[128,16],[1,64]] offset=0 %d start_partition=0
              {"mask":[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255]}
            4: StreamShuffle DVE I-2-0 errors=["P415"]
              in src: physical_ap bfloat16 ap=[[128,16],[1,64]] offset=0 %s start_partition=32
              out dst: physical_ap bfloat16 ap=[[64,16],[1,64]] offset=0 %d start_partition=0
              {"mask":[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255]}
            P415 error:3:29 `%d[0:32:2, :]`: Mask pattern only support 1 step multiplier
            P415 error:4:48 `%s[32:64:2, :]`: Mask pattern only support 1 step multiplier
        "#]],
    );
}
