#!/usr/bin/env bash
# Regenerates the screenshots of this folder:
#   nvim-diagnostics-inlay-hints.png  Neovim (tmux, 100x31) on tests/corpus/matmul_basic.pir
#                                     with an undefined tensor injected: the P200 error and
#                                     the inlay hints
#   nvim-show-bir.png                 the same with :PirShowBir of the MatMulOp beside it
#   vscode-grammar-topk.png           the TextMate grammar on tests/corpus/topk.pir with
#                                     VS Code's Dark+ colours (vscode-textmate, headless Chromium)
# Needs: a built pir ($PIR_BIN, default target/debug/pir), nvim >= 0.11, tmux, python3 with
# Pillow, node with editors/vscode/node_modules, chromium.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
pir="${PIR_BIN:-$repo/target/debug/pir}"
tmp="$(mktemp -d)"
sock="pir-screenshots-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

# The corpus file without its //> annotations (the inlay hints show the same), with the
# `moving` operand misspelt.
sed -e 's/moving = %rhs_tile/moving = %rhs_tyle/' -e 's|  //>.*$||' \
  "$repo/tests/corpus/matmul_basic.pir" > "$tmp/matmul_basic.pir"

nvim_shot() { # NAME COLS ROWS KEYS...
  local name="$1" cols="$2" rows="$3"
  shift 3
  tmux -L "$sock" -f /dev/null new-session -d -s shot -x "$cols" -y "$rows" -c "$tmp" \
    -e PIR_BIN="$pir" -e TERM=xterm-256color -e COLORTERM=truecolor \
    "nvim --clean -u '$repo/editors/nvim/test/minimal_init.lua' -c 'colorscheme habamax' -c 'set number' matmul_basic.pir"
  sleep 3
  for keys in "$@"; do
    tmux -L "$sock" send-keys -t shot "$keys"
    sleep 1.5
  done
  tmux -L "$sock" capture-pane -e -p -t shot > "$tmp/$name.ansi"
  tmux -L "$sock" kill-server
  python3 "$here/ansi2png.py" "$tmp/$name.ansi" "$here/$name.png"
  echo "wrote $here/$name.png"
}

nvim_shot nvim-diagnostics-inlay-hints 100 31 '23G'
nvim_shot nvim-show-bir 170 34 '20G' '3|' ':PirShowBir' Enter ':wincmd p' Enter

node "$repo/editors/vscode/scripts/highlight-html.mjs" "$repo/tests/corpus/topk.pir" > "$tmp/topk.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1240,860 \
  --screenshot="$here/vscode-grammar-topk.png" "file://$tmp/topk.html" 2>/dev/null
echo "wrote $here/vscode-grammar-topk.png"
