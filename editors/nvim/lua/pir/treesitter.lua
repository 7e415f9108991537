-- The tree-sitter grammar of Penguin IR (editors/tree-sitter-pir) in Neovim >= 0.11:
-- highlighting (`vim.treesitter.start`), folding (`vim.treesitter.foldexpr`) and indentation
-- (the grammar's indents.scm) for pir buffers, when the compiled parser is installed.
-- Without it, pir buffers keep the Vim syntax file (syntax/pir.vim) and the regex indent.
--
--   :PirInstallParser     compiles src/parser.c and src/scanner.c of the grammar with a C
--                         compiler (`$CC`, else `cc`, `gcc` or `clang`) into
--                         stdpath('data')/site/parser/pir.so, then turns it on
--   vim.g.pir_treesitter = false        never use the grammar
--   vim.g.pir_treesitter_fold = false   keep 'foldmethod' as it is
--   vim.g.pir_grammar_dir = '/path/to/editors/tree-sitter-pir'  (default: beside this plugin)
local M = {}

local LANG = 'pir'

--- The grammar's folder: editors/tree-sitter-pir of the checkout this plugin is in.
---@return string
function M.grammar_dir()
  if vim.g.pir_grammar_dir then
    return vim.fs.normalize(vim.g.pir_grammar_dir)
  end
  local here = debug.getinfo(1, 'S').source:sub(2)
  -- lua/pir/treesitter.lua → editors/nvim → editors
  return vim.fs.normalize(vim.fn.fnamemodify(here, ':p:h:h:h:h') .. '/tree-sitter-pir')
end

--- Where :PirInstallParser puts the parser (a `parser/` folder of 'runtimepath').
---@return string
function M.parser_path()
  return vim.fs.joinpath(vim.fn.stdpath('data'), 'site', 'parser', LANG .. '.so')
end

local registered = false

--- Registers the language and the grammar's queries once; whether the grammar is usable.
---@return boolean
function M.available()
  if vim.g.pir_treesitter == false then
    return false
  end
  if registered then
    return true
  end
  local path = M.parser_path()
  if not vim.uv.fs_stat(path) then
    return false
  end
  local ok = pcall(vim.treesitter.language.add, LANG, { path = path })
  if not ok then
    return false
  end
  -- The grammar's own queries, so that they are those of this checkout whatever else is
  -- on 'runtimepath' (`:help treesitter-query`).
  for _, name in ipairs({ 'highlights', 'folds', 'indents', 'locals', 'textobjects' }) do
    local file = vim.fs.joinpath(M.grammar_dir(), 'queries', name .. '.scm')
    local fd = io.open(file, 'r')
    if fd then
      local text = fd:read('*a')
      fd:close()
      local parsed = pcall(vim.treesitter.query.parse, LANG, text)
      if parsed then
        vim.treesitter.query.set(LANG, name, text)
      end
    end
  end
  registered = true
  return true
end

--- Turns the grammar on for `buf` (a pir buffer): highlighting, folding, indentation.
--- Returns false (leaving the syntax file on) when the parser is not installed.
---@param buf? integer
---@return boolean
function M.attach(buf)
  buf = (buf == nil or buf == 0) and vim.api.nvim_get_current_buf() or buf
  if not M.available() then
    return false
  end
  if not pcall(vim.treesitter.start, buf, LANG) then
    return false
  end
  vim.b[buf].pir_treesitter = true
  if vim.g.pir_treesitter_fold ~= false then
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      vim.wo[win][0].foldmethod = 'expr'
      vim.wo[win][0].foldexpr = 'v:lua.vim.treesitter.foldexpr()'
      -- Every fold open when the buffer is shown; `zc`, `zM` close them.
      vim.wo[win][0].foldlevel = 99
    end
  end
  return true
end

--- Compiles the grammar's C sources into parser_path() and turns the grammar on in every
--- pir buffer. Synchronous (a second or two). Returns the parser's path, or nil and why.
---@return string? path
---@return string? err
function M.install()
  local src = vim.fs.joinpath(M.grammar_dir(), 'src')
  if not vim.uv.fs_stat(vim.fs.joinpath(src, 'parser.c')) then
    return nil, ('no %s/parser.c (set vim.g.pir_grammar_dir to editors/tree-sitter-pir)'):format(src)
  end
  local cc
  for _, name in ipairs({ vim.env.CC or '', 'cc', 'gcc', 'clang' }) do
    if name ~= '' and vim.fn.executable(name) == 1 then
      cc = name
      break
    end
  end
  if not cc then
    return nil, 'no C compiler: set $CC, or install cc, gcc or clang'
  end
  local out = M.parser_path()
  vim.fn.mkdir(vim.fs.dirname(out), 'p')
  -- Build beside the target and rename: a running Neovim may have the old one loaded.
  local tmp = out .. '.' .. vim.uv.os_getpid() .. '.tmp'
  local args = { cc, '-o', tmp, '-shared', '-fPIC', '-O2', '-std=c11', '-I', src,
    vim.fs.joinpath(src, 'parser.c'), vim.fs.joinpath(src, 'scanner.c') }
  if vim.fn.has('mac') == 1 then
    table.insert(args, 2, '-dynamiclib')
  end
  local result = vim.system(args, { text = true }):wait()
  if result.code ~= 0 then
    os.remove(tmp)
    return nil, ('%s failed (%d): %s'):format(table.concat(args, ' '), result.code, result.stderr or '')
  end
  local ok, err = os.rename(tmp, out)
  if not ok then
    return nil, err
  end
  registered = false
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == LANG then
      M.attach(buf)
    end
  end
  return out
end

-- ---------------------------------------------------------------------------------------
-- Indentation from indents.scm (Neovim itself indents with no tree-sitter query).

--- The indent (in columns) of line `lnum` (1-based) from the tree, or nil when the tree
--- cannot tell (no parser, or an error node around the line: the caller falls back to
--- the regex indent). One `shiftwidth` per `@indent.begin` node that starts on an
--- earlier line and holds the line, less the one a line's leading closing bracket
--- (`@indent.branch`) ends.
---@param buf integer
---@param lnum integer
---@return integer?
function M.indent(buf, lnum)
  if not vim.b[buf].pir_treesitter then
    return nil
  end
  local ok, parser = pcall(vim.treesitter.get_parser, buf, LANG)
  if not ok or not parser then
    return nil
  end
  local tree = parser:parse()[1]
  local root = tree:root()
  local query = vim.treesitter.query.get(LANG, 'indents')
  if not query then
    return nil
  end
  local row = lnum - 1
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ''
  local col = line:find('%S')
  -- A blank line (a new one, after `o`) is indented as its next token would be: as a
  -- token at its first column.
  col = col and col - 1 or 0
  local begins, branches = {}, {}
  -- The captured nodes that meet the line: its ancestors and its own tokens.
  for id, node in query:iter_captures(root, buf, row, row + 1) do
    local name = query.captures[id]
    if name == 'indent.begin' then
      begins[node:id()] = true
    elseif name == 'indent.branch' then
      branches[node:id()] = true
    end
  end
  local node = root:named_descendant_for_range(row, col, row, col)
  local leading = root:descendant_for_range(row, col, row, col + 1)
  -- The bracket pair the line's leading closer ends.
  local closed
  if line:sub(col + 1, col + 1):match('[%}%]%)]') and leading and branches[leading:id()] then
    closed = leading:parent()
  end
  local levels = 0
  while node do
    if node:type() == 'ERROR' then
      return nil
    end
    local start_row = node:start()
    if begins[node:id()] and start_row < row and not (closed and closed:id() == node:id()) then
      levels = levels + 1
    end
    node = node:parent()
  end
  return levels * vim.fn.shiftwidth()
end

return M
