/*===- internal.h - libhodurt's private declarations ------------------------===*
 *
 * Shared by the runtime's sources only; never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_INTERNAL_H
#define HODU_RUNTIME_INTERNAL_H

#include "hodu/runtime.h"
#include "shape.h"

#include <stdarg.h>

/* Creates an error status with a printf-formatted message. Never returns
 * NULL: when memory runs out it returns a static OUT_OF_MEMORY status that
 * hodu_status_free() ignores. */
/* artifact.c: the ELF headers of a shared library are consistent with the
 * file's size and this machine (checked before dlopen; messages name
 * `path`, the file is read at `open_path`), and the descriptor
 * symbol dlsym found is data of at least `min_size` bytes. */
hodu_status hodu_check_elf_file(const char *open_path, const char *path);
/* threads.c: fills a loaded library's hodu_thread_api table (abi.h), if it
 * has one, with libhodurt's thread team functions. */
void hodu_fill_thread_api(void *library);
/* threads.c: the calling thread enters and leaves a model's entry point
 * (`model`: its descriptor; `threads`: the run's num_threads, 0 for every
 * CPU); its team's threads wait without sleeping in between, and the run
 * takes the team or the calling thread alone by measurement (nestable). */
void hodu_threads_run_begin(const void *model, int32_t threads);
void hodu_threads_run_end(void);
/* compile.c: the CPU's model name (/proc/cpuinfo), "unknown" without one:
 * part of the compile cache's and the selection database's keys. */
void hodu_cpu_name(char *out, size_t size);
/* threads.c: the child of a fork forgets the parent's thread teams. */
void hodu_threads_after_fork(void);
/* What is wrong with the ELF file at `open_path` (the checks above), or
 * NULL; *cannot_open is set when the file cannot be opened at all. */
const char *hodu_elf_file_problem(const char *open_path, int *cannot_open);
hodu_status hodu_check_descriptor_symbol(const char *path, const void *symbol,
                                         uint64_t min_size);

/* artifact.c: the name of the function of the ELF file at `path` that
 * covers `address` (relative to the file's load base), from its symbol
 * table, into out[out_size]; 0 when there is none. */
int hodu_elf_function_name(const char *path, uint64_t address, char *out,
                           size_t out_size);

/* status.c: a malloc'ed copy of `text` (NULL for NULL, or out of memory). */
char *hodu_copy_string(const char *text);

hodu_status hodu_make_status(hodu_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The status of a run whose entry (of `desc`, the model `name`) returned
 * the non-zero `result`: a failed run-time check with its message, no
 * memory for the workspace, or the bare code. */
hodu_status hodu_entry_failure(const hodu_model_desc *desc, const char *name,
                               int32_t result);

/* The thread budget for the next run (the set value, or the CPU count). */
int32_t hodu_effective_num_threads(void);

#endif /* HODU_RUNTIME_INTERNAL_H */
