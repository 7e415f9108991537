//! Repository hygiene, checked under `cargo test` (as rust-analyzer's `tidy.rs`): every
//! Rust file starts with a `//!` doc, no trailing whitespace (outside snapshots), no `#[ignore]` or
//! `#[should_panic]` (assert today's behaviour with a FIXME instead), no `dbg!`, no file
//! under `analysis/src` over 900 lines.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if !matches!(name, "target" | "node_modules" | ".git") && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The most lines a file under `analysis/src` may have (issue 19's done-when).
const MAX_ANALYSIS_FILE_LINES: usize = 900;

#[test]
fn rust_sources_are_tidy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "syntax", "lower", "analysis", "lsp", "tests", "benches", "fuzz",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20);
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("utf-8 source");
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        // Issue 19: a file has one job; the analysis's sources stay small enough to read.
        let lines = text.lines().count();
        if shown.starts_with("analysis/src/") && lines > MAX_ANALYSIS_FILE_LINES {
            problems.push(format!(
                "{shown}: {lines} lines (over {MAX_ANALYSIS_FILE_LINES}: split it by job)"
            ));
        }
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{shown}: no `//!` module doc at the top"));
        }
        // Inside `expect![[r#"…"#]]` snapshots, trailing spaces are data.
        let mut in_snapshot = false;
        for (i, line) in text.lines().enumerate() {
            let at = format!("{shown}:{}", i + 1);
            if line.contains("expect![[r#\"") {
                in_snapshot = true;
            }
            let snapshot_line = in_snapshot;
            if line.contains("\"#]]") {
                in_snapshot = false;
            }
            if !snapshot_line && (line.ends_with(' ') || line.ends_with('\t')) {
                problems.push(format!("{at}: trailing whitespace"));
            }
            let code = line.trim_start();
            if code.starts_with("#[ignore") || code.starts_with("#[should_panic") {
                problems.push(format!("{at}: {code}"));
            }
            if code.contains(&format!("{}!(", "dbg")) {
                problems.push(format!("{at}: a debugging macro"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Quick fixes come from the diagnostics' `FixHint`s, set where each diagnostic is made;
/// `fixes.rs` never reads a message (a reworded message cannot break a fix).
#[test]
fn fixes_never_read_a_message() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/src/ide/fixes.rs");
    let text = std::fs::read_to_string(&path).expect("fixes.rs");
    let reads: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| line.contains(".message") || line.contains("did you mean"))
        .map(|(i, line)| format!("analysis/src/ide/fixes.rs:{}: {}", i + 1, line.trim()))
        .collect();
    assert!(
        reads.is_empty(),
        "a fix reads a message; carry the suggestion as a FixHint instead:\n{}",
        reads.join("\n")
    );
}

/// The op catalog is the one place a field name is written (`lower::catalog::fname`):
/// lowering reads `cx.ident(fname::op0)`, never `cx.ident("op0")`, so a misspelt name
/// does not compile. Outside comments and the rows' `text`/`bir`/`doc` prose, no source
/// file of the lowering holds a string literal that is exactly a field name.
#[test]
fn lowering_reads_fields_through_the_catalog() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lower/src");
    let mut files = Vec::new();
    rust_files(&root.join("ops"), &mut files);
    files.push(root.join("cx.rs"));
    assert!(files.len() > 10);
    let prose = ["text:", "bir:", "doc:", "class:", "opcode:", "source:"];
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("utf-8 source");
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") || prose.iter().any(|p| code.starts_with(p)) {
                continue;
            }
            for name in lower::catalog::fname::ALL {
                let literal = format!("\"{name}\"");
                let mut rest = line;
                while let Some(at) = rest.find(&literal) {
                    let before = rest[..at].chars().next_back();
                    if !matches!(before, Some(c) if c.is_alphanumeric() || c == '#' || c == '\\') {
                        problems.push(format!(
                            "{}:{}: {literal}: write `fname::{name}`",
                            file.strip_prefix(&root).unwrap_or(file).display(),
                            i + 1
                        ));
                    }
                    rest = &rest[at + literal.len()..];
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The crates depend one way, `syntax ← lower ← analysis ← lsp` (ARCHITECTURE.md): a crate
/// names in its `[dependencies]` only the crates before it. Dev-dependencies (tests) may
/// name `test-utils`, which depends on none of them.
#[test]
fn crates_depend_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let order = ["syntax", "lower", "analysis", "lsp"];
    let mut problems = Vec::new();
    for (i, krate) in order.iter().enumerate() {
        let manifest =
            std::fs::read_to_string(root.join(krate).join("Cargo.toml")).expect("a crate manifest");
        // The `[dependencies]` table only (up to the next table).
        let deps = manifest
            .split("\n[")
            .find(|table| table.starts_with("dependencies]"))
            .unwrap_or_default();
        for line in deps.lines().skip(1) {
            let name = line
                .split(['=', '.', ' '])
                .next()
                .unwrap_or_default()
                .trim();
            if let Some(at) = order.iter().position(|c| *c == name)
                && at >= i
            {
                problems.push(format!("{krate} depends on {name}"));
            }
            if name == "test-utils" {
                problems.push(format!("{krate} depends on test-utils outside its tests"));
            }
        }
    }
    let utils = std::fs::read_to_string(root.join("test-utils/Cargo.toml")).expect("manifest");
    for krate in order {
        if utils
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{krate}.")))
        {
            problems.push(format!("test-utils depends on {krate}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
