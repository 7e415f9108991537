-- Configuration of the `pir` language server for Neovim >= 0.11 (`:help lsp-config`).
-- `vim.lsp.enable('pir')` uses it as is; `vim.lsp.config('pir', { ... })` or
-- `require('pir').setup({ ... })` override any field, e.g. `cmd` for a binary not on PATH.
---@type vim.lsp.Config
return {
  cmd = { 'pir', 'lsp' },
  filetypes = { 'pir' },
  root_markers = { '.git' },
  -- The LSP language id of `*.pir` files (SPEC §1); Neovim's filetype is `pir`.
  get_language_id = function()
    return 'penguin-ir'
  end,
  -- SPEC §10 initialization options. `tkgSeqlenThreshold` (int, 0 = the server's default,
  -- 96) may be added here.
  -- `markdownTables = false`: Neovim 0.11 renders no Markdown tables, so the kernel hover's
  -- resources table comes as aligned text.
  -- `lineEnds = 'lf'`: Neovim ends lines at `\n` only (a lone `\r` is a `^M` character of
  -- its line), so the server counts lines so too.
  init_options = {
    inlayHints = { enabled = true },
    markdownTables = false,
    lineEnds = 'lf',
  },
  -- SPEC §10 [3] settings that change without a restart: Neovim sends them with
  -- `workspace/didChangeConfiguration` after starting the server and answers its
  -- `workspace/configuration` from them. `target`: 'trn1', 'trn2' (default) or 'trn3' (SBUF
  -- capacity, BIR arch, the cost estimate); `inlayHints.cost`: the inlay hints' cost suffix.
  -- Change the target later with `:PirTarget trn1` (no restart).
  settings = {
    pir = { target = 'trn2', inlayHints = { cost = true } },
  },
  -- Diagnostics: Neovim pulls them (`textDocument/diagnostic`); `pir lsp` pushes only to
  -- clients that cannot pull, so each diagnostic is shown once. Both ways, each related
  -- location (`relatedInformation`) becomes a `↳ line:column note` line of the message,
  -- which is all Neovim 0.11 shows; then the default handler (vim.lsp.handlers) runs.
  -- A server that crashed is started again (at most 5 times in 3 minutes; `:PirRestart`
  -- by hand): Neovim itself never restarts one.
  on_exit = function(code, signal, client_id)
    require('pir').on_exit(code, signal, client_id)
  end,
  handlers = {
    ['textDocument/diagnostic'] = function(err, result, ctx, ...)
      if result and ctx and ctx.params and ctx.params.textDocument then
        require('pir').add_related(result.items, ctx.params.textDocument.uri)
      end
      return vim.lsp.handlers['textDocument/diagnostic'](err, result, ctx, ...)
    end,
    ['textDocument/publishDiagnostics'] = function(err, result, ctx, ...)
      if result then
        require('pir').add_related(result.diagnostics, result.uri)
      end
      return vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, ...)
    end,
  },
}
