/* Runs a bundle with a padded symbol (compiled at its bound, the padding
 * masked), and maybe a batch in chunks too, through libhodurt's C API:
 * one session at several values in turn, longer and shorter, must give
 * the bits a fresh session gives at each (a shorter run after a longer one
 * must not see the longer run's inputs past its extent); device tensors
 * the host tensors' bits; a captured session replays its values and
 * refuses others; and the meta slot that holds the value is the runtime's
 * to write. Each argument after the bundle is one run's values in the
 * model's symbol order, comma-separated ("16", "2,9" or "1,32,8"). */
#include "../try.h"
#include "hodu/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IO 8

typedef struct run {
  int32_t num_inputs, num_outputs;
  hodu_tensor *in[MAX_IO], *out[MAX_IO];
} run;

/* Parses "a,b" into `values` (the model's symbols in order). */
static int parse_values(const hodu_model *m, const char *text,
                        int64_t *values) {
  int32_t count = hodu_model_num_symbols(m);
  char *end = NULL;
  for (int32_t k = 0; k < count; ++k) {
    values[k] = strtoll(text, &end, 10);
    if (end == text || (k + 1 < count && *end != ','))
      return printf("bad values '%s'\n", text), 1;
    text = end + 1;
  }
  return 0;
}

/* Inputs at `text`'s values with data that depends on them (ids and masks
 * stay small integers), and outputs at them. */
static int make(const hodu_model *m, const char *text, run *r) {
  int64_t values[4] = {0, 0, 0, 0};
  if (hodu_model_num_symbols(m) > 4)
    return printf("more than 4 symbols\n"), 1;
  if (parse_values(m, text, values))
    return 1;
  int64_t n = values[0] + 7 * values[1] + 13 * values[2] + 17 * values[3];
  int32_t num_values = hodu_model_num_symbols(m);
  r->num_inputs = hodu_model_num_inputs(m);
  r->num_outputs = hodu_model_num_outputs(m);
  if (r->num_inputs > MAX_IO || r->num_outputs > MAX_IO)
    return printf("too many inputs or outputs\n"), 1;
  for (int32_t i = 0; i < r->num_inputs; ++i) {
    TRY(hodu_model_create_input_with_symbols(m, i, values, num_values,
                                             &r->in[i]));
    hodu_tensor *t = r->in[i];
    size_t count = hodu_tensor_bytes(t) / hodu_dtype_size(hodu_tensor_dtype(t));
    for (size_t k = 0; k < count; ++k) {
      if (hodu_tensor_dtype(t) == HODU_DTYPE_I64)
        ((int64_t *)hodu_tensor_data(t))[k] = 1 + (int64_t)((k + n) % 3);
      else if (hodu_tensor_dtype(t) == HODU_DTYPE_F32)
        ((float *)hodu_tensor_data(t))[k] =
            (float)((k * 37 + n) % 101) / 50.0f - 1.0f;
    }
  }
  for (int32_t o = 0; o < r->num_outputs; ++o)
    TRY(hodu_model_create_output_with_symbols(m, o, values, num_values,
                                              &r->out[o]));
  return 0;
}

static void release(run *r) {
  for (int32_t i = 0; i < r->num_inputs; ++i)
    hodu_tensor_free(r->in[i]);
  for (int32_t o = 0; o < r->num_outputs; ++o)
    hodu_tensor_free(r->out[o]);
}

static int same(const run *a, const run *b) {
  for (int32_t o = 0; o < a->num_outputs; ++o)
    if (hodu_tensor_bytes(a->out[o]) != hodu_tensor_bytes(b->out[o]) ||
        memcmp(hodu_tensor_data(a->out[o]), hodu_tensor_data(b->out[o]),
               hodu_tensor_bytes(a->out[o])) != 0)
      return 0;
  return 1;
}

static int run_in(hodu_session *s, run *r) {
  TRY(hodu_session_bind(s, (const hodu_tensor *const *)r->in, r->num_inputs,
                        r->out, r->num_outputs));
  TRY(hodu_session_run(s));
  return 0;
}

/* Value n in the reused session `s` against a fresh session, and through
 * device tensors. */
static int step(const hodu_model *m, hodu_session *s, const char *n) {
  run reused, fresh;
  if (make(m, n, &reused) || make(m, n, &fresh) || run_in(s, &reused))
    return 1;
  hodu_session *f = NULL;
  TRY(hodu_session_create(m, &f));
  if (run_in(f, &fresh))
    return 1;
  hodu_session_free(f);
  /* Device tensors, in the reused session too. */
  hodu_tensor *din[MAX_IO], *dout[MAX_IO];
  for (int32_t i = 0; i < reused.num_inputs; ++i) {
    hodu_tensor *t = reused.in[i];
    TRY(hodu_model_create_device_tensor(m, hodu_tensor_dtype(t),
                                        hodu_tensor_rank(t),
                                        hodu_tensor_shape(t), &din[i]));
    TRY(hodu_tensor_write(din[i], hodu_tensor_data(t), hodu_tensor_bytes(t)));
  }
  for (int32_t o = 0; o < reused.num_outputs; ++o) {
    hodu_tensor *t = reused.out[o];
    TRY(hodu_model_create_device_tensor(m, hodu_tensor_dtype(t),
                                        hodu_tensor_rank(t),
                                        hodu_tensor_shape(t), &dout[o]));
  }
  TRY(hodu_session_bind(s, (const hodu_tensor *const *)din, reused.num_inputs,
                        dout, reused.num_outputs));
  TRY(hodu_session_run(s));
  int device_same = 1;
  for (int32_t o = 0; o < reused.num_outputs; ++o) {
    size_t bytes = hodu_tensor_bytes(reused.out[o]);
    void *got = malloc(bytes ? bytes : 1);
    TRY(hodu_tensor_read(dout[o], got, bytes));
    device_same &= memcmp(got, hodu_tensor_data(reused.out[o]), bytes) == 0;
    free(got);
    hodu_tensor_free(dout[o]);
  }
  for (int32_t i = 0; i < reused.num_inputs; ++i)
    hodu_tensor_free(din[i]);
  printf("n=%s: reused session %s, device tensors %s", n,
         same(&reused, &fresh) ? "same" : "DIFFER",
         device_same ? "same" : "DIFFER");
  /* A bundle with variants (format 1.6): the plan the run took. */
  if (hodu_model_plan_count(m, HODU_BUNDLE_SECTION_VARIANTS)) {
    hodu_session_stats stats = {sizeof stats};
    TRY(hodu_session_get_stats(s, &stats));
    printf(", plan %llu", (unsigned long long)stats.plan_variant);
  }
  printf("\n");
  release(&reused);
  release(&fresh);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  hodu_model *m = NULL;
  TRY(hodu_model_load(argv[1], &m));
  const hodu_symbol_desc *symbol = NULL;
  for (int32_t k = 0; k < hodu_model_num_symbols(m); ++k) {
    symbol = hodu_model_symbol(m, k);
    char max[32] = "";
    if (symbol->max >= 0)
      snprintf(max, sizeof max, "%lld", (long long)symbol->max);
    printf("symbol %s %lld..%s, compiled at %lld\n", symbol->name,
           (long long)symbol->min, max, (long long)symbol->chunk);
  }
  if (!symbol)
    return printf("no symbol\n"), 1;
  /* The padded one (its bound is its chunk). */
  for (int32_t k = 0; k < hodu_model_num_symbols(m); ++k)
    if (hodu_model_symbol(m, k)->chunk == hodu_model_symbol(m, k)->max)
      symbol = hodu_model_symbol(m, k);
  hodu_session *s = NULL;
  TRY(hodu_session_create(m, &s));
  /* The values to run, longest first. */
  for (int a = 2; a < argc; ++a)
    if (step(m, s, argv[a]))
      return 1;

  /* The value's meta slot. */
  int32_t slot = -1;
  TRY(hodu_model_meta_slot_index(m, symbol->name, &slot));
  int64_t forced = 1;
  hodu_status status =
      hodu_session_write_meta_slot(s, slot, &forced, sizeof forced);
  printf("write meta slot: %s\n", status ? hodu_status_message(status) : "ok");
  hodu_status_free(status);
  hodu_session_free(s);

  /* Capture at the last values, replay, then bind at the first. */
  const char *n = argv[argc - 1], *other = argv[2];
  run r, ref, r2;
  if (make(m, n, &r) || make(m, n, &ref) || make(m, other, &r2))
    return 1;
  TRY(hodu_model_run(m, (const hodu_tensor *const *)ref.in, ref.num_inputs,
                     ref.out, ref.num_outputs));
  TRY(hodu_session_create(m, &s));
  if (run_in(s, &r))
    return 1;
  TRY(hodu_session_capture(s));
  for (int32_t o = 0; o < r.num_outputs; ++o)
    memset(hodu_tensor_data(r.out[o]), 0, hodu_tensor_bytes(r.out[o]));
  TRY(hodu_session_replay(s, 2));
  printf("n=%s: replay %s\n", n, same(&r, &ref) ? "same" : "DIFFER");
  status = hodu_session_bind(s, (const hodu_tensor *const *)r2.in,
                             r2.num_inputs, r2.out, r2.num_outputs);
  printf("bind at %s: %s\n", other,
         status ? hodu_status_message(status) : "ok");
  hodu_status_free(status);
  hodu_session_free(s);
  release(&r);
  release(&ref);
  release(&r2);
  hodu_model_free(m);
  return 0;
}
