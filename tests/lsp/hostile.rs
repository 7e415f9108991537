//! Issue 23: hostile documents and clients — loop bounds near 2^63, a panic on the document
//! thread, changes the framework cannot decode, `shutdown` and `exit` back to back, huge
//! answers, a client that stops reading.

use std::time::Duration;

use serde_json::{Value, json};

use super::SMALL;
use super::support::{Server, uri};

/// A kernel whose one loop is `0..ub step step`, reading `%x[:, %i : %i + 1]`.
fn loop_kernel(ub: &str, step: &str) -> String {
    format!(
        "kernel @k(%x: hbm f32[128, 4]) -> (%y: hbm f32[128, 4]) {{\n  tensor %t : sbuf f32[128, 1]\n  for %i in 0..{ub} step {step} {{\n    DmaCopyOp {{ dst = %t, src = %x[:, %i : %i + 1] }}\n  }}\n  DmaCopyOp {{ dst = %y, src = %x }}\n}}\n"
    )
}

/// `0..i64::MAX step i64::MAX` (one iteration, `%i = 0`) overflowed the trip count in
/// `i64`: in a debug build the document thread panicked while analysing the open, and the
/// server answered nothing about any document from then on. Now it is a loop of one
/// iteration, in bounds.
#[test]
fn a_loop_to_i64_max_step_i64_max_is_one_iteration() {
    let mut server = Server::start(&["utf-16"], json!({}));
    server.timeout = Duration::from_secs(30);
    let u = uri("max-loop.pir");
    let max = i64::MAX.to_string();
    server.open(&u, &loop_kernel(&max, &max));
    let diagnostics = server.diagnostics(&u, 1);
    assert_eq!(diagnostics, Vec::<Value>::new());
    // The op in the loop is lowered and hovered as any other. (The hover of `%i` itself
    // still overflows in `analysis/src/ide/hover.rs`, caught as an internal error: its own
    // `(ub - lb + step - 1) / step`, which should be `trip_count()`.)
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": {"line": 3, "character": 6}}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|h| h.contains("DMACopy")),
        "{hover}"
    );
    // And the server goes on serving other documents.
    let v = uri("after.pir");
    server.open(&v, SMALL);
    assert_eq!(server.diagnostics(&v, 1), Vec::<Value>::new());
    assert!(server.shutdown_and_exit().success());
}

/// `0..i64::MAX step 2^62` runs twice, `%i = 0` and `%i = 2^62`; the second reads far past
/// the tensor's 4 columns (P300). The trip count wrapped to -1 in `i64` (release) and the
/// last iteration came out as `i64::MIN`, so the access was never out of bounds.
#[test]
fn loop_bounds_near_two_to_the_63_still_find_p300() {
    let mut server = Server::start(&["utf-16"], json!({}));
    server.timeout = Duration::from_secs(30);
    let u = uri("near-max.pir");
    server.open(
        &u,
        &loop_kernel(&i64::MAX.to_string(), &(1i64 << 62).to_string()),
    );
    let diagnostics = server.diagnostics(&u, 1);
    let codes: Vec<&Value> = diagnostics.iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("P300")], "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["range"]["start"]["line"], 3,
        "{diagnostics:#?}"
    );
    assert!(server.shutdown_and_exit().success());
}
