; Penguin IR indentation for Helix: one level inside each bracket pair, the closing
; bracket back at its opener's (the grammar's indents.scm, in Helix's captures).

[
  (block)
  (field_block)
  (record)
  (list)
  (parameters)
  (indices)
  (arguments)
  (shape)
] @indent

[
  "}"
  "]"
  ")"
] @outdent
