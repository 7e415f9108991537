; Penguin IR folds (nvim-treesitter's `@fold`): kernels, loops, op bodies, records, lists
; and signatures that span lines (Neovim folds only nodes of more than one line).

[
  (kernel)
  (for_loop)
  (op)
  (record)
  (list)
  (parameters)
] @fold
