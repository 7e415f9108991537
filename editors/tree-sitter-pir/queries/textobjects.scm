; Penguin IR text objects, in nvim-treesitter-textobjects' capture names: a kernel is a
; function, an op a class (its name is an op class), a loop a loop; the fields of an op or
; record and the parameters of a kernel are parameters, and a field is an assignment
; (`name = value`). Inner objects are the bodies, braces included.

(kernel
  body: (block) @function.inner) @function.outer

(op
  body: (field_block) @class.inner) @class.outer

(for_loop
  body: (block) @loop.inner) @loop.outer

(block) @block.outer

(field
  value: (_) @parameter.inner) @parameter.outer

(parameter
  type: (type) @parameter.inner) @parameter.outer

(field
  name: (field_name) @assignment.lhs
  value: (_) @assignment.rhs @assignment.inner) @assignment.outer

(comment) @comment.outer
