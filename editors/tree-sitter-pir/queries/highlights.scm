; Penguin IR (pir-spec/2) highlights, in nvim-treesitter's capture names.
;
; Each capture is the group Neovim links the server's semantic token type to
; (`@lsp.type.class` → `@type`, …; see editors/tree-sitter-pir/README.md), so colours do not
; change when `pir lsp` attaches. The patterns are disjoint: no two captures fall on the
; same node, so the result does not depend on whether an editor lets the first (Helix) or
; the last (Neovim) pattern win. tests/grammar.rs checks both claims on the corpus, and
; generates editors/helix and editors/zed's copies from this file.

(comment) @comment @spell

; Keywords (SPEC §2). `reg` only at the start of a statement.
[
  "kernel"
  "tensor"
  "reg"
] @keyword

[
  "for"
  "in"
  "step"
] @keyword.repeat

[
  (true)
  (false)
] @boolean

; Kernels: `@name` is a function (its definition and every use).
(global) @function

; Op class, op id, field names (op bodies and records).
(op_class) @type

(op_id) @attribute

(field_name) @property

; Types: memory space and dtype (SPEC §4).
(memory_space) @module

(dtype) @type.builtin

; A field value that names a dtype (a field of kind `dtype` or `list<dtype>` in the op
; catalog, SPEC §6) is a type; any other name is an enum value.
(field
  name: (field_name) @_name
  value: (identifier) @type.builtin
  (#any-of? @_name "quant_dtype" "auto_cast_type"))

(field
  name: (field_name) @_name
  value: (identifier) @constant
  (#not-any-of? @_name "quant_dtype" "auto_cast_type"))

(field
  name: (field_name) @_name
  value: (list
    (identifier) @type.builtin)
  (#any-of? @_name "quant_dtype" "auto_cast_type"))

(field
  name: (field_name) @_name
  value: (list
    (identifier) @constant)
  (#not-any-of? @_name "quant_dtype" "auto_cast_type"))

(list
  (list
    (identifier) @constant))

(arguments
  (identifier) @constant)

(arguments
  (list
    (identifier) @constant))

; An access kind (SPEC §6.9): full(%t), subtensor(…), tile(…), opaque(…).
(call
  function: (identifier) @function.call)

; Locals: kernel parameters, and tensors, registers and loop variables.
(parameter
  name: (local) @variable.parameter)

(tensor_declaration
  name: (local) @variable)

(register_declaration
  name: (local) @variable)

(for_loop
  (local) @variable)

(access
  tensor: (local) @variable)

(indices
  (local) @variable)

(slice
  (local) @variable)

(binary_expression
  (local) @variable)

(unary_expression
  (local) @variable)

(parenthesized_expression
  (local) @variable)

(predicate
  (local) @variable)

; Dim variables `$N` of predicates.
(dim_var) @type.definition

; Literals.
(integer) @number

(float) @number.float

(string) @string

(escape_sequence) @string.escape

(bytes) @string.special

; Operators and punctuation.
[
  "="
  ".."
  "->"
  "+"
  "-"
  "*"
  ">="
  ">"
  "<="
  "<"
  "=="
  "!="
] @operator

[
  "{"
  "}"
  "["
  "]"
  "("
  ")"
] @punctuation.bracket

[
  ","
  ":"
] @punctuation.delimiter
