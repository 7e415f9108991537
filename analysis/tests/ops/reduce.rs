//! LocalReduceOp and NeuronReduceMacro (SPEC §6.4).

use expect_test::expect;

use crate::common::check;
use crate::common::check_schema;

#[test]
fn local_reduce_lowers_to_reduce_on_pool() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  LocalReduceOp { dst = %o, src = %a, op = multiply, kind = reduce_scatter, groups = [[0, 1], [2, 3]] }
}
"#,
        expect![[r#"
            3: Reduce Pool I-1-0
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="nd_dma"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="nd_dma"
              {"op":"mult","kind":"reduce_scatter","replica_groups":[[0,1],[2,3]],"local":true}
        "#]],
    );
}

#[test]
fn local_reduce_defaults() {
    check(
        r#"
kernel @k(%a: sbuf f32[128, 64]) -> (%o: sbuf f32[128, 64]) {
  LocalReduceOp { dst = %o, src = %a, op = add }
}
"#,
        expect![[r#"
            3: Reduce Pool I-1-0
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %a start_partition=0 access="nd_dma"
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %o start_partition=0 access="nd_dma"
              {"op":"add","kind":"all_reduce","replica_groups":[[0]],"local":true}
        "#]],
    );
}

#[test]
fn local_reduce_negative_replica_id() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  LocalReduceOp { dst = %o, src = %a, op = max, groups = [[0, -1]] }
}
"#,
        expect![[r#"
            3: Reduce Pool I-1-0 errors=["P414"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a access="nd_dma"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="nd_dma"
              {"op":"max","kind":"all_reduce","replica_groups":[[0,-1]],"local":true}
            P414 error:3:63 `-1`: replica id -1 is negative
        "#]],
    );
}

#[test]
fn local_reduce_runs_on_pool_so_not_in_psum() {
    check(
        r#"
kernel @k(%a: psum f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  LocalReduceOp { dst = %o, src = %a, op = add, kind = all_gater }
}
"#,
        expect![[r#"
            3: Reduce Pool I-1-0 errors=["P207","P301"]
              in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %a start_partition=0 access="nd_dma"
              out dst: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %o access="nd_dma"
              {"op":"add","kind":"all_reduce","replica_groups":[[0]],"local":true}
            P301 error:3:35 `%a`: Pool-engine ops cannot access PSUM (`%a`)
            P207 error:3:56 `all_gater`: unknown reduce_kind value `all_gater`; did you mean `all_gather`?
        "#]],
    );
}

#[test]
fn reduce_macro_two_axes_is_a_chain() {
    // avgpool2d: the pool axes are the trailing free dims; the reduced dims are dropped.
    check(
        r#"
kernel @k(%in: sbuf bf16[2, 3, 3, 2, 2]) -> (%out: sbuf bf16[2, 3, 3]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [3, 4] }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0
              in src: physical_ap bfloat16 ap=[[36,2],[12,3],[4,3],[2,2],[1,2]] offset=0 %in start_partition=0
              out dst: physical_ap bfloat16 ap=[[9,2],[3,3],[1,3]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[3,4],"is_first_reduce":true}
            3: TensorReduce DVE I-1-1
              in dst: physical_ap bfloat16 ap=[[9,2],[3,3],[1,3]] offset=0 %out start_partition=0
              out dst: physical_ap bfloat16 ap=[[9,2],[3,3],[1,3]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[3,4],"is_first_reduce":false}
            P420 warning:3:41 `%in`: overhead-bound: TensorReduce on DVE reads 36 elements per partition (under 128), 2 times; each costs at least 64 cycles, nearly all of it fixed overhead
        "#]],
    );
}

#[test]
fn reduce_macro_keeps_reduced_dims_as_one_and_strips_f32r() {
    check(
        r#"
kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: psum f32r[128, 4, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = max, reduce_axes = [2] }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[4,128],[1,4],[1,1]] offset=0 %out start_partition=0
              {"op":"max","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[2],"is_first_reduce":true}
        "#]],
    );
}

#[test]
fn reduce_macro_in_a_loop_into_a_column() {
    check(
        r#"
kernel @k(%t: sbuf f32[128, 512]) -> (%m: sbuf f32[128, 4]) {
  for %i in 0..4 {
    NeuronReduceMacro { dst = %m[:, %i : %i + 1], src = %t, op = max, reduce_axes = [1] }
  }
}
"#,
        expect![[r#"
            L-i {"name":"i","lb":0,"ub":4,"stride":1}
              4: TensorReduce DVE I-1-0
                in src: physical_ap float32 ap=[[512,128],[1,512]] offset=0 %t start_partition=0
                out dst: symbolic_ap float32 ap=[[4,128],[1,1]] addrs=[{"kind":"AffExprKind","terms":[{"axis":"i","coeff":1}],"c":0}] access_shape=[128,1] %m start_partition=0
                {"op":"max","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[1],"is_first_reduce":true}
        "#]],
    );
}

#[test]
fn reduce_axes_partition_dim() {
    check(
        r#"
kernel @k(%in: sbuf f32[128, 64]) -> (%out: sbuf f32[1, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [0, 1] }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0 errors=["P414"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[1,1],[1,1]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[0,1],"is_first_reduce":true}
            3: TensorReduce DVE I-1-1 errors=["P414"]
              in dst: physical_ap float32 ap=[[1,1],[1,1]] offset=0 %out start_partition=0
              out dst: physical_ap float32 ap=[[1,1],[1,1]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[0,1],"is_first_reduce":false}
            P414 error:3:71 `0`: axis 0 is the partition dim, which a TensorReduce cannot reduce
        "#]],
    );
}

#[test]
fn reduce_axes_not_trailing() {
    check(
        r#"
kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: sbuf f32[128, 64]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [1] }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0 errors=["P414"]
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[1],"is_first_reduce":true}
            P414 error:3:70 `[1]`: reduce axes must be the trailing free dims of the rank-3 src access; 1 of them are [2]
        "#]],
    );
}

#[test]
fn reduce_axes_duplicate_and_out_of_range() {
    check(
        r#"
kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: sbuf f32[128, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [2, 2] }
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [3] }
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [] }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0 errors=["P414"]
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[2,2],"is_first_reduce":true}
            3: TensorReduce DVE I-1-1 errors=["P414"]
              in dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %out start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[2,2],"is_first_reduce":false}
            4: TensorReduce DVE I-2-0 errors=["P414"]
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[3],"is_first_reduce":true}
            5: TensorReduce DVE I-3-0 errors=["P414"]
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[],"is_first_reduce":true}
            P414 error:3:74 `2`: axis 2 is listed twice
            P414 error:4:71 `3`: axis 3 is not a free dim of the rank-3 src access (1 to 2)
            P414 error:5:70 `[]`: reduce_axes must name at least one axis
        "#]],
    );
}

#[test]
fn reduce_dst_elements_mismatch() {
    check(
        r#"
kernel @k(%in: sbuf f32[128, 4, 64]) -> (%out: sbuf f32[128, 2], %o2: sbuf f32[64, 4]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [2] }
  NeuronReduceMacro { src = %in, op = add, reduce_axes = [2], dst = %o2 }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[2,128],[1,2]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[2],"is_first_reduce":true}
            4: TensorReduce DVE I-2-0 errors=["P305"]
              in src: physical_ap float32 ap=[[256,128],[64,4],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[4,64],[1,4]] offset=0 %o2 start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[2],"is_first_reduce":true}
            P305 error:3:41 `%in`: reducing axes [2] of the src [128, 4, 64] leaves 128 partitions × 4 elements; dst has 128 × 2
            P305 error:4:69 `%o2`: reducing axes [2] of the src [128, 4, 64] leaves 128 partitions × 4 elements; dst has 64 × 4
        "#]],
    );
}

#[test]
fn reduce_macro_missing_axes_still_lowers() {
    check(
        r#"
kernel @k(%in: sbuf f32[128, 64]) -> (%out: sbuf f32[128, 1]) {
  NeuronReduceMacro { dst = %out, src = %in, op = sum }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0 errors=["P204","P207"]
              in src: physical_ap float32 ap=[[64,128],[1,64]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[1,128],[1,1]] offset=0 %out start_partition=0
              {"axis":"X","negate":false,"apply_transpose":false,"is_first_reduce":true}
            P204 error:3:3 `NeuronReduceMacro`: NeuronReduceMacro needs the field `reduce_axes`
            P207 error:3:51 `sum`: unknown alu value `sum`; expected one of these 21:
            bypass, add, subtract, multiply, divide, max, min, pow, abs_max, is_equal, not_equal, is_gt, is_ge, is_lt, is_le, bitwise_and, bitwise_or, bitwise_xor, logical_and, logical_or, rsqrt
        "#]],
    );
}

#[test]
fn reduce_bir_passes_the_schema() {
    check_schema(
        r#"
kernel @k(%a: hbm f32[128, 512], %in: sbuf bf16[2, 3, 3, 2, 2]) -> (%o: hbm f32[128, 512], %out: sbuf bf16[2, 3, 3]) {
  LocalReduceOp { dst = %o, src = %a, op = add, groups = [[0, 1]] }
  NeuronReduceMacro { dst = %out, src = %in, op = multiply, reduce_axes = [3, 4] }
}
"#,
    );
}

#[test]
fn reduce_macro_kept_size_saturates() {
    // The product of the kept src dims overflowed u64.
    check(
        r#"
kernel @k(%in: sbuf f32[128, 4294967296, 4294967296, 2]) -> (%out: sbuf f32[128, 4]) {
  NeuronReduceMacro { dst = %out, src = %in, op = add, reduce_axes = [3] }
}
"#,
        expect![[r#"
            3: TensorReduce DVE I-1-0 errors=["P305"]
              in src: physical_ap float32 ap=[[9223372036854775807,128],[8589934592,4294967296],[2,4294967296],[1,2]] offset=0 %in start_partition=0
              out dst: physical_ap float32 ap=[[4,128],[1,4]] offset=0 %out start_partition=0
              {"op":"add","axis":"X","negate":false,"apply_transpose":false,"reduce_axes":[3],"is_first_reduce":true}
            P304 error:2:16 `sbuf f32[128, 4294967296, 4294967296, 2]`: Allocated memory out of bound: `%in` needs 18446744073709551615 bytes per partition; sbuf has 212984
            P305 error:3:41 `%in`: reducing axes [3] of the src [128, 4294967296, 4294967296, 2] leaves 128 partitions × 18446744073709551615 elements; dst has 128 × 4
        "#]],
    );
}
