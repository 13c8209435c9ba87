/* TRY(call) for the C programs the Runtime tests compile: a call that
 * returns a status prints "error: <message>" and makes the caller return
 * 1. */
#ifndef HODU_TEST_RUNTIME_TRY_H
#define HODU_TEST_RUNTIME_TRY_H

#include "hodu/runtime.h"

#include <stdio.h>

static int fail(hodu_status status) {
  printf("error: %s\n", hodu_status_message(status));
  hodu_status_free(status);
  return 1;
}

#define TRY(call)                                                              \
  do {                                                                         \
    hodu_status status_ = (call);                                              \
    if (status_)                                                               \
      return fail(status_);                                                    \
  } while (0)

#endif /* HODU_TEST_RUNTIME_TRY_H */
