//! Parsing never panics, keeps every range inside the text, and stays fast and shallow on
//! pathological input (long lines, deep nesting, floods of garbage).

mod common;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use syntax::{Parse, TextRange};

/// The invariants of any parse of `text`.
fn check_invariants(text: &str, parse: &Parse) {
    let len = text.len();
    let ok = |r: TextRange| {
        usize::from(r.end()) <= len
            && text.is_char_boundary(r.start().into())
            && text.is_char_boundary(r.end().into())
    };
    assert!(parse.errors.len() <= 101, "{} errors", parse.errors.len());
    for w in parse.errors.windows(2) {
        assert!(
            w[0].range.start() <= w[1].range.start(),
            "errors out of order: {w:?}"
        );
    }
    for e in &parse.errors {
        assert!(
            ok(e.range),
            "error range {e:?} outside {len} bytes or off a char boundary"
        );
        assert!(
            !e.range.is_empty() || usize::from(e.range.end()) == len,
            "empty error range: {e:?}"
        );
        assert!(!e.message.is_empty() && !e.message.ends_with('.'), "{e:?}");
    }
    for r in common::all_ranges(&parse.file) {
        assert!(
            ok(r),
            "node range {r:?} outside {len} bytes or off a char boundary"
        );
    }
}

/// Token-like pieces, so that random input reaches deep into the grammar.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "kernel",
        "@k",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "%a",
        "%t",
        ":",
        ",",
        "=",
        "->",
        "..",
        "hbm",
        "sbuf",
        "f32",
        "128",
        "0x1f",
        "-",
        "+",
        "*",
        ">=",
        "<",
        "==",
        "!=",
        "$0",
        "#3",
        "tensor",
        "reg",
        "for",
        "in",
        "step",
        "Op",
        "dst",
        "1.5",
        "-inf",
        "nan",
        "\"s\"",
        "x\"ab\"",
        "true",
        "\n",
        "\n",
        " ",
        " ",
        "// c\n",
        "?",
        "\"open",
        "\u{FFFD}",
        "é",
        "1e-6",
        "99999999999999999999",
        "\t",
    ])
}

proptest! {
    // 256 cases each by default (`PROPTEST_CASES` overrides); no regression files.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        let parse = syntax::parse(&text);
        check_invariants(&text, &parse);
    }

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let (text, bad) = syntax::decode(&bytes);
        for r in &bad {
            prop_assert_eq!(&text[*r], "\u{FFFD}");
        }
        let parse = syntax::parse(&text);
        check_invariants(&text, &parse);
        let (same_text, parse) = syntax::parse_bytes(&bytes);
        prop_assert_eq!(&same_text, &text);
        check_invariants(&text, &parse);
        // Every invalid run is reported (unless past the error cap).
        if parse.errors.len() <= 100 {
            for r in &bad {
                prop_assert!(parse.errors.iter().any(|e| e.code == syntax::SyntaxErrorCode::P103 && e.range.contains_range(*r)));
            }
        }
    }

    #[test]
    fn token_soup(pieces in prop::collection::vec(piece(), 0..300)) {
        let text = pieces.join(" ");
        let parse = syntax::parse(&text);
        check_invariants(&text, &parse);
        let (tokens, _) = syntax::lex(&text);
        for w in tokens.windows(2) {
            prop_assert!(w[0].1.end() <= w[1].1.start());
        }
    }

    #[test]
    fn corrupted_corpus_file(cut in 0usize..1400, junk in piece()) {
        let base = include_str!("../../tests/corpus/rmsnorm.pir");
        let mut cut = cut.min(base.len());
        while !base.is_char_boundary(cut) {
            cut -= 1;
        }
        let text = format!("{}{junk}{}", &base[..cut], &base[cut..]);
        let parse = syntax::parse(&text);
        check_invariants(&text, &parse);
        // An inserted piece never costs the kernel, unless it swallowed `kernel @name`
        // (`%a` glued to `kernel`, an unterminated string before it).
        let (tokens, _) = syntax::lex(&text);
        let has_header = tokens.windows(2).any(|w| {
            w[0].0 == syntax::Token::Kernel && w[1].0 == syntax::Token::Global
        });
        prop_assert!(!has_header || !parse.file.kernels.is_empty());
    }
}

/// Runs `f` on a thread with a small stack: a stack overflow aborts the test binary. Debug
/// builds use about 30 KiB of stack per nesting level of the parser, release builds about
/// 3 KiB; the nesting limit (32) keeps both well within these sizes, whereas the inputs
/// below would need gigabytes without it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let size = if cfg!(debug_assertions) {
        2 << 20
    } else {
        512 << 10
    };
    std::thread::Builder::new()
        .stack_size(size)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn parse_timed(text: String) -> (Parse, Duration) {
    on_small_stack(move || {
        let start = Instant::now();
        let parse = syntax::parse(&text);
        check_invariants(&text, &parse);
        (parse, start.elapsed())
    })
}

#[test]
fn deep_nesting_is_cut_off() {
    let n = 100_000;
    for text in [
        "[".repeat(n),
        "(".repeat(n),
        "{".repeat(n),
        format!("kernel @k() {{ Op {{ a = {} }} }}", "[(".repeat(n / 2)),
        format!(
            "kernel @k() {{ Op {{ a = {}1{} }} }}",
            "[".repeat(n),
            "]".repeat(n)
        ),
        format!(
            "kernel @k() {{ Op {{ a = {}1{} }} }}",
            "{a = ".repeat(n),
            "}".repeat(n)
        ),
        format!("kernel @k() {{ Op {{ a = %t[{}1] }} }}", "(".repeat(n)),
        format!("kernel @k() {{ {} }}", "for %i in 0..1 {".repeat(n)),
    ] {
        let (parse, elapsed) = parse_timed(text);
        // A guard against the quadratic scan coming back (minutes), not a speed claim.
        assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
        assert!(
            parse
                .errors
                .iter()
                .any(|e| e.message.starts_with("nesting too deep"))
        );
    }
}

#[test]
fn long_operator_chains_are_cut_off() {
    let n = 100_000;
    for text in [
        format!("kernel @k() {{ Op {{ a = {}1 }} }}", "- ".repeat(n)),
        format!("kernel @k() {{ Op {{ a = {}1 >= 0 }} }}", "1 + ".repeat(n)),
        format!("kernel @k() {{ Op {{ a = %t[{}1] }} }}", "2 * ".repeat(n)),
    ] {
        let (parse, elapsed) = parse_timed(text);
        // A guard against the quadratic scan coming back (minutes), not a speed claim.
        assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
        assert_eq!(parse.errors.len(), 1, "{:?}", parse.errors);
        assert!(parse.errors[0].message.starts_with("expression too deep"));
    }
}

#[test]
fn a_megabyte_line() {
    let text = format!(
        "kernel @k() {{ {}}}",
        "Op { a = [1, 2], b = %t[0:4] } ".repeat(33_000)
    );
    assert!(text.len() > 1_000_000 && !text.contains('\n'));
    let (parse, elapsed) = parse_timed(text);
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(parse.errors.is_empty());
    assert_eq!(parse.file.kernels[0].body.len(), 33_000);
}

/// Found by a newcomer's trial: `x` typed before `kernel` on a 10 MB one-line kernel took
/// 96 s to diagnose, every token of the junk run reading back to its line's start; and
/// 100,000 loops on one line took 34 s, each loop header's indentation read back likewise.
/// Both now read back over the indentation only, or through line starts found once.
#[test]
fn long_lines_of_junk_and_of_loops_parse_in_linear_time() {
    let ops = "TensorCopyOp { dst = %t, src = %t } ".repeat(290_000);
    let head = "kernel @k(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) { tensor %t : sbuf f32[128, 128] ";
    let junk = format!("x{head}{ops}}}\n");
    assert!(junk.len() > 10_000_000);
    let (parse, elapsed) = parse_timed(junk);
    // A guard against the quadratic scan coming back (minutes), not a speed claim.
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert_eq!(parse.errors.len(), 1, "{:?}", parse.errors);
    assert!(
        parse.errors[0].message.contains("found `xkernel`"),
        "{:?}",
        parse.errors
    );
    let loops = "for %i in 0..2 { TensorCopyOp { dst = %t, src = %x } } ".repeat(100_000);
    let (parse, elapsed) = parse_timed(format!("{head}{loops}}}\n"));
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(parse.errors.is_empty(), "{:?}", parse.errors);
    assert_eq!(parse.file.kernels[0].body.len(), 100_001);
}

#[test]
fn a_megabyte_of_garbage_gives_few_diagnostics() {
    // Deterministic pseudo-random bytes, decoded as a file would be.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..1_000_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let start = Instant::now();
    let (text, parse) = syntax::parse_bytes(&bytes);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    check_invariants(&text, &parse);
    let (parse, elapsed) = parse_timed(text);
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert_eq!(parse.errors.len(), 101);
    assert!(
        parse.errors[100]
            .message
            .starts_with("too many syntax errors")
    );
}

/// Found by `arbitrary_bytes`: invalid UTF-8 inside a bytes literal was hidden by the
/// literal's own P102 at the same offset.
#[test]
fn invalid_utf8_inside_a_bytes_literal_is_reported() {
    let (_, parse) = syntax::parse_bytes(&[b'x', b'"', 0x80, b'"']);
    assert!(
        parse
            .errors
            .iter()
            .any(|e| e.code == syntax::SyntaxErrorCode::P103),
        "{:?}",
        parse.errors
    );
}

#[test]
fn many_unclosed_parentheses_parse_in_linear_time() {
    // Found by fuzzing: the recovery of each `(` that does not parse scanned for its `)` to
    // the end of the file (chumsky's `nested_delimiters`), so 3,000 of them took ~13 s in
    // release. The scan now stops at `kernel @k`, where the layout closes every bracket.
    let text = "kernel @k() {\n  NoOp { a = ( ".repeat(3_000);
    let (parse, elapsed) = parse_timed(text.clone());
    // A guard against the quadratic scan coming back (minutes), not a speed claim.
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    check_invariants(&text, &parse);
    assert_eq!(parse.file.kernels.len(), 3_000);
    assert_eq!(parse.errors.len(), 101);
}

/// SPEC §1 allows LF and CRLF; a file with lone CRs gets one P103 (an editor would show
/// the code after a CR in a comment on a line of its own, while the lexer reads it as
/// comment).
#[test]
fn lone_carriage_returns_are_one_error() {
    let parse = syntax::parse("kernel @k() {\r  NoOp {} // a\r  NoOp {}\r}\r\n");
    let p103: Vec<_> = parse
        .errors
        .iter()
        .filter(|e| e.code == syntax::SyntaxErrorCode::P103)
        .collect();
    assert_eq!(p103.len(), 1, "{:?}", parse.errors);
    assert!(p103[0].message.contains("3 in the file"), "{:?}", p103[0]);
    assert!(syntax::parse("kernel @k() {\r\n}\r\n").errors.is_empty());
}
