-- Penguin IR commands and defaults. The server itself starts once it is enabled:
-- `require('pir').setup({...})` or `vim.lsp.enable('pir')` (config: lsp/pir.lua).
if vim.g.loaded_pir then
  return
end
vim.g.loaded_pir = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('pir.nvim needs Neovim >= 0.11 (vim.lsp.config / vim.lsp.enable)', vim.log.levels.WARN)
  return
end

vim.api.nvim_create_user_command('PirShowBir', function(args)
  require('pir').show_bir({ file = args.bang })
end, {
  bang = true,
  desc = 'Show the BIR of the op under the cursor (! : of the whole file) in a scratch split',
})

vim.api.nvim_create_user_command('PirRestart', function()
  require('pir').restart()
end, {
  desc = 'Restart the pir language server (stop every pir client, start it again for the pir buffers)',
})

vim.api.nvim_create_user_command('PirProfile', function(args)
  require('pir').profile(args.args)
end, {
  nargs = '?',
  complete = 'file',
  desc = 'Write the kernel profile (engines against the bound, SBUF/PSUM occupancy) to an SVG and open it',
})

vim.api.nvim_create_user_command('PirTarget', function(args)
  require('pir').set_target(args.args)
end, {
  nargs = 1,
  complete = function()
    return { 'trn1', 'trn2', 'trn3' }
  end,
  desc = 'Set the target NeuronCore (trn1, trn2, trn3) of the pir language server',
})

vim.api.nvim_create_user_command('PirInstallParser', function()
  local path, err = require('pir.treesitter').install()
  if path then
    vim.notify('pir: tree-sitter parser installed: ' .. path, vim.log.levels.INFO)
  else
    vim.notify('pir: :PirInstallParser failed: ' .. tostring(err), vim.log.levels.ERROR)
  end
end, {
  desc = 'Compile the Penguin IR tree-sitter grammar (editors/tree-sitter-pir) and use it',
})

-- A pir buffer whose server cannot start gets a word about it (Neovim only logs it).
vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('pir.check_cmd', { clear = true }),
  pattern = 'pir',
  callback = function()
    require('pir').check_cmd()
  end,
})

-- Inlay hints (`→ Matmult · PE` after each op) are on by default for pir buffers;
-- `vim.g.pir_inlay_hints = false` (or `setup({ inlay_hints = false })`) turns them off.
vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('pir.inlay_hints', { clear = true }),
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if
      client
      and client.name == 'pir'
      and vim.g.pir_inlay_hints ~= false
      and client:supports_method('textDocument/inlayHint', args.buf)
    then
      -- A large buffer gets the hints of the lines it shows (lua/pir/large.lua).
      if require('pir.large').is_large(args.buf) then
        require('pir.large').attach(args.buf, client)
      else
        vim.lsp.inlay_hint.enable(true, { bufnr = args.buf })
      end
    end
  end,
})

-- Code lenses (SPEC §10.1: each kernel's engine counts and SBUF/PSUM peaks, shown at the end
-- of the kernel's line) are on by default for pir buffers and follow every edit;
-- `vim.g.pir_codelens = false` (or `setup({ codelens = false })`) turns them off.
vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('pir.codelens', { clear = true }),
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if
      not client
      or client.name ~= 'pir'
      or vim.g.pir_codelens == false
      or not client:supports_method('textDocument/codeLens', args.buf)
    then
      return
    end
    local buf = args.buf
    -- The text the lenses were last asked for (`b:changedtick`): an event that finds the
    -- buffer unchanged since then asks nothing (CursorHold fires after every pause, and a
    -- lens request on a 100,000-op file costs the server a join over every kernel).
    local asked = vim.b[buf].changedtick
    vim.lsp.codelens.refresh({ bufnr = buf })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged', 'CursorHold' }, {
      group = vim.api.nvim_create_augroup('pir.codelens.' .. buf, { clear = true }),
      buffer = buf,
      callback = function()
        local tick = vim.b[buf].changedtick
        if vim.g.pir_codelens ~= false and tick ~= asked then
          asked = tick
          vim.lsp.codelens.refresh({ bufnr = buf })
        end
      end,
    })
  end,
})
