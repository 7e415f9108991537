//! Lexer snapshots (SPEC §2): every token kind, literals, and lexical errors (P100–P103).

use expect_test::{Expect, expect};

/// One token per line: kind, range, text; then the errors.
fn check(text: &str, expected: Expect) {
    let (tokens, errors) = syntax::lex(text);
    let mut out = String::new();
    for (kind, range) in tokens {
        out.push_str(&format!("{kind:?} {range:?} {:?}\n", &text[range]));
    }
    for e in errors {
        out.push_str(&format!(
            "{} {:?} {}\n",
            e.code.as_str(),
            e.range,
            e.message
        ));
    }
    expected.assert_eq(&out);
}

#[test]
fn every_token_kind() {
    check(
        "kernel tensor for in step true false reg x_1 %acc @k #12 $0 7 1.5 \"s\" x\"0a\" // c\n{ } [ ] ( ) , : = .. -> + - * >= > <= < == != ?",
        expect![[r##"
            Kernel 0..6 "kernel"
            Tensor 7..13 "tensor"
            For 14..17 "for"
            In 18..20 "in"
            Step 21..25 "step"
            True 26..30 "true"
            False 31..36 "false"
            Ident 37..40 "reg"
            Ident 41..44 "x_1"
            Local 45..49 "%acc"
            Global 50..52 "@k"
            OpId 53..56 "#12"
            DimVar 57..59 "$0"
            Int 60..61 "7"
            Float 62..65 "1.5"
            Str 66..69 "\"s\""
            Bytes 70..75 "x\"0a\""
            Comment 76..80 "// c"
            Newline 80..81 "\n"
            LBrace 81..82 "{"
            RBrace 83..84 "}"
            LBracket 85..86 "["
            RBracket 87..88 "]"
            LParen 89..90 "("
            RParen 91..92 ")"
            Comma 93..94 ","
            Colon 95..96 ":"
            Eq 97..98 "="
            DotDot 99..101 ".."
            Arrow 102..104 "->"
            Plus 105..106 "+"
            Minus 107..108 "-"
            Star 109..110 "*"
            Ge 111..113 ">="
            Gt 114..115 ">"
            Le 116..118 "<="
            Lt 119..120 "<"
            EqEq 121..123 "=="
            Ne 124..126 "!="
            Error 127..128 "?"
            P103 127..128 unknown character `?`
        "##]],
    );
}

#[test]
fn floats_and_ranges() {
    check(
        "0..2 1.0 1e-6 2E+3 1e5 1.5e-3 1_000.5 0.5..1",
        expect![[r#"
        Int 0..1 "0"
        DotDot 1..3 ".."
        Int 3..4 "2"
        Float 5..8 "1.0"
        Float 9..13 "1e-6"
        Float 14..18 "2E+3"
        Float 19..22 "1e5"
        Float 23..29 "1.5e-3"
        Float 30..37 "1_000.5"
        Float 38..41 "0.5"
        DotDot 41..43 ".."
        Int 43..44 "1"
    "#]],
    );
}

#[test]
fn inf_and_nan_are_floats() {
    check(
        "-inf inf nan infinity nan_x",
        expect![[r#"
        Minus 0..1 "-"
        Float 1..4 "inf"
        Float 5..8 "inf"
        Float 9..12 "nan"
        Ident 13..21 "infinity"
        Ident 22..27 "nan_x"
    "#]],
    );
}

#[test]
fn integers() {
    check(
        "0x3f80 0XFF 1_000 0x_ff 9223372036854775807",
        expect![[r#"
        Int 0..6 "0x3f80"
        Int 7..11 "0XFF"
        Int 12..17 "1_000"
        Int 18..23 "0x_ff"
        Int 24..43 "9223372036854775807"
    "#]],
    );
}

#[test]
fn malformed_numbers_are_p102() {
    check(
        "9223372036854775808 12ab 0x 0xg1 1.5ee-6 #99999999999 $4294967296",
        expect![[r##"
        Int 0..19 "9223372036854775808"
        Int 20..24 "12ab"
        Int 25..27 "0x"
        Int 28..32 "0xg1"
        Int 33..40 "1.5ee-6"
        OpId 41..53 "#99999999999"
        DimVar 54..65 "$4294967296"
        P102 0..19 integer out of range `9223372036854775808`
        P102 20..24 malformed number `12ab`
        P102 25..27 malformed number `0x`
        P102 28..32 malformed number `0xg1`
        P102 33..40 malformed number `1.5ee-6`
        P102 41..53 malformed number `#99999999999`
        P102 54..65 malformed number `$4294967296`
    "##]],
    );
}

#[test]
fn strings_and_escapes() {
    check(
        r#""a\"b\\c\nd\te\u{41}" "bad \q escape" "\u{110000}""#,
        expect![[r#"
        Str 0..21 "\"a\\\"b\\\\c\\nd\\te\\u{41}\""
        Str 22..37 "\"bad \\q escape\""
        Str 38..50 "\"\\u{110000}\""
        P100 27..29 expected an escape (`\"`, `\\`, `\n`, `\t` or `\u{…}`), found `\q`
        P100 39..49 expected an escape (`\"`, `\\`, `\n`, `\t` or `\u{…}`), found `\u{110000}`
    "#]],
    );
}

#[test]
fn unterminated_string_is_p101() {
    check(
        "a = \"abc\nb = \"x\\",
        expect![[r#"
        Ident 0..1 "a"
        Eq 2..3 "="
        Str 4..8 "\"abc"
        Newline 8..9 "\n"
        Ident 9..10 "b"
        Eq 11..12 "="
        Str 13..16 "\"x\\"
        P101 4..8 unterminated string: expected `"` before the end of the line
        P101 13..16 unterminated string: expected `"` before the end of the line
    "#]],
    );
}

#[test]
fn bytes_literals() {
    check(
        r#"x"de ad be ef" x"" x"abc" x"zz" x"12"#,
        expect![[r#"
        Bytes 0..14 "x\"de ad be ef\""
        Bytes 15..18 "x\"\""
        Bytes 19..25 "x\"abc\""
        Bytes 26..31 "x\"zz\""
        Bytes 32..36 "x\"12"
        P102 19..25 malformed bytes literal: odd number of hex digits
        P102 28..29 malformed bytes literal: `z` is not a hex digit
        P101 32..36 unterminated bytes literal: expected `"` before the end of the line
    "#]],
    );
}

#[test]
fn unknown_character_runs_are_one_p103_each() {
    check(
        "a ?? ^^ ~ b\n! c % @ # $",
        expect![[r#"
        Ident 0..1 "a"
        Error 2..9 "?? ^^ ~"
        Ident 10..11 "b"
        Newline 11..12 "\n"
        Error 12..13 "!"
        Ident 14..15 "c"
        Error 16..23 "% @ # $"
        P103 2..9 unknown characters `?? ^^ ~`
        P103 12..13 unknown character `!`
        P103 16..23 unknown characters `% @ # $`
    "#]],
    );
}

#[test]
fn invalid_utf8_outside_comments_and_strings() {
    let (text, bad) = syntax::decode(b"a \xff\xfe b // \xff\n\"\xff\"");
    assert_eq!(bad.len(), 3);
    check(
        &text,
        expect![[r#"
        Ident 0..1 "a"
        Error 2..5 "�"
        Ident 6..7 "b"
        Comment 8..14 "// �"
        Newline 14..15 "\n"
        Str 15..20 "\"�\""
        P103 2..5 invalid UTF-8
    "#]],
    );
}

#[test]
fn crlf_and_bom() {
    check(
        "\u{FEFF}a // c\r\nb\r\n",
        expect![[r#"
            Ident 3..4 "a"
            Comment 5..9 "// c"
            Newline 9..11 "\r\n"
            Ident 11..12 "b"
            Newline 12..14 "\r\n"
        "#]],
    );
}

#[test]
fn a_string_left_open_at_a_crlf_line_end_stops_before_the_cr() {
    // Like a comment, the unterminated literal ends before the `\r` of a CRLF line end, so
    // that its P101 stays on its line (an LSP position past the end of the line otherwise).
    check(
        "\"ab\r\nx\"0a\r\n",
        expect![[r#"
            Str 0..3 "\"ab"
            Newline 3..5 "\r\n"
            Bytes 5..9 "x\"0a"
            Newline 9..11 "\r\n"
            P101 0..3 unterminated string: expected `"` before the end of the line
            P101 5..9 unterminated bytes literal: expected `"` before the end of the line
        "#]],
    );
}

#[test]
fn a_megabyte_of_garbage_is_one_error() {
    let text = "?! ".repeat(350_000);
    let (tokens, errors) = syntax::lex(&text);
    assert_eq!(tokens.len(), 1);
    assert_eq!(errors.len(), 1);
}

#[test]
fn float_rounding_to_infinity_is_p102() {
    // pir-spec/2 §2: a literal that rounds to infinity as an f64 is P102; pir-spec/1 read
    // `1e400` as infinity. f64's largest, written either way, is fine.
    check(
        "1e400 -1.0e309 1.7976931348623158e308 1.7976931348623157e308 inf",
        expect![[r#"
            Float 0..5 "1e400"
            Minus 6..7 "-"
            Float 7..14 "1.0e309"
            Float 15..37 "1.7976931348623158e308"
            Float 38..60 "1.7976931348623157e308"
            Float 61..64 "inf"
            P102 0..5 number `1e400` rounds to infinity as an f64 (the largest is 1.7976931348623157e308; write `inf` for infinity)
            P102 7..14 number `1.0e309` rounds to infinity as an f64 (the largest is 1.7976931348623157e308; write `inf` for infinity)
        "#]],
    );
}
