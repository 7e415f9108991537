-- Buffer settings for Penguin IR files.
if vim.b.did_ftplugin then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '// %s'
vim.bo.comments = '://'
vim.bo.expandtab = true
vim.bo.shiftwidth = 2
vim.bo.softtabstop = 2
-- `%acc`, `@kernel`, `#3` and `$0` are words (for `*`, `ciw`, completion).
vim.opt_local.iskeyword:append({ '%', '@-@', '#', '$' })
-- `gq` formats with the server (textDocument/rangeFormatting), never wraps code as text.
vim.bo.formatexpr = "v:lua.require'pir'.formatexpr()"
-- One indent after a line opening `{` (or `(`, `[`), one less on a closing line.
vim.bo.indentexpr = "v:lua.require'pir'.indent()"
vim.bo.indentkeys = '0},0),0],!^F,o,O'
-- Completion pops up as `%x:` or `dst =` is typed (trigger characters): show the menu, but
-- insert nothing until an item is chosen (Neovim's default inserts the first one).
vim.opt_local.completeopt = { 'menu', 'menuone', 'noselect', 'popup' }

-- The tree-sitter grammar (editors/tree-sitter-pir), when :PirInstallParser has built it:
-- highlighting, folding and the indent above from the tree; else the syntax file stays.
-- Scheduled, so that it comes after every FileType handler (`:syntax on`'s sets 'syntax').
local buf = vim.api.nvim_get_current_buf()
vim.schedule(function()
  if vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].filetype == 'pir' then
    require('pir.treesitter').attach(buf)
  end
end)

vim.b.undo_ftplugin = 'setl commentstring< comments< expandtab< shiftwidth< softtabstop< iskeyword<'
  .. ' formatexpr< indentexpr< indentkeys< completeopt<'
