; Generated from editors/tree-sitter-pir/queries/textobjects.scm with Helix's capture names
; by tests/grammar.rs (UPDATE_EXPECT=1 cargo test -p tree-sitter-pir --test grammar).
; Edit the grammar's file, not this one.

; Penguin IR text objects, in nvim-treesitter-textobjects' capture names: a kernel is a
; function, an op a class (its name is an op class), a loop a loop; the fields of an op or
; record and the parameters of a kernel are parameters, and a field is an assignment
; (`name = value`). Inner objects are the bodies, braces included.

(kernel
  body: (block) @function.inside) @function.around

(op
  body: (field_block) @class.inside) @class.around

(for_loop
  body: (block))

(block)

(field
  value: (_) @parameter.inside) @parameter.around

(parameter
  type: (type) @parameter.inside) @parameter.around

(field
  name: (field_name)
  value: (_))

(comment) @comment.around
