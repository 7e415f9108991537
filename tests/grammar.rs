//! The tree-sitter grammar of `editors/tree-sitter-pir` and the editor configurations
//! built on it, tested from Rust with the `tree-sitter` crate (the C parser is compiled by
//! the crate's build script with `cc`: no tree-sitter CLI, no prebuilt binary).
//!
//! * Every `.pir` file of the repository and of the shared corpus that the real parser
//!   (`syntax::parse`) reads without a syntax error parses with no ERROR or MISSING node;
//!   the files with deliberate syntax errors (a P100–P103 from `syntax::parse`: that is how
//!   they are picked) give an error here too, and broken text recovers locally.
//! * `test/corpus/*.txt` (tree-sitter's test format) give their expected trees.
//! * `src/parser.c` is fresh: `src/GENERATED.sha256` holds the SHA-256 of `grammar.js` and
//!   of each generated file as `tree-sitter generate` left them; when a `tree-sitter` CLI is
//!   at hand (`$PIR_TREE_SITTER`, or on `PATH`) the parser is also regenerated and compared.
//! * Every query file (the grammar's, Helix's, Zed's) compiles against the grammar, uses
//!   only capture names its editor knows, and the Helix and Zed copies are the grammar's
//!   queries with the capture names mapped.
//! * The highlight captures agree with the server's semantic tokens
//!   (`analysis::AnalysisHost`) on every token of the shared corpus, and with the TextMate
//!   grammar of the VS Code extension (when `editors/vscode/node_modules` exists).
//! * Helix's `languages.toml` and Zed's extension are well formed and run `pir lsp`.
//!
//! `UPDATE_EXPECT=1` rewrites the generated Helix and Zed queries instead of failing.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use analysis::ide::TokenType;
use tree_sitter::{Language, Node, Parser, Query, QueryCursor, StreamingIterator, Tree};

// ---------------------------------------------------------------------------------------
// Helpers.

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository")
}

fn grammar_dir() -> PathBuf {
    repo().join("editors/tree-sitter-pir")
}

fn language() -> Language {
    tree_sitter_pir::LANGUAGE.into()
}

fn parse(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&language())
        .expect("the grammar's ABI is one the tree-sitter crate reads");
    parser.parse(text, None).expect("a tree")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn shown(path: &Path) -> String {
    let path = &path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let repo = repo();
    let shared = repo.join("..");
    path.strip_prefix(&repo)
        .map(|p| p.display().to_string())
        .or_else(|_| {
            path.strip_prefix(&shared)
                .map(|p| format!("../{}", p.display()))
        })
        .unwrap_or_else(|_| path.display().to_string())
}

/// The `.pir` files of `dir` (not recursive), sorted.
fn pir_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pir"))
        .collect();
    files.sort();
    files
}

/// The shared corpus (`../shared/corpus`, else the repository's copy).
fn corpus() -> Vec<PathBuf> {
    let files = pir_files_in(&test_utils::corpus_dir());
    assert!(files.len() >= 10, "the corpus is missing: {files:?}");
    files
}

/// Every `.pir` file the grammar is held to: the shared corpus, the repository's copy of
/// it, the examples, the rule fixtures, the fuzz seeds and the TextMate grammar's tests.
fn every_pir_file() -> Vec<PathBuf> {
    let repo = repo();
    let mut files = corpus();
    for dir in [
        "examples",
        "tests/corpus",
        "tests/rules",
        "fuzz/seeds",
        "editors/vscode/test/grammar",
    ] {
        let found = pir_files_in(&repo.join(dir));
        assert!(!found.is_empty(), "no .pir file in {dir}");
        files.extend(found);
    }
    files
}

/// The ERROR, MISSING and `(unclosed)` nodes of a tree (the last: a bracket the external
/// scanner closed), as `line:column kind` (1-based).
fn error_nodes(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() || node.kind() == "unclosed" {
            let at = node.start_position();
            let what = if node.is_missing() {
                format!("MISSING {}", node.kind())
            } else {
                node.kind().to_string()
            };
            out.push(format!("{}:{} {what}", at.row + 1, at.column + 1));
            if node.is_error() {
                continue;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out.sort();
    out
}

/// Whether the real parser reports a syntax error (P100–P103) in `text`.
fn syntax_errors(text: &str) -> Vec<String> {
    syntax::parse(text)
        .errors
        .iter()
        .map(|e| format!("{:?} {}", e.code, e.message))
        .collect()
}

/// Runs `query` over `tree`: every capture as (node, capture name), text predicates
/// applied, in match order.
fn captures<'t>(query: &Query, tree: &'t Tree, text: &str) -> Vec<(Node<'t>, String)> {
    let names = query.capture_names();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
    let mut out = Vec::new();
    while let Some(m) = matches.next() {
        for c in m.captures() {
            out.push((c.node, names[c.index as usize].to_string()));
        }
    }
    out
}

fn query(source: &str, what: &str) -> Query {
    Query::new(&language(), source).unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn line_col(text: &str, offset: usize) -> String {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{col}")
}

// ---------------------------------------------------------------------------------------
// Parsing.

#[test]
fn every_file_the_parser_accepts_parses_without_error_nodes() {
    let mut failures = Vec::new();
    let (mut clean, mut exempt) = (0, Vec::new());
    for path in every_pir_file() {
        let text = read(&path);
        let tree = parse(&text);
        let errors = error_nodes(&tree);
        let syntax = syntax_errors(&text);
        if syntax.is_empty() {
            clean += 1;
            if !errors.is_empty() {
                failures.push(format!("{}: {}", shown(&path), errors.join(", ")));
            }
        } else {
            // A deliberate syntax error: the grammar must see an error too.
            if errors.is_empty() {
                failures.push(format!(
                    "{}: the parser reports {} but the tree has no error node",
                    shown(&path),
                    syntax.join("; ")
                ));
            }
            exempt.push(format!("{} ({})", shown(&path), syntax[0]));
        }
    }
    eprintln!(
        "{clean} files without syntax errors; {} with deliberate ones:\n  {}",
        exempt.len(),
        exempt.join("\n  ")
    );
    assert!(clean > 150, "only {clean} files were checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `node` and every node under it, in document order.
fn descendants(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        out.push(node);
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// The ops of a tree that stand outside every ERROR node: (start byte, class).
fn clean_ops(tree: &Tree, text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() {
            continue;
        }
        if node.kind() == "op"
            && let Some(class) = node.child_by_field_name("class")
        {
            out.push((node.start_byte(), text[class.byte_range()].to_string()));
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out.sort();
    out
}

/// Broken text recovers locally: one mistake in one op (its `}` deleted, the `]` of an
/// index deleted, a field's `=` deleted, a stray `)` before a value) leaves every other op
/// of the file an op node outside any ERROR, with its class. (A missing bracket closes at
/// the next statement, or for `[`/`(` at the next line's `name =`, as in the real parser:
/// src/scanner.c.)
#[test]
fn broken_text_recovers_locally() {
    let mut report = Vec::new();
    let (mut edits, mut kept, mut total) = (0usize, 0usize, 0usize);
    for path in corpus() {
        let text = read(&path);
        let tree = parse(&text);
        let ops = clean_ops(&tree, &text);
        let mut stack = vec![tree.root_node()];
        let mut bodies = Vec::new();
        while let Some(node) = stack.pop() {
            if node.kind() == "op" {
                bodies.push(node);
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        for op in bodies {
            let body = op.child_by_field_name("body").expect("an op body");
            let close = body.end_byte() - 1;
            let mut variants: Vec<(&str, usize, usize, &str)> =
                vec![("`}` deleted", close, close + 1, "")];
            let mut cursor = body.walk();
            if let Some(field) = body
                .named_children(&mut cursor)
                .find(|n| n.kind() == "field")
            {
                let eq = field.child(1).expect("the `=` of a field");
                variants.push(("`=` deleted", eq.start_byte(), eq.end_byte(), ""));
                let value = field.child_by_field_name("value").expect("a value");
                variants.push(("stray `)`", value.start_byte(), value.start_byte(), ") "));
            }
            if let Some(close) = descendants(op)
                .into_iter()
                .find(|n| n.kind() == "indices")
                .and_then(|n| n.child(n.child_count() - 1))
            {
                variants.push(("`]` deleted", close.start_byte(), close.end_byte(), ""));
            }
            for (what, from, to, with) in variants {
                edits += 1;
                let broken = format!("{}{with}{}", &text[..from], &text[to..]);
                let shift = |o: usize| {
                    if o >= to {
                        o - (to - from) + with.len()
                    } else {
                        o
                    }
                };
                let tree = parse(&broken);
                assert!(!error_nodes(&tree).is_empty(), "{what} at {from}: no error");
                let after = clean_ops(&tree, &broken);
                let others: Vec<&(usize, String)> = ops
                    .iter()
                    .filter(|(at, _)| *at != op.start_byte())
                    .collect();
                let lost: Vec<String> = others
                    .iter()
                    .filter(|(at, class)| !after.contains(&(shift(*at), class.clone())))
                    .map(|(at, class)| format!("{class} at {}", line_col(&text, *at)))
                    .collect();
                total += others.len();
                kept += others.len() - lost.len();
                if !lost.is_empty() {
                    report.push(format!(
                        "{}: {what} in the op at {}: lost {}",
                        shown(&path),
                        line_col(&text, op.start_byte()),
                        lost.join(", ")
                    ));
                }
            }
        }
    }
    eprintln!(
        "{edits} broken texts: {kept} of {total} other ops kept\n{}",
        report.join("\n")
    );
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// A tree as tree-sitter's test format writes it: named nodes with their field names, two
/// spaces of indentation per level.
fn pretty_tree(node: Node<'_>, field: Option<&str>, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let label = field.map(|f| format!("{f}: ")).unwrap_or_default();
    if node.is_missing() {
        let _ = write!(out, "\n{indent}{label}(MISSING {:?})", node.kind());
        return;
    }
    let kind = if node.is_error() {
        "ERROR"
    } else {
        node.kind()
    };
    let _ = write!(out, "\n{indent}{label}({kind}");
    let mut cursor = node.walk();
    for (i, child) in node.children(&mut cursor).enumerate() {
        if child.is_named() || child.is_missing() {
            let name = u32::try_from(i)
                .ok()
                .and_then(|i| node.field_name_for_child(i));
            pretty_tree(child, name, depth + 1, out);
        }
    }
    out.push(')');
}

/// Whitespace-insensitive form of an S-expression, as the tree-sitter CLI compares them.
fn normalize_sexp(s: &str) -> String {
    let spaced = s.split_whitespace().collect::<Vec<_>>().join(" ");
    spaced.replace(" )", ")").replace("( ", "(")
}

/// One test of a `test/corpus/*.txt` file: its name, attributes, input and expected tree.
struct CorpusTest {
    name: String,
    error: bool,
    input: String,
    expected: String,
}

/// Reads tree-sitter's test format: `===` header (name, `:error` and other attributes),
/// `===`, the input, a `---` line, the expected S-expression.
fn corpus_tests(text: &str) -> Vec<CorpusTest> {
    let lines: Vec<&str> = text.lines().collect();
    let is_rule = |l: &str, c: char| l.len() >= 3 && l.chars().all(|x| x == c);
    let mut tests = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_rule(lines[i], '=') {
            i += 1;
            continue;
        }
        let mut header = Vec::new();
        i += 1;
        while i < lines.len() && !is_rule(lines[i], '=') {
            header.push(lines[i]);
            i += 1;
        }
        i += 1;
        let start = i;
        while i < lines.len() && !is_rule(lines[i], '-') {
            i += 1;
        }
        let input = lines[start..i].join("\n").trim_matches('\n').to_string() + "\n";
        i += 1;
        let start = i;
        while i < lines.len() && !is_rule(lines[i], '=') {
            i += 1;
        }
        tests.push(CorpusTest {
            name: header.first().copied().unwrap_or_default().to_string(),
            error: header.iter().any(|l| l.trim() == ":error"),
            input,
            expected: lines[start..i].join("\n").trim().to_string(),
        });
    }
    tests
}

fn rule(c: char) -> String {
    c.to_string().repeat(80)
}

/// test/corpus/*.txt, in tree-sitter's test format (`tree-sitter test` runs the same files),
/// run with the crate: each input gives its expected tree, fields included; an `:error`
/// test an error. `UPDATE_EXPECT=1` rewrites the expected trees.
#[test]
fn tree_sitter_test_corpus() {
    let dir = grammar_dir().join("test/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("test/corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let (mut count, mut failures) = (0, Vec::new());
    for path in &files {
        let tests = corpus_tests(&read(path));
        assert!(!tests.is_empty(), "{}: no test", shown(path));
        let mut rewritten = String::new();
        for t in &tests {
            count += 1;
            let tree = parse(&t.input);
            let mut got = String::new();
            pretty_tree(tree.root_node(), None, 0, &mut got);
            let got = got.trim().to_string();
            let errors = error_nodes(&tree);
            if t.error {
                if errors.is_empty() {
                    failures.push(format!("{}: {}: no error in\n{got}", shown(path), t.name));
                }
            } else {
                if !errors.iter().all(|e| e.ends_with(" unclosed")) {
                    failures.push(format!("{}: {}: {errors:?}", shown(path), t.name));
                }
                if !update && normalize_sexp(&got) != normalize_sexp(&t.expected) {
                    failures.push(format!(
                        "{}: {}:\nexpected\n{}\ngot\n{got}",
                        shown(path),
                        t.name,
                        t.expected
                    ));
                }
            }
            let _ = write!(
                rewritten,
                "{eq}\n{}{}\n{eq}\n\n{}\n{dash}\n\n{}\n\n",
                t.name,
                if t.error { "\n:error" } else { "" },
                t.input.trim_end(),
                if t.error { "" } else { got.as_str() },
                eq = rule('='),
                dash = rule('-'),
            );
        }
        if update {
            std::fs::write(path, rewritten.trim_end().to_string() + "\n").expect("rewrite");
        }
    }
    assert!(count >= 10, "only {count} corpus tests");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The SHA-256 of a file, in hex (as `sha256sum` prints it).
fn sha256(path: &Path) -> String {
    use sha2::Digest as _;
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    sha2::Sha256::digest(&bytes)
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The tree-sitter CLI the grammar is generated with (generate.sh), if one is at hand:
/// `$PIR_TREE_SITTER`, else `tree-sitter` on PATH, of version 0.27.1.
fn tree_sitter_cli() -> Option<PathBuf> {
    let cli: PathBuf = std::env::var_os("PIR_TREE_SITTER").map_or("tree-sitter".into(), Into::into);
    let out = Command::new(&cli)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .starts_with("tree-sitter 0.27.1")
        .then_some(cli)
}

/// `src/parser.c` is fresh against `grammar.js`: `src/GENERATED.sha256` (written by
/// generate.sh right after `tree-sitter generate`) holds the hashes of grammar.js and of
/// every generated file, and they are the files' hashes now. So editing grammar.js
/// without regenerating, or a generated file by hand, fails here, with no CLI needed.
/// Where the CLI is at hand, the parser is also regenerated from grammar.js into a
/// scratch folder and compared byte for byte.
#[test]
fn parser_c_is_fresh() {
    let dir = grammar_dir();
    let stamp = read(&dir.join("src/GENERATED.sha256"));
    let mut listed = BTreeSet::new();
    let mut stale = Vec::new();
    for line in stamp.lines() {
        let (hash, file) = line.split_once("  ").expect("`HASH  FILE` lines");
        listed.insert(file.to_string());
        if sha256(&dir.join(file)) != hash {
            stale.push(file.to_string());
        }
    }
    for file in [
        "grammar.js",
        "src/parser.c",
        "src/grammar.json",
        "src/node-types.json",
    ] {
        assert!(
            listed.contains(file),
            "src/GENERATED.sha256 does not list {file}"
        );
    }
    assert!(
        stale.is_empty(),
        "{} changed since src/ was generated: run editors/tree-sitter-pir/generate.sh \
         (tree-sitter-cli 0.27.1)",
        stale.join(", ")
    );
    let parser = read(&dir.join("src/parser.c"));
    assert!(
        parser.contains("#define LANGUAGE_VERSION 14\n"),
        "parser.c is not of ABI 14 (generate.sh passes --abi 14)"
    );
    let Some(cli) = tree_sitter_cli() else {
        eprintln!(
            "parser_c_is_fresh: no tree-sitter 0.27.1 CLI ($PIR_TREE_SITTER or PATH): the \
             hashes were checked, the parser was not regenerated"
        );
        return;
    };
    let scratch = std::env::temp_dir().join(format!("pir-grammar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    for file in ["grammar.js", "tree-sitter.json"] {
        std::fs::copy(dir.join(file), scratch.join(file)).expect("copy");
    }
    let out = Command::new(&cli)
        .current_dir(&scratch)
        .args(["generate", "--abi", "14"])
        .stdin(Stdio::null())
        .output()
        .expect("run tree-sitter generate");
    assert!(
        out.status.success(),
        "tree-sitter generate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in listed.iter().filter(|f| f.starts_with("src/")) {
        assert!(
            std::fs::read(scratch.join(file)).ok() == std::fs::read(dir.join(file)).ok(),
            "{file} differs from what {} generates from grammar.js: run generate.sh",
            cli.display()
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

// ---------------------------------------------------------------------------------------
// Queries.

fn query_file(name: &str) -> String {
    read(&grammar_dir().join("queries").join(name))
}

/// The grammar's own queries (nvim-treesitter's capture names).
const QUERIES: [&str; 5] = [
    "highlights.scm",
    "locals.scm",
    "folds.scm",
    "indents.scm",
    "textobjects.scm",
];

/// The semantic token type each highlight capture stands for: the type Neovim 0.11 links
/// to that group (`@lsp.type.class` → `@type`, …), so that a token keeps its colour when
/// the server's tokens arrive. `None`: no semantic token (punctuation; an escape inside a
/// string, whose token is the string's).
const CAPTURE_TYPES: [(&str, Option<TokenType>); 25] = [
    ("comment", Some(TokenType::Comment)),
    ("keyword", Some(TokenType::Keyword)),
    ("keyword.repeat", Some(TokenType::Keyword)),
    // `true` and `false` are keywords (SPEC §2); the legend has no boolean type.
    ("boolean", Some(TokenType::Keyword)),
    ("function", Some(TokenType::Function)),
    ("function.call", Some(TokenType::Function)),
    ("type", Some(TokenType::Class)),
    ("attribute", Some(TokenType::Decorator)),
    ("property", Some(TokenType::Property)),
    ("module", Some(TokenType::Namespace)),
    ("type.builtin", Some(TokenType::Type)),
    ("constant", Some(TokenType::EnumMember)),
    ("variable.parameter", Some(TokenType::Parameter)),
    ("variable", Some(TokenType::Variable)),
    ("type.definition", Some(TokenType::TypeParameter)),
    ("number", Some(TokenType::Number)),
    ("number.float", Some(TokenType::Number)),
    ("string", Some(TokenType::String)),
    ("string.escape", None),
    ("string.special", Some(TokenType::String)),
    ("operator", Some(TokenType::Operator)),
    ("punctuation.bracket", None),
    ("punctuation.delimiter", None),
    // Not highlights: Neovim's spell-checking region, and predicate operands.
    ("spell", None),
    ("_name", None),
];

fn capture_type(capture: &str) -> Option<TokenType> {
    CAPTURE_TYPES
        .iter()
        .find(|(c, _)| *c == capture)
        .unwrap_or_else(|| panic!("highlights.scm: capture @{capture} has no semantic type"))
        .1
}

/// Captures that colour nothing (their node keeps the capture of another pattern).
fn is_highlight(capture: &str) -> bool {
    !capture.starts_with('_') && capture != "spell"
}

/// What locals.scm makes of a file: for each reference (by start byte), the kind of the
/// definition it resolves to (`parameter`, `var`), or `None` when it resolves to none.
/// Resolution as editors with locals do it (Helix): the innermost enclosing scope first,
/// then outwards, a definition counting from its position on.
fn resolve_locals(tree: &Tree, text: &str) -> HashMap<usize, Option<String>> {
    let locals = query(&query_file("locals.scm"), "locals.scm");
    let caps = captures(&locals, tree, text);
    let scopes: Vec<Node<'_>> = caps
        .iter()
        .filter(|(_, c)| c == "local.scope")
        .map(|(n, _)| *n)
        .collect();
    // The innermost scope holding `node` (the node itself excluded).
    let scope_of = |node: Node<'_>| -> Option<usize> {
        scopes
            .iter()
            .filter(|s| {
                s.id() != node.id()
                    && s.start_byte() <= node.start_byte()
                    && node.end_byte() <= s.end_byte()
            })
            .min_by_key(|s| s.end_byte() - s.start_byte())
            .map(Node::id)
    };
    let mut definitions: Vec<(usize, &str, usize, String)> = Vec::new();
    for (node, capture) in &caps {
        if let Some(kind) = capture.strip_prefix("local.definition.") {
            let scope = scope_of(*node).expect("a definition inside a scope");
            definitions.push((
                scope,
                &text[node.byte_range()],
                node.start_byte(),
                kind.into(),
            ));
        }
    }
    let mut out = HashMap::new();
    for (node, capture) in &caps {
        if capture != "local.reference" {
            continue;
        }
        let name = &text[node.byte_range()];
        let mut resolved = None;
        let mut inner = *node;
        while let Some(scope) = scope_of(inner) {
            if let Some((_, _, _, kind)) = definitions
                .iter()
                .filter(|(s, n, at, _)| *s == scope && *n == name && *at < node.start_byte())
                .max_by_key(|(_, _, at, _)| *at)
            {
                resolved = Some(kind.clone());
                break;
            }
            inner = *scopes.iter().find(|s| s.id() == scope).expect("a scope");
        }
        out.insert(node.start_byte(), resolved);
    }
    out
}

/// The highlight of every captured node of a file: (start, end) → capture, with
/// references refined by locals.scm (a use of a parameter is `variable.parameter`, a use
/// that resolves to nothing has none), as Helix applies locals.
fn highlights(tree: &Tree, text: &str) -> BTreeMap<(usize, usize), String> {
    let highlights = query(&query_file("highlights.scm"), "highlights.scm");
    let locals = resolve_locals(tree, text);
    let mut out = BTreeMap::new();
    for (node, capture) in captures(&highlights, tree, text) {
        if !is_highlight(&capture) {
            continue;
        }
        let mut capture = capture;
        if node.kind() == "local"
            && let Some(resolved) = locals.get(&node.start_byte())
        {
            match resolved.as_deref() {
                Some("parameter") => capture = "variable.parameter".into(),
                Some(_) => capture = "variable".into(),
                None => continue,
            }
        }
        out.insert((node.start_byte(), node.end_byte()), capture);
    }
    out
}

#[test]
fn every_query_compiles_against_the_grammar() {
    for name in QUERIES {
        let q = query(&query_file(name), name);
        assert!(q.pattern_count() > 0, "{name}: no pattern");
    }
}

/// On every file of the shared corpus (and the examples, the rule fixtures and the fuzz
/// seeds), the highlight of each token is the one the server's semantic tokens give it
/// (`analysis::AnalysisHost`, as `pir lsp` answers), through [`CAPTURE_TYPES`]: every
/// keyword, op class, field name, local and global, and every other token the legend has
/// a type for (numbers, strings, comments, operators, op ids, dim variables, dtypes,
/// memory spaces, enum values, access kinds). Lists every mismatch; none is allowed, but
/// for a field name spelled as a keyword (`step = 2`, only in fuzz seeds), which the
/// server types as a keyword by its token and the TextMate grammar and this one as the
/// property it is.
#[test]
fn highlights_agree_with_semantic_tokens() {
    let mut mismatches = Vec::new();
    let mut keyword_fields = Vec::new();
    let mut compared = BTreeMap::<&str, usize>::new();
    let files: Vec<PathBuf> = corpus()
        .into_iter()
        .chain(pir_files_in(&repo().join("examples")))
        .chain(pir_files_in(&repo().join("tests/rules")))
        .chain(pir_files_in(&repo().join("fuzz/seeds")))
        .collect();
    for path in &files {
        let text = read(path);
        let tree = parse(&text);
        let mut host = analysis::AnalysisHost::new();
        let file = host.add_file(&text);
        let tokens = host
            .snapshot()
            .semantic_tokens(file, None)
            .expect("not cancelled");
        let mut semantic: BTreeMap<(usize, usize), TokenType> = BTreeMap::new();
        for t in &tokens {
            let range = (usize::from(t.range.start()), usize::from(t.range.end()));
            semantic.insert(range, t.token_type);
        }
        let ours: BTreeMap<(usize, usize), Option<TokenType>> = highlights(&tree, &text)
            .into_iter()
            .map(|(range, capture)| (range, capture_type(&capture)))
            .filter(|(_, t)| t.is_some())
            .collect();
        let ranges: BTreeSet<(usize, usize)> =
            semantic.keys().chain(ours.keys()).copied().collect();
        for range in ranges {
            let theirs = semantic.get(&range).copied();
            let mine = ours.get(&range).copied().flatten();
            if let Some(t) = theirs {
                *compared.entry(t.lsp_name()).or_default() += 1;
            }
            // The one known difference, the server's: it types a token by its lexer
            // kind first, so a field spelled as a keyword (`step = 2`, IndexValueInst)
            // is a keyword to it, and a property to the TextMate grammar and here.
            let keyword_field = theirs == Some(TokenType::Keyword)
                && mine == Some(TokenType::Property)
                && tree
                    .root_node()
                    .descendant_for_byte_range(range.0, range.1)
                    .is_some_and(|n| n.kind() == "field_name");
            if keyword_field {
                keyword_fields.push(format!("{}:{}", shown(path), line_col(&text, range.0)));
            } else if theirs != mine {
                mismatches.push(format!(
                    "{}:{} {:?}: semantic token {:?}, tree-sitter {:?}",
                    shown(path),
                    line_col(&text, range.0),
                    &text[range.0..range.1],
                    theirs.map(TokenType::lsp_name),
                    mine.map(TokenType::lsp_name),
                ));
            }
        }
    }
    eprintln!(
        "compared tokens by semantic type: {compared:?}\nfield names spelled as keywords \
         (the server's `keyword`, a property here): {}",
        keyword_fields.join(", ")
    );
    for needed in [
        "keyword",
        "class",
        "property",
        "variable",
        "parameter",
        "function",
    ] {
        assert!(
            compared.get(needed).copied().unwrap_or(0) > 10,
            "few {needed} tokens"
        );
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// No two highlight captures fall on the same node, so that the colours do not depend on
/// whether an editor lets the first matching pattern win (Helix, Zed) or the last
/// (Neovim).
#[test]
fn highlight_captures_are_disjoint() {
    let highlights = query(&query_file("highlights.scm"), "highlights.scm");
    let mut clashes = BTreeSet::new();
    for path in every_pir_file() {
        let text = read(&path);
        let tree = parse(&text);
        let mut seen: HashMap<usize, String> = HashMap::new();
        for (node, capture) in captures(&highlights, &tree, &text) {
            if !is_highlight(&capture) {
                continue;
            }
            if let Some(first) = seen.insert(node.id(), capture.clone())
                && first != capture
            {
                clashes.insert(format!(
                    "{} on `{}` ({})",
                    first + " and @" + &capture,
                    &text[node.byte_range()],
                    node.kind()
                ));
            }
        }
    }
    assert!(
        clashes.is_empty(),
        "captures on one node: @{}",
        clashes.into_iter().collect::<Vec<_>>().join("\n@")
    );
}

/// The field names highlights.scm treats as naming a dtype are exactly the fields of kind
/// `dtype` or `list<dtype>` in the op catalog, and none of them is of another kind that
/// takes an identifier in some other op (so that the name alone decides).
#[test]
fn dtype_fields_are_the_catalogs() {
    use lower::catalog::{CATALOG, Kind};
    let mut dtype = BTreeSet::new();
    let mut other = BTreeSet::new();
    for op in CATALOG.iter() {
        for field in op.fields {
            match field.kind {
                Kind::Dtype | Kind::List(Kind::Dtype) => dtype.insert(field.name),
                Kind::Enum(_) | Kind::List(Kind::Enum(_)) => other.insert(field.name),
                _ => false,
            };
        }
    }
    let clash: Vec<&&str> = dtype.intersection(&other).collect();
    assert!(
        clash.is_empty(),
        "dtype in one op, an enum in another: {clash:?}"
    );
    let source = query_file("highlights.scm");
    for line in source.lines().filter(|l| l.contains("any-of? @_name")) {
        let listed: BTreeSet<&str> = line.split('"').skip(1).step_by(2).collect();
        assert_eq!(
            listed, dtype,
            "highlights.scm's dtype fields ({line}) are not the catalog's"
        );
    }
}

/// CRLF line ends and a byte-order mark (SPEC §1, syntax/src/lexer.rs) read as LF files
/// do: every corpus file with `\r\n` and a leading U+FEFF gives the same tree.
#[test]
fn crlf_and_a_byte_order_mark_read_as_lf() {
    for path in corpus() {
        let text = read(&path);
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        let (lf_tree, crlf_tree) = (parse(&text), parse(&crlf));
        assert!(error_nodes(&crlf_tree).is_empty(), "{}", shown(&path));
        assert_eq!(
            lf_tree.root_node().to_sexp(),
            crlf_tree.root_node().to_sexp(),
            "{}",
            shown(&path)
        );
    }
}

// ---------------------------------------------------------------------------------------
// Helix and Zed: their queries are the grammar's with capture names mapped.

/// How an editor names a capture of the grammar's queries (`None`: it has no such
/// capture; the pattern stays, the capture goes).
type Names = &'static [(&'static str, Option<&'static str>)];

/// Helix's names (helix-editor.com, "Themes" scopes and "Adding textobject queries").
const HELIX: Names = &[
    ("comment", Some("comment")),
    ("spell", None),
    ("keyword", Some("keyword")),
    ("keyword.repeat", Some("keyword.control.repeat")),
    ("boolean", Some("constant.builtin.boolean")),
    ("function", Some("function")),
    ("function.call", Some("function")),
    ("type", Some("type")),
    ("attribute", Some("attribute")),
    ("property", Some("variable.other.member")),
    ("module", Some("namespace")),
    ("type.builtin", Some("type.builtin")),
    ("constant", Some("type.enum.variant")),
    ("variable.parameter", Some("variable.parameter")),
    ("variable", Some("variable")),
    ("type.definition", Some("type.parameter")),
    ("number", Some("constant.numeric.integer")),
    ("number.float", Some("constant.numeric.float")),
    ("string", Some("string")),
    ("string.escape", Some("constant.character.escape")),
    ("string.special", Some("string.special")),
    ("operator", Some("operator")),
    ("punctuation.bracket", Some("punctuation.bracket")),
    ("punctuation.delimiter", Some("punctuation.delimiter")),
    ("_name", Some("_name")),
    // locals.scm: a definition names the highlight its references take.
    ("local.scope", Some("local.scope")),
    ("local.reference", Some("local.reference")),
    (
        "local.definition.parameter",
        Some("local.definition.variable.parameter"),
    ),
    ("local.definition.var", Some("local.definition.variable")),
    // textobjects.scm
    ("function.outer", Some("function.around")),
    ("function.inner", Some("function.inside")),
    ("class.outer", Some("class.around")),
    ("class.inner", Some("class.inside")),
    ("parameter.outer", Some("parameter.around")),
    ("parameter.inner", Some("parameter.inside")),
    ("comment.outer", Some("comment.around")),
    ("loop.outer", None),
    ("loop.inner", None),
    ("block.outer", None),
    ("assignment.outer", None),
    ("assignment.inner", None),
    ("assignment.lhs", None),
    ("assignment.rhs", None),
];

/// Zed's names (zed.dev, "Language extensions": the syntax highlight names of its themes,
/// and the vim mode's text objects).
const ZED: Names = &[
    ("comment", Some("comment")),
    ("spell", None),
    ("keyword", Some("keyword")),
    ("keyword.repeat", Some("keyword")),
    ("boolean", Some("boolean")),
    ("function", Some("function")),
    ("function.call", Some("function")),
    ("type", Some("type")),
    ("attribute", Some("attribute")),
    ("property", Some("property")),
    ("module", Some("namespace")),
    ("type.builtin", Some("type")),
    ("constant", Some("constant")),
    ("variable.parameter", Some("variable.parameter")),
    ("variable", Some("variable")),
    ("type.definition", Some("type")),
    ("number", Some("number")),
    ("number.float", Some("number")),
    ("string", Some("string")),
    ("string.escape", Some("string.escape")),
    ("string.special", Some("string.special")),
    ("operator", Some("operator")),
    ("punctuation.bracket", Some("punctuation.bracket")),
    ("punctuation.delimiter", Some("punctuation.delimiter")),
    ("_name", Some("_name")),
    ("function.outer", Some("function.around")),
    ("function.inner", Some("function.inside")),
    ("class.outer", Some("class.around")),
    ("class.inner", Some("class.inside")),
    ("comment.outer", Some("comment.around")),
    ("parameter.outer", None),
    ("parameter.inner", None),
    ("loop.outer", None),
    ("loop.inner", None),
    ("block.outer", None),
    ("assignment.outer", None),
    ("assignment.inner", None),
    ("assignment.lhs", None),
    ("assignment.rhs", None),
];

/// `source` (a query of the grammar) with its captures renamed by `names`: a capture the
/// editor lacks is dropped, a repeated one kept once. Panics on an unmapped capture.
fn map_captures(source: &str, names: Names, what: &str) -> String {
    let mut out = String::new();
    for line in source.lines() {
        if line.trim_start().starts_with(';') {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut mapped: Vec<String> = Vec::new();
        let mut rest = line;
        let mut text = String::new();
        while let Some(at) = rest.find('@') {
            text.push_str(&rest[..at]);
            let name_len = rest[at + 1..]
                .find(|c: char| !(c.is_alphanumeric() || c == '.' || c == '_'))
                .unwrap_or(rest.len() - at - 1);
            let name = &rest[at + 1..at + 1 + name_len];
            rest = &rest[at + 1 + name_len..];
            let to = names
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("{what}: no name for @{name}"))
                .1;
            match to {
                Some(to) if !mapped.iter().any(|m| m == to) => {
                    mapped.push(to.to_string());
                    let _ = write!(text, "@{to}");
                }
                _ => {
                    // Dropped: take the space before it too.
                    while text.ends_with(' ') {
                        text.pop();
                    }
                }
            }
        }
        text.push_str(rest);
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// The header every generated query starts with.
fn generated_header(editor: &str, name: &str) -> String {
    format!(
        "; Generated from editors/tree-sitter-pir/queries/{name} with {editor}'s capture names\n\
         ; by tests/grammar.rs (UPDATE_EXPECT=1 cargo test -p tree-sitter-pir --test grammar).\n\
         ; Edit the grammar's file, not this one.\n\n"
    )
}

/// The generated queries of each editor: (path, expected text).
fn generated_queries() -> Vec<(PathBuf, String)> {
    let repo = repo();
    let helix = repo.join("editors/helix/runtime/queries/penguin-ir");
    let zed = repo.join("editors/zed/languages/penguin-ir");
    let mut out = Vec::new();
    for (dir, editor, names, files) in [
        (
            &helix,
            "Helix",
            HELIX,
            &["highlights.scm", "locals.scm", "textobjects.scm"][..],
        ),
        (&zed, "Zed", ZED, &["highlights.scm", "textobjects.scm"][..]),
    ] {
        for name in files {
            let mapped = map_captures(&query_file(name), names, &format!("{editor} {name}"));
            out.push((dir.join(name), generated_header(editor, name) + &mapped));
        }
    }
    out
}

#[test]
fn helix_and_zed_queries_are_the_grammars_renamed() {
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (path, want) in generated_queries() {
        if update {
            std::fs::write(&path, &want).expect("write a generated query");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(shown(&path));
        }
    }
    assert!(
        stale.is_empty(),
        "not generated from the grammar's queries (UPDATE_EXPECT=1 cargo test -p \
         tree-sitter-pir --test grammar): {}",
        stale.join(", ")
    );
}

/// Every `.scm` of Helix's and Zed's folders compiles against the grammar, and its
/// highlight captures light up the corpus (none is a pattern that matches nothing).
#[test]
fn helix_and_zed_queries_compile_against_the_grammar() {
    let repo = repo();
    let mut count = 0;
    for dir in [
        "editors/helix/runtime/queries/penguin-ir",
        "editors/zed/languages/penguin-ir",
    ] {
        for entry in std::fs::read_dir(repo.join(dir))
            .expect("the query folder")
            .flatten()
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "scm") {
                let q = query(&read(&path), &shown(&path));
                assert!(q.pattern_count() > 0, "{}: no pattern", shown(&path));
                count += 1;
            }
        }
        let highlights = query(&read(&repo.join(dir).join("highlights.scm")), dir);
        let text = read(&corpus()[0]);
        let tree = parse(&text);
        let lit: BTreeSet<String> = captures(&highlights, &tree, &text)
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        for needed in ["keyword", "type", "variable", "function"] {
            assert!(
                lit.contains(needed),
                "{dir}: no @{needed} on the corpus: {lit:?}"
            );
        }
    }
    assert!(count >= 8, "only {count} Helix and Zed queries");
}

fn toml_file(path: &Path) -> toml::Table {
    read(path)
        .parse::<toml::Table>()
        .unwrap_or_else(|e| panic!("{}: {e}", shown(path)))
}

fn str_at<'t>(table: &'t toml::Table, keys: &[&str]) -> Option<&'t str> {
    let (last, init) = keys.split_last()?;
    let mut t = table;
    for k in init {
        t = t.get(*k)?.as_table()?;
    }
    t.get(*last)?.as_str()
}

fn strings(value: Option<&toml::Value>) -> Vec<String> {
    value
        .and_then(toml::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// editors/helix/languages.toml: it parses; the language `penguin-ir` takes `*.pir`, its
/// queries' folder is named after it, its grammar is `pir` (this grammar's folder), and
/// its server runs `pir lsp`.
#[test]
fn helix_languages_toml() {
    let repo = repo();
    let config = toml_file(&repo.join("editors/helix/languages.toml"));
    let server = config["language-server"]["pir"]
        .as_table()
        .expect("[language-server.pir]");
    assert_eq!(server["command"].as_str(), Some("pir"));
    assert_eq!(strings(server.get("args")), ["lsp"]);
    let languages = config["language"].as_array().expect("[[language]]");
    let language = languages
        .iter()
        .filter_map(toml::Value::as_table)
        .find(|l| l["name"].as_str() == Some("penguin-ir"))
        .expect("the penguin-ir language");
    assert_eq!(strings(language.get("file-types")), ["pir"]);
    assert_eq!(strings(language.get("language-servers")), ["pir"]);
    assert_eq!(language["language-id"].as_str(), Some("penguin-ir"));
    assert_eq!(language["grammar"].as_str(), Some("pir"));
    assert_eq!(strings(language.get("comment-tokens")), ["//"]);
    assert!(
        repo.join("editors/helix/runtime/queries/penguin-ir/highlights.scm")
            .is_file()
    );
    let grammars = config["grammar"].as_array().expect("[[grammar]]");
    let grammar = grammars
        .iter()
        .filter_map(toml::Value::as_table)
        .find(|g| g["name"].as_str() == Some("pir"))
        .expect("the pir grammar");
    let source = grammar["source"].as_table().expect("its source");
    let path = source["path"].as_str().expect("a local path source");
    assert!(path.ends_with("editors/tree-sitter-pir"), "{path}");
}

/// editors/zed: extension.toml and languages/penguin-ir/config.toml parse; the language
/// `Penguin IR` takes `*.pir` with the grammar `pir` (this grammar's folder), the language
/// server `pir` serves it, and the extension's code runs `pir lsp`.
#[test]
fn zed_extension() {
    let zed = repo().join("editors/zed");
    let extension = toml_file(&zed.join("extension.toml"));
    assert_eq!(str_at(&extension, &["id"]), Some("penguin-ir"));
    assert_eq!(extension["schema_version"].as_integer(), Some(1));
    assert_eq!(
        str_at(&extension, &["grammars", "pir", "path"]),
        Some("editors/tree-sitter-pir")
    );
    assert!(str_at(&extension, &["grammars", "pir", "repository"]).is_some());
    assert!(str_at(&extension, &["grammars", "pir", "rev"]).is_some());
    assert_eq!(
        strings(extension["language_servers"]["pir"].get("languages")),
        ["Penguin IR"]
    );
    let config = toml_file(&zed.join("languages/penguin-ir/config.toml"));
    assert_eq!(str_at(&config, &["name"]), Some("Penguin IR"));
    assert_eq!(str_at(&config, &["grammar"]), Some("pir"));
    assert_eq!(strings(config.get("path_suffixes")), ["pir"]);
    assert_eq!(strings(config.get("line_comments")), ["// "]);
    let manifest = toml_file(&zed.join("Cargo.toml"));
    assert_eq!(
        strings(manifest["lib"].get("crate-type")),
        ["cdylib"],
        "a Zed extension is a cdylib"
    );
    assert!(manifest["dependencies"].get("zed_extension_api").is_some());
    // The command the extension's code builds: `pir` (or the settings' binary) and `lsp`.
    let code = read(&zed.join("src/lib.rs"));
    assert!(
        code.contains("const SERVER: &str = \"pir\";"),
        "the server is not `pir`"
    );
    assert!(
        code.contains("const ARGS: [&str; 1] = [\"lsp\"];"),
        "its arguments are not `lsp`"
    );
    assert!(code.contains("worktree.which(SERVER)") && code.contains("register_extension!"));
}

// ---------------------------------------------------------------------------------------
// The TextMate grammar of the VS Code extension.

/// The TextMate scope (a prefix) each highlight capture corresponds to.
const TEXTMATE: [(&str, &str); 23] = [
    ("comment", "comment.line"),
    ("keyword", "keyword.other"),
    ("keyword.repeat", "keyword.control.loop"),
    ("boolean", "constant.language.boolean"),
    ("function", "entity.name.function.kernel"),
    ("function.call", "support.function"),
    ("type", "entity.name.type.op-class"),
    ("attribute", "constant.other.op-id"),
    ("property", "variable.other.property"),
    ("module", "storage.modifier.memory"),
    ("type.builtin", "storage.type.dtype"),
    ("constant", "variable.other.enummember"),
    ("variable.parameter", "variable.other.local"),
    ("variable", "variable.other.local"),
    ("type.definition", "variable.language.dim"),
    ("number", "constant.numeric.integer"),
    ("number.float", "constant.numeric.float"),
    ("string", "string.quoted.double"),
    ("string.escape", "constant.character.escape"),
    ("string.special", "string.quoted.double.bytes"),
    ("operator", "keyword.operator"),
    ("punctuation.bracket", "punctuation.section"),
    ("punctuation.delimiter", "punctuation.separator"),
];

/// On every file of the shared corpus and the examples, each TextMate token that a
/// highlight capture covers has that capture's scope ([`TEXTMATE`]), as VS Code's
/// tokenizer gives them (`scripts/textmate-scopes.mjs`). Needs `npm ci` in
/// editors/vscode; skipped without it unless `PIR_REQUIRE_EDITOR_TESTS=1`.
#[test]
fn highlights_agree_with_textmate() {
    let repo = repo();
    if !repo
        .join("editors/vscode/node_modules/vscode-textmate")
        .is_dir()
    {
        let msg = "SKIPPED: highlights_agree_with_textmate: editors/vscode/node_modules is \
                   missing (npm ci --prefix editors/vscode)";
        assert!(
            std::env::var("PIR_REQUIRE_EDITOR_TESTS").as_deref() != Ok("1"),
            "{msg} (PIR_REQUIRE_EDITOR_TESTS=1 makes this an error)"
        );
        eprintln!("{msg}");
        return;
    }
    let files: Vec<PathBuf> = corpus()
        .into_iter()
        .chain(pir_files_in(&repo.join("examples")))
        .collect();
    let out = Command::new("node")
        .arg(grammar_dir().join("scripts/textmate-scopes.mjs"))
        .args(&files)
        .stdin(Stdio::null())
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "textmate-scopes.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), files.len(), "one line per file");
    let highlights = query(&query_file("highlights.scm"), "highlights.scm");
    let (mut compared, mut mismatches) = (0usize, Vec::new());
    for (path, line) in files.iter().zip(lines) {
        let text = read(path);
        let tree = parse(&text);
        let tokens = parse_textmate_tokens(line);
        for (node, capture) in captures(&highlights, &tree, &text) {
            let Some((_, scope)) = TEXTMATE.iter().find(|(c, _)| *c == capture) else {
                continue;
            };
            for (start, end, scopes) in tokens
                .iter()
                .filter(|(s, e, _)| *s < node.end_byte() && node.start_byte() < *e)
            {
                // A token of a nested capture (an escape inside a string) is that one's.
                if capture == "string" && scopes.iter().any(|s| s.starts_with("constant.character"))
                {
                    continue;
                }
                compared += 1;
                if !scopes.iter().any(|s| s.starts_with(scope)) {
                    mismatches.push(format!(
                        "{}:{} {:?}: @{capture} here, TextMate {scopes:?}",
                        shown(path),
                        line_col(&text, *start),
                        &text[*start..*end],
                    ));
                }
            }
        }
    }
    eprintln!("{compared} TextMate tokens compared");
    assert!(compared > 5000, "only {compared} tokens compared");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// `[[start, end, ["scope", …]], …]` as textmate-scopes.mjs prints it.
fn parse_textmate_tokens(line: &str) -> Vec<(usize, usize, Vec<String>)> {
    serde_json::from_str(line).expect("textmate-scopes.mjs prints JSON")
}
