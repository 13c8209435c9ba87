/*===- bundle_fuzz.c - libFuzzer target for the bundle reader --------------===*
 *
 * Feeds arbitrary bytes to hodu_bundle_parse: every input must give a plan
 * or a status, never a crash, a leak or undefined behaviour (built with
 * ASan and UBSan). ctest runs it briefly over valid bundles as seeds.
 *
 *===----------------------------------------------------------------------===*/
#include "plan.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *copy = aligned_alloc(64, size ? (size + 63) / 64 * 64 : 64);
  if (!copy)
    return 0;
  if (size)
    memcpy(copy, data, size);
  hodu_plan *plan = NULL;
  hodu_status status = hodu_bundle_parse(copy, size, "'fuzz'", &plan);
  /* A plan that validated can be walked without checks. */
  if (plan)
    for (uint32_t s = 0; s < plan->num_steps; ++s)
      if (plan->steps[s].num_args)
        (void)hodu_plan_arg_device(plan, &plan->args[plan->steps[s].first_arg]);
  hodu_plan_free(plan);
  hodu_status_free(status);
  return 0;
}
