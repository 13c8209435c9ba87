/*===- select.h - selection's candidates (private) -------------------------===*
 *
 * Shared by select.c (measuring and choosing) and select_db.c (the
 * database). Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_SELECT_H
#define HODU_RUNTIME_SELECT_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

typedef struct candidate {
  hodu_candidate_result result;
  char *text, *path, *engine_name; /* engine_name: after '@', or NULL */
  int32_t device_kind, device_ordinal;
  char sha[65];
  char key_engine[512];
  char device_text[64];
  /* The device's name and driver ("NVIDIA H100; CUDA driver 13.0") when
   * the candidate runs on a GPU or a plugin device: part of the key. */
  char driver[384];
  char status[16];
  char *message, *engine, *device;
  /* Outputs of a measured run, for the comparison. */
  int32_t num_outputs;
  struct output {
    int32_t dtype, rank;
    int64_t shape[16];
    uint64_t bytes;
    uint8_t *data;
  } *outputs;
  int measured;
} candidate;

/* The database's path for these options, or NULL for none ("off"). */
char *hodu_select_database_path(const hodu_select_options *o);
/* Fills `c` from the newest record of its key; 1 when there is one.
 * `skipped` counts lines that are not records. */
int hodu_select_lookup(const char *path, candidate *c, int32_t threads,
                       const char *cpu, int *skipped);
/* Appends `c`'s record. */
void hodu_select_store(const char *path, const candidate *c, int32_t threads,
                       const char *cpu);

int hodu_select_write_all(int fd, const void *data, size_t size);
void hodu_select_set_status(candidate *c, const char *status,
                            const char *message);

#endif /* HODU_RUNTIME_SELECT_H */
