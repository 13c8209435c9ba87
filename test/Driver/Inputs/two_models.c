// Links two hoduc objects (--name=mm and --name=adder) into one program and
// runs both through their prefixed descriptors.
#include "hodu/abi.h"
#include <stdio.h>
#include <string.h>

extern const hodu_model_desc mm_hodu_descriptor;
extern const hodu_model_desc adder_hodu_descriptor;

int main(void) {
  float a[32], b[24], c[12];
  for (int i = 0; i < 32; i++) a[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < 24; i++) b[i] = (float)(i % 5) * 0.5f;
  void *mi[] = {a, b}, *mo[] = {c};
  if (mm_hodu_descriptor.entry(mi, mo, NULL) != 0) return 1;
  double err = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) {
      double r = 0;
      for (int k = 0; k < 8; k++) r += (double)a[i * 8 + k] * b[k * 3 + j];
      double e = r - c[i * 3 + j];
      err = e < 0 ? (err > -e ? err : -e) : (err > e ? err : e);
    }
  int x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, -50}, s[5];
  void *ai[] = {x, y}, *ao[] = {s};
  if (adder_hodu_descriptor.entry(ai, ao, NULL) != 0) return 1;
  printf("%s %s %s maxerr=%g sum=%d,%d,%d,%d,%d\n", mm_hodu_descriptor.model_name,
         adder_hodu_descriptor.model_name, adder_hodu_descriptor.inputs[1].name,
         err, s[0], s[1], s[2], s[3], s[4]);
  return err < 1e-4 ? 0 : 1;
}
