-- *.pir files are the Penguin text IR. The filetype is `pir` (the language id `penguin-ir`
-- is what the server is told, see lsp/pir.lua).
vim.filetype.add({ extension = { pir = 'pir' } })
