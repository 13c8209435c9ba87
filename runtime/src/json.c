/*===- json.c - a strict, bounded JSON reader for files from strangers ----===*
 *
 * Three passes over the text, so that the tree is one allocation and
 * nothing grows while parsing:
 *   1. check: the syntax, and the totals (values, keys, string and number
 *      bytes, containers). Nothing is allocated yet, so a malformed file
 *      costs no memory;
 *   2. count: the children of each container, by its pre-order number;
 *   3. build: the nodes, keys and decoded strings into the one block, each
 *      container's children contiguous, numbers converted, and each object
 *      checked for duplicate keys once it is complete.
 * Passes 2 and 3 run the code of pass 1 over text it has accepted, so they
 * meet exactly the values pass 1 counted. Recursion follows nesting, and the
 * depth is checked before it goes deeper.
 *
 *===----------------------------------------------------------------------===*/
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* json_test.c compiles this file in again with an allocator that fails on
 * request. There are two allocations: the tree and the scratch space. */
#ifndef HODU_JSON_MALLOC
#define HODU_JSON_MALLOC malloc
#endif

enum pass { PASS_CHECK, PASS_COUNT, PASS_BUILD };

/* A key and its place in the object, sorted to find duplicates. */
typedef struct sort_entry {
  const char *key;
  uint32_t index;
} sort_entry;

typedef struct parser {
  const unsigned char *text;
  size_t size, pos;
  uint32_t line;     /* of pos, 1-based */
  size_t line_start; /* the offset of that line's first byte */
  enum pass pass;
  char *error;
  size_t error_size;
  int failed;
  /* Totals after pass 1; cursors in passes 2 and 3. */
  size_t values, keys, bytes, containers;
  /* Written by pass 2, read by pass 3: the children of each container (a
   * 16 MiB input has fewer than 2^32 of anything). */
  uint32_t *counts;
  /* Pass 3: the block's parts, and where each key of the input starts. */
  hodu_json *nodes;
  const char **key_slots;
  char *chars;
  uint32_t *key_lines, *key_columns;
  sort_entry *sorted; /* room for the keys of the largest object */
} parser;

static uint32_t column_of(const parser *p, size_t at) {
  return (uint32_t)(at - p->line_start + 1);
}

/* Records the first error only. */
static void record(parser *p, uint32_t line, uint32_t column,
                   const char *format, va_list args) {
  if (p->failed)
    return;
  p->failed = 1;
  if (!p->error_size)
    return;
  int used = snprintf(p->error, p->error_size,
                      "line %u, column %u: ", (unsigned)line, (unsigned)column);
  if (used >= 0 && (size_t)used < p->error_size)
    vsnprintf(p->error + used, p->error_size - (size_t)used, format, args);
}

/* An error at `line` and `column`; returns 0 for `return fail_at(...)`. */
static int fail_at(parser *p, uint32_t line, uint32_t column,
                   const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(parser *p, uint32_t line, uint32_t column,
                   const char *format, ...) {
  va_list args;
  va_start(args, format);
  record(p, line, column, format, args);
  va_end(args);
  return 0;
}

/* An error at byte `at` of the current line (no error spans a newline). */
static int fail(parser *p, size_t at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(parser *p, size_t at, const char *format, ...) {
  va_list args;
  va_start(args, format);
  record(p, p->line, column_of(p, at), format, args);
  va_end(args);
  return 0;
}

/* What is at `at`, for messages: "'x'", "byte 0x01" or "the end of the
 * input". */
static const char *found(const parser *p, size_t at, char buffer[16]) {
  if (at >= p->size)
    return "the end of the input";
  unsigned char c = p->text[at];
  if (c > ' ' && c < 0x7f)
    snprintf(buffer, 16, "'%c'", c);
  else
    snprintf(buffer, 16, "byte 0x%02X", c);
  return buffer;
}

static int expected(parser *p, const char *what) {
  char buffer[16];
  return fail(p, p->pos, "expected %s, found %s", what,
              found(p, p->pos, buffer));
}

static int at_byte(const parser *p, unsigned char c) {
  return p->pos < p->size && p->text[p->pos] == c;
}

static int is_digit(const parser *p, size_t at) {
  return at < p->size && p->text[at] >= '0' && p->text[at] <= '9';
}

/* RFC 8259's whitespace; newlines only ever appear here. */
static void skip_space(parser *p) {
  while (p->pos < p->size) {
    unsigned char c = p->text[p->pos];
    if (c == '\n') {
      ++p->line;
      p->line_start = p->pos + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    ++p->pos;
  }
}

/* The length of the valid UTF-8 sequence at text[0..size), or 0: overlong
 * forms, surrogates and code points past U+10FFFF are not valid. */
static size_t utf8_length(const unsigned char *text, size_t size) {
  unsigned char c = text[0], low = 0x80, high = 0xbf;
  size_t length;
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    low = c == 0xe0 ? 0xa0 : low;
    high = c == 0xed ? 0x9f : high;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    low = c == 0xf0 ? 0x90 : low;
    high = c == 0xf4 ? 0x8f : high;
  } else {
    return 0;
  }
  if (size < length || text[1] < low || text[1] > high)
    return 0;
  for (size_t i = 2; i < length; ++i)
    if (text[i] < 0x80 || text[i] > 0xbf)
      return 0;
  return length;
}

/* The four hex digits at `at`, or -1. */
static long hex4(const parser *p, size_t at) {
  if (at > p->size || p->size - at < 4)
    return -1;
  long value = 0;
  for (size_t i = at; i < at + 4; ++i) {
    unsigned char c = p->text[i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0)
      return -1;
    value = value * 16 + digit;
  }
  return value;
}

/* Appends `c` to the decoded string (pass 3) or only counts it. */
static void emit(char *out, size_t *length, unsigned char c) {
  if (out)
    out[*length] = (char)c;
  ++*length;
}

static void emit_code_point(char *out, size_t *length, uint32_t c) {
  if (c < 0x80) {
    emit(out, length, (unsigned char)c);
  } else if (c < 0x800) {
    emit(out, length, (unsigned char)(0xc0 | c >> 6));
    emit(out, length, (unsigned char)(0x80 | (c & 0x3f)));
  } else if (c < 0x10000) {
    emit(out, length, (unsigned char)(0xe0 | c >> 12));
    emit(out, length, (unsigned char)(0x80 | (c >> 6 & 0x3f)));
    emit(out, length, (unsigned char)(0x80 | (c & 0x3f)));
  } else {
    emit(out, length, (unsigned char)(0xf0 | c >> 18));
    emit(out, length, (unsigned char)(0x80 | (c >> 12 & 0x3f)));
    emit(out, length, (unsigned char)(0x80 | (c >> 6 & 0x3f)));
    emit(out, length, (unsigned char)(0x80 | (c & 0x3f)));
  }
}

/* The escape at p->pos (a backslash), decoded; leaves pos after it. */
static int parse_escape(parser *p, char *out, size_t *length) {
  size_t at = p->pos;
  if (at + 1 >= p->size)
    return fail(p, at, "unterminated string");
  unsigned char c = p->text[at + 1];
  static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
  const char *which = c ? strchr(plain, c) : NULL;
  if (which) {
    emit(out, length, (unsigned char)decoded[which - plain]);
    p->pos += 2;
    return 1;
  }
  if (c != 'u') {
    char buffer[16];
    return fail(p, at, "invalid escape in a string: '\\' followed by %s",
                found(p, at + 1, buffer));
  }
  long code = hex4(p, at + 2);
  if (code < 0)
    return fail(p, at, "expected four hex digits after '\\u'");
  p->pos += 6;
  if (code == 0)
    return fail(p, at, "a NUL (\\u0000) in a string");
  if (code >= 0xdc00 && code <= 0xdfff)
    return fail(p, at, "a lone surrogate \\u%04lX in a string", code);
  if (code >= 0xd800 && code <= 0xdbff) {
    long low = p->pos + 1 < p->size && p->text[p->pos] == '\\' &&
                       p->text[p->pos + 1] == 'u'
                   ? hex4(p, p->pos + 2)
                   : -1;
    if (low < 0xdc00 || low > 0xdfff)
      return fail(p, at, "a lone surrogate \\u%04lX in a string", code);
    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    p->pos += 6;
  }
  emit_code_point(out, length, (uint32_t)code);
  return 1;
}

/* The string at p->pos (a '"'): checked and measured, or (pass 3) decoded
 * into the block, NUL-terminated, at *text. */
static int parse_string(parser *p, const char **text, size_t *length) {
  size_t start = p->pos++;
  char *out = p->pass == PASS_BUILD ? p->chars + p->bytes : NULL;
  *length = 0;
  for (;;) {
    if (p->pos >= p->size)
      return fail(p, start, "unterminated string");
    unsigned char c = p->text[p->pos];
    if (c == '"')
      break;
    if (c == '\\') {
      if (!parse_escape(p, out, length))
        return 0;
    } else if (c < 0x20) {
      return fail(p, p->pos,
                  "a raw control character (byte 0x%02X) in a string; "
                  "it must be escaped",
                  c);
    } else if (c < 0x80) {
      emit(out, length, c);
      ++p->pos;
    } else {
      size_t n = utf8_length(p->text + p->pos, p->size - p->pos);
      if (!n)
        return fail(p, p->pos, "invalid UTF-8 (byte 0x%02X) in a string", c);
      for (size_t i = 0; i < n; ++i)
        emit(out, length, p->text[p->pos + i]);
      p->pos += n;
    }
  }
  ++p->pos;
  if (out) {
    out[*length] = '\0';
    *text = out;
  }
  if (p->pass != PASS_COUNT)
    p->bytes += *length + 1;
  return 1;
}

/* The strict grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. The
 * value comes from strtod on the copy in the block (bounded by its NUL).
 * strtod follows LC_NUMERIC, which is "C" unless the host program calls
 * setlocale (libhodurt never does); where it is not, a number strtod stops
 * short in is an error rather than a wrong value. */
static int parse_number(parser *p, hodu_json *node) {
  size_t start = p->pos, end = p->pos;
  char buffer[16];
  if (p->text[end] == '-')
    ++end;
  if (!is_digit(p, end))
    return fail(p, end, "expected a digit after '-', found %s",
                found(p, end, buffer));
  if (p->text[end] == '0') {
    if (is_digit(p, ++end))
      return fail(p, start, "a number with a leading zero");
  } else {
    while (is_digit(p, end))
      ++end;
  }
  if (end < p->size && p->text[end] == '.') {
    if (!is_digit(p, ++end))
      return fail(p, end, "expected a digit after '.' in a number, found %s",
                  found(p, end, buffer));
    while (is_digit(p, end))
      ++end;
  }
  if (end < p->size && (p->text[end] == 'e' || p->text[end] == 'E')) {
    ++end;
    if (end < p->size && (p->text[end] == '+' || p->text[end] == '-'))
      ++end;
    if (!is_digit(p, end))
      return fail(p, end, "expected a digit in a number's exponent, found %s",
                  found(p, end, buffer));
    while (is_digit(p, end))
      ++end;
  }
  size_t length = end - start;
  p->pos = end;
  if (p->pass == PASS_CHECK)
    p->bytes += length + 1;
  if (p->pass != PASS_BUILD)
    return 1;
  char *copy = p->chars + p->bytes;
  p->bytes += length + 1;
  memcpy(copy, p->text + start, length);
  copy[length] = '\0';
  char *stop;
  double value = strtod(copy, &stop);
  if (stop != copy + length)
    return fail(p, start,
                "cannot convert the number %.32s (is LC_NUMERIC not \"C\"?)",
                copy);
  if (value == HUGE_VAL || value == -HUGE_VAL)
    return fail(p, start, "the number %.32s%s is out of the range of a double",
                copy, length > 32 ? "..." : "");
  node->type = HODU_JSON_NUMBER;
  node->number = value;
  node->text = copy;
  return 1;
}

static int parse_literal(parser *p, const char *word, hodu_json_type type,
                         int boolean, hodu_json *node) {
  size_t length = strlen(word);
  if (p->size - p->pos < length || memcmp(p->text + p->pos, word, length))
    return fail(p, p->pos, "invalid literal: expected '%s'", word);
  p->pos += length;
  if (node) {
    node->type = type;
    node->boolean = boolean;
  }
  return 1;
}

static int parse_value(parser *p, int depth, hodu_json *node);

/* Takes the children of container `ordinal` from the block (pass 3). */
static hodu_json *take_children(parser *p, size_t ordinal, hodu_json *node) {
  node->count = p->counts[ordinal];
  if (!node->count)
    return NULL;
  node->children = p->nodes + p->values;
  p->values += node->count;
  return node->children;
}

static int parse_array(parser *p, int depth, hodu_json *node) {
  if (depth > HODU_JSON_MAX_DEPTH)
    return fail(p, p->pos, "nested deeper than %d", HODU_JSON_MAX_DEPTH);
  ++p->pos;
  size_t ordinal = p->containers++;
  hodu_json *children = NULL;
  if (node) {
    node->type = HODU_JSON_ARRAY;
    children = take_children(p, ordinal, node);
  }
  size_t count = 0;
  skip_space(p);
  if (at_byte(p, ']')) {
    ++p->pos;
  } else {
    for (;;) {
      if (!parse_value(p, depth, children ? &children[count] : NULL))
        return 0;
      ++count;
      skip_space(p);
      if (at_byte(p, ']')) {
        ++p->pos;
        break;
      }
      if (!at_byte(p, ','))
        return expected(p, "',' or ']' after an array element");
      uint32_t line = p->line, column = column_of(p, p->pos);
      ++p->pos;
      skip_space(p);
      if (at_byte(p, ']'))
        return fail_at(p, line, column, "a trailing comma before ']'");
    }
  }
  if (p->pass == PASS_COUNT)
    p->counts[ordinal] = (uint32_t)count;
  return 1;
}

static int compare_entries(const void *a, const void *b) {
  const sort_entry *x = a, *y = b;
  int order = strcmp(x->key, y->key);
  return order ? order : (x->index > y->index) - (x->index < y->index);
}

/* Copies `key` for a message: cut short (at a UTF-8 boundary), control
 * characters shown as '?'. */
static void show_key(const char *key, char *out, size_t size) {
  size_t length = strlen(key), limit = size - 4;
  size_t n = length <= size - 1 ? length : limit;
  while (n < length && n > 0 && ((unsigned char)key[n] & 0xc0) == 0x80)
    --n;
  for (size_t i = 0; i < n; ++i)
    out[i] = (unsigned char)key[i] < 0x20 ? '?' : key[i];
  strcpy(out + n, n < length ? "..." : "");
}

/* Sorts the object's keys to find a duplicate; reports the one that comes
 * first in the input. */
static int check_duplicates(parser *p, const hodu_json *object,
                            size_t first_key) {
  size_t count = object->count;
  if (count < 2)
    return 1;
  for (size_t i = 0; i < count; ++i)
    p->sorted[i] = (sort_entry){object->keys[i], (uint32_t)i};
  qsort(p->sorted, count, sizeof(*p->sorted), compare_entries);
  size_t duplicate = count;
  for (size_t i = 1; i < count; ++i)
    if (!strcmp(p->sorted[i - 1].key, p->sorted[i].key) &&
        p->sorted[i].index < duplicate)
      duplicate = p->sorted[i].index;
  if (duplicate == count)
    return 1;
  char shown[52];
  show_key(object->keys[duplicate], shown, sizeof(shown));
  return fail_at(p, p->key_lines[first_key + duplicate],
                 p->key_columns[first_key + duplicate], "duplicate key '%s'",
                 shown);
}

static int parse_object(parser *p, int depth, hodu_json *node) {
  if (depth > HODU_JSON_MAX_DEPTH)
    return fail(p, p->pos, "nested deeper than %d", HODU_JSON_MAX_DEPTH);
  ++p->pos;
  size_t ordinal = p->containers++, first_key = p->keys;
  hodu_json *children = NULL;
  const char **keys = NULL;
  if (node) {
    node->type = HODU_JSON_OBJECT;
    children = take_children(p, ordinal, node);
    if (children)
      node->keys = keys = p->key_slots + first_key;
    p->keys += node->count;
  }
  size_t count = 0;
  skip_space(p);
  if (at_byte(p, '}')) {
    ++p->pos;
  } else {
    for (;;) {
      if (!at_byte(p, '"'))
        return expected(p, count ? "a string key" : "a string key or '}'");
      if (keys) {
        p->key_lines[first_key + count] = p->line;
        p->key_columns[first_key + count] = column_of(p, p->pos);
      }
      const char *key = NULL;
      size_t length;
      if (!parse_string(p, &key, &length))
        return 0;
      if (keys)
        keys[count] = key;
      else if (p->pass == PASS_CHECK)
        ++p->keys;
      skip_space(p);
      if (!at_byte(p, ':'))
        return expected(p, "':' after an object key");
      ++p->pos;
      if (!parse_value(p, depth, children ? &children[count] : NULL))
        return 0;
      ++count;
      skip_space(p);
      if (at_byte(p, '}')) {
        ++p->pos;
        break;
      }
      if (!at_byte(p, ','))
        return expected(p, "',' or '}' after an object member");
      uint32_t line = p->line, column = column_of(p, p->pos);
      ++p->pos;
      skip_space(p);
      if (at_byte(p, '}'))
        return fail_at(p, line, column, "a trailing comma before '}'");
    }
  }
  if (p->pass == PASS_COUNT)
    p->counts[ordinal] = (uint32_t)count;
  return node ? check_duplicates(p, node, first_key) : 1;
}

/* The value after any whitespace; `depth` counts the containers it is in. */
static int parse_value(parser *p, int depth, hodu_json *node) {
  skip_space(p);
  if (p->pass == PASS_CHECK)
    ++p->values;
  if (node)
    *node = (hodu_json){.line = p->line, .column = column_of(p, p->pos)};
  if (p->pos >= p->size)
    return expected(p, "a value");
  switch (p->text[p->pos]) {
  case '{':
    return parse_object(p, depth + 1, node);
  case '[':
    return parse_array(p, depth + 1, node);
  case '"':
    if (!parse_string(p, node ? &node->text : NULL,
                      node ? &node->length : &(size_t){0}))
      return 0;
    if (node)
      node->type = HODU_JSON_STRING;
    return 1;
  case 't':
    return parse_literal(p, "true", HODU_JSON_BOOL, 1, node);
  case 'f':
    return parse_literal(p, "false", HODU_JSON_BOOL, 0, node);
  case 'n':
    return parse_literal(p, "null", HODU_JSON_NULL, 0, node);
  case '-':
  case '0':
  case '1':
  case '2':
  case '3':
  case '4':
  case '5':
  case '6':
  case '7':
  case '8':
  case '9':
    return parse_number(p, node);
  }
  return expected(p, "a value");
}

/* One pass over the whole input, from the start. */
static int run_pass(parser *p, enum pass pass, hodu_json *root) {
  p->pass = pass;
  p->pos = p->line_start = 0;
  p->line = 1;
  p->values = root ? 1 : 0;
  p->keys = p->bytes = p->containers = 0;
  if (!parse_value(p, 0, root))
    return 0;
  skip_space(p);
  return p->pos == p->size ? 1 : expected(p, "the end of the input");
}

/* An error about the input as a whole, without a position. */
static void fail_whole(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_whole(char *error, size_t error_size, const char *format,
                       ...) {
  if (!error_size)
    return;
  va_list args;
  va_start(args, format);
  vsnprintf(error, error_size, format, args);
  va_end(args);
}

hodu_json *hodu_json_parse(const char *text, size_t size, char *error,
                           size_t error_size) {
  if (error && error_size)
    error[0] = '\0';
  else
    error_size = 0;
  if (size > HODU_JSON_MAX_SIZE) {
    fail_whole(error, error_size,
               "the input is %zu bytes, more than the limit of %zu (16 MiB)",
               size, HODU_JSON_MAX_SIZE);
    return NULL;
  }
  if (!text && size) {
    fail_whole(error, error_size, "no input text");
    return NULL;
  }
  parser p = {.text = (const unsigned char *)text,
              .size = size,
              .error = error,
              .error_size = error_size};
  if (!run_pass(&p, PASS_CHECK, NULL))
    return NULL;

  /* Every value takes at least a byte of the input, so with 16 MiB these
   * sizes are far from overflowing. */
  size_t values = p.values, keys = p.keys, bytes = p.bytes;
  size_t containers = p.containers;
  size_t key_offset = values * sizeof(hodu_json);
  size_t chars_offset = key_offset + keys * sizeof(const char *);
  hodu_json *block = HODU_JSON_MALLOC(chars_offset + bytes);
  size_t counts_offset = keys * sizeof(sort_entry);
  size_t lines_offset = counts_offset + containers * sizeof(uint32_t);
  size_t columns_offset = lines_offset + keys * sizeof(uint32_t);
  char *scratch = HODU_JSON_MALLOC(columns_offset + keys * sizeof(uint32_t) +
                                   1 /* never malloc(0) */);
  if (!block || !scratch) {
    free(block);
    free(scratch);
    fail_whole(error, error_size, "out of memory");
    return NULL;
  }
  p.nodes = block;
  p.key_slots = (const char **)((char *)block + key_offset);
  p.chars = (char *)block + chars_offset;
  p.sorted = (sort_entry *)scratch;
  p.counts = (uint32_t *)(scratch + counts_offset);
  p.key_lines = (uint32_t *)(scratch + lines_offset);
  p.key_columns = (uint32_t *)(scratch + columns_offset);

  int built = run_pass(&p, PASS_COUNT, NULL) && run_pass(&p, PASS_BUILD, block);
  free(scratch);
  if (!built) {
    free(block);
    return NULL;
  }
  return block;
}

void hodu_json_free(hodu_json *value) { free(value); }

const hodu_json *hodu_json_get(const hodu_json *object, const char *key) {
  if (!object || object->type != HODU_JSON_OBJECT || !key)
    return NULL;
  for (size_t i = 0; i < object->count; ++i)
    if (!strcmp(object->keys[i], key))
      return &object->children[i];
  return NULL;
}

const char *hodu_json_string(const hodu_json *value) {
  return value && value->type == HODU_JSON_STRING ? value->text : NULL;
}

/* Appends to a snprintf-like buffer: counts always, writes what fits. */
static void put(char *out, size_t size, size_t *used, char c) {
  if (*used + 1 < size)
    out[*used] = c;
  ++*used;
}

size_t hodu_json_quote(const char *s, char *out, size_t size) {
  static const char hex[] = "0123456789abcdef";
  size_t used = 0;
  put(out, size, &used, '"');
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; ++c) {
    const char *escape = *c == '"'    ? "\\\""
                         : *c == '\\' ? "\\\\"
                         : *c == '\n' ? "\\n"
                         : *c == '\t' ? "\\t"
                         : *c == '\r' ? "\\r"
                         : *c == '\b' ? "\\b"
                         : *c == '\f' ? "\\f"
                                      : NULL;
    if (escape) {
      put(out, size, &used, escape[0]);
      put(out, size, &used, escape[1]);
    } else if (*c < 0x20) {
      const char unicode[] = {'\\', 'u', '0', '0', hex[*c >> 4], hex[*c & 15]};
      for (size_t i = 0; i < sizeof(unicode); ++i)
        put(out, size, &used, unicode[i]);
    } else {
      put(out, size, &used, (char)*c);
    }
  }
  put(out, size, &used, '"');
  if (size)
    out[used < size ? used : size - 1] = '\0';
  return used;
}
