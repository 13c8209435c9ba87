/* Runs the decoder step of symbolic-padded.test through its generated
 * headers: compiled once with past free up to 16 (dec), and pinned to
 * past 3 (dec3). At past 3 both give the same logits and caches; the
 * caches are past + 1 long; past 17 is the symbol check's code. */
#include "dec.h"
#include "dec3.h"

#include <math.h>
#include <stdio.h>

int main(void) {
  int64_t ids[1] = {4}, pos[1] = {3};
  float pk[DEC_INPUT2_ELEMENTS(3)], pv[DEC_INPUT3_ELEMENTS(3)];
  for (int i = 0; i < DEC_INPUT2_ELEMENTS(3); ++i) {
    pk[i] = sinf(0.3f * (float)i);
    pv[i] = cosf(0.7f * (float)i);
  }
  float logits[DEC_OUTPUT0_ELEMENTS], ref[DEC3_OUTPUT0_ELEMENTS];
  float k[DEC_OUTPUT1_ELEMENTS(3)], v[DEC_OUTPUT2_ELEMENTS(3)];
  float k3[DEC3_OUTPUT1_ELEMENTS], v3[DEC3_OUTPUT2_ELEMENTS];
  printf("cache %d of %d\n", (int)DEC_OUTPUT1_ELEMENTS(3),
         (int)DEC3_OUTPUT1_ELEMENTS);
  int rc = dec_run(3, ids, pos, pk, pv, logits, k, v);
  int rc3 = dec3_run(ids, pos, pk, pv, ref, k3, v3);
  double err = 0;
  for (int i = 0; i < DEC_OUTPUT0_ELEMENTS; ++i)
    err = fmax(err, fabs(logits[i] - ref[i]));
  for (int i = 0; i < DEC3_OUTPUT1_ELEMENTS; ++i)
    err = fmax(err, fmax(fabs(k[i] - k3[i]), fabs(v[i] - v3[i])));
  printf("past=3 rc=%d,%d %s\n", rc, rc3, err < 1e-5 ? "close" : "DIFFERENT");
  float big[DEC_INPUT2_ELEMENTS(17)], out[DEC_OUTPUT1_ELEMENTS(17)];
  rc = dec_run(17, ids, pos, big, big, logits, out, out);
  printf("past=17 rc=%d (%s)\n", rc,
         dec_hodu_descriptor.check_messages[rc - 2]);
  return 0;
}
