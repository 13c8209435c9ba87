/*===- bundle_internal.h - what the bundle reader's files share ------------===*
 *
 * The bundle reader is split in two: bundle.c reads the file, checks the
 * header and the section table and drives the parse; bundle_tables.c
 * checks the contents of each section (strings, model, devices, tensors,
 * code objects, kernels, arguments and steps). This header has the parser
 * state they pass along and the helpers both use. Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_BUNDLE_INTERNAL_H
#define HODU_RUNTIME_BUNDLE_INTERNAL_H

#include "internal.h"
#include "plan.h"

/* Section kinds 0 (none) to HODU_BUNDLE_SECTION_VARIANT_STEPS. */
#define SECTION_KINDS (HODU_BUNDLE_SECTION_VARIANT_STEPS + 1u)

/* a + b <= limit, without overflow. */
static inline int fits(uint64_t a, uint64_t b, uint64_t limit) {
  return a <= limit && b <= limit - a;
}

typedef struct parser {
  const uint8_t *data;
  uint64_t size;
  const char *origin;
  hodu_plan *plan;
  /* Sections by kind; present[k] says whether kind k was found. */
  hodu_bundle_section sections[SECTION_KINDS];
  int present[SECTION_KINDS];
  /* MODEL's num_state_tensors (minor 2), split off when the tables are
   * checked. */
  uint32_t num_state;
} parser;

/* A status for a malformed bundle: "<origin>: malformed bundle: <text>". */
#define BAD(p, ...) hodu_bundle_bad((p), __VA_ARGS__)
hodu_status hodu_bundle_bad(const parser *p, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static inline hodu_status out_of_memory(void) {
  return hodu_make_status(HODU_OUT_OF_MEMORY, "out of memory");
}

/* bundle.c: copies the entries of section `kind` into a new array of
 * `count` records of `record_size` bytes (the prefix of each entry). */
hodu_status hodu_bundle_copy_table(parser *p, uint32_t kind, size_t record_size,
                                   void **out, uint32_t *count);

/* bundle_tables.c: checks every section after the header and the section
 * table, in order, and fills the plan's tables from them. */
hodu_status hodu_bundle_check_tables(parser *p);

/* bundle_tables.c: checks step `i` of section `section` ("STEPS",
 * "VARIANT_STEPS") against the devices, kernels and ARGS. */
hodu_status hodu_bundle_check_step(parser *p, const char *section, uint32_t i,
                                   const hodu_bundle_step *s);

/* bundle_variants.c: VARIANTS and VARIANT_STEPS (minor 6), after the
 * symbols: checks them and appends the variants' steps to the plan's. */
hodu_status hodu_bundle_check_variants(parser *p);

#endif /* HODU_RUNTIME_BUNDLE_INTERNAL_H */
