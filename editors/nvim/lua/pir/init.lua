-- Penguin IR (`*.pir`) for Neovim >= 0.11: a thin client of the `pir` language server.
--
--   require('pir').setup({
--     cmd = { '/path/to/pir', 'lsp' },            -- default: `pir lsp` from PATH
--     init_options = { tkgSeqlenThreshold = 96 },  -- SPEC §10 initialization options
--     inlay_hints = true,                          -- show `→ Matmult · PE` after each op
--     codelens = true,                             -- each kernel's engines and SBUF/PSUM peak
--     auto_restart = true,                         -- start the server again after a crash
--   })
--
-- Any other key is a `vim.lsp.Config` field (`on_attach`, `capabilities`, `root_markers`, …).
local M = {}

local SHOW_BIR = 'pir/showBir'

--- Configures and enables the `pir` server (lsp/pir.lua holds the defaults).
---@param opts? table
function M.setup(opts)
  opts = opts or {}
  local config = {}
  for k, v in pairs(opts) do
    if k ~= 'inlay_hints' and k ~= 'codelens' and k ~= 'enable' and k ~= 'auto_restart' then
      config[k] = v
    end
  end
  if opts.inlay_hints ~= nil then
    vim.g.pir_inlay_hints = opts.inlay_hints
  end
  if opts.codelens ~= nil then
    vim.g.pir_codelens = opts.codelens
  end
  if opts.auto_restart ~= nil then
    vim.g.pir_auto_restart = opts.auto_restart
  end
  if next(config) ~= nil then
    vim.lsp.config('pir', config)
  end
  if opts.enable ~= false then
    vim.lsp.enable('pir')
  end
end

--- The running `pir` client attached to `bufnr`, or nil (after telling the user why).
local function client_for(bufnr)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'pir' })[1]
  if not client then
    vim.notify(
      'pir: no pir language server attached to this buffer '
        .. "(is `pir` on PATH? see :checkhealth vim.lsp and require('pir').setup{ cmd = ... })",
      vim.log.levels.ERROR
    )
  end
  return client
end

-- ---------------------------------------------------------------------------------------
-- Editing: formatting, indentation, diagnostics' related locations, a missing binary.

--- `formatexpr` of pir buffers (set by ftplugin/pir.lua), so that `gq` formats with the
--- server (`textDocument/rangeFormatting`) and never falls back to wrapping text (which
--- would turn code into `//` comment lines). Without a server it leaves the text alone.
---@return integer
function M.formatexpr()
  if vim.list_contains({ 'i', 'R', 'ic', 'ix' }, vim.fn.mode()) then
    return 1 -- `textwidth` while typing: Vim's own wrapping (only ever of a comment)
  end
  if #vim.lsp.get_clients({ bufnr = 0, name = 'pir', method = 'textDocument/rangeFormatting' }) == 0 then
    vim.notify('pir: gq formats with the pir language server, which is not attached', vim.log.levels.WARN)
    return 0
  end
  return vim.lsp.formatexpr({ timeout_ms = 2000 })
end

--- The code of line `lnum` without its `//` comment and trailing blanks.
local function code_of(lnum)
  local line = vim.fn.getline(lnum)
  local comment = line:find('//', 1, true)
  if comment then
    line = line:sub(1, comment - 1)
  end
  return (line:gsub('%s+$', ''))
end

--- `indentexpr` of pir buffers: one `shiftwidth` more after a line that opens a `{`, `(`
--- or `[`, one less on a line that starts by closing one (the formatter's indentation);
--- from the tree when the grammar is on (lua/pir/treesitter.lua).
---@param lnum? integer 1-based (default: v:lnum)
---@return integer
function M.indent(lnum)
  lnum = lnum or vim.v.lnum
  -- From the tree-sitter grammar's indents.scm when it is on for the buffer and the tree
  -- is sound around the line (lua/pir/treesitter.lua), else from the brackets below.
  local from_tree = require('pir.treesitter').indent(vim.api.nvim_get_current_buf(), lnum)
  if from_tree then
    return from_tree
  end
  local prev = vim.fn.prevnonblank(lnum - 1)
  if prev == 0 then
    return 0
  end
  local sw = vim.fn.shiftwidth()
  local indent = vim.fn.indent(prev)
  local before = code_of(prev)
  local opened = 0
  for c in before:gmatch('[%{%}%(%)%[%]]') do
    opened = opened + ((c == '{' or c == '(' or c == '[') and 1 or -1)
  end
  -- A line that starts by closing (`}` or `) {`) was already dedented itself.
  if before:match('^%s*[%}%)%]]') then
    opened = opened + 1
  end
  if opened > 0 then
    indent = indent + sw
  end
  if vim.fn.getline(lnum):match('^%s*[%}%)%]]') then
    indent = indent - sw
  end
  return math.max(indent, 0)
end

--- Appends each diagnostic's related locations (`relatedInformation`, e.g. where the other
--- field of a P402 is) to its message, as `↳ line:column note` lines: Neovim 0.11 shows
--- only the message (in the float, `virtual_lines`, the quickfix list).
---@param diagnostics? lsp.Diagnostic[]
---@param uri string the document's
function M.add_related(diagnostics, uri)
  for _, d in ipairs(diagnostics or {}) do
    for _, r in ipairs(d.relatedInformation or {}) do
      local where = ('%d:%d'):format(r.location.range.start.line + 1, r.location.range.start.character + 1)
      if r.location.uri ~= uri then
        where = vim.fn.fnamemodify(vim.uri_to_fname(r.location.uri), ':~:.') .. ':' .. where
      end
      d.message = d.message .. '\n↳ ' .. where .. ' ' .. r.message
    end
  end
end

--- Tells the user (once) when the server's binary cannot be run, instead of leaving the
--- buffer without a word: Neovim only logs it.
function M.check_cmd()
  if vim.lsp.is_enabled and not vim.lsp.is_enabled('pir') then
    return
  end
  local cmd = (vim.lsp.config.pir or {}).cmd
  if type(cmd) ~= 'table' or not cmd[1] or vim.fn.executable(cmd[1]) == 1 then
    return
  end
  vim.notify_once(
    ('pir: the language server `%s` was not found%s, so pir buffers get no diagnostics, '
      .. 'hover or BIR. Install it (`cargo install --path lsp` in the pir checkout puts `pir` '
      .. "in ~/.cargo/bin) or give its path: require('pir').setup({ cmd = { '/path/to/pir', 'lsp' } })")
      :format(cmd[1], cmd[1]:find('/', 1, true) and '' or ' on PATH'),
    vim.log.levels.WARN
  )
end

-- ---------------------------------------------------------------------------------------
-- Restarting the server: by hand (:PirRestart), and by itself after a crash. Neovim 0.11
-- never restarts a language server that exited.

--- The times (vim.uv.now(), ms) of the automatic restarts of the last 3 minutes.
local restarts = {}
--- Automatic restarts allowed in 3 minutes (as VS Code: 5), then it stays down.
local MAX_RESTARTS, RESTART_WINDOW_MS = 5, 180000

--- The loaded buffers of filetype `pir`.
local function pir_buffers()
  local bufs = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'pir' then
      bufs[#bufs + 1] = buf
    end
  end
  return bufs
end

--- Starts (or attaches) the enabled `pir` server for every pir buffer, as opening each
--- would: through `vim.lsp.enable`'s FileType autocommand.
local function attach_all()
  for _, buf in ipairs(pir_buffers()) do
    vim.api.nvim_buf_call(buf, function()
      pcall(vim.cmd, 'doautocmd <nomodeline> nvim.lsp.enable FileType')
    end)
  end
end

--- `:PirProfile [file.svg]`: asks the server for the current buffer's kernel profile
--- (`pir/profile`: per kernel a bar per engine against the lower bound, and the SBUF/PSUM
--- occupancy over its ops), writes it to `file.svg` (a temporary file by default) and opens
--- it with the system's viewer (`vim.ui.open`). Returns nothing; says where it wrote.
---@param path string|nil
function M.profile(path)
  local source = vim.api.nvim_get_current_buf()
  local client = client_for(source)
  if not client then
    return
  end
  local params = { textDocument = vim.lsp.util.make_text_document_params(source) }
  client:request('pir/profile', params, function(err, result)
    if err or not (result and type(result.svg) == 'string') then
      vim.notify('pir: no profile: ' .. tostring(err and err.message or 'no answer'), vim.log.levels.WARN)
      return
    end
    local file = (path and path ~= '') and vim.fn.fnamemodify(path, ':p') or (vim.fn.tempname() .. '.svg')
    local fd = io.open(file, 'w')
    if not fd then
      vim.notify('pir: cannot write ' .. file, vim.log.levels.ERROR)
      return
    end
    fd:write(result.svg)
    fd:close()
    vim.g.pir_last_profile = file
    vim.notify('pir: kernel profile written to ' .. file, vim.log.levels.INFO)
    if vim.g.pir_profile_open ~= false and vim.ui.open then
      pcall(vim.ui.open, file)
    end
  end, source)
end

--- `:PirTarget {trn1|trn2|trn3}`: sets the `target` setting of every `pir` client and
--- sends it (`workspace/didChangeConfiguration`, SPEC §10 [3]): the server re-diagnoses and
--- refreshes its lenses and hints, without a restart. The server warns about a bad name.
---@param target string
function M.set_target(target)
  for _, c in ipairs(vim.lsp.get_clients({ name = 'pir' })) do
    c.settings = vim.tbl_deep_extend('force', c.settings or {}, { pir = { target = target } })
    c:notify('workspace/didChangeConfiguration', { settings = c.settings })
  end
end

--- `:PirRestart`: stops every `pir` client (gracefully, forced after 5 s) and starts the
--- server again for the pir buffers. Use it after changing `init_options`, or when the
--- server stopped answering.
function M.restart()
  local clients = vim.lsp.get_clients({ name = 'pir' })
  for _, c in ipairs(clients) do
    c:stop()
  end
  local function gone()
    for _, c in ipairs(clients) do
      if vim.lsp.get_client_by_id(c.id) then
        return false
      end
    end
    return true
  end
  if not vim.wait(5000, gone, 20) then
    for _, c in ipairs(clients) do
      c:stop(true)
    end
    vim.wait(2000, gone, 20)
  end
  restarts = {}
  attach_all()
  vim.notify(('pir: language server restarted (%d client(s) stopped)'):format(#clients), vim.log.levels.INFO)
end

--- `on_exit` of the `pir` client (lsp/pir.lua): a server that ended by itself without a clean
--- exit (a crash: a code other than 0, or a signal) is started again for the pir buffers,
--- at most 5 times in 3 minutes; one stopped on purpose (`:PirRestart`, `:lsp stop`, quitting
--- Neovim) is not. `vim.g.pir_auto_restart = false` (or `setup({ auto_restart = false })`)
--- turns this off.
---@param code integer
---@param signal integer
---@param client_id integer
function M.on_exit(code, signal, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local deliberate = client and client._is_stopping
  if deliberate or (code == 0 and signal == 0) then
    return
  end
  vim.schedule(function()
    if vim.g.pir_auto_restart == false or vim.v.exiting ~= vim.NIL then
      return
    end
    local how = code ~= 0 and ('with code %d'):format(code) or ('on signal %d'):format(signal)
    local now = vim.uv.now()
    restarts = vim.tbl_filter(function(t)
      return now - t < RESTART_WINDOW_MS
    end, restarts)
    if #restarts >= MAX_RESTARTS then
      vim.notify(
        ('pir: the language server exited %s, the %dth time in 3 minutes; it is left stopped '
          .. '(see :checkhealth vim.lsp and its log; :PirRestart starts it again)'):format(how, MAX_RESTARTS + 1),
        vim.log.levels.ERROR
      )
      return
    end
    restarts[#restarts + 1] = now
    vim.notify(('pir: the language server exited %s; restarting it'):format(how), vim.log.levels.WARN)
    attach_all()
  end)
end

-- ---------------------------------------------------------------------------------------
-- JSON rendering. The LSP response arrives decoded into Lua tables, which have no key order,
-- so keys are written in a fixed order that reads like the BIR: identity first, nested
-- bodies last, the rest alphabetically. Short arrays of scalars stay on one line.

local FIRST = { 'kernel', 'op', 'op_id', 'opcode', 'name', 'engine', 'Skind', 'kind', 'ins', 'outs' }
local LAST = { 'LoopAxis', 'allocations', 'memorylocations', 'instructions', 'blocks', 'functions', 'debuginfo' }
local RANK = {}
for i, k in ipairs(FIRST) do
  RANK[k] = i - 1000
end
for i, k in ipairs(LAST) do
  RANK[k] = 1000 + i
end

local function is_array(t)
  if getmetatable(t) == getmetatable(vim.empty_dict()) then
    return false
  end
  return vim.islist(t)
end

local function scalar(v)
  if v == nil or v == vim.NIL then
    return 'null'
  end
  return vim.json.encode(v)
end

local function inline(v)
  if type(v) ~= 'table' then
    return scalar(v)
  end
  if not is_array(v) then
    return nil
  end
  local parts = {}
  for _, x in ipairs(v) do
    local s = inline(x)
    if not s then
      return nil
    end
    parts[#parts + 1] = s
  end
  return '[' .. table.concat(parts, ', ') .. ']'
end

local function render(v, indent)
  if type(v) ~= 'table' then
    return scalar(v)
  end
  local pad = string.rep('  ', indent + 1)
  local close = string.rep('  ', indent)
  if is_array(v) then
    if #v == 0 then
      return '[]'
    end
    local s = inline(v)
    if s and #s + #pad <= 100 then
      return s
    end
    local items = {}
    for _, x in ipairs(v) do
      items[#items + 1] = pad .. render(x, indent + 1)
    end
    return '[\n' .. table.concat(items, ',\n') .. '\n' .. close .. ']'
  end
  local keys = vim.tbl_keys(v)
  if #keys == 0 then
    return '{}'
  end
  table.sort(keys, function(a, b)
    local ra, rb = RANK[a] or 0, RANK[b] or 0
    if ra ~= rb then
      return ra < rb
    end
    return tostring(a) < tostring(b)
  end)
  local items = {}
  for _, k in ipairs(keys) do
    items[#items + 1] = pad .. vim.json.encode(tostring(k)) .. ': ' .. render(v[k], indent + 1)
  end
  return '{\n' .. table.concat(items, ',\n') .. '\n' .. close .. '}'
end

--- `value` as indented JSON text.
---@return string
function M.json(value)
  return render(value, 0)
end

-- ---------------------------------------------------------------------------------------
-- :PirShowBir

local ns = vim.api.nvim_create_namespace('pir.showBir')
--- Source bufnr → { buf = BIR scratch buffer, mark = extmark of the position or nil }.
local views = {}

local function fill(view, text)
  local buf = view.buf
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

local function request(source, view)
  local client = vim.lsp.get_clients({ bufnr = source, name = 'pir' })[1]
  if not client then
    return
  end
  local params = { textDocument = vim.lsp.util.make_text_document_params(source) }
  if view.mark then
    local pos = vim.api.nvim_buf_get_extmark_by_id(source, ns, view.mark, {})
    if pos[1] then
      local line = vim.api.nvim_buf_get_lines(source, pos[1], pos[1] + 1, false)[1] or ''
      params.position = {
        line = pos[1],
        character = vim.str_utfindex(line, client.offset_encoding, math.min(pos[2], #line), false),
      }
    end
  end
  client:request(SHOW_BIR, params, function(err, result)
    if err and err.code == -32801 then
      return -- ContentModified: an edit came after the request; its refresh follows
    elseif err then
      fill(view, M.json({ error = err.message or tostring(err) }))
    elseif result and type(result.text) == 'string' then
      -- The server's own text: its key order and numbers (`1.0`) as `pir lower` writes them.
      fill(view, result.text)
    else
      fill(view, M.json(result and result.bir))
    end
  end, source)
end

local function scratch(source)
  local view = views[source]
  if view and vim.api.nvim_buf_is_valid(view.buf) then
    return view
  end
  local buf = vim.api.nvim_create_buf(false, true)
  local name = vim.api.nvim_buf_get_name(source)
  local shown = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or tostring(source)
  pcall(vim.api.nvim_buf_set_name, buf, 'pir-bir://' .. shown .. '.bir.json')
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'json'
  vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, nowait = true, desc = 'Close the BIR view' })
  vim.keymap.set('n', 'gd', function()
    M.goto_instruction()
  end, { buffer = buf, desc = 'Go to the op of the instruction name under the cursor' })
  view = { buf = buf }
  views[source] = view

  -- Refresh while the BIR is on screen, as the source changes (on_lines sees every change,
  -- typed or made by a plugin or the LSP; the LSP client sends its didChange first).
  local timer = assert(vim.uv.new_timer())
  vim.api.nvim_buf_attach(source, false, {
    on_lines = function()
      if views[source] ~= view then
        return true -- detach
      end
      timer:stop()
      timer:start(300, 0, vim.schedule_wrap(function()
        if views[source] == view and vim.api.nvim_buf_is_valid(buf) and #vim.fn.win_findbuf(buf) > 0 then
          request(source, view)
        end
      end))
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      views[source] = nil
      timer:stop()
      timer:close()
    end,
  })
  return view
end

--- In a BIR view (or any buffer, for its source `source`): jumps to the op of the
--- instruction name under the cursor (`I-3-0`, as the compiler's messages name it), which
--- the server resolves through `workspace/symbol`.
---@param source? integer the source buffer (default: the BIR view's, else the current one)
function M.goto_instruction(source)
  local here = vim.api.nvim_get_current_buf()
  if not source then
    for src, view in pairs(views) do
      if view.buf == here then
        source = src
      end
    end
  end
  source = source or here
  local word = vim.fn.expand('<cWORD>')
  local name = word:match('I%-%d+%-%d+') or word:match('I%-%d+')
  local client = vim.lsp.get_clients({ bufnr = source, name = 'pir' })[1]
  if not name or not client then
    vim.notify('pir: no instruction name under the cursor', vim.log.levels.WARN)
    return
  end
  local uri = vim.uri_from_bufnr(source)
  client:request('workspace/symbol', { query = name }, function(err, result)
    for _, symbol in ipairs((not err and result) or {}) do
      local same = symbol.name == name or symbol.name:sub(1, #name + 1) == name .. '-'
      if same and symbol.location and symbol.location.uri == uri then
        local win = vim.fn.win_findbuf(source)[1]
        if win then
          vim.api.nvim_set_current_win(win)
        else
          vim.api.nvim_win_set_buf(0, source)
        end
        local start = symbol.location.range.start
        local line = vim.api.nvim_buf_get_lines(source, start.line, start.line + 1, false)[1] or ''
        local col = vim.str_byteindex(line, client.offset_encoding, start.character, false)
        vim.api.nvim_win_set_cursor(0, { start.line + 1, col })
        return
      end
    end
    vim.notify(('pir: no op of %s in this file'):format(name), vim.log.levels.WARN)
  end, source)
end

--- Shows the BIR JSON of the op under the cursor (of the whole file when the cursor is
--- outside every op, or when `opts.file` is true) in a scratch split.
---@param opts? { file?: boolean }
function M.show_bir(opts)
  opts = opts or {}
  local source = vim.api.nvim_get_current_buf()
  if not client_for(source) then
    return
  end
  local view = scratch(source)
  if view.mark then
    pcall(vim.api.nvim_buf_del_extmark, source, ns, view.mark)
    view.mark = nil
  end
  if not opts.file then
    local cursor = vim.api.nvim_win_get_cursor(0)
    view.mark = vim.api.nvim_buf_set_extmark(source, ns, cursor[1] - 1, cursor[2], {})
  end
  local win = vim.fn.win_findbuf(view.buf)[1]
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd((vim.o.columns >= 160 and 'botright vsplit' or 'belowright split'))
    vim.api.nvim_win_set_buf(0, view.buf)
  end
  fill(view, '// waiting for pir/showBir …')
  request(source, view)
end

return M
