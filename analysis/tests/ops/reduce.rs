//! LocalReduceOp and NeuronReduceMacro (SPEC §6.4).

use expect_test::expect;

use crate::common::check;
use crate::memset_dma::check_schema;

#[test]
fn local_reduce_lowers_to_reduce_on_pool() {
    check(
        r#"
kernel @k(%a: hbm f32[128, 512]) -> (%o: hbm f32[128, 512]) {
  LocalReduceOp { dst = %o, src = %a, op = multiply, kind = reduce_scatter, groups = [[0, 1], [2, 3]] }
}
"#,
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
        expect![[r#""#]],
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
