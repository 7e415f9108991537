; The outline panel: kernels, their loops and ops.

(kernel
  "kernel" @context
  name: (global) @name) @item

(for_loop
  "for" @context
  variable: (local) @name) @item

(op
  class: (op_class) @name
  id: (op_id)? @context) @item
