//! Scale fixtures for the benchmarks (`benches/scale.rs`) and for property tests: a `.pir`
//! file of exactly N ops made of the corpus kernels ([`pir::generate`]), the MLIR file of N
//! ops that `mlir-lsp-server` is measured on ([`mlir::generate`]), and in each the five
//! edits of issue 9's targets ([`EditKind`]), each with the answer a server must give.
//!
//! Everything is deterministic: the same arguments give byte-identical text. The MLIR file
//! is ASCII; the `.pir` file keeps the corpus kernels' comments, a few of which hold a
//! non-ASCII character (`§`), never on an edited line.
//!
//! The edits are made near the middle of the file, in one copy of a corpus kernel (pir) or
//! one block (MLIR) chosen by the generator; `benches/README.md` gives the mapping between
//! the two languages.

pub mod mlir;
pub mod pir;

/// The edits issue 9 sets latency targets for ("Targets": didChange → diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EditKind {
    /// A character typed inside a field value (`operand0 = 1.0` → `1.05`); the file stays clean.
    TypeInValue,
    /// A field name misspelt (`func` → `fucn`): exactly one unknown-field error on its line.
    MisspellField,
    /// A new op line inserted (a copy of a one-line op, above it); the file stays clean.
    InsertOp,
    /// A one-line op deleted; the file stays clean.
    DeleteOp,
    /// The closing `}` of a one-line op deleted, which leaves its `{` unclosed; the undo
    /// types the `}` back. Errors must stay near the op (recovery keeps the damage local).
    UnclosedBrace,
}

impl EditKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [EditKind; 5] = [
        EditKind::TypeInValue,
        EditKind::MisspellField,
        EditKind::InsertOp,
        EditKind::DeleteOp,
        EditKind::UnclosedBrace,
    ];

    /// A short name for tables and the command line: `type-in-value`, `misspell-field`,
    /// `insert-op`, `delete-op`, `unclosed-brace`.
    pub fn name(self) -> &'static str {
        match self {
            EditKind::TypeInValue => "type-in-value",
            EditKind::MisspellField => "misspell-field",
            EditKind::InsertOp => "insert-op",
            EditKind::DeleteOp => "delete-op",
            EditKind::UnclosedBrace => "unclosed-brace",
        }
    }
}

/// What a server must publish for a version of a generated file. Lines are 0-based (as in
/// LSP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// No diagnostic at all, of any severity.
    Clean,
    /// Exactly one diagnostic, an error on `line`, whose code equals `code_or_message` or
    /// whose message contains it (MLIR's diagnostics have no code).
    One {
        /// The 0-based line of the diagnostic's start.
        line: u32,
        /// A pir code (`"P203"`) or a piece of an MLIR message.
        code_or_message: &'static str,
    },
    /// At least one error, and every diagnostic starts on a line in `first..=last`
    /// (0-based): the damage of a syntax error stays near it.
    Near {
        /// The first line a diagnostic may start on.
        first: u32,
        /// The last line a diagnostic may start on.
        last: u32,
    },
}

/// One edit of a generated text: `delete` bytes at byte `offset` are replaced by `insert`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Which of the five kinds it is.
    pub kind: EditKind,
    /// Where the replaced bytes start (UTF-8 bytes into the unedited text).
    pub offset: usize,
    /// How many bytes are replaced.
    pub delete: usize,
    /// The replacement text.
    pub insert: String,
    /// What the edited text must be diagnosed as.
    pub expect: Expect,
}

impl Edit {
    /// The edit of `kind` replacing `delete` bytes at byte `offset` with `insert`.
    pub fn new(
        kind: EditKind,
        offset: usize,
        delete: usize,
        insert: impl Into<String>,
        expect: Expect,
    ) -> Edit {
        Edit {
            kind,
            offset,
            delete,
            insert: insert.into(),
            expect,
        }
    }

    /// The text with the edit applied.
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + self.insert.len());
        out.push_str(&text[..self.offset]);
        out.push_str(&self.insert);
        out.push_str(&text[self.offset + self.delete..]);
        out
    }

    /// The edit that restores `original` (the text this edit applies to) from the edited
    /// text; the restored text is clean.
    pub fn undo(&self, original: &str) -> Edit {
        Edit {
            kind: self.kind,
            offset: self.offset,
            delete: self.insert.len(),
            insert: original[self.offset..self.offset + self.delete].to_string(),
            expect: Expect::Clean,
        }
    }
}

/// A generated file: its text, how many ops it holds, and its five edits (one per
/// [`EditKind`], in [`EditKind::ALL`]'s order), each applying to `text`.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The file (UTF-8, `\n` line ends).
    pub text: String,
    /// The number of ops: exactly the number asked for.
    pub ops: usize,
    /// One edit per kind, near the middle of the file.
    pub edits: Vec<Edit>,
}

/// The 0-based line of byte `offset` of `text`.
pub fn line_of(text: &str, offset: usize) -> u32 {
    let newlines = text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(newlines).unwrap_or(u32::MAX)
}

/// The byte offset of the start of the line holding byte `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// The byte range of the whole line (its `\n` included) that holds `needle`, searching
/// `text` from byte `from`. Panics when the needle is absent: the templates guarantee it.
fn whole_line(text: &str, from: usize, needle: &str) -> std::ops::Range<usize> {
    let at = from
        + text[from..]
            .find(needle)
            .expect("the template holds the needle");
    let start = line_start(text, at);
    let end = at + text[at..].find('\n').map_or(text.len() - at, |i| i + 1);
    start..end
}
