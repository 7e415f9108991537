//! Where a document is cut into chunks: at kernel lines, and inside a kernel of
//! [`super::SPLIT_FACTOR`] chunk targets or more at the statement lines of its body
//! ([`cuts`]). The policy of the analysis, on the locality properties of `syntax`: a kernel
//! line ends whatever is open before it, and a statement line starts a statement whatever
//! precedes it, so each part parses alone as in the whole ([`syntax::parse_part`]; the
//! tests below).

use syntax::{
    Context, line_end, piece_starts, starts_kernel_line, starts_statement_line, statement_lines,
};

/// Where [`cuts`] cuts a text into parts, and whether its ends fit the parts around it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cuts {
    /// Each part's start (UTF-8 bytes, ascending, the first 0) and whether it starts inside
    /// a kernel's body ([`Context::inside`]; the first part's is the text's own).
    pub parts: Vec<(usize, bool)>,
    /// Whether the text ends with a kernel's body open and nothing else (no loop, no
    /// kernel left unclosed before it), and no over-indented `}` in it that a `}` one too
    /// many after the text would drop ([`syntax::Closes::end_undecided`]): a next part may
    /// start inside it.
    pub ends_inside: bool,
    /// Whether the kernel the text starts inside (when it does) ends as the whole file
    /// would end it: by its `}`, or still open (with nothing else) at the end of the text.
    /// A kernel a `kernel` line cuts short is not: its error is at its `{`, in an earlier
    /// part. Nor is one whose `}` is followed by a statement before the next `kernel`
    /// ([`syntax::Closes::entry_undecided`]): whether a `}` of it is one too many is decided
    /// on the whole kernel. Always true for a text that does not start inside a kernel.
    pub entry_kept: bool,
    /// At each part's place: whether it starts inside a kernel that goes on past its end (a
    /// middle part of a kernel: no kernel ends or starts in it).
    pub through: Vec<bool>,
}

/// Cuts `text[..end]` (a document or a run of its parts, read in `context`; `text[end..]`
/// is look-ahead, the next part's first line) into parts of at least `target` bytes: at `kernel @name` lines, as [`chunk_starts`] does, and, inside a
/// kernel of `split` bytes or more (from its line to its `}`; or one that starts before or
/// goes on past the text), at statement lines ([`statement_lines`]) directly in its body,
/// where nothing but the kernel is open. Only in a kernel closed by its own `}` (or going
/// on past the text, `context.goes_on`), so that no part reports a body left open that
/// another part holds.
///
/// Parsed each with its [`Context`] (`inside` as given here, `goes_on` when the next part
/// starts inside), the parts give the parse of the whole ([`syntax::parse_part`]). Texts
/// without a kernel of `split` bytes are cut at kernel lines only, without being read.
pub fn cuts(text: &str, end: usize, context: Context, target: usize, split: usize) -> Cuts {
    cuts_read(
        text,
        end,
        context,
        target,
        split,
        &mut StatementReader::OnEveryCore(MARK_PIECE),
    )
}

/// How [`cuts_read`] reads the statements of a text it may cut inside a kernel.
pub enum StatementReader<'a, 'r> {
    /// On every core, in pieces of about this many bytes (`cuts` reads 256 KB), each read
    /// alone, kept as where each statement starts and how it nests: the cuts do not depend
    /// on the size.
    OnEveryCore(usize),
    /// In the pieces [`piece_starts`] picks, each given by the caller (its text with its
    /// look-ahead, and where the piece proper ends, as [`syntax::read_in_pieces`] asks):
    /// an editor's analysis hands its memoized pieces, so that cutting an edited chunk
    /// re-reads only the piece the edit touched, and parsing it afterwards re-reads none.
    Pieces(&'a mut dyn FnMut(&str, usize) -> &'r syntax::Statements),
}

/// [`cuts`], the statements read by `reader` (the cuts do not depend on how).
pub fn cuts_read(
    text: &str,
    end: usize,
    context: Context,
    target: usize,
    split: usize,
    reader: &mut StatementReader<'_, '_>,
) -> Cuts {
    let target = target.max(1);
    let end = end.min(text.len());
    let kernel_lines = kernel_lines(&text[..end]);
    let longest = kernel_lines
        .iter()
        .zip(kernel_lines.iter().skip(1).chain([&end]))
        .map(|(a, b)| b - a)
        .max()
        .unwrap_or(0);
    if !context.inside && !context.goes_on && longest < split {
        let mut parts = vec![(0, false)];
        for line in kernel_lines {
            if line >= parts.last().map_or(0, |p| p.0) + target {
                parts.push((line, false));
            }
        }
        return Cuts {
            through: vec![false; parts.len()],
            parts,
            ends_inside: false,
            entry_kept: true,
        };
    }
    let marks = match reader {
        StatementReader::OnEveryCore(piece) => marks_on_every_core(text, end, (*piece).max(1)),
        StatementReader::Pieces(read) => {
            let mut marks = Vec::new();
            syntax::read_pieces(
                text,
                end,
                &piece_starts(text, end),
                &mut |piece, len| read(piece, len),
                &mut |from, read: &syntax::Statements| {
                    marks.extend(read.statements.iter().map(|s| Mark::of(s).shifted(from)));
                },
            );
            marks
        }
    };
    cut_in_kernels(text, end, context, target, split, &marks)
}

/// The starts of the lines of `text` that start a kernel ([`starts_kernel_line`]).
fn kernel_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut line = 0;
    while line < text.len() {
        if text[line..]
            .trim_start_matches([' ', '\t'])
            .starts_with("kernel")
            && starts_kernel_line(text, line)
        {
            out.push(line);
        }
        line = line_end(text, line);
    }
    out
}

/// [`cuts`] when a kernel may be cut: the flat statements read and nested as the parser
/// nests them (the parser), a body-level statement line a candidate cut of its
/// kernel, kept when the kernel ends as it must.
fn cut_in_kernels(
    text: &str,
    end: usize,
    context: Context,
    target: usize,
    split: usize,
    marks: &[Mark],
) -> Cuts {
    // The `}`s the parser drops as one too many: a kernel holding one is not cut inside,
    // so that its one part nests as the whole file does.
    let closes = syntax::extra_closes(text, marks.iter().map(Mark::shape), context.inside);
    let extra = &closes.extra;
    let mut statements = marks.iter().enumerate().peekable();
    let mut uncut = false;
    let mut parts = vec![(0, context.inside)];
    // The open bodies: true for a kernel. A kernel's start, its candidate cuts, and
    // whether it is the one the text starts inside.
    let mut open: Vec<bool> = Vec::new();
    let mut kernel_start = 0;
    let mut candidates: Vec<usize> = Vec::new();
    let mut entry = context.inside;
    let mut entry_kept = true;
    // Where kernels end (their `}`, or the line that cuts them short): no part holding one
    // is a middle part.
    let mut kernel_ends: Vec<usize> = Vec::new();
    if context.inside {
        open.push(true);
    }
    let last_cut = |parts: &[(usize, bool)], candidates: &[usize]| {
        candidates
            .last()
            .copied()
            .unwrap_or(0)
            .max(parts.last().map_or(0, |p| p.0))
    };
    let mut lines = statement_lines(&text[..end]).into_iter().peekable();
    loop {
        let next_line = lines.peek().copied();
        let next_statement = statements.peek().map(|(_, s)| s.start());
        match (next_line, next_statement) {
            (None, None) => break,
            (Some(line), statement) if statement.is_none_or(|s| s >= line) => {
                lines.next();
                if line == 0 {
                    continue;
                }
                if starts_kernel_line(text, line) {
                    if line >= parts.last().map_or(0, |p| p.0) + target {
                        parts.push((line, false));
                    }
                } else if open == [true] && !uncut && line >= last_cut(&parts, &candidates) + target
                {
                    candidates.push(line);
                }
            }
            _ => {
                let Some((i, statement)) = statements.next() else {
                    break;
                };
                if extra.binary_search(&i).is_ok() {
                    candidates.clear();
                    uncut = true;
                    continue;
                }
                match *statement {
                    Mark::Kernel { start, opens } => {
                        uncut = false;
                        if !open.is_empty() {
                            // Cut short: left unclosed.
                            kernel_ends.push(start);
                            candidates.clear();
                            entry_kept &= !entry;
                            entry = false;
                            open.clear();
                        }
                        if opens {
                            open.push(true);
                            kernel_start = start;
                        }
                    }
                    Mark::Loop { opens, .. } => {
                        if opens && !open.is_empty() {
                            open.push(false);
                        }
                    }
                    Mark::Close { start, end } => {
                        if open.pop() == Some(true) {
                            kernel_ends.push(start);
                            let long = end - kernel_start >= split;
                            if entry || long {
                                parts.extend(candidates.drain(..).map(|c| (c, true)));
                            }
                            candidates.clear();
                            entry = false;
                        }
                    }
                    Mark::Stmt { .. } => {}
                }
            }
        }
    }
    let ends_inside = open == [true];
    if ends_inside && context.goes_on {
        parts.extend(candidates.drain(..).map(|c| (c, true)));
    } else if entry {
        entry_kept = false;
    }
    // Where the text's ends leave a `}` one too many or not undecided, they do not fit:
    // the kernel is re-cut whole, where it is decided.
    entry_kept &= !closes.entry_undecided;
    let ends_inside = ends_inside && !closes.end_undecided;
    parts.sort_unstable();
    let through = parts
        .iter()
        .enumerate()
        .map(|(i, &(start, inside))| {
            let end = parts.get(i + 1).map_or(end, |p| p.0);
            let goes_on = parts
                .get(i + 1)
                .map_or(ends_inside && context.goes_on, |p| p.1);
            inside && goes_on && !kernel_ends.iter().any(|&e| start <= e && e < end)
        })
        .collect();
    Cuts {
        parts,
        ends_inside,
        entry_kept,
        through,
    }
}

/// What [`cut_in_kernels`] reads of a flat statement ([`syntax::FlatStmt`]): where it
/// starts (UTF-8 bytes) and how it nests.
#[derive(Clone, Copy, Debug)]
enum Mark {
    /// A kernel header, and whether it opens a body.
    Kernel { start: usize, opens: bool },
    /// A loop header, and whether it opens a body.
    Loop { start: usize, opens: bool },
    /// A `}`: its start and end.
    Close { start: usize, end: usize },
    /// Any other statement.
    Stmt { start: usize },
}

impl Mark {
    /// How it nests, as [`syntax::extra_closes`] reads it.
    fn shape(&self) -> syntax::Shape {
        let at = |b: usize| crate::TextSize::try_from(b).unwrap_or(u32::MAX.into());
        match *self {
            Mark::Kernel { start, opens } => syntax::Shape::Kernel {
                start: at(start),
                opens,
            },
            Mark::Loop { start, opens } => syntax::Shape::Loop {
                start: at(start),
                opens,
            },
            Mark::Close { start, end } => {
                syntax::Shape::Close(crate::TextRange::new(at(start), at(end)))
            }
            Mark::Stmt { .. } => syntax::Shape::Stmt,
        }
    }

    /// The mark of `statement`.
    fn of(statement: &syntax::FlatStmt) -> Mark {
        use syntax::FlatStmt;
        match statement {
            FlatStmt::Kernel(k) => Mark::Kernel {
                start: usize::from(k.range.start()),
                opens: k.open.is_some(),
            },
            FlatStmt::Loop(l) => Mark::Loop {
                start: usize::from(l.range.start()),
                opens: l.open.is_some(),
            },
            FlatStmt::Close(r) => Mark::Close {
                start: usize::from(r.start()),
                end: usize::from(r.end()),
            },
            FlatStmt::Stmt(s) => Mark::Stmt {
                start: usize::from(s.range().start()),
            },
        }
    }

    /// The mark `by` bytes further on.
    fn shifted(self, by: usize) -> Mark {
        match self {
            Mark::Kernel { start, opens } => Mark::Kernel {
                start: start + by,
                opens,
            },
            Mark::Loop { start, opens } => Mark::Loop {
                start: start + by,
                opens,
            },
            Mark::Close { start, end } => Mark::Close {
                start: start + by,
                end: end + by,
            },
            Mark::Stmt { start } => Mark::Stmt { start: start + by },
        }
    }

    /// Where its statement starts.
    fn start(self) -> usize {
        match self {
            Mark::Kernel { start, .. }
            | Mark::Loop { start, .. }
            | Mark::Close { start, .. }
            | Mark::Stmt { start } => start,
        }
    }
}

/// The [`Mark`]s of the flat statements of `text[..end]` (`text[end..]` is look-ahead),
/// read on every core for a big text: cut at statement lines into pieces of about
/// `piece` bytes ([`MARK_PIECE`]), each read alone with its look-ahead (which reads the same as the
/// whole, [`syntax::read_in_pieces`], `syntax/tests/statements.rs`) and kept as marks only,
/// so that no more than a piece per core of statements is ever held.
fn marks_on_every_core(text: &str, end: usize, piece: usize) -> Vec<Mark> {
    let marks_of = |from: usize, to: usize| -> Vec<Mark> {
        let until = if to == end {
            text.len()
        } else {
            syntax::look_ahead_end(text, to)
        };
        let read = syntax::read_statements(&text[from..until], to - from, &|| ());
        read.statements
            .iter()
            .map(|s| Mark::of(s).shifted(from))
            .collect()
    };
    if end < piece.saturating_mul(2) {
        return marks_of(0, end);
    }
    // Piece boundaries: the first statement line at or after each piece's share.
    let mut bounds = vec![0];
    let mut at = piece;
    while at < end {
        let mut line = line_end(text, at.min(end));
        while line < end && !starts_statement_line(text, line) {
            line = line_end(text, line);
        }
        if line < end && line > *bounds.last().unwrap_or(&0) {
            bounds.push(line);
        }
        at = line.max(at) + piece;
    }
    bounds.push(end);
    let pieces = bounds.len() - 1;
    let marks =
        crate::executor::on_every_core(pieces, |i| match (bounds.get(i), bounds.get(i + 1)) {
            (Some(&from), Some(&to)) => marks_of(from, to),
            _ => Vec::new(),
        });
    marks.concat()
}

/// The size of a piece of text [`marks_on_every_core`] reads at once, in bytes.
const MARK_PIECE: usize = 256 * 1024;

/// A file cut into parts by [`cuts`] parses part by part as whole: each part alone
/// (`parse_part` in its context) gives the file's kernels and syntax errors there; and a run
/// of the parts cut again in its context keeps its ends, what lets the analysis re-cut only
/// the parts an edit touched.
#[cfg(test)]
mod tests {
    use super::{StatementReader, cuts, cuts_read};
    use syntax::{Context, Kernel, Parse, Shift, TextSize, parse, parse_part};

    fn shift_kernel(kernel: &mut Kernel, by: TextSize) {
        kernel.range.shift(by);
        kernel.name.shift(by);
        for p in kernel.params.iter_mut().chain(&mut kernel.outputs) {
            p.shift(by);
        }
        kernel.body.shift(by);
        kernel.body_range.shift(by);
    }

    /// Where a part of `text` ending at `end` ends with its look-ahead: the next part's first
    /// line, if there is one.
    fn with_look_ahead(text: &str, end: usize) -> usize {
        if end < text.len() {
            syntax::line_end(text, end)
        } else {
            end
        }
    }

    /// The parts of `text` starting at `parts`, parsed alone, joined: kernels and errors.
    fn joined(text: &str, parts: &[(usize, bool)]) -> (Vec<Kernel>, Vec<syntax::SyntaxError>) {
        let mut kernels: Vec<Kernel> = Vec::new();
        let mut errors = Vec::new();
        for (i, &(start, inside)) in parts.iter().enumerate() {
            let (end, goes_on) = parts
                .get(i + 1)
                .map_or((text.len(), false), |&(next, inside)| (next, inside));
            let with_look_ahead = with_look_ahead(text, end);
            let Parse {
                file, errors: e, ..
            } = parse_part(
                &text[start..with_look_ahead],
                end - start,
                Context { inside, goes_on },
                &|| (),
            );
            let by = TextSize::from(start as u32);
            for mut kernel in file.kernels {
                shift_kernel(&mut kernel, by);
                if kernel.continues {
                    let first = kernels.last_mut().expect("a kernel to continue");
                    assert!(first.goes_on, "a part continues a kernel that goes on");
                    first.body.append(&mut kernel.body);
                    first.range = first.range.cover(kernel.range);
                    first.body_range = Some(first.body_range.unwrap().cover(kernel.range));
                    first.goes_on = kernel.goes_on;
                } else {
                    kernels.push(kernel);
                }
            }
            for mut error in e {
                error.shift(by);
                errors.push(error);
            }
        }
        // A part's errors at its look-ahead's first token (the next part's start) come before
        // the next part's own there: in source order, as the whole file's (and the document's
        // diagnostics, sorted) are.
        errors.sort_by_key(|e| e.range.start());
        (kernels, errors)
    }

    #[track_caller]
    fn check_parts(name: &str, text: &str) {
        let whole = parse(text);
        if whole.left_out > 0 {
            return; // The cap of 100 errors applies per part.
        }
        for (target, split) in [(1, 1), (1, 64), (40, 200), (200, 400)] {
            let cut = cuts(text, text.len(), Context::default(), target, split);
            assert!(cut.entry_kept, "{name}: a whole text has no kernel to keep");
            // A big text's statements are read in pieces: the cuts are the same.
            for piece in [1, 5, 60, 700] {
                let in_pieces = cuts_read(
                    text,
                    text.len(),
                    Context::default(),
                    target,
                    split,
                    &mut StatementReader::OnEveryCore(piece),
                );
                assert_eq!(cut, in_pieces, "{name}: read in pieces of {piece} bytes");
            }
            // And in the pieces an editor's analysis memoizes, handed to it.
            let mut read = |piece: &str, end: usize| -> &'static syntax::Statements {
                Box::leak(Box::new(syntax::read_statements(piece, end, &|| ())))
            };
            let handed = cuts_read(
                text,
                text.len(),
                Context::default(),
                target,
                split,
                &mut StatementReader::Pieces(&mut read),
            );
            assert_eq!(cut, handed, "{name}: read in handed pieces");
            // A middle part holds one kernel's body, neither starting nor ending it.
            for (i, &(start, inside)) in cut.parts.iter().enumerate() {
                let (end, goes_on) = cut
                    .parts
                    .get(i + 1)
                    .map_or((text.len(), false), |&(e, i)| (e, i));
                let look = with_look_ahead(text, end);
                let parse = parse_part(
                    &text[start..look],
                    end - start,
                    Context { inside, goes_on },
                    &|| (),
                );
                let middle =
                    matches!(parse.file.kernels.as_slice(), [k] if k.continues && k.goes_on);
                assert_eq!(
                    cut.through[i], middle,
                    "{name}: part {i} at {start}, cut {target}/{split}"
                );
            }
            let (kernels, errors) = joined(text, &cut.parts);
            assert_eq!(
                format!("{:#?}", whole.file.kernels),
                format!("{kernels:#?}"),
                "{name}: kernels, cut {target}/{split} at {:?}",
                cut.parts
            );
            assert_eq!(
                format!("{:#?}", whole.errors),
                format!("{errors:#?}"),
                "{name}: errors, cut {target}/{split} at {:?}",
                cut.parts
            );
            // Every run of parts, cut again in its context, fits its ends, or (its ends
            // leaving a `}` one too many undecided, `syntax::Closes`) the run of the whole
            // kernels it touches does, as `Document::edit` then re-cuts.
            let parts = &cut.parts;
            let again = |i: usize, j: usize| {
                let start = parts[i].0;
                let end = parts.get(j + 1).map_or(text.len(), |p| p.0);
                let goes_on = parts.get(j + 1).is_some_and(|p| p.1);
                let context = Context {
                    inside: parts[i].1,
                    goes_on,
                };
                let look_ahead = with_look_ahead(text, end);
                let again = cuts(
                    &text[start..look_ahead],
                    end - start,
                    context,
                    target,
                    split,
                );
                let fits = again.entry_kept && (!goes_on || again.ends_inside);
                (fits, format!("{start}..{end}, {context:?}: {again:?}"))
            };
            for i in 0..parts.len() {
                for j in i..parts.len().min(i + 3) {
                    if again(i, j).0 {
                        continue;
                    }
                    let head = (0..=i).rev().find(|&h| !parts[h].1).unwrap_or(0);
                    let tail = (j..parts.len())
                        .find(|&t| parts.get(t + 1).is_none_or(|p| !p.1))
                        .unwrap_or(j);
                    let (fits, why) = again(head, tail);
                    assert!(
                        fits,
                        "{name}: parts {i}..={j} as whole kernels {head}..={tail}, cut again: {why}"
                    );
                }
            }
        }
    }

    #[test]
    fn corpus_files_parse_the_same_part_by_part() {
        let mut inside = 0;
        for (name, text) in test_utils::corpus_files() {
            inside += cuts(&text, text.len(), Context::default(), 1, 1)
                .parts
                .iter()
                .filter(|p| p.1)
                .count();
            check_parts(&name, &text);
        }
        assert!(inside > 100, "kernels are cut inside: {inside}");
    }

    #[test]
    fn a_kernel_cut_short_or_left_open_is_not_cut_inside() {
        for text in [
            "kernel @k() {\n  Op1 { a = 1 }\n  Op2 {}\nkernel @j() {\n  Op2 { b = 2 }\n}\n",
            "kernel @k() {\n  Op1 { a = 1 }\n  Op2 {}\n",
            "kernel @k() {\n  for %i in 0..4 {\n    Op { a = 1 }\n}\n  Op {}\n  Op {}\n",
        ] {
            let cut = cuts(text, text.len(), Context::default(), 1, 1);
            // `@k` is not cut inside (`@j`, closed, is).
            let j = text.find("kernel @j").unwrap_or(text.len());
            assert!(
                cut.parts.iter().all(|p| !p.1 || p.0 > j),
                "{text:?}: {cut:?}"
            );
            check_parts(text, text);
        }
        // Inside a loop, never.
        let text =
            "kernel @k() {\n  A {}\n  for %i in 0..4 {\n    B {}\n    C {}\n  }\n  D {}\n}\n";
        let starts: Vec<usize> = cuts(text, text.len(), Context::default(), 1, 1)
            .parts
            .iter()
            .map(|p| p.0)
            .collect();
        let lines: Vec<&str> = starts
            .iter()
            .map(|&s| text[s..].lines().next().unwrap().trim())
            .collect();
        assert_eq!(lines, ["kernel @k() {", "A {}", "for %i in 0..4 {", "D {}"]);
    }

    #[test]
    fn files_with_errors_parse_the_same_part_by_part() {
        for (name, text) in [
            (
                "unclosed op",
                "kernel @k() {\n  Op1 { a = [1, 2\n  Op2 { b = 2 }\n  Op3 {}\n}\n",
            ),
            (
                "under-indented close",
                "kernel @k() {\n  for %i in 0..4 {\n    Op { a = 1 }\n  Op {}\n}\n  Op {}\n}\n",
            ),
            (
                "stray close",
                "kernel @k() {\n  Op1 {}\n  }\n  Op2 {}\n  Op3 {}\n}\nkernel @j() { Op {} }",
            ),
            (
                "junk after",
                "kernel @k() {\n  Op { a = 1 }\n  Op {}\n}\n} junk\n  more junk\nkernel @j() { Op {} }",
            ),
        ] {
            check_parts(name, text);
        }
    }

    /// A text read in pieces cut at any byte, also inside a character, cuts the same (the
    /// piece boundaries move to the next statement line).
    #[test]
    fn pieces_cut_inside_characters() {
        let mut text = String::from("kernel @k(%a: sbuf f32[128, 128]) {\n");
        for i in 0..60 {
            text.push_str(&format!(
                "  // § é — {i}\n  TensorCopyOp {{ // §§§§§§§§§§ ünï\n    dst = %a, src = %a }}\n"
            ));
        }
        text.push_str("}\n");
        let whole = cuts(&text, text.len(), Context::default(), 40, 200);
        for piece in 1..40 {
            let read = cuts_read(
                &text,
                text.len(),
                Context::default(),
                40,
                200,
                &mut StatementReader::OnEveryCore(piece),
            );
            assert_eq!(whole, read, "pieces of {piece} bytes");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// The same on corpus files with a random piece of syntax inserted or removed.
        #[test]
        fn mangled_files_parse_the_same_part_by_part(
            file in 0usize..64,
            at in 0usize..100_000,
            cut in 0usize..40,
            snippet in proptest::sample::select(test_utils::SNIPPETS),
        ) {
            let (name, mangled) = test_utils::mangled_corpus_file(file, at, cut, snippet);
            check_parts(&name, &mangled);
        }
    }
}
