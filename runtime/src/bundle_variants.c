/*===- bundle_variants.c - a bundle's plans at smaller padded sizes -------===*
 *
 * VARIANTS and VARIANT_STEPS (bundle format 1.6; hodu/bundle.h): the same
 * model's plan compiled with its padded symbols at sizes below their
 * bounds. Each record is checked against the symbols (its sizes must be
 * values the symbols take, so every extent that follows them is whole, as
 * DYNAMIC_DIMS' check makes sure), and its steps as STEPS' are; the steps are
 *appended to the plan's, and plan->variants lists the bounds' plan first, then
 *each record (plan.h). A run takes the variant of fewest elements that holds
 * its values (hodu_plan_pick_variant; the session stages each tensor in
 * that variant's layout, session_passes.c).
 *
 *===----------------------------------------------------------------------===*/
#include "bundle_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks variant record `v` and fills plan->variants[v + 1] from it;
 * `first` is where its steps go in plan->steps. */
static hodu_status check_variant(parser *p, uint32_t v,
                                 const hodu_bundle_variant *r,
                                 uint32_t num_steps, uint32_t first) {
  hodu_plan *plan = p->plan;
  uint32_t num_symbols = plan->num_symbols;
  if (r->flags)
    return BAD(p, "section VARIANTS entry %u: flags is %u, must be 0",
               (unsigned)v, (unsigned)r->flags);
  if (r->num_steps == 0 || !fits(r->first_step, r->num_steps, num_steps))
    return BAD(p,
               "section VARIANTS entry %u: steps [%u, +%u) are not a "
               "non-empty range of the %u entries of VARIANT_STEPS",
               (unsigned)v, (unsigned)r->first_step, (unsigned)r->num_steps,
               (unsigned)num_steps);
  if (!fits(r->first_size, num_symbols, plan->num_dims))
    return BAD(p,
               "section VARIANTS entry %u: sizes DIMS[%u, +%u) reach past "
               "the %u entries of DIMS",
               (unsigned)v, (unsigned)r->first_size, (unsigned)num_symbols,
               (unsigned)plan->num_dims);
  hodu_plan_variant *out = &plan->variants[v + 1];
  out->first = first + r->first_step;
  out->count = r->num_steps;
  out->elements = 1;
  int smaller = 0;
  for (uint32_t k = 0; k < num_symbols; ++k) {
    const hodu_symbol_desc *sym = &plan->symbols[k];
    int64_t n = plan->dims[r->first_size + k];
    out->sizes[k] = n;
    int padded = (int32_t)k != plan->chunk_symbol;
    char problem[160] = "";
    if (!padded && n != plan->chunk)
      snprintf(problem, sizeof problem,
               "is not its chunk %lld (a variant changes the padded "
               "symbols' sizes only)",
               (long long)plan->chunk);
    else if (padded && (n < sym->min || n > sym->max || n < 1))
      snprintf(problem, sizeof problem, "is outside %lld..%lld%s",
               (long long)sym->min, (long long)sym->max,
               n < 1 ? " or below 1" : "");
    else if (padded && n % sym->multiple != 0)
      /* (which also makes every extent whole: SYMBOLS' check) */
      snprintf(problem, sizeof problem, "is not a multiple of %lld",
               (long long)sym->multiple);
    if (*problem)
      return BAD(p, "section VARIANTS entry %u: size %lld of symbol '%s' %s",
                 (unsigned)v, (long long)n, sym->name, problem);
    if (padded) {
      out->elements *= (double)n;
      smaller |= n < sym->max;
    }
  }
  if (!smaller)
    return BAD(p,
               "section VARIANTS entry %u: every padded symbol's size is "
               "its bound, which is STEPS' plan",
               (unsigned)v);
  return NULL;
}

hodu_status hodu_bundle_check_variants(parser *p) {
  hodu_plan *plan = p->plan;
  hodu_bundle_variant *records = NULL;
  hodu_bundle_step *steps = NULL;
  uint32_t num_records = 0, num_steps = 0;
  hodu_status status =
      hodu_bundle_copy_table(p, HODU_BUNDLE_SECTION_VARIANTS, sizeof *records,
                             (void **)&records, &num_records);
  if (!status)
    status = hodu_bundle_copy_table(p, HODU_BUNDLE_SECTION_VARIANT_STEPS,
                                    sizeof *steps, (void **)&steps, &num_steps);
  if (!status && !num_records && num_steps)
    status = BAD(p,
                 "section VARIANT_STEPS: holds %u steps, but there is no "
                 "VARIANTS section",
                 (unsigned)num_steps);
  if (!status && num_records && !plan->num_padded)
    status = BAD(p,
                 "section VARIANTS: holds %u entries, but the model has no "
                 "padded symbol",
                 (unsigned)num_records);
  for (uint32_t i = 0; i < num_steps && !status; ++i)
    status = hodu_bundle_check_step(p, "VARIANT_STEPS", i, &steps[i]);
  if (status || !num_records) {
    free(records);
    free(steps);
    return status;
  }
  uint32_t main_steps = plan->num_steps;
  if (num_steps > UINT32_MAX - main_steps)
    status = BAD(p, "sections STEPS and VARIANT_STEPS hold more than 2^32 - 1 "
                    "steps");
  hodu_bundle_step *all =
      status
          ? NULL
          : realloc(plan->steps, sizeof *all * (main_steps + num_steps + 1u));
  plan->variants = calloc(num_records + 1u, sizeof *plan->variants);
  if (!status && (!all || !plan->variants))
    status = out_of_memory();
  if (all) {
    plan->steps = all;
    memcpy(all + main_steps, steps, sizeof *steps * num_steps);
    plan->num_steps = main_steps + num_steps;
  }
  if (!status) {
    /* Variant 0: STEPS, at the bounds (a padded symbol's chunk is its
     * bound). */
    hodu_plan_variant *bound = &plan->variants[0];
    bound->first = 0;
    bound->count = main_steps;
    bound->elements = 1;
    for (uint32_t k = 0; k < plan->num_symbols; ++k) {
      bound->sizes[k] = plan->symbols[k].chunk;
      if ((int32_t)k != plan->chunk_symbol)
        bound->elements *= (double)plan->symbols[k].chunk;
    }
    plan->num_variants = num_records + 1u;
  }
  for (uint32_t v = 0; v < num_records && !status; ++v)
    status = check_variant(p, v, &records[v], num_steps, main_steps);
  free(steps);
  if (!status) {
    plan->variant_records = records;
    return NULL;
  }
  free(records);
  return status;
}

uint32_t hodu_plan_pick_variant(const hodu_plan *plan, const int64_t *values) {
  uint32_t best = 0;
  for (uint32_t v = 1; v < plan->num_variants; ++v) {
    const hodu_plan_variant *variant = &plan->variants[v];
    int holds = 1;
    for (uint32_t j = 0; j < plan->num_padded && holds; ++j) {
      int32_t k = plan->pad_symbols[j];
      holds = values[k] <= variant->sizes[k];
    }
    if (holds && variant->elements < plan->variants[best].elements)
      best = v;
  }
  return best;
}
