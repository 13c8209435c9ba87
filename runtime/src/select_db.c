/*===- select_db.c - the selection database -------------------------------===*
 *
 * JSON lines, one record a measured candidate, appended under an exclusive
 * flock (one write a line, so concurrent writers lose nothing); a reader
 * takes the newest record whose key equals the candidate's in every field
 * and skips lines that are not records. select.c says what a key holds.
 *
 *===----------------------------------------------------------------------===*/
#include "json.h"
#include "select.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *hodu_select_database_path(const hodu_select_options *o) {
  const char *path = o->database;
  if (!path)
    path = getenv("HODU_SELECTION_DB");
  if (path && strcmp(path, "off") == 0)
    return NULL;
  if (path && *path)
    return hodu_copy_string(path);
  const char *cache = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  char buffer[4096];
  if (cache && cache[0] == '/')
    snprintf(buffer, sizeof buffer, "%s/hodu/selection.jsonl", cache);
  else if (home && home[0] == '/')
    snprintf(buffer, sizeof buffer, "%s/.cache/hodu/selection.jsonl", home);
  else
    return NULL;
  return hodu_copy_string(buffer);
}

/* mkdir -p of the file's directory. */
static void make_parents(const char *path) {
  char *copy = hodu_copy_string(path);
  if (!copy)
    return;
  for (char *p = copy + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      mkdir(copy, 0755);
      *p = '/';
    }
  free(copy);
}

/* What a record's figures hold for. "driver": the device's driver and
 * version (and name) for candidates on a GPU or plugin device; "" else. */
#define KEY_FIELDS 7
static const char *const key_fields[KEY_FIELDS] = {
    "sha256", "engine", "device", "threads", "cpu", "runtime", "driver"};

static void key_values(const candidate *c, int32_t threads, const char *cpu,
                       char values[KEY_FIELDS][512]) {
  snprintf(values[0], 512, "%s", c->sha);
  snprintf(values[1], 512, "%s", c->key_engine);
  snprintf(values[2], 512, "%s", c->device_text);
  snprintf(values[3], 512, "%d", (int)threads);
  snprintf(values[4], 512, "%s", cpu);
  snprintf(values[5], 512, "%s", HODU_RUNTIME_VERSION);
  snprintf(values[6], 512, "%s", c->driver);
}

/* Appends `c`'s record (one line, under an exclusive lock). */
void hodu_select_store(const char *path, const candidate *c, int32_t threads,
                       const char *cpu) {
  char values[KEY_FIELDS][512];
  key_values(c, threads, cpu, values);
  char line[8192], quoted[1100];
  int used = snprintf(line, sizeof line, "{\"schema\": 1");
  for (int f = 0; f < KEY_FIELDS; ++f) {
    hodu_json_quote(values[f], quoted, sizeof quoted);
    used += snprintf(line + used, sizeof line - (size_t)used, ", \"%s\": %s",
                     key_fields[f], quoted);
  }
  const hodu_candidate_result *r = &c->result;
  hodu_json_quote(c->status, quoted, sizeof quoted);
  used += snprintf(line + used, sizeof line - (size_t)used,
                   ", \"status\": %s", quoted);
  hodu_json_quote(c->message ? c->message : "", quoted, sizeof quoted);
  used += snprintf(line + used, sizeof line - (size_t)used,
                   ", \"message\": %s", quoted);
  hodu_json_quote(c->engine ? c->engine : "", quoted, sizeof quoted);
  used += snprintf(line + used, sizeof line - (size_t)used,
                   ", \"engine_name\": %s", quoted);
  hodu_json_quote(c->device ? c->device : "", quoted, sizeof quoted);
  used += snprintf(line + used, sizeof line - (size_t)used,
                   ", \"device_name\": %s", quoted);
  used += snprintf(
      line + used, sizeof line - (size_t)used,
      ", \"runs\": %d, \"load_ms\": %.3f, \"first_run_us\": %.3f, "
      "\"p50_us\": %.3f, \"p90_us\": %.3f, \"p99_us\": %.3f, \"min_us\": "
      "%.3f, \"mean_us\": %.3f, \"mad_us\": %.3f, \"peak_bytes\": %llu, "
      "\"max_error\": %.9g, \"time\": %lld}\n",
      (int)r->runs, r->load_ms, r->first_run_us, r->p50_us, r->p90_us,
      r->p99_us, r->min_us, r->mean_us, r->mad_us,
      (unsigned long long)r->peak_bytes,
      isfinite(r->max_error) ? r->max_error : 1e300, (long long)time(NULL));
  if (used <= 0 || (size_t)used >= sizeof line)
    return;
  make_parents(path);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  if (flock(fd, LOCK_EX) == 0) {
    hodu_select_write_all(fd, line, (size_t)used);
    flock(fd, LOCK_UN);
  }
  close(fd);
}

static double number(const hodu_json *record, const char *key) {
  const hodu_json *v = hodu_json_get(record, key);
  return v && v->type == HODU_JSON_NUMBER ? v->number : 0;
}

/* Fills `c` from the newest record of its key; 1 when there is one.
 * `skipped` counts lines that are not records. */
int hodu_select_lookup(const char *path, candidate *c, int32_t threads,
                       const char *cpu, int *skipped) {
  FILE *file = fopen(path, "r");
  if (!file)
    return 0;
  flock(fileno(file), LOCK_SH);
  char values[KEY_FIELDS][512];
  key_values(c, threads, cpu, values);
  int found = 0;
  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  while ((length = getline(&line, &capacity, file)) > 0) {
    if (length == 1 && line[0] == '\n')
      continue;
    char error[128];
    hodu_json *record = hodu_json_parse(line, (size_t)length, error,
                                        sizeof error);
    if (!record || record->type != HODU_JSON_OBJECT ||
        !hodu_json_string(hodu_json_get(record, "status"))) {
      ++*skipped;
      hodu_json_free(record);
      continue;
    }
    int match = 1;
    for (int f = 0; f < KEY_FIELDS && match; ++f) {
      const char *v = hodu_json_string(hodu_json_get(record, key_fields[f]));
      match = v && strcmp(v, values[f]) == 0;
    }
    if (match) {
      found = 1;
      const char *status = hodu_json_string(hodu_json_get(record, "status"));
      const char *message =
          hodu_json_string(hodu_json_get(record, "message"));
      hodu_select_set_status(c, status, message ? message : "");
      const char *engine =
          hodu_json_string(hodu_json_get(record, "engine_name"));
      const char *device =
          hodu_json_string(hodu_json_get(record, "device_name"));
      free(c->engine);
      free(c->device);
      c->engine = hodu_copy_string(engine ? engine : "");
      c->device = hodu_copy_string(device ? device : c->device_text);
      hodu_candidate_result *r = &c->result;
      r->runs = (int32_t)number(record, "runs");
      r->load_ms = number(record, "load_ms");
      r->first_run_us = number(record, "first_run_us");
      r->p50_us = number(record, "p50_us");
      r->p90_us = number(record, "p90_us");
      r->p99_us = number(record, "p99_us");
      r->min_us = number(record, "min_us");
      r->mean_us = number(record, "mean_us");
      r->mad_us = number(record, "mad_us");
      r->peak_bytes = (uint64_t)number(record, "peak_bytes");
      r->max_error = number(record, "max_error");
    }
    hodu_json_free(record);
  }
  free(line);
  flock(fileno(file), LOCK_UN);
  fclose(file);
  return found;
}

