//! The command line through the real binary (SPEC §9): exit codes, the JSON report's
//! shape and positions, bad bytes, `fmt`, and `stats` (SPEC §10.1).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn pir() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pir"))
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pir-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

fn check_json(path: &PathBuf) -> (i32, Value) {
    let out = pir()
        .args(["check", "--format", "json"])
        .arg(path)
        .output()
        .expect("runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    (out.status.code().unwrap_or(-1), report)
}

#[test]
fn json_report_has_one_based_scalar_columns() {
    // `é` and `😀` are one column each (Unicode scalar values).
    let path = temp(
        "cols.pir",
        "// é😀\nkernel @k() {\n  é NoOp {}\n}\n".as_bytes(),
    );
    let (code, report) = check_json(&path);
    assert_eq!(code, 1);
    let d = &report["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "P103");
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 3, "column": 3})
    );
    assert_eq!(d["severity"], "error");
}

#[test]
fn invalid_utf8_is_one_p103_per_run() {
    let path = temp(
        "bad.pir",
        b"// ok \xff\xfe here\nkernel @k() { \xc0\xc1 NoOp {} }\n",
    );
    let (_, report) = check_json(&path);
    let p103: Vec<&Value> = report["files"][0]["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "P103")
        .collect();
    assert_eq!(p103.len(), 2, "{report}");
}

#[test]
fn garbage_bytes_give_a_bounded_report() {
    let bytes: Vec<u8> = (0..300_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let path = temp("garbage.pir", &bytes);
    let (code, report) = check_json(&path);
    assert_eq!(code, 1);
    let n = report["files"][0]["diagnostics"]
        .as_array()
        .map_or(0, Vec::len);
    assert!((1..=250).contains(&n), "{n} diagnostics");
    let lower = pir().arg("lower").arg(&path).output().expect("runs");
    assert_eq!(lower.status.code(), Some(1));
    assert!(serde_json::from_slice::<Value>(&lower.stdout).is_ok());
}

#[test]
fn exit_codes() {
    let clean = temp("clean.pir", b"kernel @k(%x: hbm f32[4]) {\n  NoOp {}\n}\n");
    assert_eq!(
        pir()
            .arg("check")
            .arg(&clean)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(0)
    );
    let missing = std::env::temp_dir().join("pir-definitely-missing.pir");
    assert_eq!(
        pir()
            .arg("check")
            .arg(&missing)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        pir()
            .arg("frobnicate")
            .output()
            .expect("runs")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        pir().arg("check").output().expect("runs").status.code(),
        Some(2)
    );
    let out = temp("out.json", b"");
    assert_eq!(
        pir()
            .arg("lower")
            .arg(&clean)
            .arg("-o")
            .arg(&out)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(0)
    );
    let bir: Value = serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("JSON");
    assert_eq!(bir["functions"][0]["name"], "k");
    // `-o` naming the input file is refused, and the file is left as it was.
    let before = std::fs::read(&clean).expect("reads");
    let over = pir()
        .arg("lower")
        .arg(&clean)
        .arg("-o")
        .arg(&clean)
        .output()
        .expect("runs");
    assert_eq!(over.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&over.stderr).contains("is the input file"),
        "{}",
        String::from_utf8_lossy(&over.stderr)
    );
    assert_eq!(std::fs::read(&clean).expect("reads"), before);
}

#[test]
fn fmt_check_and_write() {
    let messy = temp("messy.pir", b"kernel @k(%x:hbm f32[4]){\n        NoOp{}\n}");
    assert_eq!(
        pir()
            .args(["fmt", "--check"])
            .arg(&messy)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        pir()
            .arg("fmt")
            .arg(&messy)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        std::fs::read_to_string(&messy).expect("read"),
        "kernel @k(%x: hbm f32[4]) {\n  NoOp {}\n}\n"
    );
    assert_eq!(
        pir()
            .args(["fmt", "--check"])
            .arg(&messy)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(0)
    );
    let broken = temp("broken.pir", b"kernel @k( {");
    assert_eq!(
        pir()
            .arg("fmt")
            .arg(&broken)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        std::fs::read_to_string(&broken).expect("read"),
        "kernel @k( {"
    );
}

#[test]
fn examples_and_corpus_are_formatted() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = pir()
        .args(["fmt", "--check"])
        .arg(root.join("examples"))
        .arg(root.join("tests/corpus"))
        .output()
        .expect("runs")
        .status;
    assert_eq!(status.code(), Some(0));
}

#[test]
fn folder_link_cycles_end_and_each_file_is_checked_once() {
    let dir = std::env::temp_dir().join(format!("pir-cli-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("k.pir"), b"kernel @k() {\n  NoOp {}\n}\n").expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(".", dir.join("a")).expect("link");
        std::os::unix::fs::symlink(".", dir.join("b")).expect("link");
    }
    let out = pir()
        .args(["check", "--format", "json"])
        .arg(&dir)
        .output()
        .expect("runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        report["files"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fmt_leaves_invalid_utf8_alone() {
    let bytes = b"kernel @k() {\n      NoOp {} // \xff\n}\n";
    let path = temp("badfmt.pir", bytes);
    assert_eq!(
        pir()
            .arg("fmt")
            .arg(&path)
            .output()
            .expect("runs")
            .status
            .code(),
        Some(1)
    );
    assert_eq!(std::fs::read(&path).expect("read"), bytes);
}

#[test]
fn the_tkg_threshold_can_be_set_like_the_server_setting() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let file = root.join("tests/corpus/library_kernels.pir");
    let is_tkg = |extra: &[&str]| -> Vec<Value> {
        let out = pir()
            .arg("lower")
            .arg(&file)
            .args(extra)
            .output()
            .expect("runs");
        let bir: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        bir["functions"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|f| {
                f["blocks"][0]["instructions"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|i| i["kernel_name"] == "MLP")
            .flat_map(|i| i["kernel_attrs"].as_array().cloned().unwrap_or_default())
            .filter(|pair| pair[0] == "is_tkg")
            .map(|pair| pair[1].clone())
            .collect()
    };
    // 1 × 2048 tokens: not below the default 96, but below 4096.
    assert_eq!(is_tkg(&[]), [Value::from("false")]);
    assert_eq!(
        is_tkg(&["--tkg-seqlen-threshold", "4096"]),
        [Value::from("true")]
    );
}

#[test]
fn lsp_accepts_stdio_and_refuses_other_transports() {
    use std::io::Write;
    use std::process::Stdio;
    // `--stdio` (appended by vscode-languageclient) serves LSP: `exit` without `shutdown`
    // ends it with status 1, as the protocol says.
    let mut lsp = pir()
        .args(["lsp", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
    let mut stdin = lsp.stdin.take().expect("stdin");
    write!(stdin, "Content-Length: {}\r\n\r\n{exit}", exit.len()).expect("write");
    drop(stdin);
    let out = lsp.wait_with_output().expect("waits");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    for args in [
        &["lsp", "--socket=9257"][..],
        &["lsp", "--socket", "9257"],
        &["lsp", "--pipe=/tmp/pir.sock"],
        &["lsp", "--node-ipc"],
        &["lsp", "--stdio", "--socket=9257"],
    ] {
        let out = pir()
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let flag = args
            .iter()
            .rev()
            .find(|a| a.starts_with("--") && **a != "--stdio")
            .and_then(|a| a.split('=').next())
            .unwrap_or_default();
        assert!(
            stderr.contains(&format!("the {flag} transport is not supported"))
                && stderr.contains("--stdio"),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // An unknown flag is clap's usage error.
    let out = pir().args(["lsp", "--tcp"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

/// Runs `pir args…` with `stdin` as standard input.
fn pir_with_stdin(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = pir()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("runs")
}

/// SPEC §9 [2]: an unreadable path is reported by name and never counted as checked; in
/// JSON it is `{"path", "error", "diagnostics": []}`.
#[test]
fn a_missing_file_is_reported_by_name_and_not_counted() {
    let missing = std::env::temp_dir().join("pir-definitely-missing.pir");
    let out = pir().arg("check").arg(&missing).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pir-definitely-missing.pir: "), "{stderr}");
    assert!(stderr.contains("checked 0 files"), "{stderr}");
    assert!(!stderr.contains("checked 1 file"), "{stderr}");
    let (code, report) = check_json(&missing);
    assert_eq!(code, 2);
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 1, "{report}");
    assert_eq!(files[0]["path"], missing.display().to_string());
    assert!(
        files[0]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{report}"
    );
    assert_eq!(files[0]["diagnostics"], serde_json::json!([]));
}

/// SPEC §9 [2]: a folder without `.pir` files is a usage error naming it.
#[test]
fn a_folder_without_pir_files_is_a_usage_error() {
    let dir = std::env::temp_dir().join(format!("pir-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("dir");
    std::fs::write(dir.join("sub/notes.txt"), "not pir").expect("write");
    for command in [
        &["check"][..],
        &["check", "--format", "json"],
        &["fmt"],
        &["fmt", "--check"],
    ] {
        let out = pir().args(command).arg(&dir).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&dir.display().to_string()) && stderr.contains("no .pir file"),
            "{command:?}: {stderr}"
        );
    }
    // A folder that holds `.pir` files deeper down is fine.
    std::fs::write(dir.join("sub/k.pir"), "kernel @k() {\n  NoOp {}\n}\n").expect("write");
    let out = pir().arg("check").arg(&dir).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
}

/// SPEC §9 [2]: `-` is standard input for `check`, `lower` and `fmt`, whose output goes to
/// standard output; `fmt` on a stream touches no file.
#[test]
fn dash_is_standard_input() {
    let messy = b"kernel @k(%x:hbm f32[4]){\n        NoOp{}\n}";
    let out = pir_with_stdin(&["check", "--format", "json", "-"], messy);
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["files"][0]["path"], "-");
    let out = pir_with_stdin(&["check", "-"], b"kernel @k() {\n  NoOpp {}\n}\n");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdin>:2:3"), "{stderr}");

    let out = pir_with_stdin(&["lower", "-"], messy);
    assert_eq!(out.status.code(), Some(0));
    let bir: Value = serde_json::from_slice(&out.stdout).expect("BIR JSON");
    assert_eq!(bir["functions"][0]["name"], "k");
    let out = pir_with_stdin(&["lower", "-", "-o", "-"], messy);
    assert!(serde_json::from_slice::<Value>(&out.stdout).is_ok());

    let out = pir_with_stdin(&["fmt", "-"], messy);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "kernel @k(%x: hbm f32[4]) {\n  NoOp {}\n}\n"
    );
    let out = pir_with_stdin(&["fmt", "--check", "-"], messy);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "<stdin>\n");
    // With a syntax error the text comes back unchanged (an editor filter keeps its buffer).
    let broken = b"kernel @k( {\n";
    let out = pir_with_stdin(&["fmt", "-"], broken);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, broken);

    // `pir fmt /dev/stdin < f` formats to stdout and leaves `f` alone.
    let path = temp("stdin-redirect.pir", messy);
    let out = pir()
        .args(["fmt", "/dev/stdin"])
        .stdin(std::fs::File::open(&path).expect("open"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(&path).expect("read"), messy);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "kernel @k(%x: hbm f32[4]) {\n  NoOp {}\n}\n"
    );
}

/// A related note's header shows the note's own line:column (not the primary's).
#[test]
fn a_related_note_is_headed_by_its_own_position() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/rule_P402_mx_scale_ptr.pir");
    let text = std::fs::read_to_string(&path).expect("corpus");
    let out = pir()
        .arg("check")
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let headers: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split_once("─[ ").map(|(_, h)| h.trim_end_matches(" ]")))
        .collect();
    // Lines and columns (1-based, in characters) of `0.5` and of the `%scale_ptr` value.
    let at = |needle: &str| {
        let offset = text.find(needle).expect("needle");
        let line = text[..offset].matches('\n').count() + 1;
        let column = text[..offset]
            .rsplit('\n')
            .next()
            .expect("line")
            .chars()
            .count()
            + 1;
        format!("{}:{line}:{column}", path.display())
    };
    assert_eq!(
        headers,
        [at("0.5  //! P402"), at("%scale_ptr\n")],
        "{stderr}"
    );
}

/// Issue 11: the names people bring from NKI and BIR get a did-you-mean: BIR spellings
/// (`mult`, `bfloat16`, `float32`), NKI names with their module (`nl.exp`), memory spaces
/// in any case — one diagnostic per mistake.
#[test]
fn nki_and_bir_names_get_a_did_you_mean() {
    let path = temp(
        "nki-names.pir",
        b"kernel @k(%x: HBM float32[128, 4]) {\n  tensor %t : SBUF bfloat16[128, 4]\n  ActivationOp { dst = %t, src = %t, func = nl.exp }\n  TensorTensorOp { dst = %t, src0 = %t, src1 = %t, op = mult }\n  TensorTensorOp { dst = %t, src0 = %t, src1 = %t, op = mul }\n}\n",
    );
    let (code, report) = check_json(&path);
    assert_eq!(code, 1);
    let messages: Vec<&str> = report["files"][0]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "unknown memory space `HBM`; did you mean `hbm`?",
            "unknown dtype `float32`; did you mean `f32`?",
            "unknown memory space `SBUF`; did you mean `sbuf`?",
            "unknown dtype `bfloat16`; did you mean `bf16`?",
            "unknown act_func value `nl.exp`; did you mean `exp`?",
            "unknown alu value `mult`; did you mean `multiply`?",
            "unknown alu value `mul`; did you mean `multiply`?",
        ],
        "{report}"
    );
}

/// A control character in the file (here ESC, which starts terminal escape sequences)
/// never reaches the terminal raw: not in a message, not in the source line shown.
#[test]
fn control_characters_of_the_file_are_not_printed_raw() {
    let path = temp(
        "control.pir",
        b"kernel @k() {\n  NoOp { a = \x1b[31m }\n  Op\x07 {}\n}\n",
    );
    let out = pir().arg("check").arg(&path).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("P103"), "{stderr}");
    assert!(
        !stderr
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\t')),
        "{stderr:?}"
    );
}

/// Human output counts lines as the JSON output does (at `\n` only, as the language does):
/// a lone `\r`, a form feed or U+2028 is shown in its line (as `␍`, `␌`, `␤`), not as a
/// line end, and a NUL is shown as `␀` (docs/decisions.md).
#[test]
fn human_output_counts_lines_as_json_does_and_shows_nul() {
    let path = temp(
        "line_ends.pir",
        "kernel @k() {\r  Op \u{c}{ a = 1 }\u{2028}\n  NoOp { \0b = 2 }\n}\n".as_bytes(),
    );
    let out = pir().arg("check").arg(&path).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (_, json) = check_json(&path);
    let name = path.display().to_string();
    let headers: Vec<String> = stderr
        .lines()
        .filter_map(|l| {
            l.split_once(&format!("{name}:"))
                .map(|(_, at)| at.trim_end_matches(" ]").to_string())
        })
        .collect();
    let positions: Vec<String> = json["files"][0]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{}:{}",
                d["range"]["start"]["line"], d["range"]["start"]["column"]
            )
        })
        .collect();
    assert_eq!(headers, positions, "{stderr}");
    assert!(
        stderr.contains("kernel @k() {␍  Op ␌{ a = 1 }␤"),
        "{stderr}"
    );
    assert!(stderr.contains("NoOp { ␀b = 2 }"), "{stderr}");
    assert!(stderr.contains("unknown character `\\0`"), "{stderr}");
}

/// A UTF-16 file is one diagnostic saying so, not a hundred about its NULs.
#[test]
fn a_utf16_file_is_one_diagnostic_naming_the_encoding() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/tensor_add.pir"
    ))
    .expect("example");
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (name, bytes, which) in [
        (
            "utf16-le-bom.pir",
            [&[0xFF, 0xFE][..], &le].concat(),
            "UTF-16 (little-endian, with a byte order mark)",
        ),
        (
            "utf16-be-bom.pir",
            [&[0xFE, 0xFF][..], &be].concat(),
            "UTF-16 (big-endian, with a byte order mark)",
        ),
        ("utf16-le.pir", le.clone(), "UTF-16 (little-endian)"),
        ("utf16-be.pir", be.clone(), "UTF-16 (big-endian)"),
    ] {
        let path = temp(name, &bytes);
        let (code, json) = check_json(&path);
        assert_eq!(code, 1, "{name}");
        let diagnostics = json["files"][0]["diagnostics"]
            .as_array()
            .expect("diagnostics");
        assert_eq!(diagnostics.len(), 1, "{name}: {json}");
        let message = diagnostics[0]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("the file looks like {which}:")),
            "{name}: {message}"
        );
    }
}

/// A note on the diagnostic's own range is its label: the span is drawn once, with the
/// specific note, not twice (once with the code's generic summary).
#[test]
fn a_note_on_the_primary_range_is_its_label() {
    let path = test_utils::corpus_dir().join("rule_P300_last_iteration.pir");
    let out = pir().arg("check").arg(&path).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let drawn = stderr
        .lines()
        .filter(|l| l.contains("%i*512 : %i*512 + 512"))
        .count();
    assert_eq!(drawn, 1, "{stderr}");
    assert!(
        stderr.contains("the access reaches element 2047 when %i = 3"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("incorrect access pattern (bounds"),
        "{stderr}"
    );
}

/// A line too long to draw is named by its position, not printed once per diagnostic.
#[test]
fn a_very_long_line_is_not_drawn() {
    let mut text = String::from("kernel @k() {\n  NoOp {");
    for i in 0..200 {
        text.push_str(&format!(" f{i} = 1,"));
    }
    text.push_str(" }\n}\n");
    let path = temp("long.pir", text.as_bytes());
    let out = pir().arg("check").arg(&path).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("P203"), "{stderr}");
    assert!(stderr.contains("not drawn"), "{stderr}");
    assert!(stderr.len() < 20_000, "{} bytes of stderr", stderr.len());
}

/// `pir stats` (SPEC §10.1 [2]) of a kernel with a loop-carried PSUM accumulator and a
/// second kernel without on-chip tensors. By hand: %w_sb 256 B, %x_sb 1,024 B, %out 2,048 B
/// (SBUF), %acc 2,048 B (PSUM); %acc is live from the start of loop %k (line 7, its op #2)
/// to the copy on line 10; the SBUF peak is %out's 2,048 at the copy (line 10, #4); DMA 3
/// static, 1 + 4 + 1 = 6 executed; PE 1 / 4; DVE 1 / 1. `@none` has one DMA and no peak.
const STATS: &str =
    "kernel @acc(%x: hbm bf16[128, 2048], %w: hbm bf16[128, 128]) -> (%y: hbm f32[128, 512]) {
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
kernel @none(%a: hbm f32[4, 4]) -> (%b: hbm f32[4, 4]) {
  DmaCopyOp { dst = %b, src = %a }
}
";

#[test]
fn an_executed_count_past_u64_is_shown_as_a_bound() {
    let nest = "kernel @k(%x: hbm f32[128, 4]) {
  tensor %u : sbuf f32[128, 4]
  for %i in 0..4611686018427387904 {
    for %j in 0..4611686018427387904 {
      DmaCopyOp { dst = %u, src = %x }
    }
  }
}
";
    let out = pir_with_stdin(&["stats", "-"], nest.as_bytes());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("    DMA                  1 ≥ 18,446,744,073,709,551,615 "),
        "{table}"
    );
}

/// Issue 25: a saturated executed count is marked in JSON (a lower bound, not an exact
/// count: past 2^53 a JSON reader may round it anyway).
#[test]
fn a_saturated_executed_count_is_marked_in_json() {
    let nest = "kernel @k(%x: hbm f32[128, 4]) {
  tensor %u : sbuf f32[128, 4]
  for %i in 0..4611686018427387904 {
    for %j in 0..4611686018427387904 {
      DmaCopyOp { dst = %u, src = %x }
    }
  }
}
";
    let out = pir_with_stdin(&["stats", "--format", "json", "-"], nest.as_bytes());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let dma = &json["files"][0]["kernels"][0]["engines"]["DMA"];
    assert_eq!(dma["executed_saturated"], true, "{json}");
    assert_eq!(dma["executed_decimal"], "18446744073709551615", "{json}");
    // The cost's bytes saturate too (each DMA's bytes × the executed count).
    let cost = &json["files"][0]["kernels"][0]["cost"]["engines"]["DMA"];
    assert_eq!(cost["bytes_saturated"], true, "{json}");
    assert_eq!(cost["bytes_decimal"], "18446744073709551615", "{json}");
    let small = pir_with_stdin(&["stats", "--format", "json", "-"], STATS.as_bytes());
    let json: serde_json::Value = serde_json::from_slice(&small.stdout).expect("JSON");
    let dma = &json["files"][0]["kernels"][0]["engines"]["DMA"];
    assert!(dma.get("executed_saturated").is_none(), "{json}");
    assert!(dma.get("executed_decimal").is_none(), "{json}");
    // Past 2^53 but exact (a second trial found it unmarked): the decimal string, which a
    // JavaScript reader keeps, and no saturation.
    let past = "kernel @k(%x: hbm f32[128, 4]) {
  tensor %u : sbuf f32[128, 4]
  for %i in 0..9007199254740993 {
    DmaCopyOp { dst = %u, src = %x }
  }
}
";
    let out = pir_with_stdin(&["stats", "--format", "json", "-"], past.as_bytes());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let dma = &json["files"][0]["kernels"][0]["engines"]["DMA"];
    assert_eq!(dma["executed_decimal"], "9007199254740993", "{json}");
    assert_eq!(
        dma["executed"].as_u64(),
        Some(9_007_199_254_740_993),
        "{json}"
    );
    assert!(dma.get("executed_saturated").is_none(), "{json}");
}

/// Issue 25: `pir stats` of a file that does not parse says so on stderr (its counts are of
/// what parses), and the help of each command says what `--format` writes and that `-` is
/// standard input.
#[test]
fn stats_says_when_a_file_does_not_parse_and_help_names_formats() {
    let out = pir_with_stdin(&["stats", "-"], b"kernel @k( {\n");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("<stdin>: 1 syntax error: the counts are of what parses"),
        "{err}"
    );
    let help = |command: &str| {
        let out = pir().args([command, "--help"]).output().expect("runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stats = help("stats");
    assert!(stats.contains("a table per kernel"), "{stats}");
    assert!(
        !stats.contains("caret") && !stats.contains("diagnostics"),
        "{stats}"
    );
    assert!(help("check").contains("\"diagnostics\""));
    for command in ["check", "lower", "fmt", "stats"] {
        assert!(help(command).contains("`-` is standard input"), "{command}");
    }
}

#[test]
fn stats_human_is_a_table_per_kernel() {
    let out = pir_with_stdin(&["stats", "-"], STATS.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    expect_test::expect![[r#"
        <stdin>
          @acc  (target trn2)
            engine          static      executed        cycles        busy
            PE                   1             4         2,048      853 ns
            DVE                  1             1           512      533 ns
            DMA                  3             6             —     2.71 µs  (819,200 bytes)
            SBUF peak     2,048 of 212,984 bytes per partition (1.0%) at line 11 (#4 TensorCopyOp)
            PSUM peak     2,048 of  16,384 bytes per partition (12.5%) at line 8 (#2 DmaCopyOp)
            lower bound   2.71 µs, DMA-bound
          @none  (target trn2)
            engine          static      executed        cycles        busy
            DMA                  1             1             —       81 ns  (64 bytes)
            SBUF peak         0 of 212,984 bytes per partition (0.0%)
            PSUM peak         0 of  16,384 bytes per partition (0.0%)
            lower bound     81 ns, DMA-bound
    "#]]
    .assert_eq(&String::from_utf8_lossy(&out.stdout));
}

#[test]
fn stats_json_has_the_spec_shape() {
    let path = temp("stats.pir", STATS.as_bytes());
    let missing = path.with_file_name("missing.pir");
    let out = pir()
        .args(["stats", "--format", "json"])
        .arg(&path)
        .arg(&missing)
        .output()
        .expect("runs");
    // The missing file is an I/O error: exit 2, reported by name, the other file still in.
    assert_eq!(out.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let files = report["files"].as_array().expect("files");
    let by_path = |p: &PathBuf| {
        files
            .iter()
            .find(|f| f["path"] == p.display().to_string())
            .unwrap_or_else(|| panic!("{} in {report}", p.display()))
    };
    assert_eq!(
        by_path(&missing)["kernels"],
        serde_json::json!([]),
        "{report}"
    );
    assert!(by_path(&missing)["error"].is_string(), "{report}");
    // The target leads (SPEC §9 [3]); the cost by hand on trn2 (SPEC §10.2): PE 4 × 512 =
    // 2,048 cycles = 853 ns at 2,400 MHz; DVE 512 cycles = 533 ns at 960 MHz; DMA 32,768 +
    // 4 × 131,072 + 262,144 = 819,200 bytes, q = 2,724,696 + 4 × 6,998,783 + 12,697,566 ps,
    // ÷ 16,000 = 2,714 ns, the bound; `@none`: 64 bytes, 1,300,000 + ⌈64,000 / 23⌉ = 1,302,783
    // ps ÷ 16,000 = 81 ns.
    assert_eq!(report["target"], "trn2", "{report}");
    assert_eq!(
        report
            .as_object()
            .and_then(|o| o.keys().next())
            .map(String::as_str),
        Some("target")
    );
    expect_test::expect![[r#"
        [
          {
            "name": "acc",
            "engines": {
              "PE": {
                "static": 1,
                "executed": 4
              },
              "DVE": {
                "static": 1,
                "executed": 1
              },
              "DMA": {
                "static": 3,
                "executed": 6
              }
            },
            "sbuf": {
              "peak": 2048,
              "capacity": 212984,
              "op_line": 11
            },
            "psum": {
              "peak": 2048,
              "capacity": 16384,
              "op_line": 8
            },
            "cost": {
              "engines": {
                "PE": {
                  "cycles": 2048,
                  "ns": 853
                },
                "DVE": {
                  "cycles": 512,
                  "ns": 533
                },
                "DMA": {
                  "bytes": 819200,
                  "ns": 2714
                }
              },
              "bottleneck": "DMA",
              "lower_bound_ns": 2714,
              "not_estimated": 0
            }
          },
          {
            "name": "none",
            "engines": {
              "DMA": {
                "static": 1,
                "executed": 1
              }
            },
            "sbuf": {
              "peak": 0,
              "capacity": 212984,
              "op_line": null
            },
            "psum": {
              "peak": 0,
              "capacity": 16384,
              "op_line": null
            },
            "cost": {
              "engines": {
                "DMA": {
                  "bytes": 64,
                  "ns": 81
                }
              },
              "bottleneck": "DMA",
              "lower_bound_ns": 81,
              "not_estimated": 0
            }
          }
        ]"#]]
    .assert_eq(&serde_json::to_string_pretty(&by_path(&path)["kernels"]).expect("JSON"));
}

/// A kernel over capacity: `pir stats` says so (exit 0: stats report, `pir check` judges),
/// and `pir check` warns P416 on the kernel name (exit 0: a warning).
#[test]
fn stats_marks_a_peak_over_capacity_and_check_warns() {
    let text = "kernel @big(%x: sbuf u8[128, 8192]) {\n  tensor %p0 : psum u8[128, 8192]\n  tensor %p1 : psum u8[128, 8193]\n  TensorCopyOp { dst = %p0, src = %x }\n  TensorCopyOp { dst = %p1[:, 0:8192], src = %p0 }\n}\n";
    let out = pir_with_stdin(&["stats", "-"], text.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("PSUM peak    16,385 of  16,384 bytes per partition (100.0%) at line 5 (#2 TensorCopyOp): over capacity (P416)"),
        "{stdout}"
    );
    let check = pir_with_stdin(&["check", "--format", "json", "-"], text.as_bytes());
    assert_eq!(check.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&check.stdout).expect("JSON");
    let d = &report["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "P416", "{report}");
    assert_eq!(d["severity"], "warning");
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 1, "column": 8})
    );
}

/// Runs `pir args…`, killing it after `limit`: (exit code, stderr). A hang fails the test
/// instead of stalling the suite.
fn bounded(args: &[&std::ffi::OsStr], limit: std::time::Duration) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = pir()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pir {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (status.code(), reader.join().expect("stderr read"))
}

/// A FIFO named `x.pir` in a folder: `pir check` of the folder blocked on it forever (a
/// FIFO's `open` waits for a writer). The walk now lists regular files only and says what it
/// skipped; the FIFO named on the command line is reported, not waited on.
#[cfg(unix)]
#[test]
fn a_fifo_is_skipped_when_walking_and_reported_when_named() {
    let dir = std::env::temp_dir().join(format!("pir-cli-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("k.pir"), b"kernel @k() {\n  NoOp {}\n}\n").expect("write");
    let fifo = dir.join("x.pir");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let limit = std::time::Duration::from_secs(10);
    let (code, stderr) = bounded(&["check".as_ref(), dir.as_os_str()], limit);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("x.pir: skipped: not a regular file (a FIFO)")
            && stderr.contains("checked 1 file"),
        "{stderr}"
    );
    let (code, stderr) = bounded(&["check".as_ref(), fifo.as_os_str()], limit);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("x.pir: not a regular file"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `/dev/zero` named on the command line: a device's length is 0, so no size check stops
/// it, and it never ends; it is read up to the cap (256 MiB) and reported.
#[cfg(unix)]
#[test]
fn dev_zero_named_is_read_up_to_the_cap() {
    let (code, stderr) = bounded(
        &["check".as_ref(), "/dev/zero".as_ref()],
        std::time::Duration::from_secs(30),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("/dev/zero: larger than 256 MiB"),
        "{stderr}"
    );
}

#[test]
fn explain_finds_an_instruction_by_its_name() {
    // `pir check --explain I-<id>[-<k>]` (issue 20): the op of each instruction so named,
    // in every kernel that has one, with its line and its BIR; exit 1 when none has it.
    let path = temp(
        "explain.pir",
        b"kernel @a(%x: sbuf f32[128, 4], %r: sbuf f32[128, 1]) {\n  NoOp {}\n  NeuronReduceMacro { dst = %r, src = %x, op = add, reduce_axes = [1] }\n}\n",
    );
    let out = pir()
        .args(["check", "--explain", "I-2-0", "--format", "json"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let found = &report["files"][0]["instructions"];
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{report}");
    assert_eq!(found[0]["op"], "NeuronReduceMacro");
    assert_eq!(found[0]["kernel"], "a");
    assert_eq!(found[0]["line"], 3);
    assert_eq!(found[0]["column"], 3);
    assert_eq!(found[0]["bir"][0]["name"], "I-2-0");
    assert_eq!(found[0]["bir"][0]["opcode"], "TensorReduce");
    let human = pir()
        .args(["check", "--explain", "I-2"])
        .arg(&path)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.starts_with(&format!(
            "{}:3:3: I-2-0 is NeuronReduceMacro #2 of @a (TensorReduce)\n     3 |   NeuronReduceMacro {{",
            path.display()
        )),
        "{text}"
    );
    let missing = pir()
        .args(["check", "--explain", "I-9"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(1));
    let bad = pir()
        .args(["check", "--explain", "inst.9"])
        .arg(&path)
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
}

/// `--target` (SPEC §4 [3], §9): the tutorial's fully optimized kernel on trn1 gives
/// §10.2.9's JSON `cost` exactly; `lower` names the target's BIR `arch`; an unknown name is
/// a usage error naming the three.
#[test]
fn the_target_sets_the_estimate_and_the_arch() {
    let tut3 = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../analysis/tests/cost/tut3_fully_optimized.pir"),
    )
    .expect("the tutorial port");
    let out = pir_with_stdin(
        &["stats", "--format", "json", "--target", "trn1", "-"],
        &tut3,
    );
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["target"], "trn1");
    let kernel = &report["files"][0]["kernels"][0];
    assert_eq!(kernel["sbuf"]["capacity"], 180_224);
    assert_eq!(
        kernel["cost"],
        serde_json::json!({
            "engines": {
                "PE": {"cycles": 16777216, "ns": 5991863},
                "DVE": {"cycles": 2359296, "ns": 2106514},
                "Pool": {"cycles": 263344, "ns": 188103},
                "DMA": {"bytes": 738197504, "ns": 2859561}},
            "bottleneck": "PE",
            "lower_bound_ns": 5991863,
            "not_estimated": 0})
    );
    for (target, arch) in [("trn1", "gen2"), ("trn2", "gen3"), ("trn3", "gen4")] {
        let out = pir_with_stdin(&["lower", "--target", target, "-"], &tut3);
        let bir: Value = serde_json::from_slice(&out.stdout).expect("BIR");
        assert_eq!(bir["arch"], arch);
    }
    let out = pir()
        .args(["check", "--target", "trn4", "x.pir"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`trn1`, `trn2` or `trn3`"), "{stderr}");
}

/// `pir stats --plot` (issue 21): one panel per kernel with a bar per estimated engine and
/// the two occupancy charts, valid XML; and headless Chromium draws it (a screenshot that
/// is not blank), when Chromium is installed (required with `PIR_REQUIRE_EDITOR_TESTS=1`).
#[test]
fn stats_plot_draws_each_kernel() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/cost");
    let svg = temp("profile.svg", b"");
    let out = pir()
        .args(["stats", "--target", "trn1", "--plot"])
        .arg(&svg)
        .arg(dir.join("tut3_fully_optimized.pir"))
        .arg(dir.join("tut0_tiled.pir"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.contains("@nki_matmul_fully_optimized — trn1 ≥ 5.99 ms, PE-bound"));
    assert!(text.contains("@nki_matmul_tiled — trn1 ≥ 25.4 ms, DMA-bound"));
    assert!(text.contains("5.99 ms · 100% ◀ bound"));
    assert!(text.contains("SBUF: peak 114,688 of 180,224 bytes per partition"));
    assert_eq!(
        text.matches("<polyline").count(),
        4,
        "two charts per kernel"
    );
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    let Some(chromium) = chromium else {
        assert!(
            std::env::var_os("PIR_REQUIRE_EDITOR_TESTS").is_none(),
            "no Chromium to draw the profile"
        );
        eprintln!("skipped: no Chromium to draw the profile");
        return;
    };
    let png = svg.with_extension("png");
    let shot = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg("--window-size=960,900")
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", svg.display()))
        .output()
        .expect("chromium runs");
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let bytes = std::fs::read(&png).expect("the screenshot");
    assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
    // A blank 960 × 900 page compresses to a few kB; the drawing is tens of kB.
    assert!(bytes.len() > 20_000, "{} bytes: blank?", bytes.len());
}

/// The JSON documents of `check`, `stats` and `check --explain`, written file by file, are
/// what `serde_json::to_string_pretty` prints of the whole document (and a line break):
/// with unreadable paths first and among the files, and with one file.
#[test]
fn json_documents_written_file_by_file_are_pretty_printed_whole() {
    let missing = temp("json_streamed_dir", b"").with_file_name("json_streamed_missing.pir");
    let one = temp(
        "json_streamed_one.pir",
        b"kernel @k(%x: hbm f32[128, 8]) {\n}\n",
    );
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let missing = missing.to_str().unwrap();
    let one = one.to_str().unwrap();
    for args in [
        vec!["check", "--format", "json", examples, missing, one],
        vec!["check", "--format", "json", missing],
        vec!["check", "--format", "json", one],
        vec!["stats", "--format", "json", missing, examples],
        vec!["stats", "--format", "json", one],
        vec![
            "check",
            "--explain",
            "I-3",
            "--format",
            "json",
            examples,
            one,
        ],
    ] {
        let out = pir().args(&args).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{text}"));
        assert!(value["files"].is_array(), "{args:?}");
        assert_eq!(
            text,
            format!("{}\n", serde_json::to_string_pretty(&value).unwrap()),
            "{args:?}"
        );
    }
}
