" Vim syntax file
" Language:    Penguin text IR (pir-spec/2), files *.pir
" Maintainer:  the pir project (editors/nvim)
"
" The lexical structure of SPEC §2 and the names of §4, as regular expressions: the same
" token classes as the VS Code TextMate grammar (editors/vscode/syntaxes). The pir language
" server adds semantic tokens on top when it is running. Items that share a start position
" are resolved by definition order (the later one wins), so identifiers come first and the
" statement-level patterns (op class, field name) last.

if exists('b:current_syntax')
  finish
endif
let s:cpo_save = &cpo
set cpo&vim

syn case match
" Independent of the buffer's 'iskeyword' (the ftplugin adds % @ # $ to it).
syn iskeyword @,48-57,_

" Any other identifier is a value: an enum value (exp, double_row, max, …).
syn match pirEnum        "\<\h\w*\>"

" Names of SPEC §4: memory spaces and dtypes.
syn match pirMemory      "\<\%(hbm\|sbuf\|psum\|reg\)\>"
syn match pirType        "\<\%(f32r\=\|tf32\|bf16\|f16\|f8e4m3\%(fn\%(x4\)\=\)\=\|f8e5m2\%(x4\)\=\|f8e3m4\|f4e2m1fnx4\|e8m0\|[iu]\%(8\|16\|32\)\)\>"

" Keywords. `reg` is a keyword only at the start of a statement (`reg %r : i32`).
syn match pirKeyword     "\<\%(kernel\|tensor\)\>"
syn match pirKeyword     "^\s*\zsreg\ze\s\+%"
syn match pirKeyword     "[{}]\s*\zsreg\ze\s\+%"
syn match pirRepeat      "\<\%(for\|in\|step\)\>"
syn match pirBoolean     "\<\%(true\|false\)\>"

" Sigils: locals %x, globals @k, op ids #3, dim vars $0.
syn match pirLocal       "%\h\w*"
syn match pirGlobal      "@\h\w*"
syn match pirOpId        "#\d\+"
syn match pirDimVar      "\$\d\+"

" Numbers: integers (decimal or 0x hex, `_` separators), floats (digits on both sides of
" `.`, so `0..2` is 0 .. 2, and/or an exponent), and the float words inf and nan.
syn match pirNumber      "\<\d[0-9_]*\>"
syn match pirNumber      "\<0[xX][0-9A-Fa-f_]\+\>"
syn match pirFloat       "\<\d[0-9_]*\.\d[0-9_]*\%([eE][+-]\=\d[0-9_]*\)\=\>"
syn match pirFloat       "\<\d[0-9_]*[eE][+-]\=\d[0-9_]*\>"
syn match pirFloat       "\<\%(inf\|nan\)\>"

" Access kinds and other calls: full(%t), tile(%t[…]).
syn match pirCall        "\<\h\w*\ze\s*("

" Operators and punctuation.
syn match pirOperator    "->\|\.\.\|[<>!=]=\|[<>]\|[-+*=]"
syn match pirDelimiter   "[{}()\[\],:]"

" Strings with escapes, and bytes x"de ad".
syn match  pirBadEscape  contained +\\.+
syn match  pirEscape     contained +\\\%(["\\nt]\|u{\x\{1,6}}\)+
syn region pirString     start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ oneline contains=pirEscape,pirBadEscape
syn match  pirHexByte    contained "\x\+"
syn region pirBytes      matchgroup=pirBytesDelim start=+\<x"+ end=+"+ end=+$+ oneline contains=pirHexByte

" Statement level: a field name (NAME = value, not ==), an op class (OPCLASS [#N] { at
" the start of a statement). Defined last: they win over the word classes above.
syn match pirField       "\<\h\w*\ze\s*=\%(=\)\@!"
" `\zs` rather than a look-behind: a look-behind before `\w*` runs out of pattern memory
" (E363) on words of a few hundred characters.
syn match pirOpClass     "^\s*\zs\h\w*\ze\%(\s*#\d\+\)\=\s*{"
syn match pirOpClass     "[{}]\s*\zs\h\w*\ze\%(\s*#\d\+\)\=\s*{"

" Comments; `//>` (expected BIR) and `//!` (expected diagnostics) are corpus annotations.
syn keyword pirTodo      contained TODO FIXME XXX NOTE
syn match   pirComment   "//.*$" contains=pirTodo,@Spell
syn match   pirAnnotation "//[>!].*$"

hi def link pirComment     Comment
hi def link pirAnnotation  SpecialComment
hi def link pirTodo        Todo
hi def link pirKeyword     Keyword
hi def link pirRepeat      Repeat
hi def link pirBoolean     Boolean
hi def link pirMemory      StorageClass
hi def link pirType        Type
hi def link pirOpClass     Function
hi def link pirOpId        Label
hi def link pirField       Identifier
hi def link pirLocal       Special
hi def link pirGlobal      Function
hi def link pirDimVar      Special
hi def link pirEnum        Constant
hi def link pirNumber      Number
hi def link pirFloat       Float
hi def link pirCall        Function
hi def link pirString      String
hi def link pirEscape      SpecialChar
hi def link pirBadEscape   Error
hi def link pirBytes       String
hi def link pirBytesDelim  Special
hi def link pirHexByte     Number
hi def link pirOperator    Operator
hi def link pirDelimiter   Delimiter

let b:current_syntax = 'pir'

let &cpo = s:cpo_save
unlet s:cpo_save
