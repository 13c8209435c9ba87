/* Runs the decoder step of symbolic-padded.test through its generated
 * headers: compiled once with batch free (run in chunks) and past free up
 * to 16 (padded), as dec2, and pinned to batch 1 and past 3, as dec3. A
 * run of dec2 at batch 2 and past 3 gives each sample what dec3 gives it
 * alone; a past of 17 is the past symbol's check. */
#include "dec2.h"
#include "dec3.h"

#include <math.h>
#include <stdio.h>

int main(void) {
  enum { B = 2, P = 3 };
  int64_t ids[B] = {4, 9}, pos[B] = {P, P};
  float pk[DEC2_INPUT2_ELEMENTS(B, P)], pv[DEC2_INPUT3_ELEMENTS(B, P)];
  for (int i = 0; i < DEC2_INPUT2_ELEMENTS(B, P); ++i) {
    pk[i] = sinf(0.3f * (float)i);
    pv[i] = cosf(0.7f * (float)i);
  }
  float logits[DEC2_OUTPUT0_ELEMENTS(B)];
  float k[DEC2_OUTPUT1_ELEMENTS(B, P)], v[DEC2_OUTPUT2_ELEMENTS(B, P)];
  printf("caches %d, %d per sample %d\n", (int)DEC2_INPUT2_ELEMENTS(B, P),
         (int)DEC2_OUTPUT1_ELEMENTS(B, P), (int)DEC3_OUTPUT1_ELEMENTS);
  int rc = dec2_run(B, P, ids, pos, pk, pv, logits, k, v);
  double err = 0;
  for (int b = 0; b < B; ++b) {
    float ref[DEC3_OUTPUT0_ELEMENTS], k3[DEC3_OUTPUT1_ELEMENTS],
        v3[DEC3_OUTPUT2_ELEMENTS];
    int rc3 = dec3_run(ids + b, pos + b, pk + b * DEC3_INPUT2_ELEMENTS,
                       pv + b * DEC3_INPUT3_ELEMENTS, ref, k3, v3);
    if (rc3)
      printf("dec3 rc=%d\n", rc3);
    for (int i = 0; i < DEC3_OUTPUT0_ELEMENTS; ++i)
      err = fmax(err, fabs(logits[b * DEC3_OUTPUT0_ELEMENTS + i] - ref[i]));
    for (int i = 0; i < DEC3_OUTPUT1_ELEMENTS; ++i)
      err = fmax(err, fmax(fabs(k[b * DEC3_OUTPUT1_ELEMENTS + i] - k3[i]),
                           fabs(v[b * DEC3_OUTPUT2_ELEMENTS + i] - v3[i])));
  }
  printf("batch=%d past=%d rc=%d %s\n", B, P, rc,
         err < 1e-5 ? "close" : "DIFFERENT");
  static float big[DEC2_INPUT2_ELEMENTS(1, 17)],
      out[DEC2_OUTPUT1_ELEMENTS(1, 17)];
  rc = dec2_run(1, 17, ids, pos, big, big, logits, out, out);
  printf("past=17 rc=%d (%s)\n", rc,
         dec2_hodu_descriptor.check_messages[rc - 2]);
  return 0;
}
