-- End-to-end test of the Neovim plugin against the real `pir lsp`.
--
--   PIR_BIN=target/debug/pir nvim --headless --clean -u editors/nvim/test/minimal_init.lua \
--     -c 'luafile editors/nvim/test/e2e.lua'
--
-- Opens copies of corpus files (tests/corpus, or $PIR_CORPUS) and checks, each with a
-- timeout: filetype and syntax groups, the server attaching, diagnostics, hover, inlay hints,
-- the code lens and the kernel-name hover (SPEC §10.1, its table as aligned text), a lone
-- `\r` (diagnostics on the lines Neovim shows), P416 and its lens, :PirShowBir (op and
-- file), an edit that introduces a P200 error and its quick fix, a `;` between fields (one
-- P103) and its quick fix, semantic tokens following them (as deltas), related locations in a message, `gq` formatting with the server, a
-- big kernel cut into chunks (P501 across them, hover in a later chunk), the progress of
-- opening a file over 1 MiB,
-- indentation, completion options, a crashed server started again and `:PirRestart`, the
-- tree-sitter grammar (the syntax file without it, :PirInstallParser, captures, folds and
-- indent with it) and the warning about a missing binary. Prints one line per check and
-- exits 0 when all pass, 1 on the first failure (with the reason), 3 on a global timeout.

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h')
local corpus = vim.env.PIR_CORPUS or (root .. '/tests/corpus')
local TIMEOUT = 20000 -- ms, per wait

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

local function quit(code)
  for _, c in ipairs(vim.lsp.get_clients()) do
    c:stop()
  end
  vim.wait(3000, function()
    return #vim.lsp.get_clients() == 0
  end, 20)
  if code == 0 then
    vim.cmd('qall!')
  else
    vim.cmd('cquit ' .. code)
  end
end

vim.defer_fn(function()
  io.stderr:write('nvim e2e: FAIL: global timeout (120 s)\n')
  quit(3)
end, 120000)

--- Waits until `cond()` returns a truthy value and returns it; fails after `ms`.
local function wait_for(what, cond, ms)
  local value
  local ok = vim.wait(ms or TIMEOUT, function()
    local good, v = pcall(cond)
    value = good and v or nil
    return value ~= nil and value ~= false
  end, 20)
  if not ok then
    error(('timed out after %d ms waiting for %s'):format(ms or TIMEOUT, what), 0)
  end
  return value
end

local function expect(cond, msg, ...)
  if not cond then
    error(msg:format(...), 0)
  end
end

--- 0-based line of the first line of `buf` containing `text` (plain), and the 0-based byte
--- column of `token` in it (default: `text`).
local function find(buf, text, token)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = line:find(text, 1, true)
    if s then
      local c = line:find(token or text, 1, true)
      expect(c, 'token %q not on the line of %q', token or text, text)
      return i - 1, c - 1
    end
  end
  error(('%q not found in %s'):format(text, vim.api.nvim_buf_get_name(buf)), 0)
end

-- Count diagnostic reports per uri, so that "no errors" means "the server has spoken".
-- Neovim pulls them (`textDocument/diagnostic`); `pir lsp` pushes only to clients that do
-- not pull, so both handlers are counted.
local published = {}
local default_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx)
  if result and result.uri then
    published[result.uri] = (published[result.uri] or 0) + 1
  end
  return default_publish(err, result, ctx)
end
local default_pull = vim.lsp.handlers['textDocument/diagnostic']
vim.lsp.handlers['textDocument/diagnostic'] = function(err, result, ctx, ...)
  local ret = default_pull(err, result, ctx, ...)
  local uri = ctx and ctx.params and ctx.params.textDocument and ctx.params.textDocument.uri
  if uri and not err then
    published[uri] = (published[uri] or 0) + 1
  end
  return ret
end

local function open_copy(name, dir)
  local src = corpus .. '/' .. name
  expect(vim.uv.fs_stat(src), 'corpus file %s not found (set PIR_CORPUS)', src)
  local dst = dir .. '/' .. name
  assert(vim.uv.fs_copyfile(src, dst))
  assert(vim.uv.fs_chmod(dst, tonumber('644', 8)))
  vim.cmd.edit(vim.fn.fnameescape(dst))
  return vim.api.nvim_get_current_buf(), vim.uri_from_fname(dst)
end

local function pir_client(buf)
  return wait_for('the pir client to attach to ' .. vim.api.nvim_buf_get_name(buf), function()
    local c = vim.lsp.get_clients({ bufnr = buf, name = 'pir' })[1]
    return c and c.initialized and c
  end)
end

--- Asks for the hover at the cursor and returns the text of its floating window once it
--- holds `needle` (plain), closing the window.
local function hover_text(needle)
  vim.lsp.buf.hover()
  return wait_for(('a hover window with %q'):format(needle), function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then
        local t = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
        if t:find(needle, 1, true) then
          vim.api.nvim_win_close(w, true)
          return t
        end
      end
    end
  end)
end

local function errors(buf)
  return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
end

--- Waits for a diagnostic with `code` in `buf` and returns the first.
local function diagnostic_with(buf, code)
  return wait_for(('a %s diagnostic'):format(code), function()
    for _, x in ipairs(vim.diagnostic.get(buf)) do
      if x.code == code then
        return x
      end
    end
  end)
end

local function describe(diags)
  local s = {}
  for _, d in ipairs(diags) do
    s[#s + 1] = ('%s@%d:%d %s'):format(d.code, d.lnum + 1, d.col + 1, d.message)
  end
  return table.concat(s, '; ')
end

local function label_text(hint)
  local label = hint.label
  if type(label) == 'table' then
    local parts = {}
    for _, p in ipairs(label) do
      parts[#parts + 1] = p.value
    end
    label = table.concat(parts)
  end
  return label
end

local function json_of(buf)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  local ok, v = pcall(vim.json.decode, text)
  return ok and type(v) == 'table' and v or nil
end

-- -------------------------------------------------------------------------------------
local ctx = {}

-- Applies the code action titled `title` at line `l`, column `c` (0-based) of the source
-- buffer, then waits for that line to hold `fixed` and for no `code` diagnostic to be left.
local function apply_fix(l, c, title, fixed, code)
  vim.api.nvim_set_current_win(ctx.src_win)
  vim.api.nvim_win_set_cursor(ctx.src_win, { l + 1, c })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title == title
    end,
  })
  wait_for(('the fixed line %q'):format(fixed), function()
    local line = vim.api.nvim_buf_get_lines(ctx.buf, l, l + 1, false)[1]
    return line:find(fixed, 1, true)
  end)
  wait_for(('no %s left'):format(code), function()
    for _, x in ipairs(vim.diagnostic.get(ctx.buf)) do
      if x.code == code then
        return false
      end
    end
    return true
  end)
end

local checks = {
  {
    'setup',
    function()
      local bin = vim.lsp.config.pir.cmd[1]
      expect(vim.fn.executable(bin) == 1, 'the pir binary %q is not executable (set PIR_BIN)', bin)
      ctx.dir = vim.fn.tempname()
      vim.fn.mkdir(ctx.dir, 'p')
      -- Room for every hint: inlay hints are requested for the visible lines only.
      vim.o.lines, vim.o.columns = 80, 200
    end,
  },
  {
    'filetype and syntax',
    function()
      ctx.buf, ctx.uri = open_copy('matmul_basic.pir', ctx.dir)
      expect(vim.bo.filetype == 'pir', 'filetype is %q, not pir', vim.bo.filetype)
      expect(vim.b.current_syntax == 'pir', 'syntax is %q, not pir', tostring(vim.b.current_syntax))
      local function group(text, token)
        local l, c = find(ctx.buf, text, token)
        return vim.fn.synIDattr(vim.fn.synID(l + 1, c + 1, 1), 'name')
      end
      for _, case in ipairs({
        { 'kernel @matmul_basic', 'kernel', 'pirKeyword' },
        { 'kernel @matmul_basic', '@matmul_basic', 'pirGlobal' },
        { 'kernel @matmul_basic', '%lhsT', 'pirLocal' },
        { 'kernel @matmul_basic', 'hbm', 'pirMemory' },
        { 'kernel @matmul_basic', 'bf16', 'pirType' },
        { 'kernel @matmul_basic', '128', 'pirNumber' },
        { '-> (%result', '->', 'pirOperator' },
        { 'tensor %lhs_tile', 'tensor', 'pirKeyword' },
        { 'MatMulOp {', 'MatMulOp', 'pirOpClass' },
        { 'stationary = %lhs_tile', 'stationary', 'pirField' },
        { 'stationary = %lhs_tile', '=', 'pirOperator' },
        { '// K1: matmul', '//', 'pirComment' },
        { 'MatMulOp {', '//>', 'pirAnnotation' },
      }) do
        local got = group(case[1], case[2])
        expect(got == case[3], 'syntax group of %q is %q, not %s', case[2], got, case[3])
      end
    end,
  },
  {
    'server attaches',
    function()
      ctx.client = pir_client(ctx.buf)
      expect(ctx.client.offset_encoding == 'utf-8' or ctx.client.offset_encoding == 'utf-16',
        'unexpected offset encoding %s', tostring(ctx.client.offset_encoding))
      -- The requests the client sends from now on, counted by method (semantic tokens are
      -- asked for as edits come, as a delta once there is a first answer).
      ctx.requests = {}
      local request = ctx.client.request
      ctx.client.request = function(client, method, ...)
        ctx.requests[method] = (ctx.requests[method] or 0) + 1
        return request(client, method, ...)
      end
    end,
  },
  {
    'diagnostics of a clean kernel',
    function()
      wait_for('publishDiagnostics for ' .. ctx.uri, function()
        return (published[ctx.uri] or 0) > 0
      end)
      local errs = errors(ctx.buf)
      expect(#errs == 0, 'errors in matmul_basic.pir: %s', describe(errs))
    end,
  },
  {
    'hover shows the BIR opcode',
    function()
      local l, c = find(ctx.buf, 'MatMulOp {', 'MatMulOp')
      vim.api.nvim_win_set_cursor(0, { l + 1, c })
      local src_win = vim.api.nvim_get_current_win()
      local text = hover_text('"opcode": "Matmult"')
      expect(text:find('MatMulOp', 1, true), 'hover does not name the op: %s', text:sub(1, 200))
      vim.api.nvim_set_current_win(src_win)
    end,
  },
  {
    'inlay hints',
    function()
      expect(vim.lsp.inlay_hint.is_enabled({ bufnr = ctx.buf }), 'inlay hints are not enabled by default')
      -- The MatMulOp body ends at the first `}` line after the op's class name.
      local op_line = find(ctx.buf, 'MatMulOp {')
      local close_line
      for i, line in ipairs(vim.api.nvim_buf_get_lines(ctx.buf, op_line, -1, false)) do
        if line:match('^%s*}') then
          close_line = op_line + i - 1
          break
        end
      end
      local hint = wait_for('an inlay hint "→ Matmult · PE"', function()
        for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = ctx.buf })) do
          if label_text(h.inlay_hint):find('Matmult · PE', 1, true) then
            return h.inlay_hint
          end
        end
      end)
      local brace = vim.api.nvim_buf_get_lines(ctx.buf, close_line, close_line + 1, false)[1]:find('}', 1, true)
      expect(hint.position.line == close_line and hint.position.character == brace,
        'the Matmult hint is at %d:%d, not right after the op\'s `}` at %d:%d',
        hint.position.line, hint.position.character, close_line, brace)
      local n = #vim.lsp.inlay_hint.get({ bufnr = ctx.buf })
      expect(n >= 5, 'only %d inlay hints for the 5 ops of matmul_basic.pir', n)
    end,
  },
  {
    'the cost lens on the kernel line, and :PirTarget changes it (SPEC §10.2.9)',
    function()
      -- matmul_basic.pir by hand on trn2 (SPEC §10.2): PE max(min(64, 64), 512) = 512 cycles
      -- = 213 ns; DVE 512 cycles = 533 ns; DMA 16,384 + 131,072 + 65,536 bytes, Σ (1,300,000 +
      -- ⌈bytes × 1,000 / 23⌉) ps ÷ 16 = 823 ns, the bound. On trn1: PE 183 ns, DVE 457 ns,
      -- DMA (÷ 17) 16,428,942 ps ÷ 16,000 = 1,027 ns.
      local kernel_line = find(ctx.buf, 'kernel @matmul_basic')
      local function cost_lens(want)
        return wait_for('the cost lens ' .. want, function()
          for _, l in ipairs(vim.lsp.codelens.get(ctx.buf)) do
            if l.command and l.command.title == want and l.range.start.line == kernel_line then
              return l
            end
          end
          vim.lsp.codelens.refresh({ bufnr = ctx.buf })
        end)
      end
      cost_lens('trn2 ≥ 823 ns · DMA-bound · PE 26% · DVE 65%')
      vim.cmd('PirTarget trn1')
      cost_lens('trn1 ≥ 1.03 µs · DMA-bound · PE 18% · DVE 44%')
      vim.cmd('PirTarget trn2')
      cost_lens('trn2 ≥ 823 ns · DMA-bound · PE 26% · DVE 65%')
    end,
  },
  {
    ':PirProfile writes the kernel profile as SVG',
    function()
      vim.g.pir_profile_open = false
      local file = vim.fn.tempname() .. '.svg'
      vim.cmd('PirProfile ' .. file)
      local svg = wait_for('the profile at ' .. file, function()
        local fd = io.open(file, 'r')
        if fd then
          local text = fd:read('*a')
          fd:close()
          if text:find('</svg>', 1, true) then
            return text
          end
        end
      end)
      expect(svg:find('@matmul_basic — trn2 ≥ 823 ns, DMA-bound', 1, true) ~= nil,
        'the profile names the kernel and its bound: %s', svg:sub(1, 400))
    end,
  },
  {
    'code lens on the kernel line (SPEC §10.1)',
    function()
      -- matmul_basic.pir by hand: Matmult on PE, TensorCopy on DVE, 3 DMAs; SBUF peak
      -- %lhs_tile 128 + %rhs_tile 1,024 = 1,152 B (1.1 KiB); PSUM %result_psum 2,048 B.
      local want = 'PE 1 · DVE 1 · DMA 3 · SBUF 1.1/208.0 KiB · PSUM 2.0/16.0 KiB'
      local kernel_line = find(ctx.buf, 'kernel @matmul_basic')
      local lens = wait_for('the code lens ' .. want, function()
        for _, l in ipairs(vim.lsp.codelens.get(ctx.buf)) do
          if l.command and l.command.title == want then
            return l
          end
        end
      end)
      expect(lens.range.start.line == kernel_line, 'the lens is on line %d, not the kernel\'s %d',
        lens.range.start.line, kernel_line)
      -- And it is drawn: virtual text on the kernel's line.
      wait_for('the lens drawn as virtual text on the kernel line', function()
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(ctx.buf, -1, { kernel_line, 0 }, { kernel_line, -1 }, { details = true })) do
          for _, chunk in ipairs(m[4].virt_text or {}) do
            if chunk[1] == want then
              return true
            end
          end
        end
      end)
    end,
  },
  {
    'hover on the kernel name shows its resources',
    function()
      local l, c = find(ctx.buf, 'kernel @matmul_basic', '@matmul_basic')
      vim.api.nvim_win_set_cursor(0, { l + 1, c + 1 })
      local src_win = vim.api.nvim_get_current_win()
      local text = hover_text('executed')
      for _, piece in ipairs({ 'peak 1,152 of 212,984', 'peak 2,048 of 16,384' }) do
        expect(text:find(piece, 1, true), 'the kernel hover lacks %q: %s', piece, text:sub(1, 400))
      end
      -- The resources table as aligned text (`markdownTables = false`): Neovim 0.11 renders
      -- no Markdown table.
      expect(not text:find('|:--', 1, true), 'the kernel hover has a Markdown table: %s', text:sub(1, 400))
      for _, row in ipairs({ '\nPE%s+1%s+1\n', '\nDMA%s+3%s+3\n', '\nengine%s+static%s+executed\n' }) do
        expect(text:find(row), 'the kernel hover lacks the aligned row %q: %s', row, text:sub(1, 400))
      end
      vim.api.nvim_set_current_win(src_win)
    end,
  },
  {
    ':PirShowBir (op under the cursor)',
    function()
      ctx.src_win = vim.api.nvim_get_current_win()
      local l, c = find(ctx.buf, 'MatMulOp {', 'MatMulOp')
      vim.api.nvim_win_set_cursor(0, { l + 1, c + 2 })
      vim.cmd('PirShowBir')
      ctx.bir_buf = vim.api.nvim_get_current_buf()
      expect(ctx.bir_buf ~= ctx.buf, ':PirShowBir did not open a split')
      expect(vim.bo[ctx.bir_buf].filetype == 'json', 'the BIR buffer has filetype %q', vim.bo[ctx.bir_buf].filetype)
      expect(vim.bo[ctx.bir_buf].buftype == 'nofile', 'the BIR buffer is not a scratch buffer')
      local bir = wait_for('the BIR JSON of the op', function()
        return json_of(ctx.bir_buf)
      end)
      local inst = bir.instructions and bir.instructions[1]
      expect(inst and inst.opcode == 'Matmult' and inst.engine == 'PE',
        'BIR of the op is not one Matmult on PE: %s', vim.inspect(bir):sub(1, 300))
    end,
  },
  {
    'gd on an instruction name in the BIR view goes to its op',
    function()
      local src_line = find(ctx.buf, 'MatMulOp {', 'MatMulOp')
      local l, c = find(ctx.bir_buf, '"name": "I-', 'I-')
      vim.api.nvim_set_current_win(vim.fn.win_findbuf(ctx.bir_buf)[1])
      vim.api.nvim_win_set_cursor(0, { l + 1, c + 1 })
      vim.cmd('normal gd')
      wait_for('the cursor on the op', function()
        return vim.api.nvim_get_current_buf() == ctx.buf and vim.api.nvim_win_get_cursor(0)[1] == src_line + 1
      end)
      vim.api.nvim_set_current_win(vim.fn.win_findbuf(ctx.bir_buf)[1])
    end,
  },
  {
    ':PirShowBir! (whole file)',
    function()
      vim.api.nvim_set_current_win(ctx.src_win)
      vim.cmd('PirShowBir!')
      expect(vim.api.nvim_get_current_buf() == ctx.bir_buf, 'the BIR view was not reused')
      local bir = wait_for('the BIR JSON of the file', function()
        local v = json_of(ctx.bir_buf)
        return v and v.functions and v
      end)
      expect(bir.functions[1].name == 'matmul_basic', 'first function is %s', tostring(bir.functions[1].name))
      -- Exactly what `pir lower` writes: key order and numbers (`1.0`, not `1`).
      local lowered = vim.fn.systemlist({ vim.lsp.config.pir.cmd[1], 'lower', vim.api.nvim_buf_get_name(ctx.buf) })
      local shown = vim.api.nvim_buf_get_lines(ctx.bir_buf, 0, -1, false)
      expect(vim.deep_equal(shown, lowered), 'the BIR view differs from `pir lower` (%d and %d lines): %s',
        #shown, #lowered, table.concat(shown, '\n'):sub(1, 300))
      -- Back to the op for the refresh check below.
      vim.api.nvim_set_current_win(ctx.src_win)
      vim.cmd('PirShowBir')
      wait_for('the BIR JSON of the op again', function()
        local v = json_of(ctx.bir_buf)
        return v and v.instructions
      end)
      vim.api.nvim_set_current_win(ctx.src_win)
    end,
  },
  {
    'an edit introducing an undefined tensor gives P200',
    function()
      local l, c = find(ctx.buf, 'moving = %rhs_tile', '%rhs_tile')
      vim.api.nvim_buf_set_text(ctx.buf, l, c, l, c + #'%rhs_tile', { '%rhs_tyle' })
      local d = diagnostic_with(ctx.buf, 'P200')
      expect(d.lnum == l, 'P200 is on line %d, not %d (the edited use)', d.lnum + 1, l + 1)
      expect(d.col == c, 'P200 starts at column %d, not %d', d.col + 1, c + 1)
      expect(d.severity == vim.diagnostic.severity.ERROR, 'P200 has severity %s', tostring(d.severity))
      expect(d.source == 'pir', 'P200 has source %s', tostring(d.source))
      -- The open BIR view follows the edit: the op now reports the error.
      wait_for('the BIR view to show the op\'s P200', function()
        local v = json_of(ctx.bir_buf)
        local inst = v and v.instructions and v.instructions[1]
        return inst and inst.debuginfo and vim.tbl_contains(inst.debuginfo.errors or {}, 'P200')
      end)
    end,
  },
  {
    'a quick fix applies (did you mean `%rhs_tile`) and clears the P200',
    function()
      local l, c = find(ctx.buf, 'moving = %rhs_tyle', '%rhs_tyle')
      apply_fix(l, c, 'Replace with `%rhs_tile`', 'moving = %rhs_tile', 'P200')
    end,
  },
  {
    'a `;` between fields is one P103, fixed by its quick fix "Replace with `,`"',
    function()
      local l, c = find(ctx.buf, 'dst = %rhs_tile, src = %rhs', ', src')
      vim.api.nvim_buf_set_text(ctx.buf, l, c, l, c + 1, { ';' })
      local d = diagnostic_with(ctx.buf, 'P103')
      expect(d.lnum == l and d.col == c, 'P103 at %d:%d, not on the `;` at %d:%d', d.lnum + 1,
        d.col + 1, l + 1, c + 1)
      local errors = vim.diagnostic.get(ctx.buf, { severity = vim.diagnostic.severity.ERROR })
      expect(#errors == 1, 'one error for the `;`, not %d: %s', #errors, describe(errors))
      apply_fix(l, c, 'Replace with `,`', 'dst = %rhs_tile, src = %rhs', 'P103')
    end,
  },
  {
    'semantic tokens follow the edits (semanticTokens/full/delta)',
    function()
      -- The use broken and fixed above is a variable again, as the deltas applied say.
      local l, c = find(ctx.buf, 'moving = %rhs_tile', '%rhs_tile')
      wait_for('a variable token on the fixed %rhs_tile', function()
        for _, t in ipairs(vim.lsp.semantic_tokens.get_at_pos(ctx.buf, l, c) or {}) do
          if t.type == 'variable' and t.line == l and t.start_col == c then
            return t
          end
        end
      end)
      local deltas = ctx.requests['textDocument/semanticTokens/full/delta'] or 0
      expect(deltas > 0, 'no semantic tokens delta was asked for: %s', vim.inspect(ctx.requests))
    end,
  },
  {
    'a rule file reports its //! diagnostic',
    function()
      local buf, uri = open_copy('rule_P400_weight_rank.pir', ctx.dir)
      pir_client(buf)
      wait_for('publishDiagnostics for ' .. uri, function()
        return (published[uri] or 0) > 0 and #errors(buf) > 0
      end)
      local l = find(buf, '//! P400')
      local errs = errors(buf)
      expect(#errs == 1 and errs[1].code == 'P400' and errs[1].lnum == l,
        'expected exactly P400 on line %d, got: %s', l + 1, describe(errs))
    end,
  },
  {
    'a lone carriage return: diagnostics land on the lines Neovim shows (lineEnds = lf)',
    function()
      local path = ctx.dir .. '/lone_cr.pir'
      vim.fn.writefile({
        'kernel @k(%x: hbm f32[128, 4]) {',
        '  tensor %t : sbuf f32[128, 4]  // a stray \r in a comment',
        '  DmaCopyOp { dst = %t, src = %x }',
        '  DmaCopyOp { dst = %x, scr = %t }',
        '}',
      }, path)
      vim.cmd.edit(vim.fn.fnameescape(path))
      local buf = vim.api.nvim_get_current_buf()
      pir_client(buf)
      expect(vim.api.nvim_buf_line_count(buf) == 5, 'Neovim shows %d lines', vim.api.nvim_buf_line_count(buf))
      local d = diagnostic_with(buf, 'P203')
      local l, c = find(buf, 'scr = %t', 'scr')
      expect(d.lnum == l and d.col == c, 'P203 at %d:%d; Neovim shows `scr` at %d:%d', d.lnum + 1, d.col + 1, l + 1, c + 1)
      local cr = diagnostic_with(buf, 'P103')
      local crl, crc = find(buf, 'a stray', '\r')
      expect(cr.lnum == crl and cr.col == crc, 'P103 at %d:%d; the `\\r` is at %d:%d', cr.lnum + 1, cr.col + 1, crl + 1, crc + 1)
      vim.cmd('bwipeout!')
    end,
  },
  {
    'related locations are shown with the message',
    function()
      local buf, uri = open_copy('rule_P402_mx_scale_ptr.pir', ctx.dir)
      pir_client(buf)
      local d = wait_for('P402 in ' .. uri, function()
        for _, x in ipairs(vim.diagnostic.get(buf)) do
          if x.code == 'P402' then
            return x
          end
        end
      end)
      local l, c = find(buf, 'scale_ptr = %scale_ptr', '%scale_ptr')
      local want = ('\n↳ %d:%d '):format(l + 1, c + 1)
      expect(d.message:find(want, 1, true), 'the P402 message does not name its related location %q: %q',
        want, d.message)
    end,
  },
  {
    'P416 on a kernel over PSUM capacity, and its lens says so',
    function()
      -- tests/rules/rule_P416_psum_peak.pir, worked out in its header: nine PSUM results
      -- live together at op #11, 16,388 bytes per partition > 16,384.
      local dst = ctx.dir .. '/rule_P416_psum_peak.pir'
      assert(vim.uv.fs_copyfile(root .. '/tests/rules/rule_P416_psum_peak.pir', dst))
      assert(vim.uv.fs_chmod(dst, tonumber('644', 8)))
      vim.cmd.edit(vim.fn.fnameescape(dst))
      local buf = vim.api.nvim_get_current_buf()
      pir_client(buf)
      local d = diagnostic_with(buf, 'P416')
      local l, c = find(buf, 'kernel @rule_p416_psum', '@rule_p416_psum')
      expect(d.lnum == l and d.col == c, 'P416 is at %d:%d, not on the kernel name at %d:%d',
        d.lnum + 1, d.col + 1, l + 1, c + 1)
      expect(d.severity == vim.diagnostic.severity.WARN, 'P416 has severity %s', tostring(d.severity))
      expect(d.message:find('16,388 bytes per partition exceeds the capacity of 16,384', 1, true),
        'the P416 message: %q', d.message)
      local want = 'PE 9 · DVE 9 · DMA 3 · SBUF 2.0/208.0 KiB · PSUM 16.0/16.0 KiB (P416)'
      wait_for('the code lens ' .. want, function()
        for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
          if lens.command and lens.command.title == want and lens.range.start.line == l then
            return lens
          end
        end
      end)
    end,
  },
  {
    'gq formats with the server, only the lines it covers',
    function()
      local path = ctx.dir .. '/messy.pir'
      vim.fn.writefile({
        'kernel @k(%x: hbm f32[4]) {',
        '        NoOp{}',
        '  for %i in 0..2 {',
        'NoOp   {}   // kept',
        '  }',
        '}',
      }, path)
      vim.cmd.edit(vim.fn.fnameescape(path))
      local buf = vim.api.nvim_get_current_buf()
      pir_client(buf)
      expect(vim.bo[buf].formatexpr:find('pir', 1, true), 'formatexpr is %q', vim.bo[buf].formatexpr)
      -- `gq` on line 4 only: line 2 stays as it is.
      vim.api.nvim_win_set_cursor(0, { 4, 0 })
      vim.cmd('normal! gqq')
      local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      expect(lines[4] == '    NoOp {}  // kept' and lines[2] == '        NoOp{}',
        'after gqq on line 4: %s', vim.inspect(lines))
      vim.cmd('normal! gggqG')
      lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      expect(vim.deep_equal(lines, {
        'kernel @k(%x: hbm f32[4]) {',
        '  NoOp {}',
        '  for %i in 0..2 {',
        '    NoOp {}  // kept',
        '  }',
        '}',
      }), 'after gggqG: %s', vim.inspect(lines))
      ctx.messy = buf
    end,
  },
  {
    'indent after { and before }',
    function()
      local buf = ctx.messy
      vim.api.nvim_win_set_cursor(0, { 3, 0 }) -- `  for %i in 0..2 {`
      vim.cmd('normal! oMemsetOp {}')
      local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      expect(lines[4] == '    MemsetOp {}', 'the line opened after `{` is %q', lines[4])
      vim.api.nvim_win_set_cursor(0, { 5, 0 }) -- `    NoOp {}  // kept`
      vim.cmd('normal! o}')
      lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      expect(lines[6] == '  }', 'a `}` typed on a new line is at %q', lines[6])
    end,
  },
  {
    'completion inserts nothing unasked',
    function()
      local opts = vim.opt_local.completeopt:get()
      expect(vim.list_contains(opts, 'noselect') or vim.list_contains(opts, 'noinsert'),
        'completeopt of pir buffers is %s: the first item would be inserted unasked', vim.inspect(opts))
      -- What the server offers after `%q:` (a trigger character) is a list to choose from.
      local buf = ctx.messy
      local client = pir_client(buf)
      vim.api.nvim_buf_set_lines(buf, 0, 1, false, { 'kernel @k(%x: hbm f32[4], %q:) {' })
      local line = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
      local col = line:find(':)', 1, true)
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(buf) },
        position = { line = 0, character = col },
        context = { triggerKind = 2, triggerCharacter = ':' },
      }
      local answer = client:request_sync('textDocument/completion', params, 5000, buf)
      local items = answer and answer.result and (answer.result.items or answer.result) or {}
      expect(#items > 1, 'completion after `%%q:` offers %d items', #items)
    end,
  },
  {
    'a big kernel cut into chunks is checked as a whole',
    function()
      -- One kernel of 2,000 copies (about 160 KB): the server cuts it into chunks at its
      -- body's statement lines (docs/scale.md). Each copy reads the tensor the one before
      -- it wrote, so deleting a writer far down is a P501 across chunks, and its undo
      -- clears it.
      local lines = { 'kernel @big(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {' }
      local previous = '%x'
      for i = 0, 1999 do
        lines[#lines + 1] = ('  tensor %%t%d : sbuf f32[128, 128]'):format(i)
        lines[#lines + 1] = ('  TensorCopyOp { dst = %%t%d, src = %s }'):format(i, previous)
        previous = '%t' .. i
      end
      lines[#lines + 1] = ('  TensorCopyOp { dst = %%y, src = %s }'):format(previous)
      lines[#lines + 1] = '}'
      local path = ctx.dir .. '/big.pir'
      vim.fn.writefile(lines, path)
      vim.cmd.edit(vim.fn.fnameescape(path))
      local buf = vim.api.nvim_get_current_buf()
      local uri = vim.uri_from_fname(path)
      pir_client(buf)
      wait_for('publishDiagnostics for ' .. uri, function()
        return (published[uri] or 0) > 0
      end)
      local all = vim.diagnostic.get(buf)
      expect(#all == 0, 'diagnostics in the big clean kernel: %s', describe(all))
      local writer = find(buf, 'dst = %t1500,')
      local reader_line = find(buf, 'dst = %t1501,')
      vim.api.nvim_buf_set_lines(buf, writer, writer + 1, false, {})
      local d = diagnostic_with(buf, 'P501')
      expect(d.lnum == reader_line - 1, 'P501 is on line %d, not %d (the read of %%t1500)', d.lnum + 1,
        reader_line)
      expect(d.message:find('%t1500', 1, true), 'P501 names another tensor: %s', d.message)
      local l, c = find(buf, 'dst = %y', 'TensorCopyOp')
      vim.api.nvim_win_set_cursor(0, { l + 1, c })
      local src_win = vim.api.nvim_get_current_win()
      hover_text('"opcode"')
      vim.api.nvim_set_current_win(src_win)
      vim.cmd('silent undo')
      wait_for('the P501 to go with the undo', function()
        return #vim.diagnostic.get(buf) == 0 and (published[uri] or 0) > 1
      end)
    end,
  },
  {
    'opening a file over 1 MiB shows its progress (begin, report, end)',
    function()
      -- 30 kernels of 500 copies (about 1.2 MB): `pir lsp` reports work-done progress
      -- for a didOpen of 1 MiB or more (a token it creates), which Neovim turns into
      -- LspProgress events (and `vim.lsp.status()`).
      local lines = {}
      for k = 0, 29 do
        lines[#lines + 1] = ('kernel @k%d(%%x: sbuf f32[128, 128]) -> (%%y: sbuf f32[128, 128]) {'):format(k)
        local previous = '%x'
        for i = 0, 499 do
          lines[#lines + 1] = ('  tensor %%t%d : sbuf f32[128, 128]'):format(i)
          lines[#lines + 1] = ('  TensorCopyOp { dst = %%t%d, src = %s }'):format(i, previous)
          previous = '%t' .. i
        end
        lines[#lines + 1] = ('  TensorCopyOp { dst = %%y, src = %s }'):format(previous)
        lines[#lines + 1] = '}'
      end
      local path = ctx.dir .. '/huge.pir'
      vim.fn.writefile(lines, path)
      local size = vim.uv.fs_stat(path).size
      expect(size > 1024 * 1024, 'the file is %d bytes, not over 1 MiB', size)
      local seen = {}
      local id = vim.api.nvim_create_autocmd('LspProgress', {
        callback = function(ev)
          local value = ev.data and ev.data.params and ev.data.params.value or {}
          local token = ev.data and ev.data.params and ev.data.params.token
          seen[#seen + 1] = { kind = value.kind, token = token, title = value.title,
            percentage = value.percentage }
        end,
      })
      vim.cmd.edit(vim.fn.fnameescape(path))
      local buf = vim.api.nvim_get_current_buf()
      pir_client(buf)
      local ok, err = pcall(wait_for, 'the end of the progress of opening huge.pir', function()
        for _, e in ipairs(seen) do
          if e.kind == 'end' then
            return true
          end
        end
      end, 60000)
      vim.api.nvim_del_autocmd(id)
      expect(ok, '%s; seen: %s', tostring(err), vim.inspect(seen))
      local begin, report, finish = seen[1], nil, seen[#seen]
      for _, e in ipairs(seen) do
        if e.kind == 'report' then
          report = report or e
        end
      end
      expect(begin.kind == 'begin' and begin.title:find('huge.pir', 1, true),
        'the first progress is not a begin naming huge.pir: %s', vim.inspect(seen))
      expect(report and type(report.percentage) == 'number' and report.token == begin.token,
        'no report with a percentage on the begin\'s token: %s', vim.inspect(seen))
      expect(finish.kind == 'end' and finish.token == begin.token, 'the progress did not end on its token: %s',
        vim.inspect(seen))
      out(('   progress of a %.1f MB didOpen: %s'):format(size / 1e6, table.concat(vim.tbl_map(function(e)
        return e.kind .. (e.percentage and (' ' .. e.percentage .. '%') or '')
      end, seen), ', ')))
      vim.cmd('bwipeout! ' .. buf)
    end,
  },
  {
    'a crashed server is started again, and :PirRestart restarts it',
    function()
      local buf = ctx.buf
      vim.api.nvim_set_current_buf(buf)
      local first = pir_client(buf)
      local killed = 0
      for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
        local proc = vim.api.nvim_get_proc(pid)
        if proc and proc.name == 'pir' then
          vim.uv.kill(pid, 'sigkill')
          killed = killed + 1
        end
      end
      expect(killed > 0, 'no pir process to kill among %s', vim.inspect(vim.api.nvim_get_proc_children(vim.fn.getpid())))
      local function new_client(than)
        return wait_for('a new pir client after ' .. than.id, function()
          local c = vim.lsp.get_clients({ bufnr = buf, name = 'pir' })[1]
          return c and c.id ~= than.id and c.initialized and c
        end)
      end
      local second = new_client(first)
      local l, c = find(buf, 'MatMulOp {', 'MatMulOp')
      vim.api.nvim_win_set_cursor(0, { l + 1, c })
      hover_text('"opcode": "Matmult"')
      vim.cmd('PirRestart')
      local third = new_client(second)
      expect(#vim.lsp.get_clients({ name = 'pir' }) == 1, 'one pir client after :PirRestart, not %d',
        #vim.lsp.get_clients({ name = 'pir' }))
      vim.api.nvim_win_set_cursor(0, { l + 1, c })
      hover_text('"opcode": "Matmult"')
      ctx.client = third
    end,
  },
  {
    'without the tree-sitter parser, the syntax file highlights',
    function()
      expect(not vim.uv.fs_stat(require('pir.treesitter').parser_path()),
        'a parser is installed before :PirInstallParser (%s)', require('pir.treesitter').parser_path())
      expect(vim.b[ctx.buf].pir_treesitter == nil and vim.bo[ctx.buf].syntax == 'pir',
        'the first buffer is not on the syntax file: syntax=%q', vim.bo[ctx.buf].syntax)
      expect(vim.treesitter.highlighter.active[ctx.buf] == nil, 'tree-sitter highlights without a parser')
    end,
  },
  {
    ':PirInstallParser compiles the grammar and the open pir buffers use it',
    function()
      local said = {}
      local notify = vim.notify
      vim.notify = function(msg, level)
        said[#said + 1] = msg
        return notify(msg, level)
      end
      vim.cmd('PirInstallParser')
      vim.notify = notify
      local path = require('pir.treesitter').parser_path()
      expect(vim.uv.fs_stat(path), 'no parser at %s after :PirInstallParser: %s', path, vim.inspect(said))
      expect(path:find(vim.env.XDG_DATA_HOME, 1, true) == 1, 'the parser is not in the data dir: %s', path)
      wait_for('tree-sitter highlighting of the open buffer', function()
        return vim.treesitter.highlighter.active[ctx.buf] ~= nil and vim.b[ctx.buf].pir_treesitter
      end)
    end,
  },
  {
    'tree-sitter captures on an op name, a field, a keyword and a parameter',
    function()
      local buf = open_copy('matmul_tiled.pir', ctx.dir)
      wait_for('tree-sitter on ' .. vim.api.nvim_buf_get_name(buf), function()
        return vim.b[buf].pir_treesitter and vim.treesitter.highlighter.active[buf] ~= nil
      end)
      expect(vim.bo[buf].syntax == '', 'the syntax file is still on: syntax=%q', vim.bo[buf].syntax)
      local function captures(text, token)
        local l, c = find(buf, text, token)
        local names = {}
        for _, cap in ipairs(vim.treesitter.get_captures_at_pos(buf, l, c)) do
          if cap.lang == 'pir' then
            names[#names + 1] = cap.capture
          end
        end
        return names
      end
      for _, case in ipairs({
        { 'MatMulOp {', 'MatMulOp', 'type' },
        { 'stationary = ', 'stationary', 'property' },
        { 'kernel @matmul_tiled', 'kernel', 'keyword' },
        { 'kernel @matmul_tiled', '@matmul_tiled', 'function' },
        { 'kernel @matmul_tiled', '%lhsT', 'variable.parameter' },
        { 'for %m in', 'for', 'keyword.repeat' },
        { 'kernel @matmul_tiled', 'hbm', 'module' },
        { 'kernel @matmul_tiled', 'bf16', 'type.builtin' },
      }) do
        local got = captures(case[1], case[2])
        expect(vim.list_contains(got, case[3]), 'captures on %q: %s, not @%s', case[2], vim.inspect(got), case[3])
      end
      ctx.ts_buf = buf
    end,
  },
  {
    'a kernel folds from the grammar, and so does an op body',
    function()
      local buf = ctx.ts_buf
      expect(vim.wo.foldmethod == 'expr' and vim.wo.foldexpr == 'v:lua.vim.treesitter.foldexpr()',
        'folding is %s / %s', vim.wo.foldmethod, vim.wo.foldexpr)
      local kernel = find(buf, 'kernel @matmul_tiled') + 1
      local last = vim.api.nvim_buf_line_count(buf)
      while vim.fn.getline(last) ~= '}' do
        last = last - 1
      end
      vim.wo.foldlevel = 0
      vim.cmd('normal! zx')
      wait_for('the kernel fold', function()
        return vim.fn.foldclosed(kernel) == kernel
      end)
      expect(vim.fn.foldclosedend(kernel) == last, 'the kernel fold is lines %d-%d, not %d-%d',
        vim.fn.foldclosed(kernel), vim.fn.foldclosedend(kernel), kernel, last)
      local op = find(buf, 'MatMulOp {') + 1
      expect(vim.fn.foldlevel(op + 1) > vim.fn.foldlevel(op - 1),
        'no fold for the body of the op at line %d (fold levels %d, %d)', op, vim.fn.foldlevel(op - 1), vim.fn.foldlevel(op + 1))
      vim.wo.foldlevel = 99
    end,
  },
  {
    'indent from the grammar',
    function()
      local buf = ctx.ts_buf
      local op = find(buf, 'MatMulOp {') + 1
      local want = vim.fn.indent(op) + vim.fn.shiftwidth()
      expect(require('pir.treesitter').indent(buf, op + 1) == want,
        'the tree gives %s for the line after `MatMulOp {`, not %d', tostring(require('pir.treesitter').indent(buf, op + 1)), want)
      vim.api.nvim_win_set_cursor(0, { op, 0 })
      vim.cmd('normal! onum_active_channels = 128')
      local line = vim.api.nvim_buf_get_lines(buf, op, op + 1, false)[1]
      expect(line == string.rep(' ', want) .. 'num_active_channels = 128', 'the new field is %q', line)
      vim.cmd('silent undo')
    end,
  },
  {
    'a missing server binary is reported',
    function()
      local said = {}
      local notify = vim.notify_once
      vim.notify_once = function(msg, level)
        said[#said + 1] = { msg = msg, level = level }
      end
      vim.lsp.config('pir', { cmd = { 'pir-not-on-path-anywhere', 'lsp' } })
      local path = ctx.dir .. '/missing-binary.pir'
      vim.fn.writefile({ 'kernel @k() {', '  NoOp {}', '}' }, path)
      vim.cmd.edit(vim.fn.fnameescape(path))
      vim.notify_once = notify
      local msg = said[1] and said[1].msg or ''
      expect(msg:find('pir-not-on-path-anywhere', 1, true) and msg:find('not found on PATH', 1, true)
        and msg:find('cargo install --path lsp', 1, true), 'no word about the missing binary: %s', vim.inspect(said))
    end,
  },
}

local passed, failed = 0, 0
local ok_all, err_all = xpcall(function()
  for _, check in ipairs(checks) do
    local ok, err = pcall(check[2])
    if ok then
      passed = passed + 1
      out('ok   ' .. check[1])
    else
      failed = failed + 1
      out('FAIL ' .. check[1] .. ': ' .. tostring(err))
      io.stderr:write('nvim e2e: FAIL: ' .. check[1] .. ': ' .. tostring(err) .. '\n')
      break
    end
  end
end, debug.traceback)
if not ok_all then
  failed = failed + 1
  io.stderr:write('nvim e2e: FAIL: ' .. tostring(err_all) .. '\n')
end
out(('nvim e2e: %d passed, %d failed'):format(passed, failed))
if ctx.dir then
  vim.fn.delete(ctx.dir, 'rf')
end
quit(failed == 0 and 0 or 1)
