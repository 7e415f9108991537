-- What a large pir buffer gets (more than `M.BYTES`, 1 MiB, about 5,000 ops; the server's
-- threshold for whole-document semantic tokens, docs/decisions.md "Requests after a
-- change"). Neovim 0.11's inlay hints ask for the whole buffer after every change and copy
-- every line of it into Lua for each answer: at 100,000 ops (560,000 lines) that is 100,000
-- hints and 20 MB of strings a keystroke. A large buffer gets its hints for the lines its
-- windows show instead, asked after each change and each scroll, drawn as inline virtual
-- text (highlight group `LspInlayHint`) in the namespace `pir.inlay_hints.visible`.

local M = {}

--- The size (bytes) above which a buffer is large.
M.BYTES = 1024 * 1024

--- The namespace of the visible lines' hints.
M.ns = vim.api.nvim_create_namespace('pir.inlay_hints.visible')

--- Whether `buf` is large (its byte count through the line index, not its text).
function M.is_large(buf)
  local lines = vim.api.nvim_buf_line_count(buf)
  return vim.api.nvim_buf_get_offset(buf, lines) > M.BYTES
end

--- The text of a hint's label (a string, or parts with values).
local function label(hint)
  if type(hint.label) == 'string' then
    return hint.label
  end
  local parts = {}
  for _, part in ipairs(hint.label) do
    parts[#parts + 1] = part.value
  end
  return table.concat(parts)
end

--- Asks `client` for the hints of the lines `buf`'s windows show and draws them; an
--- answer for an older text than the buffer's is dropped.
function M.refresh(buf, client)
  if not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local first = vim.fn.line('w0', win) - 1
    local last = vim.fn.line('w$', win)
    local version = vim.lsp.util.buf_versions[buf]
    local params = {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      range = { start = { line = first, character = 0 }, ['end'] = { line = last, character = 0 } },
    }
    client:request('textDocument/inlayHint', params, function(err, result)
      if err or not result or vim.lsp.util.buf_versions[buf] ~= version then
        return
      end
      if not vim.api.nvim_buf_is_loaded(buf) then
        return
      end
      vim.api.nvim_buf_clear_namespace(buf, M.ns, first, last)
      for _, hint in ipairs(result) do
        local lnum = hint.position.line
        local line = vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, false)[1] or ''
        local col = vim.str_byteindex(line, client.offset_encoding, hint.position.character, false)
        local text = label(hint)
        if hint.paddingLeft then
          text = ' ' .. text
        end
        pcall(vim.api.nvim_buf_set_extmark, buf, M.ns, lnum, col, {
          virt_text = { { text, 'LspInlayHint' } },
          virt_text_pos = 'inline',
        })
      end
    end, buf)
  end
end

--- Shows the visible lines' hints of the large buffer `buf` from `client` from now on (once
--- the client has sent the text, after each change it sends, each scroll, each time the
--- buffer is entered).
function M.attach(buf, client)
  local group = vim.api.nvim_create_augroup('pir.inlay_hints.visible.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd('LspNotify', {
    group = group,
    buffer = buf,
    callback = function(args)
      local method = args.data.method
      if
        args.data.client_id == client.id
        and (method == 'textDocument/didChange' or method == 'textDocument/didOpen')
      then
        M.refresh(buf, client)
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufEnter', {
    group = group,
    buffer = buf,
    callback = function()
      M.refresh(buf, client)
    end,
  })
  -- WinScrolled's pattern is the window's id.
  vim.api.nvim_create_autocmd('WinScrolled', {
    group = group,
    callback = function(args)
      local win = tonumber(args.match)
      if win and vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == buf then
        M.refresh(buf, client)
      end
    end,
  })
  vim.api.nvim_create_autocmd('LspDetach', {
    group = group,
    buffer = buf,
    callback = function(args)
      if args.data.client_id == client.id then
        vim.api.nvim_del_augroup_by_id(group)
        vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
      end
    end,
  })
  M.refresh(buf, client)
end

return M
