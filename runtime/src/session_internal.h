/*===- session_internal.h - a session's fields, for session*.c ------------===*
 *
 * The session (session.c: creation, binding, runs, capture and replay)
 * and the copies a bundle's symbols need around each pass of its plan
 * (session_passes.c). Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_SESSION_INTERNAL_H
#define HODU_RUNTIME_SESSION_INTERNAL_H

#include "session.h"

#include <stdint.h>

typedef struct segment {
  uint32_t device; /* plan device */
  uint32_t first;  /* steps [first, first + count) */
  uint32_t count;
  int transfer; /* one TRANSFER step, run by the executor */
  hodu_program *program;
} segment;

struct hodu_session {
  const hodu_model *model;
  const hodu_plan *plan;
  hodu_session_state state;
  int internal;
  hodu_buffer **arenas; /* per plan device; NULL without an arena */
  /* The tensors the session owns, on their devices: the meta slots, then
   * the state tensors' values, then their next values (plan tensors from
   * num_inputs + num_outputs on). */
  hodu_buffer **owned;
  uint32_t num_owned;
  const hodu_tensor **inputs; /* bound; all NULL until bound */
  hodu_tensor **outputs;
  hodu_buffer **input_mirrors;  /* host inputs of GPU devices */
  hodu_buffer **output_mirrors; /* host outputs of GPU devices */
  int bound;
  hodu_binding *bindings; /* per plan arg */
  /* Every plan variant's segments, one variant after another: variant v's
   * are [variant_segments[v], variant_segments[v + 1]) (one variant, the
   * whole plan, without VARIANTS), and programs_ready[v] says whether
   * they have programs. `variant` is the one the bound values take
   * (hodu_plan_pick_variant); a run, a capture and a replay run its
   * segments only. */
  segment *segments;
  uint32_t num_segments;
  uint32_t *variant_segments;
  uint8_t *programs_ready;
  uint32_t variant;
  hodu_session_stats stats;
  /* Models with symbols: the values of the bound tensors (one per
   * symbol; NULL without symbols), which descriptor programs read at every
   * run and bundle runs cut into passes. */
  int64_t *symbol_values;
  int32_t num_symbols;
  /* A padded symbol's bundle: per input, HODU_SESSION_STALE entries: the
   * extent along each padded dim (and, last, along the chunked one) that
   * its mirror's last run wrote (what lies past it up to there is stale,
   * not zero). */
  int64_t *padded_rows;
};

/* Entries of hodu_session.padded_rows per input. */
#define HODU_SESSION_STALE (HODU_PLAN_MAX_PADDED + 1u)

/* The segments of the session's variant: [*begin, *end). */
static inline void session_segments(const hodu_session *s, uint32_t *begin,
                                    uint32_t *end) {
  *begin = s->variant_segments[s->variant];
  *end = s->variant_segments[s->variant + 1];
}

static inline hodu_device *tensor_device(const hodu_session *s,
                                         uint32_t tensor) {
  return s->model->devices[s->plan->tensors[tensor].device];
}

/* Passes of a bundle's symbols (session_passes.c). */

/* How many passes a run at the bound values makes: ceil(n / chunk) for a
 * chunked symbol, else 1. */
int64_t hodu_session_num_passes(const hodu_session *s);
/* The units of the chunked symbol the pass starting at unit `off` covers
 * (0 without one). */
int64_t hodu_session_pass_rows(const hodu_session *s, int64_t off);
/* Marks every input mirror of a padded symbol's bundle stale over the
 * whole layout of the session's variant (a new session, or a run that
 * takes another variant: the mirror's layout changed). */
void hodu_session_stale_mirrors(hodu_session *s);
/* The copies before (`out` 0: inputs into their mirrors, a padded
 * symbol's value into its slot) or after (`out` 1: outputs out of their
 * mirrors) the pass over units [off, off + rows). */
hodu_status hodu_session_pass_copy(hodu_session *s, int64_t off, int64_t rows,
                                   int out);

#endif /* HODU_RUNTIME_SESSION_INTERNAL_H */
