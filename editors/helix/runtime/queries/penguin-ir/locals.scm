; Generated from editors/tree-sitter-pir/queries/locals.scm with Helix's capture names
; by tests/grammar.rs (UPDATE_EXPECT=1 cargo test -p tree-sitter-pir --test grammar).
; Edit the grammar's file, not this one.

; Penguin IR scopes and names (SPEC §3 "Scope"), in nvim-treesitter's capture names.
;
; A kernel is a scope (its parameters); each block is one: a tensor or register declared
; in a kernel or loop body is visible from its declaration to the end of that block, loop
; bodies inside it included. A loop is a scope of its own, holding its variable, so that
; the variable is visible in its body only and sibling loops may reuse its name.
; Kernels (`@name`) are module-wide: not locals.

(kernel) @local.scope

(for_loop) @local.scope

(block) @local.scope

(parameter
  name: (local) @local.definition.variable.parameter)

(tensor_declaration
  name: (local) @local.definition.variable)

(register_declaration
  name: (local) @local.definition.variable)

(for_loop
  variable: (local) @local.definition.variable)

(access
  tensor: (local) @local.reference)

(indices
  (local) @local.reference)

(slice
  (local) @local.reference)

(binary_expression
  (local) @local.reference)

(unary_expression
  (local) @local.reference)

(parenthesized_expression
  (local) @local.reference)

(predicate
  (local) @local.reference)

(for_loop
  start: (local) @local.reference)

(for_loop
  end: (local) @local.reference)

(for_loop
  step: (local) @local.reference)
