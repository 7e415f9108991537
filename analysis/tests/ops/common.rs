//! The fixture harness: lowers a whole file and renders, per instruction, one compact
//! line (opcode, engine, arguments, fields) and, per diagnostic, its code, the text it
//! covers and its message.

use analysis::{LineCol, RootDatabase, SourceFile, line_col};
use expect_test::Expect;
use serde_json::Value;

/// Lowers `fixture` and compares the rendering with `expect`.
#[track_caller]
pub fn check(fixture: &str, expect: Expect) {
    expect.assert_eq(&render(fixture));
}

/// The rendering `check` compares.
pub fn render(text: &str) -> String {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, text.to_string());
    let mut out = String::new();
    let bir = analysis::file_bir(&db, file);
    for function in bir["functions"].as_array().into_iter().flatten() {
        for block in function["blocks"].as_array().into_iter().flatten() {
            render_block(block, 0, &mut out);
        }
    }
    let index = analysis::line_index(&db, file);
    for d in analysis::diagnostics(&db, file) {
        let LineCol { line, column } = line_col(index, text, d.range.start());
        let covered = &text[usize::from(d.range.start())..usize::from(d.range.end())];
        out.push_str(&format!(
            "{} {}:{line}:{column} `{covered}`: {}\n",
            d.code,
            d.severity.as_str(),
            d.message
        ));
        for (range, note) in &d.related {
            let covered = &text[usize::from(range.start())..usize::from(range.end())];
            out.push_str(&format!("    related `{covered}`: {note}\n"));
        }
    }
    out
}

fn render_block(block: &Value, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    for inst in block["instructions"].as_array().into_iter().flatten() {
        if inst["opcode"] == "Loop" {
            out.push_str(&format!(
                "{indent}{} {}\n",
                inst["name"].as_str().unwrap_or(""),
                inst["LoopAxis"]
            ));
            for b in inst["blocks"].as_array().into_iter().flatten() {
                render_block(b, depth + 1, out);
            }
            continue;
        }
        let info = &inst["debuginfo"];
        out.push_str(&format!(
            "{indent}{}: {} {} {}",
            info["line"],
            inst["opcode"].as_str().unwrap_or("?"),
            inst["engine"].as_str().unwrap_or("?"),
            inst["name"].as_str().unwrap_or("?"),
        ));
        if let Some(it) = info["instruction_type"].as_u64() {
            out.push_str(&format!(" IT{it}"));
        }
        let errors = info["errors"].as_array().map_or(0, Vec::len);
        if errors > 0 {
            out.push_str(&format!(" errors={}", info["errors"]));
        }
        out.push('\n');
        for (key, dir) in [("ins", "in"), ("outs", "out")] {
            for arg in inst[key].as_array().into_iter().flatten() {
                out.push_str(&format!("{indent}  {dir} {}\n", render_arg(arg)));
            }
        }
        let mut fields = serde_json::Map::new();
        for (k, v) in inst.as_object().into_iter().flatten() {
            if !matches!(
                k.as_str(),
                "opcode" | "name" | "engine" | "ins" | "outs" | "debuginfo"
            ) {
                fields.insert(k.clone(), v.clone());
            }
        }
        if errors == 0 {
            check_keys(inst, &fields);
        }
        if !fields.is_empty() {
            out.push_str(&format!("{indent}  {}\n", Value::Object(fields)));
        }
    }
}

/// The opcode table (`lower::bir::OPCODES`) agrees with an instruction of an op without
/// errors: its keys are the row's, in the row's order, and every key the row marks as
/// always written is there.
#[track_caller]
fn check_keys(inst: &Value, fields: &serde_json::Map<String, Value>) {
    let opcode = inst["opcode"].as_str().unwrap_or("?");
    let row = lower::bir::OPCODES
        .iter()
        .find(|r| r.name == opcode)
        .unwrap_or_else(|| panic!("{opcode} is not in lower::bir::OPCODES"));
    let keys: Vec<&str> = row.keys.iter().map(|k| k.field.key()).collect();
    let mut last = None;
    for key in fields.keys() {
        let at = keys.iter().position(|k| k == key);
        assert!(at.is_some(), "{opcode}: `{key}` is not in its row");
        assert!(at > last, "{opcode}: `{key}` is out of its row's order");
        last = at;
    }
    for key in row.keys.iter().filter(|k| k.when.is_none()) {
        assert!(
            fields.contains_key(key.field.key()),
            "{opcode}: `{}` is always written, but this op without errors has none",
            key.field.key()
        );
    }
}

/// `role: kind memref dtype ap=… off=… sp=…` and any extra keys.
fn render_arg(arg: &Value) -> String {
    let mut s = format!(
        "{}: {} {}",
        arg["role"].as_str().unwrap_or("?"),
        arg["kind"].as_str().unwrap_or("?"),
        arg["dtype"].as_str().unwrap_or("?")
    );
    for (k, v) in arg.as_object().into_iter().flatten() {
        match k.as_str() {
            "role" | "kind" | "dtype" | "memsetref" => {}
            "memref" | "regref" => s.push_str(&format!(" %{}", v.as_str().unwrap_or("?"))),
            _ => s.push_str(&format!(" {k}={v}")),
        }
    }
    s
}

/// Lowers an error-free `fixture` and validates its BIR document with `bir_schema.py`
/// (`../shared/tools` beside the repository when present, else the vendored
/// `tests/tools`; exit 0: no error). python3 is required, as for the corpus tests.
#[track_caller]
pub fn check_schema(fixture: &str) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, fixture.to_string());
    let errors: Vec<String> = analysis::diagnostics(&db, file)
        .iter()
        .filter(|d| d.severity == lower::Severity::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(
        errors.is_empty(),
        "the schema fixture should be error-free: {errors:?}"
    );
    let bir = analysis::file_bir(&db, file);
    let count = bir["functions"][0]["blocks"][0]["instructions"]
        .as_array()
        .map_or(0, Vec::len);
    assert!(count > 0, "the schema fixture lowers to no instruction");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tool = [
        root.join("../shared/tools/bir_schema.py"),
        root.join("tests/tools/bir_schema.py"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("bir_schema.py: ../shared/tools or the vendored tests/tools");
    let path = std::env::temp_dir().join(format!(
        "pir-schema-{}-{:x}.json",
        std::process::id(),
        fixture.len() * 31 + fixture.bytes().map(usize::from).sum::<usize>()
    ));
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&bir).expect("BIR serialises"),
    )
    .expect("temp file");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let output = std::process::Command::new(python)
        .arg(&tool)
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let output = output.expect("python3 runs bir_schema.py");
    assert!(
        output.status.success(),
        "bir_schema.py found errors:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
