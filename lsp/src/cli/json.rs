//! The JSON documents of `pir check`, `pir stats` and `pir check --explain` (SPEC §9,
//! §10.1), written to standard output file by file as each is analysed, never held whole:
//! a file of 100,000 ops with 16,390 warnings made a 50 MB tree of `serde_json::Value`s
//! before (`pir check --format json` peaked at 211 MB, a third of it that tree).

use std::io::{self, BufWriter, StdoutLock, Write};

use serde::Serialize;

/// `{"target": …, "files": [ … ]}` (`"target"` only when given), pretty-printed as
/// `serde_json::to_string_pretty` prints the whole document (two spaces an indent), ending
/// in a line break. A closed pipe (`pir check … | head`) ends the writing quietly:
/// [`JsonFiles::finish`] says whether everything was written.
pub(super) struct JsonFiles {
    out: BufWriter<StdoutLock<'static>>,
    /// No file written yet.
    empty: bool,
    /// Every write so far succeeded.
    ok: bool,
}

impl JsonFiles {
    /// Writes the document's head.
    pub(super) fn start(target: Option<&str>) -> JsonFiles {
        let mut files = JsonFiles {
            out: BufWriter::new(io::stdout().lock()),
            empty: true,
            ok: true,
        };
        let head = match target {
            Some(target) => format!(
                "{{\n  \"target\": {},\n  \"files\": [",
                serde_json::Value::from(target)
            ),
            None => "{\n  \"files\": [".to_string(),
        };
        files.write(|out| out.write_all(head.as_bytes()));
        files
    }

    /// Writes one file's report, an element of `"files"`.
    pub(super) fn push(&mut self, report: &impl Serialize) {
        let first = std::mem::replace(&mut self.empty, false);
        self.write(|out| {
            out.write_all(if first { b"\n    " } else { b",\n    " })?;
            let mut indented = Indented { out };
            serde_json::to_writer_pretty(&mut indented, report).map_err(io::Error::other)
        });
    }

    /// Writes the document's tail; whether every write succeeded.
    pub(super) fn finish(mut self) -> bool {
        let tail: &[u8] = if self.empty { b"]\n}\n" } else { b"\n  ]\n}\n" };
        self.write(|out| {
            out.write_all(tail)?;
            out.flush()
        });
        self.ok
    }

    fn write(&mut self, f: impl FnOnce(&mut BufWriter<StdoutLock<'static>>) -> io::Result<()>) {
        if self.ok {
            self.ok = f(&mut self.out).is_ok();
        }
    }
}

/// A writer that indents every line after the first by four spaces (an element of
/// `"files"`): JSON strings never hold a raw line break, so every `\n` written is one
/// between two lines of the pretty-printed value.
struct Indented<'w, W: Write> {
    out: &'w mut W,
}

impl<W: Write> Write for Indented<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for (i, line) in buf.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                self.out.write_all(b"\n    ")?;
            }
            self.out.write_all(line)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// One diagnostic of `pir check --format json` (SPEC §9), in its key order.
#[derive(Serialize)]
pub(super) struct JsonDiagnostic<'a> {
    pub(super) code: &'static str,
    pub(super) severity: &'static str,
    pub(super) message: &'a str,
    pub(super) range: JsonRange,
}

/// A range of 1-based lines and 1-based columns in Unicode scalar values.
#[derive(Serialize)]
pub(super) struct JsonRange {
    pub(super) start: analysis::LineCol,
    pub(super) end: analysis::LineCol,
}

/// One file of `pir check --format json`.
#[derive(Serialize)]
pub(super) struct JsonCheckReport<'a> {
    pub(super) path: String,
    pub(super) diagnostics: Vec<JsonDiagnostic<'a>>,
}
