//! `pir check`, `pir lower`, `pir fmt` and `pir stats` (SPEC §9, §10.1): files in,
//! diagnostics, BIR JSON and resource tables out.
//!
//! Exit codes: 0 clean or warnings only, 1 errors, 2 usage or I/O error. Every command
//! reads standard input for the path `-` (SPEC §9 [2]) and writes what it made of it to
//! standard output; so do `lower -o -` and `fmt` on a stream such as `/dev/stdin`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use analysis::{Analysis, AnalysisHost, Cancellable, Diagnostic, FileId, LineCol};
use lower::Severity;
use serde_json::json;

use crate::{Format, Settings};

mod json;
use json::{JsonCheckReport, JsonDiagnostic, JsonFiles, JsonRange};

/// A file read from disk and loaded into the database.
struct Loaded {
    path: PathBuf,
    file: FileId,
    /// Diagnostics of the bytes themselves (invalid UTF-8), beside the analysis'.
    decoding: Vec<Diagnostic>,
}

/// Whether `path` names standard input: `-` (SPEC §9 [2]).
fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` is standard input or a stream such as `/dev/stdin` or `/proc/self/fd/0`:
/// read, but never written back (`pir fmt /dev/stdin < f` must not rewrite `f`).
fn is_stream(path: &Path) -> bool {
    is_stdin(path) || path.starts_with("/dev") || path.starts_with("/proc")
}

/// How `path` is named in messages: `<stdin>` for `-`.
fn display(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The most bytes read from one path: 256 MiB, the largest document the server takes
/// (`transport::MAX_CONTENT_LENGTH`); a 100,000-op file is 20 MB. `/dev/zero` named on the
/// command line is read that far, then reported.
const MAX_READ: u64 = 256 << 20;

/// The bytes of `path`, or of standard input for `-`, at most [`MAX_READ`]. A regular
/// file is read as such; a stream (`-`, `/dev/stdin`, `/dev/fd/N`, what is under `/dev` or
/// `/proc`) as it comes; anything else that is not a regular file (a FIFO named `x.pir`,
/// which would block until a writer came) is an error saying how to read it.
fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    if is_stdin(path) {
        return pir_lsp::files::read_at_most(std::io::stdin().lock(), MAX_READ);
    }
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return pir_lsp::files::read_regular(path, MAX_READ);
    }
    if is_stream(path) {
        return pir_lsp::files::read_at_most(std::fs::File::open(path)?, MAX_READ);
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "not a regular file; to check what it holds, give it on standard input \
             (`pir check - < {}`)",
            path.display()
        ),
    ))
}

/// Reads `path` (any bytes; `-` is standard input) into `host`.
fn load(host: &mut AnalysisHost, path: &Path) -> std::io::Result<Loaded> {
    let bytes = read(path)?;
    let (text, decoding) = pir_lsp::files::decode(&bytes);
    Ok(Loaded {
        path: path.to_path_buf(),
        file: host.add_file(&text),
        decoding,
    })
}

/// The file's diagnostics: the analysis', plus each run of invalid UTF-8 the lexer did not
/// already report (`pir_lsp::files::with_decoding`, as the server's workspace diagnostics).
fn file_diagnostics(analysis: &Analysis, loaded: &Loaded) -> Vec<Diagnostic> {
    pir_lsp::files::with_decoding(
        settled(analysis.diagnostics(loaded.file)).to_vec(),
        &loaded.decoding,
    )
}

/// Files to check: each path (`-` is standard input), and every `*.pir` under each folder
/// (`pir_lsp::files::walk`, the server's walker: regular files only, links followed inside
/// the folder, hidden folders, `target` and `node_modules` skipped), each file once. What a
/// walk leaves out is said on stderr. A folder given on the command line that holds no
/// `*.pir` file is an error naming it (SPEC §9 [2]: a mistyped path must fail a CI job).
fn collect(paths: &[PathBuf]) -> Files {
    let mut files = Files::default();
    let mut seen_dirs = std::collections::HashSet::new();
    let mut seen_files = std::collections::HashSet::new();
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    for path in paths {
        if is_stdin(path) || !path.is_dir() {
            if seen_files.insert(if is_stdin(path) {
                path.clone()
            } else {
                canonical(path)
            }) {
                files.paths.push(path.clone());
            }
            continue;
        }
        if !seen_dirs.insert(canonical(path)) {
            // Walked already: it is no mistyped path.
            continue;
        }
        let found = pir_lsp::files::walk(
            std::slice::from_ref(path),
            pir_lsp::files::COMMAND_LINE,
            &|| false,
        );
        for note in &found.notes {
            eprintln!("pir: {note}");
        }
        let errors = found.errors.len();
        files
            .errors
            .extend(found.errors.into_iter().map(|(p, e)| (p, e.to_string())));
        if found.files.is_empty() && errors == 0 {
            files.errors.push((
                path.clone(),
                "no .pir file in this folder (nothing to check: is the path right?)".into(),
            ));
        }
        for file in found.files {
            if seen_files.insert(canonical(&file)) {
                files.paths.push(file);
            }
        }
    }
    files
}

/// What [`collect`] found: the files to read, and the paths that could not be read (each
/// reported by the caller, which goes on with the rest).
#[derive(Default)]
struct Files {
    paths: Vec<PathBuf>,
    errors: Vec<(PathBuf, String)>,
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

/// The JSON report of a path that could not be read (SPEC §9 [2]): `{"path", "error",
/// <list>: []}`, `list` being the report's per-file list (`diagnostics`, `kernels`).
fn unreadable_report(path: &Path, error: &str, list: &str) -> serde_json::Value {
    let mut report = serde_json::Map::new();
    report.insert("path".into(), json!(path.display().to_string()));
    report.insert("error".into(), json!(error));
    report.insert(list.into(), json!([]));
    serde_json::Value::Object(report)
}

/// Writes `text` to stdout; a closed pipe (`pir check … | head`) ends quietly.
fn print_stdout(text: &str) -> bool {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// An analysis host with the client settings of the command line. Take a snapshot after
/// adding (and warming) a file, and drop it before the next: a snapshot sees the files added
/// before it, and [`AnalysisHost::warm`] waits for every snapshot to let go. The command
/// line makes no other change, so no answer is ever cancelled.
fn analysis(settings: &Settings) -> AnalysisHost {
    let mut host = AnalysisHost::new();
    if let Some(threshold) = settings.tkg_seqlen_threshold {
        host.set_tkg_seqlen_threshold(threshold);
    }
    host.set_target(settings.target);
    host
}

/// An answer of the command line's analysis: never cancelled, since the command line makes
/// no change after it reads its files (see [`analysis`]).
fn settled<T>(answer: Cancellable<T>) -> T {
    match answer {
        Ok(answer) => answer,
        Err(cancelled) => unreachable!("the command line changes nothing it reads: {cancelled}"),
    }
}

/// `pir check`.
pub fn check(paths: &[PathBuf], format: Format, settings: &Settings) -> u8 {
    let files = collect(paths);
    let mut status = files.report_errors();
    if files.paths.is_empty() && status == 0 {
        eprintln!("pir: no .pir files to check");
    }
    let mut host = analysis(settings);
    let mut json = (format == Format::Json).then(|| JsonFiles::start(Some(settings.target.name())));
    if let Some(json) = &mut json {
        for (path, e) in &files.errors {
            json.push(&unreadable_report(path, e, "diagnostics"));
        }
    }
    let (mut errors, mut warnings) = (0usize, 0usize);
    let (mut checked, mut unreadable) = (0usize, files.errors.len());
    for path in &files.paths {
        let loaded = match load(&mut host, path) {
            Ok(l) => l,
            Err(e) => {
                // Reported by name, never counted as checked (SPEC §9 [2]).
                eprintln!("pir: {}: {e}", display(path));
                if let Some(json) = &mut json {
                    json.push(&unreadable_report(path, &e.to_string(), "diagnostics"));
                }
                unreadable += 1;
                status = 2;
                continue;
            }
        };
        checked += 1;
        // Every chunk analysed, with trees evicted as it goes: memory of a few batches.
        host.warm(loaded.file);
        let analysis = host.snapshot();
        let diagnostics = file_diagnostics(&analysis, &loaded);
        let file_errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        errors += file_errors;
        warnings += diagnostics.len() - file_errors;
        if file_errors > 0 && status == 0 {
            status = 1;
        }
        match &mut json {
            None => print_human(&analysis, &loaded, &diagnostics),
            Some(json) => json.push(&json_report(&analysis, &loaded, &diagnostics)),
        }
    }
    match json {
        Some(json) => {
            json.finish();
        }
        None if checked + unreadable > 0 => {
            let plural =
                |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
            let unread = if unreadable > 0 {
                format!("; {} not read", plural(unreadable, "path"))
            } else {
                String::new()
            };
            eprintln!(
                "pir: checked {}: {}, {}{unread}",
                plural(checked, "file"),
                plural(errors, "error"),
                plural(warnings, "warning")
            );
        }
        None => {}
    }
    exit_without_freeing(host);
    status
}

/// The command ends here: the analysis (a large file's trees and lowerings, hundreds of
/// megabytes) is left to the operating system instead of freed piece by piece, which cost
/// a tenth of a cold `pir check` (as compilers do at exit).
fn exit_without_freeing(host: AnalysisHost) {
    std::mem::forget(host);
}

/// `pir lower` (`-` reads standard input; `-o -` is standard output, as no `-o` is).
pub fn lower(path: &Path, output: Option<&Path>, settings: &Settings) -> u8 {
    let mut host = analysis(settings);
    let loaded = match load(&mut host, path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pir: {}: {e}", display(path));
            return 2;
        }
    };
    let output = output.filter(|out| !is_stdin(out));
    if let Some(out) = output
        && is_same_file(path, out)
    {
        eprintln!(
            "pir: {}: is the input file; the BIR would overwrite it (write it to another file)",
            out.display()
        );
        return 2;
    }
    // Written as it is made, a few chunks at a time (a huge file's BIR is never held), the
    // file analysed on the way; its diagnostics are printed after.
    let written = match output {
        Some(out) => std::fs::File::create(out)
            .and_then(|file| write_bir(&mut host, &loaded, std::io::BufWriter::new(file)))
            .map_err(|e| Some(format!("{}: {e}", out.display()))),
        // A reader gone (`| head`) is no error to report, as for every command.
        None => write_bir(
            &mut host,
            &loaded,
            std::io::BufWriter::new(std::io::stdout().lock()),
        )
        .map_err(|_| None),
    };
    let analysis = host.snapshot();
    let diagnostics = file_diagnostics(&analysis, &loaded);
    print_human(&analysis, &loaded, &diagnostics);
    drop(analysis);
    exit_without_freeing(host);
    if let Err(message) = written {
        if let Some(message) = message {
            eprintln!("pir: {message}");
        }
        return 2;
    }
    u8::from(diagnostics.iter().any(|d| d.severity == Severity::Error))
}

/// Whether `a` and `b` name one existing file (through links too).
fn is_same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes the BIR of `loaded` and a final line break to `out`, flushed.
fn write_bir(host: &mut AnalysisHost, loaded: &Loaded, mut out: impl Write) -> std::io::Result<()> {
    host.write_bir(loaded.file, &mut out)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `pir check --explain NAME PATH…`: the op of each instruction named `NAME` (`I-33` or
/// `I-21-0`) in the files — its kernel, 1-based line and column, its text and its BIR (the
/// instructions `NAME` names). Human output on stdout; JSON `{"files": [{"path",
/// "instructions": [{"name", "kernel", "op", "op_id", "line", "column", "bir"}]}]}`. Exit 0
/// when some file has it, 1 when none does, 2 on a usage or I/O error.
pub fn explain(paths: &[PathBuf], name: &str, format: Format, settings: &Settings) -> u8 {
    let Some(wanted) = analysis::ide::InstructionName::parse(name) else {
        eprintln!("pir: `{name}` is not an instruction name (I-<op id> or I-<op id>-<k>)");
        return 2;
    };
    let files = collect(paths);
    let mut status = files.report_errors();
    let mut host = analysis(settings);
    let (mut found_any, mut human) = (false, String::new());
    let mut json = (format == Format::Json).then(|| JsonFiles::start(None));
    for path in &files.paths {
        let loaded = match load(&mut host, path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("pir: {}: {e}", display(path));
                status = 2;
                continue;
            }
        };
        let analysis = host.snapshot();
        let text = analysis.file_text(loaded.file);
        let mut instructions = Vec::new();
        for found in settled(analysis.find_instructions(loaded.file, wanted)) {
            found_any = true;
            let LineCol { line, column } =
                settled(analysis.line_col(loaded.file, found.class_range.start()));
            let bir = settled(analysis.show_bir(loaded.file, Some(found.class_range.start())));
            let bir: Vec<serde_json::Value> = bir["instructions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|inst| inst["name"] == found.name.as_str())
                .cloned()
                .collect();
            let _ = writeln!(
                human,
                "{}:{line}:{column}: {} is {} #{} of @{} ({})",
                display(path),
                found.name,
                found.class,
                found.op_id,
                found.kernel,
                found.opcode
            );
            let op_text = text
                .get(usize::from(found.range.start())..usize::from(found.range.end()))
                .unwrap_or_default();
            // The first line from the op's column, as in the file.
            let indent = " ".repeat((column as usize).saturating_sub(1));
            for (k, source_line) in op_text.lines().enumerate() {
                let indent = if k == 0 { indent.as_str() } else { "" };
                let _ = writeln!(human, "{:>6} | {indent}{source_line}", line as usize + k);
            }
            for inst in &bir {
                let _ = writeln!(
                    human,
                    "{}",
                    serde_json::to_string_pretty(inst).unwrap_or_default()
                );
            }
            instructions.push(json!({
                "name": found.name,
                "kernel": found.kernel,
                "op": found.class,
                "op_id": found.op_id,
                "line": line,
                "column": column,
                "bir": bir,
            }));
        }
        if let Some(json) = &mut json {
            json.push(
                &json!({ "path": loaded.path.display().to_string(), "instructions": instructions }),
            );
        }
    }
    match json {
        Some(json) => {
            json.finish();
        }
        None => {
            print_stdout(&human);
        }
    }
    if !found_any {
        eprintln!("pir: no instruction {name} in the files given");
        if status == 0 {
            status = 1;
        }
    }
    status
}

/// One file of `pir check --format json` (SPEC §9): 1-based lines, 1-based columns in
/// Unicode scalar values.
fn json_report<'a>(
    analysis: &Analysis,
    loaded: &Loaded,
    diagnostics: &'a [Diagnostic],
) -> JsonCheckReport<'a> {
    let position = |offset| settled(analysis.line_col(loaded.file, offset));
    JsonCheckReport {
        path: loaded.path.display().to_string(),
        diagnostics: diagnostics
            .iter()
            .map(|d| JsonDiagnostic {
                code: d.code.as_str(),
                severity: d.severity.as_str(),
                message: &d.message,
                range: JsonRange {
                    start: position(d.range.start()),
                    end: position(d.range.end()),
                },
            })
            .collect(),
    }
}

/// The longest source line drawn under a diagnostic (bytes); a longer one is named by its
/// position only.
const MAX_DRAWN_LINE: usize = 1000;

/// Human diagnostics on stderr: the source line with the range underlined (ariadne).
/// Rendered on every core, [`RENDER_BLOCK`] reports at a time, and written in order: the
/// 16,390 warnings of the 100,000-op benchmark file were a fifth of a cold `pir check` drawn
/// on one.
fn print_human(analysis: &Analysis, loaded: &Loaded, diagnostics: &[Diagnostic]) {
    use ariadne::{Config, IndexType, Source};
    if diagnostics.is_empty() {
        // Nothing to draw: no line table of the file (a pass over all of it).
        return;
    }
    let text = analysis.file_text(loaded.file);
    let name = display(&loaded.path);
    let color = std::env::var_os("NO_COLOR").is_none()
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    // Char offsets: with byte offsets, ariadne 0.6 misplaces the header of a second group
    // (it reads a char offset as a byte offset) after non-ASCII text.
    let config = Config::default()
        .with_index_type(IndexType::Char)
        .with_color(color);
    // One source (its line table) per file, not per diagnostic; what it shows of the file
    // never carries a control character to the terminal.
    let shown = printable(&text);
    let source = Source::from(shown.as_ref());
    let drawing = Drawing {
        text: &text,
        name: &name,
        config,
        char_index: CharIndex::new(&text),
        source: &source,
    };
    // Buffered: stderr is not, and a report is many small writes (16,390 warnings of the
    // 100,000-op benchmark file were 2.3 s of system time unbuffered).
    let mut stderr = std::io::BufWriter::with_capacity(1 << 16, std::io::stderr().lock());
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    // The line of the last diagnostic, with its `\n` (they come sorted: many on one line
    // find it here).
    let mut line = 0..0;
    for block in diagnostics.chunks(RENDER_BLOCK) {
        // A line too long to draw is named by its position: found here, where the
        // analysis is (it stays on this thread), with the line's length.
        let positions: Vec<Option<(LineCol, usize)>> = block
            .iter()
            .map(|d| {
                let at = usize::from(d.range.start());
                if !line.contains(&at) {
                    line = drawing.line_of(at);
                }
                let length = line.end.min(text.len()) - line.start;
                (length > MAX_DRAWN_LINE).then(|| {
                    let position = settled(analysis.line_col(loaded.file, d.range.start()));
                    (position, length)
                })
            })
            .collect();
        let share = block.len().div_ceil(threads).max(1);
        let rendered: Vec<Vec<u8>> = std::thread::scope(|scope| {
            let drawing = &drawing;
            let handles: Vec<_> = block
                .chunks(share)
                .zip(positions.chunks(share))
                .map(|(part, at)| scope.spawn(move || drawing.render(part, at)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for part in rendered {
            let _ = stderr.write_all(&part);
        }
    }
    let _ = stderr.flush();
}

/// How many reports [`print_human`] renders before writing them (what it holds at once).
const RENDER_BLOCK: usize = 4096;

/// What [`print_human`] draws every report of one file with.
struct Drawing<'a> {
    /// The file's text.
    text: &'a str,
    /// Its name, as shown.
    name: &'a str,
    config: ariadne::Config,
    char_index: CharIndex<'a>,
    /// The file as shown ([`printable`]), with its line table.
    source: &'a ariadne::Source<&'a str>,
}

impl Drawing<'_> {
    /// The start and end (UTF-8 bytes; its `\n` not included, but an empty line at the
    /// text's end is one byte long, so that it holds `at`) of the line holding byte `at`.
    fn line_of(&self, at: usize) -> std::ops::Range<usize> {
        let text = self.text;
        let at = at.min(text.len());
        let start = text
            .get(..at)
            .and_then(|t| t.rfind('\n'))
            .map_or(0, |i| i + 1);
        let end = text
            .get(at..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |i| at + i);
        start..end.max(at + 1)
    }

    /// The reports of `diagnostics` (sorted), each at `at` its position and its line's
    /// length when its line is too long to draw.
    fn render(&self, diagnostics: &[Diagnostic], at: &[Option<(LineCol, usize)>]) -> Vec<u8> {
        use ariadne::{Label, Report, ReportKind};
        let mut out = Vec::new();
        let chars = |range: analysis::TextRange| {
            self.char_index.of(usize::from(range.start()))
                ..self.char_index.of(usize::from(range.end()))
        };
        // The primary range and the related notes are two sources of one text: ariadne
        // heads a group of the report's own source with the primary's line:column, and any
        // other group with its first label's, so each note's header shows where the note is.
        let primary = SourceName {
            name: self.name,
            related: false,
        };
        let related = SourceName {
            related: true,
            ..primary
        };
        let mut cache = OneFile(self.source);
        for (d, position) in diagnostics.iter().zip(at) {
            if let Some((LineCol { line, column }, length)) = position {
                let _ = writeln!(
                    out,
                    "[{}] {}: {}\n    at {}:{line}:{column} (a line of {} bytes, not drawn)",
                    d.code.as_str(),
                    if d.severity == Severity::Error {
                        "Error"
                    } else {
                        "Warning"
                    },
                    printable(&d.message),
                    self.name,
                    length,
                );
                continue;
            }
            let range = chars(d.range);
            let kind = match d.severity {
                Severity::Error => ReportKind::Error,
                Severity::Warning => ReportKind::Warning,
            };
            // A note on the primary range itself is the primary label (not the same span
            // shown twice, once with the code's summary).
            let own_note = d.related.iter().find(|(r, _)| *r == d.range);
            let primary_label = own_note.map_or(d.code.summary(), |(_, note)| note.as_str());
            let mut report = Report::build(kind, (primary, range.clone()))
                .with_config(self.config)
                .with_code(d.code)
                .with_message(printable(&d.message))
                .with_label(Label::new((primary, range)).with_message(printable(primary_label)));
            for (range, note) in d.related.iter().filter(|(r, _)| *r != d.range) {
                report = report
                    .with_label(Label::new((related, chars(*range))).with_message(printable(note)));
            }
            let _ = report.finish().write(&mut cache, &mut out);
        }
        out
    }
}

/// Byte offsets to character offsets (Unicode scalar values) of one text, in time
/// independent of the offset: the characters before each 4 KiB block, counted once.
struct CharIndex<'a> {
    bytes: &'a [u8],
    /// The characters before byte `i * BLOCK`.
    before_block: Vec<usize>,
}

impl<'a> CharIndex<'a> {
    const BLOCK: usize = 4096;

    fn new(text: &'a str) -> CharIndex<'a> {
        let bytes = text.as_bytes();
        let mut before_block = vec![0];
        for block in bytes.chunks(Self::BLOCK) {
            let last = before_block.last().copied().unwrap_or(0);
            before_block.push(last + Self::starts(block));
        }
        CharIndex {
            bytes,
            before_block,
        }
    }

    /// The characters that start in `bytes` (those that are not UTF-8 continuation bytes).
    fn starts(bytes: &[u8]) -> usize {
        bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
    }

    /// The character offset of byte `offset` (a character boundary, at most the length).
    fn of(&self, offset: usize) -> usize {
        let offset = offset.min(self.bytes.len());
        let block = offset / Self::BLOCK;
        self.before_block[block] + Self::starts(&self.bytes[block * Self::BLOCK..offset])
    }
}

/// `text` as the terminal is shown it, one character for one (so character offsets still
/// hold): a file's bytes (ESC, say) must not reach a terminal raw, and a line ends at `\n`
/// only, as `pir check` counts lines everywhere (the JSON positions, the header of a line
/// too long to draw), while ariadne would also end one at every other line break. So a
/// control character but tab, `\n` and the `\r` of a CRLF is shown as its Unicode control
/// picture (NUL as `␀`, a lone `\r` as `␍`, DEL as `␡`), a C1 control as U+FFFD, and U+2028
/// and U+2029 as `␤` (docs/decisions.md).
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = |c: char| {
        (!c.is_control() || matches!(c, '\t' | '\n' | '\r'))
            && !matches!(c, '\u{2028}' | '\u{2029}')
    };
    let lone_cr = |i: usize| text.as_bytes().get(i + 1) != Some(&b'\n');
    if text.chars().all(plain) && !text.char_indices().any(|(i, c)| c == '\r' && lone_cr(i)) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.char_indices()
        .map(|(i, c)| match c {
            '\r' if !lone_cr(i) => c,
            '\t' | '\n' => c,
            '\u{7F}' => '\u{2421}',
            '\u{2028}' | '\u{2029}' => '\u{2424}',
            c if u32::from(c) < 0x20 => char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{FFFD}'),
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect::<String>()
        .into()
}

/// A file as an ariadne source: its name, and whether it stands for the related notes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct SourceName<'a> {
    name: &'a str,
    related: bool,
}

impl std::fmt::Display for SourceName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The one file both [`SourceName`]s of a report stand for.
struct OneFile<'s, 'a>(&'s ariadne::Source<&'a str>);

impl<'a> ariadne::Cache<SourceName<'a>> for OneFile<'_, 'a> {
    type Storage = &'a str;

    fn fetch(
        &mut self,
        _: &SourceName<'a>,
    ) -> Result<&ariadne::Source<&'a str>, impl std::fmt::Debug> {
        Ok::<_, ()>(self.0)
    }

    fn display<'b>(&self, id: &'b SourceName<'a>) -> Option<impl std::fmt::Display + 'b> {
        Some(id)
    }
}

/// `pir fmt [--check]`: formats in place; with `--check`, lists the files that would
/// change and exits 1 if any. A file with syntax errors is reported and left alone (exit 1).
/// Standard input (`-`) and streams (`/dev/stdin`) are formatted to standard output and no
/// file is touched (SPEC §9 [2]); with syntax errors, their text is written back unchanged,
/// so that an editor's filter (`:%!pir fmt -`) never empties a buffer.
pub fn fmt(paths: &[PathBuf], check: bool) -> u8 {
    let files = collect(paths);
    let mut status = files.report_errors();
    for path in &files.paths {
        let name = display(path);
        let stream = is_stream(path);
        let text = match read(path).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => {
                // Writing the decoded text back would replace the bad bytes: never lose text.
                eprintln!("pir: {name}: not formatted: the file is not valid UTF-8");
                if stream && !check {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(e.as_bytes()).and_then(|()| out.flush());
                }
                status = status.max(1);
                continue;
            }
            Err(e) => {
                eprintln!("pir: {name}: {e}");
                status = 2;
                continue;
            }
        };
        let formatted = analysis::ide::format(&text);
        if formatted.is_none() {
            eprintln!("pir: {name}: not formatted: the file has syntax errors (see `pir check`)");
            status = status.max(1);
        }
        let changed = formatted.as_ref().is_some_and(|f| *f != text);
        if check {
            if changed {
                print_stdout(&format!("{name}\n"));
                status = status.max(1);
            }
        } else if stream {
            if !print_stdout(formatted.as_deref().unwrap_or(&text)) {
                status = 2;
            }
        } else if let Some(formatted) = formatted.filter(|_| changed)
            && let Err(e) = std::fs::write(path, formatted)
        {
            eprintln!("pir: {name}: {e}");
            status = 2;
        }
    }
    status
}

/// `pir stats` (SPEC §10.1 [2]): each kernel's engine counts and SBUF/PSUM peaks, as a
/// table per kernel (human, on stdout) or `{"files": [{"path", "kernels": [{"name",
/// "engines": {"PE": {"static", "executed"}, …}, "sbuf": {"peak", "capacity", "op_line"},
/// "psum": {…}}]}]}` (JSON; lines 1-based, `op_line` null when the peak is 0, engines with
/// no instruction left out). A path that cannot be read is reported by name (in JSON
/// `{"path", "error", "kernels": []}`). Exit 0, or 2 on a usage or I/O error.
pub fn stats(paths: &[PathBuf], format: Format, settings: &Settings, plot: Option<&Path>) -> u8 {
    let files = collect(paths);
    // What `--plot` draws: per kernel, its file, stats, occupancy and peak lines.
    type Drawn = (
        String,
        analysis::KernelStats,
        [Vec<u64>; 2],
        [Option<u32>; 2],
    );
    let mut drawn: Vec<Drawn> = Vec::new();
    let mut status = files.report_errors();
    let mut host = analysis(settings);
    let mut json = (format == Format::Json).then(|| JsonFiles::start(Some(settings.target.name())));
    if let Some(json) = &mut json {
        for (path, e) in &files.errors {
            json.push(&unreadable_report(path, e, "kernels"));
        }
    }
    let mut human = String::new();
    for path in &files.paths {
        let loaded = match load(&mut host, path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("pir: {}: {e}", display(path));
                if let Some(json) = &mut json {
                    json.push(&unreadable_report(path, &e.to_string(), "kernels"));
                }
                status = 2;
                continue;
            }
        };
        host.warm(loaded.file);
        let analysis = host.snapshot();
        let kernels = settled(analysis.kernel_stats(loaded.file));
        let line_of = |range: analysis::TextRange| {
            settled(analysis.line_col(loaded.file, range.start())).line
        };
        // Counts of a file that does not parse are of what parses: say so (stderr).
        let syntax_errors = file_diagnostics(&analysis, &loaded)
            .iter()
            .filter(|d| d.code.is_syntax())
            .count();
        if syntax_errors > 0 {
            eprintln!(
                "pir: {}: {syntax_errors} syntax error{}: the counts are of what parses \
                 (`pir check` shows the errors)",
                display(path),
                if syntax_errors == 1 { "" } else { "s" }
            );
        }
        if plot.is_some() {
            let occupancy = settled(analysis.kernel_occupancy(loaded.file));
            for (k, occupancy) in kernels.iter().zip(occupancy) {
                let lines = k.peaks().map(|p| p.op.as_ref().map(|op| line_of(op.range)));
                drawn.push((display(path), k.clone(), occupancy, lines));
            }
        }
        match &mut json {
            Some(json) => {
                let kernels: Vec<serde_json::Value> =
                    kernels.iter().map(|k| stats_json(k, &line_of)).collect();
                json.push(&json!({ "path": path.display().to_string(), "kernels": kernels }));
            }
            None => stats_human(&display(path), &kernels, &line_of, &mut human),
        }
    }
    if let Some(plot) = plot {
        let panels: Vec<pir_lsp::plot::Panel<'_>> = drawn
            .iter()
            .map(
                |(file, stats, occupancy, peak_lines)| pir_lsp::plot::Panel {
                    file,
                    stats,
                    occupancy,
                    peak_lines: *peak_lines,
                },
            )
            .collect();
        if let Err(e) = std::fs::write(plot, pir_lsp::plot::svg(&panels)) {
            eprintln!("pir: {}: {e}", plot.display());
            status = 2;
        }
    }
    let written = match json {
        Some(json) => json.finish(),
        None => print_stdout(&human),
    };
    if !written {
        status = 2;
    }
    exit_without_freeing(host);
    status
}

/// The largest integer every JSON reader keeps exactly (2^53 − 1: JavaScript's
/// `Number.MAX_SAFE_INTEGER`).
const JSON_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Sets `object[key]` to the count `n` (JSON, `pir stats --format json`); past
/// [`JSON_SAFE_INTEGER`] also `{key}_decimal`, the exact count as a decimal string (a reader
/// such as JavaScript's `JSON.parse` rounds the number: 9007199254740993 reads as …992), and
/// at `u64::MAX` `{key}_saturated: true` (counts multiply trip counts and saturate there: a
/// lower bound).
fn put_count(object: &mut serde_json::Value, key: &str, n: u64) {
    object[key] = json!(n);
    if n > JSON_SAFE_INTEGER {
        object[format!("{key}_decimal")] = json!(n.to_string());
    }
    if n == u64::MAX {
        object[format!("{key}_saturated")] = json!(true);
    }
}

/// An engine's counts in `pir stats --format json`: `static` and `executed` ([`put_count`]).
fn executed_json(static_count: u64, executed: u64) -> serde_json::Value {
    let mut counts = json!({ "static": static_count });
    put_count(&mut counts, "executed", executed);
    counts
}

/// One kernel of `pir stats --format json` (SPEC §10.1).
fn stats_json(
    kernel: &analysis::KernelStats,
    line_of: &dyn Fn(analysis::TextRange) -> u32,
) -> serde_json::Value {
    let engines: serde_json::Map<String, serde_json::Value> = kernel
        .engines
        .iter()
        .filter(|c| c.static_count > 0)
        .map(|c| {
            (
                c.engine.bir_name().to_string(),
                executed_json(c.static_count, c.executed),
            )
        })
        .collect();
    let peak = |p: &analysis::resources::Peak| {
        json!({
            "peak": p.bytes,
            "capacity": p.capacity,
            "op_line": p.op.as_ref().map(|op| line_of(op.range)),
        })
    };
    json!({
        "name": kernel.name,
        "engines": engines,
        "sbuf": peak(&kernel.sbuf),
        "psum": peak(&kernel.psum),
        "cost": cost_json(&kernel.cost),
    })
}

/// A kernel's `cost` in `pir stats --format json` (SPEC §10.2.9): the engines with an
/// estimated instruction (compute: `cycles`, `ns`; DMA: `bytes`, `ns`), the bottleneck
/// (`null` when nothing is estimated), the bound in ns and the executed count not
/// estimated.
fn cost_json(cost: &analysis::cost::KernelCost) -> serde_json::Value {
    let engines: serde_json::Map<String, serde_json::Value> = cost
        .engines
        .iter()
        .map(|e| {
            let mut value = json!({});
            match (e.cycles, e.bytes) {
                (Some(cycles), _) => put_count(&mut value, "cycles", cycles),
                (None, bytes) => put_count(&mut value, "bytes", bytes.unwrap_or(0)),
            }
            put_count(&mut value, "ns", e.ns);
            (e.engine.bir_name().to_string(), value)
        })
        .collect();
    let mut out = json!({
        "engines": engines,
        "bottleneck": cost.bottleneck.map(|e| e.bir_name()),
    });
    put_count(&mut out, "lower_bound_ns", cost.lower_bound_ns);
    put_count(&mut out, "not_estimated", cost.not_estimated);
    out
}

/// The human table of `pir stats` for one file: per kernel, the engines with instructions
/// (static and executed counts) and each peak with the line and op where it is reached.
fn stats_human(
    name: &str,
    kernels: &[analysis::KernelStats],
    line_of: &dyn Fn(analysis::TextRange) -> u32,
    out: &mut String,
) {
    use analysis::cost::show_time;
    use analysis::resources::{group, group_executed};
    use std::fmt::Write as _;
    let _ = writeln!(out, "{name}");
    if kernels.is_empty() {
        let _ = writeln!(out, "  no kernel");
    }
    for kernel in kernels {
        let _ = writeln!(out, "  @{}  (target {})", kernel.name, kernel.cost.target);
        let used: Vec<_> = kernel
            .engines
            .iter()
            .filter(|c| c.static_count > 0)
            .collect();
        if used.is_empty() {
            let _ = writeln!(out, "    no BIR instruction");
        } else {
            let _ = writeln!(
                out,
                "    {:<12}{:>10} {:>13} {:>13} {:>11}",
                "engine", "static", "executed", "cycles", "busy"
            );
            for c in used {
                let _ = write!(
                    out,
                    "    {:<12}{:>10} {:>13}",
                    c.engine.bir_name(),
                    group(c.static_count),
                    group_executed(c.executed)
                );
                let estimated = kernel.cost.engines.iter().find(|e| e.engine == c.engine);
                if let Some(e) = estimated {
                    let cycles = e.cycles.map_or_else(|| "—".to_string(), group);
                    let _ = write!(out, " {cycles:>13} {:>11}", show_time(e.ns));
                    if let Some(bytes) = e.bytes {
                        let _ = write!(out, "  ({} bytes)", group(bytes));
                    }
                }
                out.push('\n');
            }
        }
        for peak in kernel.peaks() {
            let percent = peak.bytes as f64 * 100.0 / peak.capacity as f64;
            let _ = write!(
                out,
                "    {} peak {:>9} of {:>7} bytes per partition ({percent:.1}%)",
                peak.memory.name().to_uppercase(),
                group(peak.bytes),
                group(peak.capacity),
            );
            if let Some(op) = &peak.op {
                let _ = write!(
                    out,
                    " at line {} (#{} {})",
                    line_of(op.range),
                    op.op_id,
                    op.class
                );
            }
            if peak.exceeds() {
                let _ = write!(out, ": over capacity (P416)");
            }
            out.push('\n');
        }
        let cost = &kernel.cost;
        match cost.bottleneck {
            Some(engine) => {
                let _ = write!(
                    out,
                    "    lower bound {:>9}, {}-bound",
                    show_time(cost.lower_bound_ns),
                    engine.bir_name()
                );
            }
            None => {
                let _ = write!(out, "    lower bound   none (nothing estimated)");
            }
        }
        if cost.not_estimated > 0 {
            let _ = write!(out, "; {} not estimated", group(cost.not_estimated));
        }
        out.push('\n');
    }
}
