//! The shared corpus, through the real `pir` binary (built once by `cargo test`):
//! `check_corpus.py` must report every file passing (and so must this project's rule
//! fixtures in `tests/rules/`), and `bir_schema.py` must find no error in the `pir lower`
//! output of any file.
//!
//! The corpus and tools are read from `../shared` (the source of truth) when that
//! folder exists beside the repository, else from the vendored copies in `tests/`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `../shared/<sub>` when present, else `tests/<vendored>`.
fn shared_or_vendored(shared: &str, vendored: &str) -> PathBuf {
    let shared = root().join("..").join("shared").join(shared);
    if shared.exists() {
        shared
    } else {
        root().join("tests").join(vendored)
    }
}

fn python() -> Command {
    Command::new(std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string()))
}

/// Runs `check_corpus.py` over `dir` with the built `pir`: its last line (`N passed, M
/// failed`), after asserting that it exited 0 and that `last_ok` holds for that line.
#[track_caller]
fn check_corpus(dir: &Path, last_ok: impl Fn(&str) -> bool) -> String {
    let tool = shared_or_vendored("tools/check_corpus.py", "tools/check_corpus.py");
    let output = python()
        .arg(&tool)
        .arg("--pir")
        .arg(env!("CARGO_BIN_EXE_pir"))
        .arg(dir)
        .output()
        .expect("python3 runs check_corpus.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        output.status.success() && last_ok(last),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    last.to_string()
}

#[test]
fn corpus_passes() {
    let corpus = shared_or_vendored("corpus", "corpus");
    let last = check_corpus(&corpus, |last| last.ends_with(" 0 failed"));
    println!("{last}");
}

/// This project's own rule fixtures (`tests/rules/`, corpus-style: P416 of SPEC §10.1 [2],
/// P417, P418, P419 and P407 for an activation bias of §7.1 [3], which the shared corpus
/// does not cover) pass `check_corpus.py` like the corpus, every one of them.
#[test]
fn project_rule_fixtures_pass() {
    let rules = root().join("tests").join("rules");
    let fixtures = std::fs::read_dir(&rules)
        .expect("tests/rules is a folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pir"))
        })
        .count();
    assert!(fixtures >= 3, "{fixtures} rule fixtures");
    check_corpus(&rules, |last| {
        last == format!("{fixtures} passed, 0 failed")
    });
}

/// The shipped kernels of `examples/` carry corpus annotations too (`//>` instructions):
/// they pass `check_corpus.py`, so an annotation cannot fall behind the binary (as
/// `topk.pir`'s TensorCopy-on-`act` lines once did).
#[test]
fn example_annotations_pass() {
    check_corpus(&root().join("examples"), |last| last.ends_with(" 0 failed"));
}

#[test]
fn lowered_corpus_matches_the_public_schema() {
    let corpus = shared_or_vendored("corpus", "corpus");
    let tool = shared_or_vendored("tools/bir_schema.py", "tools/bir_schema.py");
    let out_dir = std::env::temp_dir().join(format!("pir-schema-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pir"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut outputs = Vec::new();
    for file in &files {
        let json = out_dir
            .join(file.file_name().expect("name"))
            .with_extension("json");
        let status = Command::new(env!("CARGO_BIN_EXE_pir"))
            .arg("lower")
            .arg(file)
            .arg("-o")
            .arg(&json)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("pir lower runs");
        assert!(
            matches!(status.code(), Some(0 | 1)),
            "{}: exit {status}",
            file.display()
        );
        outputs.push(json);
    }
    let output = python()
        .arg(&tool)
        .arg("--no-warnings")
        .args(&outputs)
        .output()
        .expect("python3 runs bir_schema.py");
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
