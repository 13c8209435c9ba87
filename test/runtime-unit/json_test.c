/*===- json_test.c - the JSON reader of libhodurt, against hostile input ---===*
 *
 * A standalone program over runtime/src/json.c: every value type, escapes,
 * each class of error with its message and position, every truncation and
 * 20000 random mutations of a manifest-like document, the depth and size
 * limits, and allocation failures. Every input is parsed from a heap copy
 * of exactly its size, so that ASan sees any read past the end. Prints each
 * failing case; exits non-zero when there is one.
 *
 *===----------------------------------------------------------------------===*/
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* json.c once more, its functions renamed, with an allocator that fails the
 * allocation numbered `fail_allocation` (0 is the first). */
static int allocations, fail_allocation = -1;
static void *test_malloc(size_t size) {
  return allocations++ == fail_allocation ? NULL : malloc(size);
}
#define HODU_JSON_MALLOC test_malloc
#define hodu_json_parse oom_json_parse
#define hodu_json_free oom_json_free
#define hodu_json_get oom_json_get
#define hodu_json_string oom_json_string
#define hodu_json_quote oom_json_quote
#include "json.c"
#undef hodu_json_parse
#undef hodu_json_free
#undef hodu_json_get
#undef hodu_json_string
#undef hodu_json_quote

static int failures;

#define EXPECT(condition, ...)                                                 \
  do {                                                                         \
    if (!(condition)) {                                                        \
      ++failures;                                                              \
      printf("FAIL line %d: ", __LINE__);                                      \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

/* Parses a heap copy of exactly `size` bytes, freed before returning (the
 * tree must not point into the input). */
static hodu_json *parse_bytes(const char *text, size_t size, char *error,
                              size_t error_size) {
  char *copy = malloc(size ? size : 1);
  if (size)
    memcpy(copy, text, size);
  hodu_json *value = hodu_json_parse(copy, size, error, error_size);
  free(copy);
  return value;
}

static hodu_json *parse(const char *text, char *error, size_t error_size) {
  return parse_bytes(text, strlen(text), error, error_size);
}

/* Checks the tree's invariants; returns its number of nodes. */
static size_t walk(const hodu_json *value, int depth) {
  size_t nodes = 1;
  EXPECT(depth <= HODU_JSON_MAX_DEPTH + 1, "walk: depth %d", depth);
  EXPECT(value->line >= 1 && value->column >= 1, "walk: no position");
  switch (value->type) {
  case HODU_JSON_NULL:
  case HODU_JSON_BOOL:
    EXPECT(!value->text && !value->count, "walk: literal with contents");
    break;
  case HODU_JSON_NUMBER:
    EXPECT(value->text && strlen(value->text) > 0, "walk: number text");
    break;
  case HODU_JSON_STRING:
    EXPECT(value->text && strlen(value->text) == value->length,
           "walk: string length");
    EXPECT(hodu_json_string(value) == value->text, "walk: string text");
    break;
  case HODU_JSON_ARRAY:
  case HODU_JSON_OBJECT:
    EXPECT((value->count == 0) == (value->children == NULL),
           "walk: children and count disagree");
    for (size_t i = 0; i < value->count; ++i) {
      if (value->type == HODU_JSON_OBJECT) {
        EXPECT(value->keys && value->keys[i], "walk: no key");
        EXPECT(hodu_json_get(value, value->keys[i]) == &value->children[i],
               "walk: get of key %zu", i);
      }
      nodes += walk(&value->children[i], depth + 1);
    }
    break;
  default:
    EXPECT(0, "walk: type %d", (int)value->type);
  }
  return nodes;
}

static void test_values(void) {
  const char *text =
      "{\"n\": null, \"t\": true, \"f\": false, \"i\": -12,\n"
      " \"x\": 1.50E+2, \"s\": \"hi\", \"e\": \"\",\n"
      " \"a\": [1, [2, {}], []], \"o\": {\"k\": \"v\"}, \"z\": -0}";
  char error[256];
  hodu_json *root = parse(text, error, sizeof(error));
  EXPECT(root, "values: %s", error);
  if (!root)
    return;
  EXPECT(error[0] == '\0', "values: error not cleared");
  EXPECT(root->type == HODU_JSON_OBJECT && root->count == 10, "values: root");
  static const char *const order[] = {"n", "t", "f", "i", "x",
                                      "s", "e", "a", "o", "z"};
  for (size_t i = 0; i < 10 && i < root->count; ++i)
    EXPECT(!strcmp(root->keys[i], order[i]), "values: key %zu is '%s'", i,
           root->keys[i]);
  EXPECT(hodu_json_get(root, "n")->type == HODU_JSON_NULL, "values: null");
  const hodu_json *t = hodu_json_get(root, "t"), *f = hodu_json_get(root, "f");
  EXPECT(t->type == HODU_JSON_BOOL && t->boolean == 1, "values: true");
  EXPECT(f->type == HODU_JSON_BOOL && f->boolean == 0, "values: false");
  const hodu_json *i = hodu_json_get(root, "i"), *x = hodu_json_get(root, "x");
  EXPECT(i->type == HODU_JSON_NUMBER && i->number == -12 &&
             !strcmp(i->text, "-12"),
         "values: -12");
  EXPECT(x->type == HODU_JSON_NUMBER && x->number == 150 &&
             !strcmp(x->text, "1.50E+2"),
         "values: 1.50E+2");
  EXPECT(x->line == 2 && x->column == 7, "values: x at %u:%u", x->line,
         x->column);
  const hodu_json *s = hodu_json_get(root, "s"), *e = hodu_json_get(root, "e");
  EXPECT(s->type == HODU_JSON_STRING && s->length == 2 &&
             !strcmp(hodu_json_string(s), "hi"),
         "values: string");
  EXPECT(e->type == HODU_JSON_STRING && e->length == 0 && e->text &&
             !e->text[0],
         "values: empty string");
  const hodu_json *a = hodu_json_get(root, "a");
  EXPECT(a->type == HODU_JSON_ARRAY && a->count == 3, "values: array");
  if (a->count == 3) {
    EXPECT(a->children[0].number == 1, "values: a[0]");
    const hodu_json *inner = &a->children[1];
    EXPECT(inner->type == HODU_JSON_ARRAY && inner->count == 2 &&
               inner->children[0].number == 2 &&
               inner->children[1].type == HODU_JSON_OBJECT &&
               inner->children[1].count == 0 && !inner->children[1].children,
           "values: a[1]");
    EXPECT(a->children[2].type == HODU_JSON_ARRAY && !a->children[2].count,
           "values: a[2]");
    EXPECT(a->line == 3 && a->column == 7 && inner->column == 11,
           "values: a at %u:%u", a->line, a->column);
  }
  const hodu_json *o = hodu_json_get(root, "o");
  EXPECT(!strcmp(hodu_json_string(hodu_json_get(o, "k")), "v"),
         "values: nested object");
  EXPECT(hodu_json_get(root, "z")->number == 0, "values: -0");
  EXPECT(walk(root, 0) == 17, "values: node count");
  hodu_json_free(root);

  /* Scalars at the top, with whitespace around them. */
  static const struct {
    const char *text;
    hodu_json_type type;
    double number;
  } scalars[] = {
      {" \t\r\n 42 \n", HODU_JSON_NUMBER, 42},
      {"\"s\"", HODU_JSON_STRING, 0},
      {"null", HODU_JSON_NULL, 0},
      {"true", HODU_JSON_BOOL, 0},
      {"0", HODU_JSON_NUMBER, 0},
      {"-0.5e-1", HODU_JSON_NUMBER, -0.05},
      {"1e-400", HODU_JSON_NUMBER, 0}, /* underflow is not an error */
      {"1.7976931348623157e308", HODU_JSON_NUMBER, 1.7976931348623157e308},
      {"123456789012345678901234567890", HODU_JSON_NUMBER,
       1.2345678901234568e29},
  };
  for (size_t k = 0; k < sizeof(scalars) / sizeof(*scalars); ++k) {
    hodu_json *value = parse(scalars[k].text, error, sizeof(error));
    EXPECT(value && value->type == scalars[k].type &&
               (value->type != HODU_JSON_NUMBER ||
                value->number == scalars[k].number),
           "scalar %s: %s", scalars[k].text, error);
    hodu_json_free(value);
  }
  hodu_json_free(NULL);
}

static void test_strings(void) {
  char error[256];
  hodu_json *value = parse("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9"
                           "\\u20AC\\ud83d\\ude00\", \"h\xc3\xa9llo "
                           "\xe2\x82\xac \xf0\x9f\x98\x80\x7f\"]",
                           error, sizeof(error));
  EXPECT(value, "strings: %s", error);
  if (!value)
    return;
  const char *escaped = "\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  EXPECT(!strcmp(value->children[0].text, escaped) &&
             value->children[0].length == strlen(escaped),
         "strings: escapes decode to '%s'", value->children[0].text);
  const char *raw = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\x7f";
  EXPECT(!strcmp(value->children[1].text, raw), "strings: raw UTF-8");
  hodu_json_free(value);
}

/* A document that must be refused with `message` at line:column. */
static void expect_error_bytes(const char *text, size_t size,
                               const char *message, unsigned line,
                               unsigned column) {
  char error[256], where[64];
  hodu_json *value = parse_bytes(text, size, error, sizeof(error));
  snprintf(where, sizeof(where), "line %u, column %u: ", line, column);
  EXPECT(!value, "error %s: parsed", message);
  EXPECT(!strncmp(error, where, strlen(where)) && strstr(error, message),
         "error: wanted \"%s%s\", got \"%s\"", where, message, error);
  hodu_json_free(value);
}

static void expect_error(const char *text, const char *message, unsigned line,
                         unsigned column) {
  expect_error_bytes(text, strlen(text), message, line, column);
}

static void test_errors(void) {
  /* Structure. */
  expect_error("", "expected a value, found the end of the input", 1, 1);
  expect_error("   \n  ", "expected a value, found the end of the input", 2, 3);
  expect_error("[", "expected a value, found the end of the input", 1, 2);
  expect_error("{\"a\":1,}", "a trailing comma before '}'", 1, 7);
  expect_error("[1,2,\n]", "a trailing comma before ']'", 1, 5);
  expect_error("[1 2]", "expected ',' or ']' after an array element, found '2'",
               1, 4);
  expect_error("{\n  \"a\": 1,\n  \"nam\": \"x\" ]",
               "expected ',' or '}' after an object member", 3, 14);
  expect_error("{\"a\" 1}", "expected ':' after an object key, found '1'", 1,
               6);
  expect_error("{1:2}", "expected a string key or '}', found '1'", 1, 2);
  expect_error("{\"a\":1,2}", "expected a string key, found '2'", 1, 8);
  expect_error("{'a':1}", "expected a string key or '}', found '''", 1, 2);
  expect_error("1 2", "expected the end of the input, found '2'", 1, 3);
  expect_error("nulll", "expected the end of the input, found 'l'", 1, 5);
  expect_error_bytes("1\0", 2, "expected the end of the input, found byte 0x00",
                     1, 2);
  expect_error_bytes("\0", 1, "expected a value, found byte 0x00", 1, 1);
  expect_error("// c\n1", "expected a value, found '/'", 1, 1);
  expect_error("/* c */ 1", "expected a value, found '/'", 1, 1);
  expect_error("\xef\xbb\xbf{}", "expected a value, found byte 0xEF", 1, 1);
  /* Literals. */
  expect_error("tru", "invalid literal: expected 'true'", 1, 1);
  expect_error("[fals]", "invalid literal: expected 'false'", 1, 2);
  expect_error("True", "expected a value, found 'T'", 1, 1);
  expect_error("NaN", "expected a value, found 'N'", 1, 1);
  expect_error("[Infinity]", "expected a value, found 'I'", 1, 2);
  expect_error("'a'", "expected a value, found '''", 1, 1);
  /* Numbers. */
  expect_error("-Infinity", "expected a digit after '-', found 'I'", 1, 2);
  expect_error("-", "expected a digit after '-', found the end", 1, 2);
  expect_error("01", "a number with a leading zero", 1, 1);
  expect_error("[-012]", "a number with a leading zero", 1, 2);
  expect_error("1.", "expected a digit after '.' in a number", 1, 3);
  expect_error("1.e5", "expected a digit after '.' in a number", 1, 3);
  expect_error(".5", "expected a value, found '.'", 1, 1);
  expect_error("+1", "expected a value, found '+'", 1, 1);
  expect_error("1e", "expected a digit in a number's exponent", 1, 3);
  expect_error("1E+", "expected a digit in a number's exponent", 1, 4);
  expect_error("0x10", "expected the end of the input, found 'x'", 1, 2);
  expect_error("[1,\n 1e999]", "the number 1e999 is out of the range", 2, 2);
  expect_error("-1e400", "is out of the range of a double", 1, 1);
  /* Strings. */
  expect_error("\"abc", "unterminated string", 1, 1);
  expect_error("\"a\\", "unterminated string", 1, 3);
  expect_error("\"\\x\"", "invalid escape in a string: '\\' followed by 'x'", 1,
               2);
  expect_error("\"\\'\"", "invalid escape in a string", 1, 2);
  expect_error("\"\\u12\"", "expected four hex digits after '\\u'", 1, 2);
  expect_error("\"\\u12", "expected four hex digits after '\\u'", 1, 2);
  expect_error("\"\\u0000\"", "a NUL (\\u0000) in a string", 1, 2);
  expect_error("\"\\ud800\"", "a lone surrogate \\uD800", 1, 2);
  expect_error("\"\\uDC00\"", "a lone surrogate \\uDC00", 1, 2);
  expect_error("\"\\u00e9\\ud83d\\u0041\"", "a lone surrogate \\uD83D", 1, 8);
  expect_error("\"\\ud83d\\ud83d\"", "a lone surrogate \\uD83D", 1, 2);
  expect_error("\"\\ud83d", "a lone surrogate \\uD83D", 1, 2);
  expect_error("\"a\tb\"", "a raw control character (byte 0x09)", 1, 3);
  expect_error("[\"a\nb\"]", "a raw control character (byte 0x0A)", 1, 4);
  expect_error_bytes("\"a\0\"", 4, "a raw control character (byte 0x00)", 1, 3);
  /* UTF-8: a bad byte, overlong forms, an encoded surrogate, past U+10FFFF,
   * a cut sequence, a lone continuation byte. */
  expect_error("\"\xff\"", "invalid UTF-8 (byte 0xFF) in a string", 1, 2);
  expect_error("\"ab\xc0\xaf\"", "invalid UTF-8 (byte 0xC0)", 1, 4);
  expect_error("\"\xe0\x80\xaf\"", "invalid UTF-8 (byte 0xE0)", 1, 2);
  expect_error("\"\xed\xa0\x80\"", "invalid UTF-8 (byte 0xED)", 1, 2);
  expect_error("\"\xf4\x90\x80\x80\"", "invalid UTF-8 (byte 0xF4)", 1, 2);
  expect_error("\"\xe2\x82\"", "invalid UTF-8 (byte 0xE2)", 1, 2);
  expect_error("\"\xe2\x82", "invalid UTF-8 (byte 0xE2)", 1, 2);
  expect_error("\"\x80\"", "invalid UTF-8 (byte 0x80)", 1, 2);
  expect_error("\xc3\xa9", "expected a value, found byte 0xC3", 1, 1);
  /* Duplicate keys, at the second one, after the syntax is checked. */
  expect_error("{\"a\":1,\n \"b\":2,\n   \"a\":3}", "duplicate key 'a'", 3, 4);
  expect_error("{\"x\":{\"k\":1,\"k\":[]}}", "duplicate key 'k'", 1, 13);
  expect_error("{\"\\u0061\":1,\"a\":2}", "duplicate key 'a'", 1, 13);
  expect_error("[{\"k\":1,\"k\":2}, ]", "a trailing comma before ']'", 1, 15);
  expect_error("{\"b\":1,\"a\":1,\"b\":1,\"a\":1}", "duplicate key 'b'", 1, 14);
  expect_error("{\"\\n\":1,\"\\n\":1}", "duplicate key '?'", 1, 9);

  /* Tiny and missing error buffers: always terminated, never overrun. */
  char *small = malloc(8);
  hodu_json *value = hodu_json_parse("[1,]", 4, small, 8);
  EXPECT(!value && strlen(small) == 7 && !strncmp(small, "line 1,", 7),
         "errors: 8-byte buffer holds \"%s\"", small);
  value = hodu_json_parse("[1,]", 4, small, 1);
  EXPECT(!value && small[0] == '\0', "errors: 1-byte buffer");
  free(small);
  EXPECT(!hodu_json_parse("[1,]", 4, NULL, 0), "errors: no buffer");
  EXPECT(!hodu_json_parse("[1,]", 4, NULL, 100), "errors: NULL buffer");
  char error[256];
  EXPECT(!hodu_json_parse(NULL, 5, error, sizeof(error)) &&
             strstr(error, "no input text"),
         "errors: NULL text: %s", error);
  EXPECT(!hodu_json_parse(NULL, 0, error, sizeof(error)) &&
             strstr(error, "expected a value"),
         "errors: NULL empty text: %s", error);
}

/* A manifest-like document of about 300 bytes. */
static const char manifest[] =
    "{\n"
    "  \"name\": \"cuda-kernels\",\n"
    "  \"version\": 3,\n"
    "  \"library\": \"libhodu_cuda.so\",\n"
    "  \"devices\": [\"cuda\", \"hip\"],\n"
    "  \"ops\": [\n"
    "    {\"op\": \"MatMul\", \"dtypes\": [\"f32\", \"f16\"], \"tile\": 128},\n"
    "    {\"op\": \"Conv\", \"min_rank\": 3, \"fused\": true, \"x\": null}\n"
    "  ],\n"
    "  \"note\": \"caf\\u00e9 \\ud83d\\ude00\\t\\\"q\\\"\", \"scale\": "
    "-1.5e-3\n"
    "}";

static void test_truncation(void) {
  size_t size = strlen(manifest);
  EXPECT(size >= 290 && size <= 320, "truncation: document of %zu bytes", size);
  char error[256];
  hodu_json *whole = parse_bytes(manifest, size, error, sizeof(error));
  EXPECT(whole, "truncation: whole document: %s", error);
  if (whole)
    EXPECT(walk(whole, 0) == 21, "truncation: node count");
  hodu_json_free(whole);
  for (size_t n = 0; n < size; ++n) {
    hodu_json *value = parse_bytes(manifest, n, error, sizeof(error));
    EXPECT(!value && !strncmp(error, "line ", 5),
           "truncation: %zu bytes: \"%s\"", n, error);
    hodu_json_free(value);
  }
}

static uint32_t xorshift(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static void test_mutations(void) {
  static const char interesting[] = "{}[]\",:\\u0e.-+ \n\x80\xff\xed\xf4tfn";
  size_t size = strlen(manifest);
  char *copy = malloc(size);
  uint32_t state = 0x2545f491;
  int parsed = 0;
  for (int round = 0; round < 20000; ++round) {
    memcpy(copy, manifest, size);
    int edits = 1 + (int)(xorshift(&state) % 4);
    for (int k = 0; k < edits; ++k) {
      size_t at = xorshift(&state) % size;
      uint32_t how = xorshift(&state);
      if (how % 3 == 0)
        copy[at] ^= (char)(1u << (how >> 8) % 8);
      else if (how % 3 == 1)
        copy[at] = (char)(how >> 8);
      else
        copy[at] = interesting[(how >> 8) % (sizeof(interesting) - 1)];
    }
    size_t length = xorshift(&state) % 8 ? size : xorshift(&state) % size;
    char error[128];
    hodu_json *value = parse_bytes(copy, length, error, sizeof(error));
    if (value) {
      ++parsed;
      walk(value, 0);
    } else {
      EXPECT(strlen(error) < sizeof(error) &&
                 (!strncmp(error, "line ", 5) || strstr(error, "memory")),
             "mutations: round %d: \"%s\"", round, error);
    }
    hodu_json_free(value);
  }
  free(copy);
  printf("mutations: 20000 rounds, %d parsed\n", parsed);
}

/* `depth` arrays or objects, nested, with 1 in the middle. */
static char *nested(int depth, int objects) {
  char *text = malloc((size_t)depth * 6 + 2), *at = text;
  for (int i = 0; i < depth; ++i)
    at += sprintf(at, "%s", objects ? "{\"a\":" : "[");
  *at++ = '1';
  for (int i = 0; i < depth; ++i)
    *at++ = objects ? '}' : ']';
  *at = '\0';
  return text;
}

static void test_depth(void) {
  char error[256];
  for (int objects = 0; objects < 2; ++objects) {
    char *text = nested(HODU_JSON_MAX_DEPTH, objects);
    hodu_json *value = parse(text, error, sizeof(error));
    EXPECT(value, "depth 64: %s", error);
    const hodu_json *inner = value;
    int depth = 0;
    while (inner && inner->count == 1) {
      inner = &inner->children[0];
      ++depth;
    }
    EXPECT(depth == 64 && inner && inner->number == 1, "depth 64: depth %d",
           depth);
    hodu_json_free(value);
    free(text);

    text = nested(HODU_JSON_MAX_DEPTH + 1, objects);
    expect_error(text, "nested deeper than 64", 1, objects ? 321 : 65);
    free(text);
    /* Far deeper: refused at the same place, without recursing further. */
    text = nested(200000, objects);
    expect_error(text, "nested deeper than 64", 1, objects ? 321 : 65);
    free(text);
  }
}

static void test_size(void) {
  size_t size = HODU_JSON_MAX_SIZE + 1;
  char *text = malloc(size), error[256];
  memset(text, ' ', size);
  memcpy(text, "[1]", 3);
  hodu_json *value = hodu_json_parse(text, size, error, sizeof(error));
  EXPECT(!value && strstr(error, "more than the limit"),
         "size: 16 MiB + 1: \"%s\"", error);
  hodu_json_free(value);
  value = hodu_json_parse(text, size - 1, error, sizeof(error));
  EXPECT(value && value->count == 1, "size: 16 MiB: \"%s\"", error);
  hodu_json_free(value);
  free(text);
}

/* Inputs that are slow for a careless reader: long numbers, wide arrays,
 * objects of many keys that share prefixes. */
static void test_hostile_shapes(void) {
  char error[256];
  size_t n = 200000;
  char *text = malloc(n + 3);
  memset(text, '0', n + 2);
  text[0] = '1';
  hodu_json *value = parse_bytes(text, n, error, sizeof(error));
  EXPECT(!value && strstr(error, "out of the range"), "long number: %s", error);
  text[1] = '.';
  text[n] = '1';
  value = parse_bytes(text, n + 1, error, sizeof(error));
  EXPECT(value && value->number == 1, "long fraction: %s", error);
  hodu_json_free(value);
  free(text);

  size_t keys = 20000, used = 0, capacity = keys * 48 + 64;
  text = malloc(capacity);
  used += (size_t)sprintf(text, "{");
  for (size_t k = 0; k < keys; ++k)
    used += (size_t)sprintf(text + used,
                            "%s\"a-long-shared-prefix-for-every-key-%zu\":%zu",
                            k ? "," : "", k, k);
  strcpy(text + used, "}");
  value = parse(text, error, sizeof(error));
  EXPECT(value && value->count == keys &&
             hodu_json_get(value, "a-long-shared-prefix-for-every-key-19999")
                     ->number == 19999,
         "many keys: %s", error);
  hodu_json_free(value);
  /* The same with one key repeated at the end. */
  strcpy(text + used, ",\"a-long-shared-prefix-for-every-key-5\":0}");
  value = parse(text, error, sizeof(error));
  EXPECT(!value && strstr(error, "duplicate key "
                                 "'a-long-shared-prefix-for-every-key-5'"),
         "many keys, a duplicate: %s", error);
  char where[64]; /* the repeated key's quote, after the ',' at text[used] */
  snprintf(where, sizeof(where), "line 1, column %zu:", used + 2);
  EXPECT(!strncmp(error, where, strlen(where)), "many keys: position: %s",
         error);
  free(text);
  /* A 51-byte key is shown whole, a longer one cut at a UTF-8 boundary. */
  expect_error("{\"a23456789012345678901234567890123456789012345678901\":1,"
               "\"a23456789012345678901234567890123456789012345678901\":1}",
               "duplicate key "
               "'a23456789012345678901234567890123456789012345678901'",
               1, 58);
  expect_error("{\"a2345678901234567890123456789012345678901234567\xc3\xa9"
               "xxxx\":1,"
               "\"a2345678901234567890123456789012345678901234567\xc3\xa9"
               "xxxx\":1}",
               "duplicate key "
               "'a2345678901234567890123456789012345678901234567...'",
               1, 60);

  n = 300000;
  text = malloc(2 * n + 1);
  for (size_t i = 0; i < n; ++i)
    memcpy(text + 2 * i, i ? ",0" : "[0", 2);
  text[2 * n] = ']';
  value = parse_bytes(text, 2 * n + 1, error, sizeof(error));
  EXPECT(value && value->count == n, "wide array: %s", error);
  hodu_json_free(value);
  free(text);
}

static void test_get(void) {
  char error[256];
  hodu_json *value = parse("[{\"a\":\"x\"}, \"s\", 1]", error, sizeof(error));
  EXPECT(value, "get: %s", error);
  if (!value)
    return;
  EXPECT(!hodu_json_get(NULL, "a"), "get: NULL object");
  EXPECT(!hodu_json_get(value, "a"), "get: array");
  EXPECT(!hodu_json_get(&value->children[1], "s"), "get: string");
  EXPECT(!hodu_json_get(&value->children[2], "a"), "get: number");
  EXPECT(!hodu_json_get(&value->children[0], "b"), "get: missing key");
  EXPECT(!hodu_json_get(&value->children[0], NULL), "get: NULL key");
  EXPECT(
      !strcmp(hodu_json_string(hodu_json_get(&value->children[0], "a")), "x"),
      "get: member");
  EXPECT(!hodu_json_string(NULL) && !hodu_json_string(&value->children[2]) &&
             !hodu_json_string(value),
         "string: of a non-string");
  EXPECT(!strcmp(hodu_json_string(&value->children[1]), "s"), "string");
  hodu_json_free(value);
}

static void test_quote(void) {
  static const char *const strings[] = {
      "plain",
      "",
      "with \"quotes\"",
      "back\\slash\\",
      "controls \x01\x1f\n\t\r\b\f\x7f end",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "\"\\\"\\",
      "/slash/",
  };
  for (size_t k = 0; k < sizeof(strings) / sizeof(*strings); ++k) {
    size_t length = hodu_json_quote(strings[k], NULL, 0);
    char *quoted = malloc(length + 1), error[256];
    EXPECT(hodu_json_quote(strings[k], quoted, length + 1) == length &&
               strlen(quoted) == length,
           "quote %zu: length", k);
    hodu_json *value = parse(quoted, error, sizeof(error));
    EXPECT(value && value->type == HODU_JSON_STRING &&
               !strcmp(value->text, strings[k]),
           "quote %zu: round trip of %s: %s", k, quoted, error);
    hodu_json_free(value);
    free(quoted);
  }
  char out[64];
  size_t length = hodu_json_quote("a\"b\\c\n\x01\x1f", out, sizeof(out));
  EXPECT(!strcmp(out, "\"a\\\"b\\\\c\\n\\u0001\\u001f\"") &&
             length == strlen(out),
         "quote: wrote %s", out);
  char *small = malloc(5);
  length = hodu_json_quote("abc\"def", small, 5);
  EXPECT(length == 10 && !strcmp(small, "\"abc"), "quote: cut to %s", small);
  free(small);
  EXPECT(hodu_json_quote(NULL, out, sizeof(out)) == 2 && !strcmp(out, "\"\""),
         "quote: NULL");
}

/* Each allocation failing in turn: NULL, "out of memory", no leak (LSan
 * reports one at exit). */
static void test_out_of_memory(void) {
  char error[256];
  allocations = 0;
  fail_allocation = -1;
  hodu_json *value =
      oom_json_parse(manifest, strlen(manifest), error, sizeof(error));
  int needed = allocations;
  EXPECT(value && needed == 2, "oom: %d allocations: %s", needed, error);
  oom_json_free(value);
  for (int k = 0; k < needed; ++k) {
    allocations = 0;
    fail_allocation = k;
    value = oom_json_parse(manifest, strlen(manifest), error, sizeof(error));
    EXPECT(!value && !strcmp(error, "out of memory"),
           "oom: allocation %d: \"%s\"", k, error);
    oom_json_free(value);
  }
  /* A malformed input fails before allocating anything. */
  allocations = 0;
  fail_allocation = -1;
  EXPECT(!oom_json_parse("[1,]", 4, error, sizeof(error)) && !allocations,
         "oom: allocated for a malformed input");
}

int main(void) {
  test_values();
  test_strings();
  test_errors();
  test_truncation();
  test_mutations();
  test_depth();
  test_size();
  test_hostile_shapes();
  test_get();
  test_quote();
  test_out_of_memory();
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("all JSON tests passed\n");
  return 0;
}
