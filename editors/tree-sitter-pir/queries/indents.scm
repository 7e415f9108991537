; Penguin IR indentation, in nvim-treesitter's capture names (editors/nvim/lua/pir/
; treesitter.lua reads the same captures): one level inside each bracket pair that spans
; lines, none on the line that closes it. As `pir fmt` indents.

[
  (block)
  (field_block)
  (record)
  (list)
  (parameters)
  (indices)
  (arguments)
  (shape)
] @indent.begin

[
  "}"
  "]"
  ")"
] @indent.branch @indent.end

(comment) @indent.auto
