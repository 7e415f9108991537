//! The Penguin text IR (`*.pir`, pir-spec/2) grammar for the [tree-sitter] parsing library.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser
//!     .set_language(&tree_sitter_pir::LANGUAGE.into())
//!     .expect("the pir grammar loads");
//! let tree = parser
//!     .parse("kernel @k() {\n  NoOp {}\n}\n", None)
//!     .expect("a tree");
//! assert!(!tree.root_node().has_error());
//! ```
//!
//! The queries (`queries/*.scm`) are exported as constants, as tree-sitter's template does,
//! for hosts that highlight with the `tree-sitter-highlight` crate.
//!
//! [tree-sitter]: https://tree-sitter.github.io/

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_pir() -> *const ();
}

/// The tree-sitter [`LanguageFn`] of the grammar; `LANGUAGE.into()` is a
/// `tree_sitter::Language`.
// SAFETY: `tree_sitter_pir` is the entry point that `tree-sitter generate` wrote into
// src/parser.c, compiled by build.rs.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_pir) };

/// The content of [`node-types.json`](../../src/node-types.json): every node type of the grammar.
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The syntax highlighting query (capture names of nvim-treesitter's convention).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// The local variable query: kernels and blocks are scopes; parameters, tensors,
/// registers and loop variables are definitions; every other `%name` a reference.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// The folding query: kernels, loop bodies, op bodies, records and multi-line lists.
pub const FOLDS_QUERY: &str = include_str!("../../queries/folds.scm");

/// The indentation query.
pub const INDENTS_QUERY: &str = include_str!("../../queries/indents.scm");

/// The text objects query: ops, kernels, loops, fields, parameters.
pub const TEXTOBJECTS_QUERY: &str = include_str!("../../queries/textobjects.scm");
