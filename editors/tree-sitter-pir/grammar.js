/**
 * @file The Penguin text IR (`*.pir`, pir-spec/2): the tensoriser IR of the AWS Neuron
 *       compiler written as text.
 * @license Apache-2.0
 *
 * The language is docs/SPEC.md §2 (tokens) and §3 (grammar) of the pir repository; the
 * reference implementation is syntax/src/lexer.rs, layout.rs and parser.rs. Where this
 * grammar departs from them it says so below (SPEC-DIFF): it is an editor grammar, for
 * highlighting, folding, indentation, text objects and locals, not a validator (the
 * language server reports every syntax error, P100–P103).
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PREC = {
  unary: 3,
  multiply: 2,
  add: 1,
};

// Field names may be keywords (SPEC §3 `field`: `step = 2`).
const KEYWORDS = ['kernel', 'tensor', 'for', 'in', 'step', 'true', 'false'];

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/;

/**
 * `rule { , rule } [ , ]`, possibly empty: every comma list of the language allows a
 * trailing comma (syntax/src/recover.rs `comma_list`).
 * @param {RuleOrLiteral} rule
 */
function commaSep(rule) {
  return optional(seq(rule, repeat(seq(',', rule)), optional(',')));
}

module.exports = grammar({
  name: 'pir',

  // Newlines are whitespace (SPEC §2) except between the fields of an op body or a
  // record, where `_newline` is a separator: tree-sitter lexes a `\n` as `_newline` only in
  // the parse states where that token is valid (after `{` of a field block and after a
  // complete field), and skips it as whitespace everywhere else: inside `[ ]` and `( )`,
  // in signatures, between statements — the layout pass of syntax/src/layout.rs.
  extras: $ => [/[ \t\r\f\n\uFEFF]/, $.comment],

  word: $ => $.identifier,

  // Zero-width closing brackets for text where one is missing (src/scanner.c): the real
  // parser's recovery, so that a missing `}` costs one op. Each is an `(unclosed)` node.
  externals: $ => [
    $._close_fields,
    $._close_block,
    $._close_bracket,
    $._close_paren,
    $._error_sentinel,
  ],

  supertypes: $ => [$._statement, $._value, $._expression],

  rules: {
    source_file: $ => repeat($.kernel),

    comment: _ => token(seq('//', /[^\n]*/)),

    // kernel @name(%a: hbm f32[128, 4], ...) -> (%out: hbm f32[128, 4]) { ... }
    kernel: $ => seq(
      'kernel',
      field('name', $.global),
      field('parameters', $.parameters),
      optional(seq('->', field('outputs', $.parameters))),
      field('body', $.block),
    ),

    parameters: $ => seq('(', commaSep($.parameter), $._rparen),

    parameter: $ => seq(field('name', $.local), ':', field('type', $.type)),

    // memory dtype[d0, d1, ...]
    type: $ => seq(
      field('memory', alias($.identifier, $.memory_space)),
      field('dtype', alias($.identifier, $.dtype)),
      field('shape', $.shape),
    ),

    shape: $ => seq('[', commaSep($.integer), $._rbracket),

    // The statements of a kernel or loop body; newlines between them are whitespace.
    block: $ => seq('{', repeat($._statement), choice('}', alias($._close_block, $.unclosed))),

    _statement: $ => choice(
      $.tensor_declaration,
      $.register_declaration,
      $.for_loop,
      $.op,
    ),

    tensor_declaration: $ => seq(
      'tensor',
      field('name', $.local),
      ':',
      field('type', $.type),
    ),

    // `reg` is a keyword only at the start of a statement (SPEC §2); elsewhere (a memory
    // space) it is an identifier: tree-sitter's keyword extraction makes `reg` a keyword
    // only in the parse states where the keyword is valid.
    register_declaration: $ => seq(
      'reg',
      field('name', $.local),
      ':',
      field('dtype', alias($.identifier, $.dtype)),
    ),

    // for %i in 0..4 step 2 { ... }
    for_loop: $ => seq(
      'for',
      field('variable', $.local),
      'in',
      field('start', $._expression),
      '..',
      field('end', $._expression),
      optional(seq('step', field('step', $._expression))),
      field('body', $.block),
    ),

    // ClassName #3 { field = value, ... }
    op: $ => seq(
      field('class', alias($.identifier, $.op_class)),
      optional(field('id', $.op_id)),
      field('body', $.field_block),
    ),

    // `{ [SEP] [ field { SEP field } [SEP] ] }`, SEP a run of commas and newlines.
    field_block: $ => seq('{', optional($._fields), $._rbrace),

    _fields: $ => choice(
      $._separator,
      seq(
        optional($._separator),
        $.field,
        repeat(seq($._separator, $.field)),
        optional($._separator),
      ),
    ),

    _separator: $ => repeat1(choice(',', $._newline)),

    // A closing bracket, or where one is missing, an `(unclosed)` node (src/scanner.c).
    _rbrace: $ => choice('}', alias($._close_fields, $.unclosed)),

    _rbracket: $ => choice(']', alias($._close_bracket, $.unclosed)),

    _rparen: $ => choice(')', alias($._close_paren, $.unclosed)),

    _newline: _ => /\n/,

    field: $ => seq(
      field('name', alias(choice($.identifier, ...KEYWORDS), $.field_name)),
      '=',
      field('value', $._value),
    ),

    // SPEC §3 `value`. An expression is a value only inside a predicate: `1 + 2` alone is
    // not one, as in syntax/src/value.rs.
    _value: $ => choice(
      $.access,
      $.integer,
      $.float,
      $.negative_number,
      $.true,
      $.false,
      $.string,
      $.bytes,
      $.identifier,
      $.list,
      $.record,
      $.call,
      $.predicate,
    ),

    // %t, or %t[0:32, %i*8, ::2]
    access: $ => prec.dynamic(1, seq(
      field('tensor', $.local),
      optional(field('indices', $.indices)),
    )),

    indices: $ => seq('[', commaSep(choice($._expression, $.slice)), $._rbracket),

    // [start] : [end] [: step]
    slice: $ => seq(
      optional(field('start', $._expression)),
      ':',
      optional(field('end', $._expression)),
      optional(seq(':', field('step', $._expression))),
    ),

    negative_number: $ => seq('-', choice($.integer, $.float)),

    list: $ => seq('[', commaSep($._value), $._rbracket),

    record: $ => seq('{', optional($._fields), $._rbrace),

    // An access kind (SPEC §6.9): full(%t), subtensor(%t[0:64]), ...
    call: $ => seq(
      field('function', $.identifier),
      field('arguments', $.arguments),
    ),

    arguments: $ => seq('(', commaSep($._value), $._rparen),

    // $0 - %i >= 0
    predicate: $ => seq(
      field('left', $._expression),
      field('operator', choice('>=', '>', '<=', '<', '==', '!=')),
      field('right', $._expression),
    ),

    // SPEC §3 `expr`: `+ -` over `*` over prefix `-` over atoms.
    _expression: $ => choice(
      $.integer,
      $.local,
      $.dim_var,
      $.parenthesized_expression,
      $.unary_expression,
      $.binary_expression,
    ),

    parenthesized_expression: $ => seq('(', $._expression, $._rparen),

    unary_expression: $ => prec(PREC.unary, seq(
      field('operator', '-'),
      field('operand', $._expression),
    )),

    binary_expression: $ => choice(
      prec.left(PREC.multiply, seq(
        field('left', $._expression),
        field('operator', '*'),
        field('right', $._expression),
      )),
      prec.left(PREC.add, seq(
        field('left', $._expression),
        field('operator', choice('+', '-')),
        field('right', $._expression),
      )),
    ),

    // Tokens (SPEC §2).

    // A dotted name (`nl.exp`) is one identifier, as in syntax/src/lexer.rs.
    identifier: _ => token(seq(IDENT, repeat(seq('.', IDENT)))),

    local: _ => token(seq('%', IDENT)),

    global: _ => token(seq('@', IDENT)),

    op_id: _ => /#[0-9]+/,

    dim_var: _ => /\$[0-9]+/,

    // Decimal or 0x hex, `_` separators allowed. SPEC-DIFF: a malformed number (`12ab`)
    // is an integer followed by an identifier here, one P102 for the server.
    integer: _ => token(choice(
      /0[xX][0-9A-Fa-f_]+/,
      /[0-9][0-9_]*/,
    )),

    // Digits on both sides of `.` (so `0..2` is `0`, `..`, `2`) and/or an exponent; the
    // words `inf` and `nan`.
    float: _ => choice(
      token(choice(
        /[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9][0-9_]*)?/,
        /[0-9][0-9_]*[eE][+-]?[0-9][0-9_]*/,
      )),
      'inf',
      'nan',
    ),

    true: _ => 'true',

    false: _ => 'false',

    // "…" with \" \\ \n \t \u{…} escapes, on one line.
    string: $ => seq(
      '"',
      repeat(choice(
        token.immediate(prec(1, /[^"\\\n]+/)),
        $.escape_sequence,
      )),
      token.immediate('"'),
    ),

    // SPEC-DIFF: any escaped character is an escape_sequence node; an unknown one (`\q`)
    // is the server's P100.
    escape_sequence: _ => token.immediate(seq('\\', choice(/u\{[0-9A-Fa-f]*\}/, /[^\n]/))),

    // x"de ad be ef"
    bytes: _ => token(seq('x"', /[^"\n]*/, '"')),
  },
});
