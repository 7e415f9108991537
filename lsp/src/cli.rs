//! `pir check` and `pir lower` (SPEC §9): files in, diagnostics and BIR JSON out.
//!
//! Exit codes: 0 clean or warnings only, 1 errors, 2 usage or I/O error.

use std::io::Write;
use std::path::{Path, PathBuf};

use analysis::{Diagnostic, LineCol, RootDatabase, SourceFile, line_col};
use lower::{Code, Severity};
use serde_json::json;

use crate::Format;

/// A file read from disk and loaded into the database.
struct Loaded {
    path: PathBuf,
    file: SourceFile,
    /// Diagnostics of the bytes themselves (invalid UTF-8), beside the analysis'.
    decoding: Vec<Diagnostic>,
}

/// Reads `path` (any bytes) into `db`.
fn load(db: &RootDatabase, path: &Path) -> std::io::Result<Loaded> {
    let bytes = std::fs::read(path)?;
    let (text, bad) = syntax::decode(&bytes);
    let decoding = bad
        .into_iter()
        .map(|range| Diagnostic::new(Code::P103, range, "invalid UTF-8"))
        .collect();
    Ok(Loaded {
        path: path.to_path_buf(),
        file: SourceFile::new(db, text),
        decoding,
    })
}

/// At most this many invalid-UTF-8 diagnostics per file beyond the lexer's own (the rest
/// are counted in one note), so a binary file gives a bounded report.
const MAX_DECODING_DIAGNOSTICS: usize = 100;

/// The file's diagnostics: the analysis', plus each run of invalid UTF-8 the lexer did not
/// already report (those inside comments and strings), sorted by position.
fn file_diagnostics(db: &RootDatabase, loaded: &Loaded) -> Vec<Diagnostic> {
    let mut all: Vec<Diagnostic> = analysis::diagnostics(db, loaded.file).clone();
    let mut reported: Vec<analysis::TextRange> = all
        .iter()
        .filter(|a| a.code == Code::P103)
        .map(|a| a.range)
        .collect();
    reported.sort_by_key(|r| r.start());
    let covered = |r: analysis::TextRange| {
        let i = reported.partition_point(|x| x.start() <= r.start());
        i > 0 && reported[i - 1].contains_range(r)
    };
    let extra: Vec<&Diagnostic> = loaded
        .decoding
        .iter()
        .filter(|d| !covered(d.range))
        .collect();
    all.extend(
        extra
            .iter()
            .take(MAX_DECODING_DIAGNOSTICS)
            .map(|d| (*d).clone()),
    );
    if let Some(first_dropped) = extra.get(MAX_DECODING_DIAGNOSTICS) {
        let more = extra.len() - MAX_DECODING_DIAGNOSTICS;
        all.push(Diagnostic::new(
            Code::P103,
            first_dropped.range,
            format!("invalid UTF-8: {more} more runs not reported"),
        ));
    }
    all.sort_by_key(|d| (d.range.start(), d.range.end()));
    all
}

/// Files to check: each path, and every `*.pir` under each folder (sorted), each file
/// once. A folder reached again through a symbolic link is not walked twice, so link
/// cycles end.
fn collect(paths: &[PathBuf]) -> Files {
    let mut files = Files::default();
    let mut seen_dirs = std::collections::HashSet::new();
    let mut seen_files = std::collections::HashSet::new();
    walk(paths, &mut files, &mut seen_dirs, &mut seen_files);
    files
}

/// What [`collect`] found: the files to read, and the paths that could not be read (each
/// reported by the caller, which goes on with the rest).
#[derive(Default)]
struct Files {
    paths: Vec<PathBuf>,
    errors: Vec<(PathBuf, std::io::Error)>,
}

impl Files {
    /// Reports the unreadable paths on stderr; the exit status they imply (2 or 0).
    fn report_errors(&self) -> u8 {
        for (path, e) in &self.errors {
            eprintln!("pir: {}: {e}", path.display());
        }
        if self.errors.is_empty() { 0 } else { 2 }
    }
}

fn walk(
    paths: &[PathBuf],
    out: &mut Files,
    seen_dirs: &mut std::collections::HashSet<PathBuf>,
    seen_files: &mut std::collections::HashSet<PathBuf>,
) {
    for path in paths {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if path.is_dir() {
            if !seen_dirs.insert(canonical) {
                continue;
            }
            let entries: std::io::Result<Vec<PathBuf>> =
                std::fs::read_dir(path).and_then(|dir| dir.map(|e| e.map(|e| e.path())).collect());
            let mut entries = match entries {
                Ok(entries) => entries,
                Err(e) => {
                    out.errors.push((path.clone(), e));
                    continue;
                }
            };
            entries.sort();
            let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) =
                entries.into_iter().partition(|p| p.is_dir());
            for file in files
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "pir"))
            {
                let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
                if seen_files.insert(canonical) {
                    out.paths.push(file);
                }
            }
            walk(&dirs, out, seen_dirs, seen_files);
        } else if seen_files.insert(canonical) {
            out.paths.push(path.clone());
        }
    }
}

/// Writes `text` to stdout; a closed pipe (`pir check … | head`) ends quietly.
fn print_stdout(text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// A database with the client settings of the command line.
fn database(tkg_seqlen_threshold: Option<u64>) -> RootDatabase {
    use salsa::Setter;
    let mut db = RootDatabase::default();
    if let Some(threshold) = tkg_seqlen_threshold {
        let settings = analysis::Db::settings(&db);
        settings.set_tkg_seqlen_threshold(&mut db).to(threshold);
    }
    db
}

/// `pir check`.
pub fn check(paths: &[PathBuf], format: Format, tkg_seqlen_threshold: Option<u64>) -> u8 {
    let files = collect(paths);
    let mut status = files.report_errors();
    if files.paths.is_empty() && status == 0 {
        eprintln!("pir: no .pir files to check");
    }
    let db = database(tkg_seqlen_threshold);
    let mut reports = Vec::new();
    let (mut errors, mut warnings) = (0usize, 0usize);
    for path in &files.paths {
        let loaded = match load(&db, path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("pir: {}: {e}", path.display());
                status = 2;
                continue;
            }
        };
        let diagnostics = file_diagnostics(&db, &loaded);
        let file_errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        errors += file_errors;
        warnings += diagnostics.len() - file_errors;
        if file_errors > 0 && status == 0 {
            status = 1;
        }
        match format {
            Format::Human => print_human(&db, &loaded, &diagnostics),
            Format::Json => reports.push(json_report(&db, &loaded, &diagnostics)),
        }
    }
    match format {
        Format::Json => {
            let doc = json!({ "files": reports });
            let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            text.push('\n');
            print_stdout(&text);
        }
        Format::Human if !files.paths.is_empty() => {
            let plural =
                |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
            eprintln!(
                "pir: checked {}: {}, {}",
                plural(files.paths.len(), "file"),
                plural(errors, "error"),
                plural(warnings, "warning")
            );
        }
        Format::Human => {}
    }
    status
}

/// `pir lower`.
pub fn lower(path: &Path, output: Option<&Path>, tkg_seqlen_threshold: Option<u64>) -> u8 {
    let db = database(tkg_seqlen_threshold);
    let loaded = match load(&db, path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pir: {}: {e}", path.display());
            return 2;
        }
    };
    let diagnostics = file_diagnostics(&db, &loaded);
    print_human(&db, &loaded, &diagnostics);
    // Written straight from the typed lowerings, without a JSON tree of the whole file.
    let bir = analysis::bir_document(&db, loaded.file);
    let mut text = serde_json::to_string_pretty(&bir).unwrap_or_default();
    text.push('\n');
    match output {
        Some(out) => {
            if let Err(e) = std::fs::write(out, text) {
                eprintln!("pir: {}: {e}", out.display());
                return 2;
            }
        }
        None => {
            if !print_stdout(&text) {
                return 2;
            }
        }
    }
    u8::from(diagnostics.iter().any(|d| d.severity == Severity::Error))
}

fn position(db: &RootDatabase, file: SourceFile, offset: analysis::TextSize) -> serde_json::Value {
    let LineCol { line, column } = line_col(analysis::line_index(db, file), file.text(db), offset);
    json!({ "line": line, "column": column })
}

/// One file of `pir check --format json` (SPEC §9): 1-based lines, 1-based columns in
/// Unicode scalar values.
fn json_report(
    db: &RootDatabase,
    loaded: &Loaded,
    diagnostics: &[Diagnostic],
) -> serde_json::Value {
    let diagnostics: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            json!({
                "code": d.code.as_str(),
                "severity": d.severity.as_str(),
                "message": d.message,
                "range": {
                    "start": position(db, loaded.file, d.range.start()),
                    "end": position(db, loaded.file, d.range.end()),
                },
            })
        })
        .collect();
    json!({ "path": loaded.path.display().to_string(), "diagnostics": diagnostics })
}

/// Human diagnostics on stderr: the source line with the range underlined (ariadne).
fn print_human(db: &RootDatabase, loaded: &Loaded, diagnostics: &[Diagnostic]) {
    use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
    let text = loaded.file.text(db);
    let name = loaded.path.display().to_string();
    let color = std::env::var_os("NO_COLOR").is_none()
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let config = Config::default()
        .with_index_type(IndexType::Byte)
        .with_color(color);
    let mut stderr = std::io::stderr().lock();
    // One source (its line table) per file, not per diagnostic.
    let mut cache = (name.as_str(), Source::from(text.as_str()));
    for d in diagnostics {
        let range = usize::from(d.range.start())..usize::from(d.range.end());
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let mut report = Report::build(kind, (name.as_str(), range.clone()))
            .with_config(config)
            .with_code(d.code)
            .with_message(&d.message)
            .with_label(Label::new((name.as_str(), range)).with_message(d.code.summary()));
        for (range, note) in &d.related {
            let range = usize::from(range.start())..usize::from(range.end());
            report = report.with_label(Label::new((name.as_str(), range)).with_message(note));
        }
        let _ = report.finish().write(&mut cache, &mut stderr);
    }
}

/// `pir fmt [--check]`: formats in place; with `--check`, lists the files that would
/// change and exits 1 if any. A file with syntax errors is reported and left alone (exit 1).
pub fn fmt(paths: &[PathBuf], check: bool) -> u8 {
    let files = collect(paths);
    let mut status = files.report_errors();
    for path in &files.paths {
        let text = match std::fs::read(path).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => {
                // Writing the decoded text back would replace the bad bytes: never lose text.
                eprintln!(
                    "pir: {}: not formatted: the file is not valid UTF-8",
                    path.display()
                );
                status = status.max(1);
                continue;
            }
            Err(e) => {
                eprintln!("pir: {}: {e}", path.display());
                status = 2;
                continue;
            }
        };
        let Some(formatted) = analysis::ide::format(&text) else {
            eprintln!(
                "pir: {}: not formatted: the file has syntax errors (see `pir check`)",
                path.display()
            );
            status = status.max(1);
            continue;
        };
        if formatted == text {
            continue;
        }
        if check {
            print_stdout(&format!("{}\n", path.display()));
            status = status.max(1);
        } else if let Err(e) = std::fs::write(path, formatted) {
            eprintln!("pir: {}: {e}", path.display());
            status = 2;
        }
    }
    status
}
