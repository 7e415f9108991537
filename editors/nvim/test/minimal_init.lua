-- Minimal config for the end-to-end test (and for trying the plugin out):
--   PIR_BIN=/path/to/pir nvim --clean -u editors/nvim/test/minimal_init.lua FILE.pir
-- Loads only this plugin, from the repository, and the `pir` binary named by $PIR_BIN
-- (default: `pir` on PATH).
local plugin = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.opt.termguicolors = true

vim.cmd('filetype plugin indent on')
vim.cmd('syntax on')

require('pir').setup({
  cmd = { vim.env.PIR_BIN or 'pir', 'lsp' },
})
-- Diagnostics as virtual text at the end of the line, as most configurations show them.
vim.diagnostic.config({ virtual_text = true, severity_sort = true })
