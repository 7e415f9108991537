//! Finding and reading `*.pir` files on disk, for `pir check` and for the server's
//! workspace features (symbols, workspace diagnostics): one walker, so both see the same
//! files, and one capped read, so that no file can stall either.
//!
//! The walk lists only regular files; it follows a symbolic link only when its target lies
//! inside one of the folders walked (so a link to `/` or out of the workspace is not read),
//! walks each folder once (by its canonical path: link cycles end), skips hidden folders,
//! `target` and `node_modules` (not when named), and stops at [`Limits`] on the files and
//! directory entries, saying so. What it skips it says in a [`Note`], never silently.
//! Reading opens without blocking (a FIFO named `x.pir` would block `open` until a writer
//! came), checks the opened file is regular, and reads at most the cap (`take`: a device's
//! length is 0, and `/dev/zero` never ends).
//!
//! Nothing here names an LSP type: the CLI and the server both call it. The decoding
//! diagnostics of a file's bytes ([`with_decoding`]) are shared the same way.

use std::collections::HashSet;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The bounds of a walk.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most files listed.
    pub files: usize,
    /// The most directory entries looked at (a home folder as a workspace).
    pub entries: usize,
    /// Whether a name that is not UTF-8 is skipped (the server: no URI names it as the
    /// editor would) or listed (the command line reads any path).
    pub utf8_names_only: bool,
}

/// The server's walk: 10,000 files, 200,000 directory entries (about a second of
/// `read_dir` on a cold disk), UTF-8 names only.
pub const WORKSPACE: Limits = Limits {
    files: 10_000,
    entries: 200_000,
    utf8_names_only: true,
};

/// The command line's walk: every file it is asked for.
pub const COMMAND_LINE: Limits = Limits {
    files: usize::MAX,
    entries: usize::MAX,
    utf8_names_only: false,
};

/// Something the walk left out, and why (for the log, or `pir check`'s stderr).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The path left out.
    pub path: PathBuf,
    /// Why, as a sentence without the path (`skipped: not a regular file (a FIFO)`).
    pub why: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Found {
    /// The `*.pir` files, each once, in walk order (each folder's entries sorted by name,
    /// files before the folders under it).
    pub files: Vec<PathBuf>,
    /// What was left out.
    pub notes: Vec<Note>,
    /// The walk stopped at a limit: which, in a sentence.
    pub capped: Option<String>,
    /// The walk was cancelled before its end.
    pub cancelled: bool,
    /// Folders that could not be listed, with the error.
    pub errors: Vec<(PathBuf, io::Error)>,
}

/// What kind of file a path is that is neither a folder nor a regular file.
fn kind(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    let _ = file_type;
    "not a file"
}

/// Whether a folder met while walking is skipped: hidden ones, `target`, `node_modules`.
fn skipped_folder(name: &str) -> bool {
    name.starts_with('.') || name == "target" || name == "node_modules"
}

/// Whether `path` names a `*.pir` file by its extension.
pub fn is_pir(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pir")
}

/// Walks the folders `roots` for `*.pir` files (see the module's rules). `cancelled` is
/// asked between entries; when it says yes the walk stops with what it found.
pub fn walk(roots: &[PathBuf], limits: Limits, cancelled: &dyn Fn() -> bool) -> Found {
    let mut found = Found::default();
    // The folders whose insides links may lead to: the roots, canonical.
    let inside: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect();
    let mut seen_dirs = HashSet::new();
    let mut seen_files = HashSet::new();
    let mut entries = 0usize;
    let mut stack: Vec<PathBuf> = roots.iter().rev().cloned().collect();
    // Folders reached through a link, walked after every real folder: a file is listed
    // under its own path when it has one in the workspace.
    let mut linked: Vec<PathBuf> = Vec::new();
    while let Some(dir) = stack.pop().or_else(|| {
        stack = std::mem::take(&mut linked);
        stack.reverse();
        stack.pop()
    }) {
        if cancelled() {
            found.cancelled = true;
            return found;
        }
        let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if !seen_dirs.insert(canonical) {
            continue;
        }
        let listed = match std::fs::read_dir(&dir) {
            Ok(listed) => listed,
            Err(e) => {
                found.errors.push((dir, e));
                continue;
            }
        };
        let mut listed: Vec<std::fs::DirEntry> = listed.filter_map(Result::ok).collect();
        listed.sort_by_key(std::fs::DirEntry::file_name);
        let mut folders = Vec::new();
        for entry in listed {
            let mut link = false;
            entries += 1;
            if entries > limits.entries {
                found.capped = Some(format!(
                    "stopped after {} directory entries (the limit): files beyond them are \
                     not seen",
                    limits.entries
                ));
                return found;
            }
            if cancelled() {
                found.cancelled = true;
                return found;
            }
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                if limits.utf8_names_only && (path.is_dir() || is_pir(&path)) {
                    found.notes.push(Note {
                        path,
                        why: "skipped: its name is not UTF-8 (no URI names it)".into(),
                    });
                }
                continue;
            };
            let Ok(mut file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_symlink() {
                // Followed only to a place inside the folders walked.
                let Ok(target) = std::fs::canonicalize(&path) else {
                    if is_pir(&path) {
                        found.notes.push(Note {
                            path,
                            why: "skipped: a link that leads nowhere (or in a loop)".into(),
                        });
                    }
                    continue;
                };
                let Ok(meta) = std::fs::metadata(&target) else {
                    continue;
                };
                if !(meta.is_dir() || is_pir(&path)) {
                    continue;
                }
                if !inside.iter().any(|root| target.starts_with(root)) {
                    found.notes.push(Note {
                        path,
                        why: format!(
                            "skipped: a link to {}, outside the folders walked",
                            target.display()
                        ),
                    });
                    continue;
                }
                file_type = meta.file_type();
                link = true;
            }
            if file_type.is_dir() {
                if !skipped_folder(&name) {
                    if link {
                        linked.push(path);
                    } else {
                        folders.push(path);
                    }
                }
                continue;
            }
            if !is_pir(&path) {
                continue;
            }
            if !file_type.is_file() {
                found.notes.push(Note {
                    path,
                    why: format!("skipped: not a regular file ({})", kind(&file_type)),
                });
                continue;
            }
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !seen_files.insert(canonical) {
                continue;
            }
            if found.files.len() >= limits.files {
                found.capped = Some(format!(
                    "stopped at {} files (the limit): the others are not read",
                    limits.files
                ));
                return found;
            }
            found.files.push(path);
        }
        stack.extend(folders.into_iter().rev());
    }
    found
}

/// Opens `path` for reading without waiting for a writer (a FIFO's `open` blocks until one
/// comes): `O_NONBLOCK`, which regular files ignore.
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The error of a file over the cap.
fn too_big(max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("larger than {} MiB, the most pir reads", max >> 20),
    )
}

/// Reads at most `max` bytes from `input`; an error if there are more.
pub fn read_at_most(input: impl Read, max: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    input.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(max));
    }
    Ok(bytes)
}

/// The bytes of the regular file `path`, at most `max`. Errors: not a regular file (a FIFO,
/// a device; checked on the opened file, so a file swapped for a FIFO after the walk is
/// caught), more than `max` bytes (its length says so before anything is read), or I/O.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind(&meta.file_type())),
        ));
    }
    if meta.len() > max {
        return Err(too_big(max));
    }
    read_at_most(file, max)
}

/// A regular file's modification time and length: what tells that it changed.
pub type Stamp = (Option<std::time::SystemTime>, u64);

/// The [`Stamp`] of `path` (following links), if it is a regular file.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    Some((meta.modified().ok(), meta.len()))
}

/// The text of a file's bytes (invalid UTF-8 replaced, `syntax::decode`) and a P103 for
/// each run of invalid bytes. A file that looks like UTF-16 ([`utf16`]) is one P103 saying
/// so ([`utf16_diagnostic`]), and an empty text: read as UTF-8 it would be a NUL or an
/// invalid byte every other character, a hundred errors and no word of why.
pub fn decode(bytes: &[u8]) -> (String, Vec<analysis::Diagnostic>) {
    if let Some(only) = utf16_diagnostic(bytes) {
        return (String::new(), vec![only]);
    }
    let (text, bad) = syntax::decode(bytes);
    let decoding = bad
        .into_iter()
        .map(|range| analysis::Diagnostic::new(lower::Code::P103, range, "invalid UTF-8"))
        .collect();
    (text, decoding)
}

/// The one P103 (at offset 0) of a text that looks like UTF-16 ([`utf16`]) given its first
/// bytes `head` (the first 4 KiB are enough): a file read from disk ([`decode`]), or an open
/// document an editor decoded as UTF-8 (NULs every other character; the server then
/// reports this instead of the analysis' diagnostics, `handlers::diagnostics`). `None` for
/// any other text.
pub fn utf16_diagnostic(head: &[u8]) -> Option<analysis::Diagnostic> {
    let which = utf16(head)?;
    let message = format!(
        "the file looks like {which}: Penguin IR files are UTF-8 (convert it, for \
         instance with `iconv -f UTF-16 -t UTF-8`)"
    );
    let at = analysis::TextRange::empty(0.into());
    Some(analysis::Diagnostic::new(lower::Code::P103, at, message))
}

/// Which UTF-16 `bytes` look like, if any: a byte order mark (`FF FE`, `FE FF`), or, in
/// their first 4 KiB (at least 8 bytes), a NUL as at least 3 in 4 of the odd (UTF-16LE)
/// or of the even (UTF-16BE) bytes, as ASCII text in UTF-16 has and a UTF-8 file never
/// does (a NUL is no character of the language).
fn utf16(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, ..] => return Some("UTF-16 (little-endian, with a byte order mark)"),
        [0xFE, 0xFF, ..] => return Some("UTF-16 (big-endian, with a byte order mark)"),
        _ => {}
    }
    let head = bytes.get(..bytes.len().min(4096))?;
    let pairs = head.len() / 2;
    if pairs < 4 {
        return None;
    }
    let nuls = |parity: usize| {
        head.chunks_exact(2)
            .filter(|pair| pair.get(parity) == Some(&0))
            .count()
    };
    if nuls(1) * 4 >= pairs * 3 {
        Some("UTF-16 (little-endian)")
    } else if nuls(0) * 4 >= pairs * 3 {
        Some("UTF-16 (big-endian)")
    } else {
        None
    }
}

/// At most this many invalid-UTF-8 diagnostics per file beyond the lexer's own (the rest
/// are counted in one note), so a binary file gives a bounded report.
const MAX_DECODING_DIAGNOSTICS: usize = 100;

/// A file's diagnostics: the analysis' (`all`), plus each run of invalid UTF-8 of
/// `decoding` ([`decode`]) the lexer did not already report (those inside comments and
/// strings), at most [`MAX_DECODING_DIAGNOSTICS`] and a note, sorted by position. What
/// `pir check` reports of a file, and the server's workspace diagnostics of it.
pub fn with_decoding(
    mut all: Vec<analysis::Diagnostic>,
    decoding: &[analysis::Diagnostic],
) -> Vec<analysis::Diagnostic> {
    use lower::Code;
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
    let extra: Vec<&analysis::Diagnostic> = decoding.iter().filter(|d| !covered(d.range)).collect();
    all.extend(
        extra
            .iter()
            .take(MAX_DECODING_DIAGNOSTICS)
            .map(|d| (*d).clone()),
    );
    if let Some(first_dropped) = extra.get(MAX_DECODING_DIAGNOSTICS) {
        let more = extra.len() - MAX_DECODING_DIAGNOSTICS;
        all.push(analysis::Diagnostic::new(
            Code::P103,
            first_dropped.range,
            format!("invalid UTF-8: {more} more runs not reported"),
        ));
    }
    all.sort_by_key(|d| (d.range.start(), d.range.end()));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UTF-16 (with either byte order mark, or without one) is one P103 naming it, what
    /// `pir check` and the server's workspace diagnostics report; UTF-8 with a NUL or two
    /// is not UTF-16.
    #[test]
    fn utf16_is_one_diagnostic_naming_it() {
        let text = "kernel @k() {\n  NoOp {}\n}\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let with_bom = |bom: [u8; 2], body: &[u8]| [&bom[..], body].concat();
        for (bytes, which) in [
            (
                with_bom([0xFF, 0xFE], &le),
                "UTF-16 (little-endian, with a byte order mark)",
            ),
            (
                with_bom([0xFE, 0xFF], &be),
                "UTF-16 (big-endian, with a byte order mark)",
            ),
            (le.clone(), "UTF-16 (little-endian)"),
            (be.clone(), "UTF-16 (big-endian)"),
        ] {
            let (decoded, diagnostics) = decode(&bytes);
            assert_eq!(decoded, "");
            let [only] = diagnostics.as_slice() else {
                panic!("{diagnostics:?}");
            };
            assert_eq!(only.code, lower::Code::P103);
            assert!(
                only.message
                    .starts_with(&format!("the file looks like {which}:")),
                "{}",
                only.message
            );
        }
        let (decoded, diagnostics) = decode(b"kernel @k() {\n  \0NoOp {}\0\n}\n");
        assert!(decoded.starts_with("kernel"));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pir-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        dir
    }

    #[test]
    fn walks_regular_files_once_within_the_folders() {
        let dir = scratch("walk");
        let root = dir.join("ws");
        std::fs::create_dir_all(root.join("sub")).expect("dir");
        std::fs::create_dir_all(root.join(".git")).expect("dir");
        std::fs::create_dir_all(dir.join("outside")).expect("dir");
        for f in ["a.pir", "sub/b.pir", ".git/c.pir", "notes.txt"] {
            std::fs::write(root.join(f), "").expect("write");
        }
        std::fs::write(dir.join("outside/d.pir"), "").expect("write");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("sub", root.join("again")).expect("link");
            std::os::unix::fs::symlink("../outside", root.join("away")).expect("link");
            std::os::unix::fs::symlink("/", root.join("root")).expect("link");
            std::os::unix::fs::symlink("a.pir", root.join("alias.pir")).expect("link");
        }
        let found = walk(std::slice::from_ref(&root), WORKSPACE, &|| false);
        assert_eq!(found.files, [root.join("a.pir"), root.join("sub/b.pir")]);
        let skipped: Vec<&Path> = found.notes.iter().map(|n| n.path.as_path()).collect();
        #[cfg(unix)]
        assert_eq!(
            skipped,
            [root.join("away"), root.join("root")],
            "{:?}",
            found.notes
        );
        let cancelled = walk(std::slice::from_ref(&root), WORKSPACE, &|| true);
        assert!(cancelled.cancelled && cancelled.files.is_empty());
        let capped = walk(
            std::slice::from_ref(&root),
            Limits {
                files: 1,
                ..WORKSPACE
            },
            &|| false,
        );
        assert_eq!(capped.files.len(), 1);
        assert!(capped.capped.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reads_are_capped_and_regular_only() {
        let dir = scratch("read");
        std::fs::write(dir.join("small.pir"), "kernel").expect("write");
        assert_eq!(
            read_regular(&dir.join("small.pir"), 6).expect("read"),
            b"kernel"
        );
        assert!(read_regular(&dir.join("small.pir"), 5).is_err());
        assert!(read_regular(&dir, 5).is_err());
        #[cfg(unix)]
        {
            let zero = read_regular(Path::new("/dev/zero"), 1 << 20).expect_err("a device");
            assert!(zero.to_string().contains("character device"), "{zero}");
            let stream = std::fs::File::open("/dev/zero").expect("open");
            assert!(read_at_most(stream, 1 << 20).is_err());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
