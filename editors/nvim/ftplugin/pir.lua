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

vim.b.undo_ftplugin = 'setl commentstring< comments< expandtab< shiftwidth< softtabstop< iskeyword<'
