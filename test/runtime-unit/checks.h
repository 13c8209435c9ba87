/*===- checks.h - the checks of the runtime's C tests
 *-----------------------===*
 *
 * Test-only, one test program per translation unit: each failed check
 * prints where and why and counts in `failures`, which main returns.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_TEST_CHECKS_H
#define HODU_TEST_CHECKS_H

#include "hodu/runtime.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Expects success; prints the message otherwise. */
#define CHECK_OK(expr)                                                         \
  do {                                                                         \
    hodu_status check_status_ = (expr);                                        \
    if (check_status_) {                                                       \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,     \
              hodu_status_message(check_status_));                             \
      hodu_status_free(check_status_);                                         \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* Expects an error with `code` whose message contains `text`. */
#define CHECK_ERROR(expr, code, text)                                          \
  check_error((expr), (code), (text), #expr, __LINE__)

static void check_error(hodu_status status, hodu_status_code code,
                        const char *text, const char *expr, int line) {
  if (!status) {
    fprintf(stderr, "%s:%d: %s succeeded, expected %s\n", __FILE__, line, expr,
            hodu_status_code_name(code));
    ++failures;
    return;
  }
  if (hodu_status_get_code(status) != code ||
      !strstr(hodu_status_message(status), text)) {
    fprintf(stderr, "%s:%d: %s gave %s \"%s\", expected %s containing \"%s\"\n",
            __FILE__, line, expr,
            hodu_status_code_name(hodu_status_get_code(status)),
            hodu_status_message(status), hodu_status_code_name(code), text);
    ++failures;
  }
  hodu_status_free(status);
}

#endif /* HODU_TEST_CHECKS_H */
