//! Parser snapshots (SPEC §3): the grammar on valid input. Each snapshot is the tree in a
//! source-like form (see `common::render`), expressions fully parenthesised, then errors.

mod common;

use expect_test::{Expect, expect};

fn check(text: &str, expected: Expect) {
    expected.assert_eq(&common::render(text));
}

#[test]
fn empty_and_comment_only_files() {
    check("", expect![[""]]);
    check("// nothing\n\n  // here\n", expect![[""]]);
}

#[test]
fn multi_line_signature() {
    check(
        "kernel @k(%a: hbm f32[128, 64],\n          %b: sbuf bf16[1])\n    -> (%o: hbm f32[1],\n        %p: psum f32[2, 2]) {\n}\nkernel @empty() {}\n",
        expect![[r#"
            kernel @k (%a: hbm f32[128, 64], %b: sbuf bf16[1]) -> (%o: hbm f32[1], %p: psum f32[2, 2]) 0..115
            kernel @empty () -> () 116..134
        "#]],
    );
}

#[test]
fn declarations_and_loops() {
    check(
        "kernel @k() {\n  tensor %t : sbuf bf16[128, 512]\n  reg %r : i32\n  tensor %u : reg i32[1]\n  for %i in 0..4 step 2 {\n    for %j in %i..(%i + 2) * 3 {\n      tensor %inner : psum f32[1]\n    }\n  }\n  for %k in -1..0x10 { }\n}",
        expect![[r#"
            kernel @k () -> () 0..217
              tensor %t : sbuf bf16[128, 512] 16..47
              reg %r : i32 50..62
              tensor %u : reg i32[1] 65..87
              for %i in 0..4 step 2 90..190
                for %j in %i..([(%i + 2)] * 3) 118..186
                  tensor %inner : psum f32[1] 153..180
              for %k in (-1)..16 193..215
        "#]],
    );
}

#[test]
fn ops_ids_and_literals() {
    check(
        "kernel @k() {\n  Op { a = 1, b = -1, c = 1.5, d = -inf, e = nan, f = 0x3f80, g = 1_000, h = 1e-6 }\n  Op #12 { s = \"relu\\n\", x = x\"de ad be ef\", t = true, u = false, id = exp }\n  Empty {}\n  Spaced #3\n  {\n    a = 1\n  }\n}",
        expect![[r#"
            kernel @k () -> () 0..217
              Op {a = 1, b = -1, c = 1.5, d = -inf, e = NaN, f = 0x3f80, g = 1000, h = 1e-6} 16..97
              Op #12 {s = "relu\n", x = x[de, ad, be, ef], t = true, u = false, id = exp} 100..174
              Empty {} 177..185
              Spaced #3 {a = 1} 188..215
        "#]],
    );
}

#[test]
fn keywords_as_field_names() {
    check(
        "kernel @k() { Op { step = 1, in = 2, for = 3, kernel = 4, tensor = 5, true = 6, false = 7, reg = 8 } }",
        expect![[r#"
            kernel @k () -> () 0..102
              Op {step = 1, in = 2, for = 3, kernel = 4, tensor = 5, true = 6, false = 7, reg = 8} 14..100
        "#]],
    );
}

#[test]
fn comma_and_newline_separators() {
    check(
        "kernel @k() {\n  Op {\n\n    // leading comment\n    a = 1,\n    ,\n    b = 2\n\n    c = 3, d = 4,\n    // trailing comment\n  }\n  Op { , a = 1 ,, b = 2 , }\n  Op {\n  }\n}",
        expect![[r#"
            kernel @k () -> () 0..159
              Op {a = 1, b = 2, c = 3, d = 4} 16..118
              Op {a = 1, b = 2} 121..146
              Op {} 149..157
        "#]],
    );
}

#[test]
fn accesses() {
    check(
        "kernel @k() { Op { a = %t, b = %t[%i, 1:2, :, ::2, 0:4:2, :8, 3:], c = %x[%i*128 : %i*128 + 128, :], d = %y[-%i + 3] } }",
        expect![[r#"
            kernel @k () -> () 0..120
              Op {a = %t, b = %t[%i, 1:2, :, ::2, 0:4:2, :8, 3:], c = %x[(%i * 128):((%i * 128) + 128), :], d = %y[((-%i) + 3)]} 14..118
        "#]],
    );
}

#[test]
fn expressions_associate_and_nest() {
    check(
        "kernel @k() { for %i in 1 - 2 - 3..2 * 3 * 4 + -5 * -(6 - %j) { } }",
        expect![[r#"
            kernel @k () -> () 0..67
              for %i in ((1 - 2) - 3)..(((2 * 3) * 4) + ((-5) * (-[(6 - %j)]))) 14..65
        "#]],
    );
}

#[test]
fn records_lists_and_calls() {
    check(
        "kernel @k() {\n  Op {\n    attrs = { act_fn = \"softmax\", k = \"8\" }\n    nested = [[1, 2], [], [3,], [{a = [1]}]]\n    multi = {x = 1\n             y = [1, {z = 2}]\n    }\n    srcs = [full(%a), subtensor(%b[0:1]), tile(%c), opaque(%d), f()]\n  }\n}",
        expect![[r#"
            kernel @k () -> () 0..239
              Op {attrs = {act_fn = "softmax", k = "8"}, nested = [[1, 2], [], [3], [{a = [1]}]], multi = {x = 1, y = [1, {z = 2}]}, srcs = [full(%a), subtensor(%b[0:1]), tile(%c), opaque(%d), f()]} 16..237
        "#]],
    );
}

#[test]
fn predicates() {
    check(
        "kernel @k() { Op { predicates = [$0 >= 3, $1 - $0 + 2 < 0, 2 * $0 <= $1, $0 == 1, $1 != 0, $0 > -1], p = %i > 0 } }",
        expect![[r#"
            kernel @k () -> () 0..115
              Op {predicates = [$0 >= 3, (($1 - $0) + 2) < 0, (2 * $0) <= $1, $0 == 1, $1 != 0, $0 > (-1)], p = %i > 0} 14..113
        "#]],
    );
}

#[test]
fn newlines_inside_brackets_are_whitespace() {
    check(
        "kernel @k() {\n  Op {\n    l = [1,\n         2]\n    a = %t[0:4,\n           :]\n    c = f(%a,\n          %b)\n  }\n}",
        expect![[r#"
            kernel @k () -> () 0..108
              Op {l = [1, 2], a = %t[0:4, :], c = f(%a, %b)} 16..106
        "#]],
    );
}
