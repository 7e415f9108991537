#!/usr/bin/env bash
# Regenerates src/ (parser.c, grammar.json, node-types.json, tree_sitter/*.h) from
# grammar.js, then records their SHA-256 in src/GENERATED.sha256, which the test
# `parser_c_is_fresh` (tests/grammar.rs) checks: editing grammar.js without running this
# fails `cargo test`.
#
# Needs tree-sitter-cli 0.27.1, built from crates.io (about 10 minutes on two cores):
#   cargo install tree-sitter-cli --version 0.27.1 --locked
# ($PIR_TREE_SITTER names another binary). It evaluates grammar.js with Node when `node`
# is on PATH, else with its built-in QuickJS.
#
# ABI 14, not the CLI's default 15: Neovim >= 0.9, Helix, Zed, Emacs 29's libtree-sitter
# 0.20 and the tree-sitter crate all load ABI 14; libtree-sitter 0.20 rejects 15.
set -euo pipefail
cd "$(dirname "$0")"
ts=${PIR_TREE_SITTER:-tree-sitter}
version=$("$ts" --version)
case "$version" in
  "tree-sitter 0.27.1"*) ;;
  *) echo "generate.sh: want tree-sitter 0.27.1, found: $version" >&2; exit 1 ;;
esac
"$ts" generate --abi 14
sha256sum grammar.js src/parser.c src/grammar.json src/node-types.json \
  src/tree_sitter/alloc.h src/tree_sitter/array.h src/tree_sitter/parser.h > src/GENERATED.sha256
echo "generate.sh: src/ regenerated with $version (ABI 14); run: cargo test -p tree-sitter-pir"
