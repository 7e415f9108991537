// The external scanner of tree-sitter-pir: the recovery rules of the real parser's layout
// pass (syntax/src/layout.rs) for a bracket that is never closed, so that one missing `}`
// or `]` costs one op, as it does in `pir check`, and not the rest of the kernel.
//
// Each token is zero-width and valid only where its closing bracket is: the grammar takes
// it in place of that bracket, as an `(unclosed)` node (never in correct text: nothing that
// follows a field, a list item or a parameter can start a statement).
//
// * CLOSE_FIELDS (an op body or a record, in place of `}`) and CLOSE_BRACKET / CLOSE_PAREN
//   (in place of `]` / `)`): when what follows, newlines and comments skipped, starts a
//   statement: `Op {`, `Op #N`, `tensor %t`, `for %i`, `reg %r`, `kernel @k`. The brackets
//   also close before `name =` on a later line (`dst = %t[0:4` ⏎ `src = …`).
// * CLOSE_BLOCK (a kernel or loop body, in place of `}`): before `kernel @k`.

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>

enum TokenType {
  CLOSE_FIELDS,
  CLOSE_BLOCK,
  CLOSE_BRACKET,
  CLOSE_PAREN,
  ERROR_SENTINEL,
};

void *tree_sitter_pir_external_scanner_create(void) { return NULL; }

void tree_sitter_pir_external_scanner_destroy(void *payload) { (void)payload; }

unsigned tree_sitter_pir_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload;
  (void)buffer;
  return 0;
}

void tree_sitter_pir_external_scanner_deserialize(void *payload, const char *buffer,
                                                  unsigned length) {
  (void)payload;
  (void)buffer;
  (void)length;
}

static bool is_ident_start(int32_t c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_ident_char(int32_t c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static bool is_digit(int32_t c) { return c >= '0' && c <= '9'; }

// Skips whitespace, newlines and comments; whether a newline was among them. False in
// `*ok` when a `/` that starts no comment was consumed (nothing can be decided then).
static bool skip_space(TSLexer *lexer, bool *ok) {
  bool newline = false;
  *ok = true;
  for (;;) {
    int32_t c = lexer->lookahead;
    if (c == '\n') {
      newline = true;
      lexer->advance(lexer, false);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0xFEFF) {
      lexer->advance(lexer, false);
    } else if (c == '/') {
      lexer->advance(lexer, false);
      if (lexer->lookahead != '/') {
        *ok = false;
        return newline;
      }
      while (lexer->lookahead != '\n' && !lexer->eof(lexer)) {
        lexer->advance(lexer, false);
      }
    } else {
      return newline;
    }
  }
}

// Reads a word (a dotted identifier, as the lexer's) into `word` (truncated, NUL-ended).
static void read_word(TSLexer *lexer, char *word, unsigned size) {
  unsigned n = 0;
  while (is_ident_char(lexer->lookahead) || lexer->lookahead == '.') {
    if (n + 1 < size) {
      word[n++] = (char)lexer->lookahead;
    }
    lexer->advance(lexer, false);
  }
  word[n] = '\0';
}

static bool equal(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

// What the text ahead is, as far as closing a bracket goes.
enum Ahead {
  OTHER,
  KERNEL,     // `kernel @k`
  STATEMENT,  // `Op {`, `Op #N`, `tensor %t`, `for %i`, `reg %r`
  FIELD,      // `name =` (not `==`)
};

static enum Ahead look_ahead(TSLexer *lexer, bool *newline) {
  bool ok;
  *newline = skip_space(lexer, &ok);
  if (!ok || !is_ident_start(lexer->lookahead)) {
    return OTHER;
  }
  char word[16];
  read_word(lexer, word, sizeof word);
  bool space_ok;
  skip_space(lexer, &space_ok);
  if (!space_ok) {
    return OTHER;
  }
  int32_t next = lexer->lookahead;
  if (equal(word, "kernel")) {
    return next == '@' ? KERNEL : (next == '=' ? FIELD : OTHER);
  }
  if (equal(word, "tensor") || equal(word, "for") || equal(word, "reg")) {
    if (next == '%') {
      return STATEMENT;
    }
  }
  bool keyword = equal(word, "tensor") || equal(word, "for") || equal(word, "in") ||
                 equal(word, "step") || equal(word, "true") || equal(word, "false") ||
                 equal(word, "inf") || equal(word, "nan");
  if (!keyword && next == '{') {
    return STATEMENT;
  }
  if (!keyword && next == '#') {
    lexer->advance(lexer, false);
    return is_digit(lexer->lookahead) ? STATEMENT : OTHER;
  }
  if (next == '=') {
    lexer->advance(lexer, false);
    return lexer->lookahead == '=' ? OTHER : FIELD;
  }
  return OTHER;
}

bool tree_sitter_pir_external_scanner_scan(void *payload, TSLexer *lexer,
                                           const bool *valid_symbols) {
  (void)payload;
  // Error recovery asks for every token at once: never answer it.
  if (valid_symbols[ERROR_SENTINEL]) {
    return false;
  }
  bool fields = valid_symbols[CLOSE_FIELDS];
  bool block = valid_symbols[CLOSE_BLOCK];
  bool bracket = valid_symbols[CLOSE_BRACKET];
  bool paren = valid_symbols[CLOSE_PAREN];
  if (!fields && !block && !bracket && !paren) {
    return false;
  }
  // Zero-width: the token ends where it starts, whatever is read to decide.
  lexer->mark_end(lexer);
  bool newline;
  enum Ahead ahead = look_ahead(lexer, &newline);
  if (ahead == OTHER) {
    return false;
  }
  bool statement = ahead == STATEMENT || ahead == KERNEL;
  if (bracket && (statement || (ahead == FIELD && newline))) {
    lexer->result_symbol = CLOSE_BRACKET;
    return true;
  }
  if (paren && (statement || (ahead == FIELD && newline))) {
    lexer->result_symbol = CLOSE_PAREN;
    return true;
  }
  if (fields && statement) {
    lexer->result_symbol = CLOSE_FIELDS;
    return true;
  }
  if (block && ahead == KERNEL) {
    lexer->result_symbol = CLOSE_BLOCK;
    return true;
  }
  return false;
}
