/*===- plugin_manifest.c - reading and checking plugin manifests ----------===*
 *
 * manifest.json beside a plugin's library, read with the strict JSON reader
 * (json.c) and checked against seed 003's rules before any library is
 * opened: what is wrong is the plugin's refusal, naming the file and the
 * field.
 *
 *===----------------------------------------------------------------------===*/
#include "internal.h"
#include "plugin_registry.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*===--------------------------------------------------------------------===*
 * Small helpers
 *===--------------------------------------------------------------------===*/

char *hodu_plugin_format_string(const char *format, ...) {
  va_list args;
  va_start(args, format);
  int length = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (length < 0)
    return NULL;
  char *text = malloc((size_t)length + 1);
  if (!text)
    return NULL;
  va_start(args, format);
  vsnprintf(text, (size_t)length + 1, format, args);
  va_end(args);
  return text;
}

const char *const hodu_plugin_kind_names[NUM_KINDS] = {
    "importer", "target", "device", "engine", "compiler", "format"};

static int kind_bit(const char *name, uint32_t *bit) {
  for (int i = 0; i < NUM_KINDS; ++i)
    if (strcmp(name, hodu_plugin_kind_names[i]) == 0) {
      *bit = 1u << i;
      return 1;
    }
  return 0;
}

/* ids name directories, environment variables and database keys. */
static int valid_id(const char *id) {
  if (!*id || strlen(id) > 64)
    return 0;
  for (const char *c = id; *c; ++c)
    if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) &&
        *c != '-' && *c != '_' && *c != '.')
      return 0;
  return 1;
}

/* A library path in a manifest stays inside the plugin's directory: a
 * relative path with no ".." component. */
static int inside_path(const char *path) {
  if (!*path || path[0] == '/')
    return 0;
  for (const char *c = path; *c;) {
    const char *end = strchr(c, '/');
    size_t n = end ? (size_t)(end - c) : strlen(c);
    if (n == 2 && c[0] == '.' && c[1] == '.')
      return 0;
    c += n + (end ? 1 : 0);
  }
  return 1;
}

/* The manifest's array `key` of strings joined with ", " ("" if absent);
 * NULL with *problem set when it is not an array of strings. */
static char *joined_strings(const hodu_json *manifest, const char *key,
                            char **problem) {
  const hodu_json *list = hodu_json_get(manifest, key);
  if (!list)
    return hodu_copy_string("");
  if (list->type != HODU_JSON_ARRAY) {
    *problem = hodu_plugin_format_string("\"%s\" is not an array", key);
    return NULL;
  }
  size_t size = 1;
  for (size_t i = 0; i < list->count; ++i) {
    if (list->children[i].type != HODU_JSON_STRING) {
      *problem =
          hodu_plugin_format_string("\"%s\"[%zu] is not a string", key, i);
      return NULL;
    }
    size += list->children[i].length + 2;
  }
  char *text = malloc(size);
  if (!text)
    return NULL;
  text[0] = '\0';
  for (size_t i = 0; i < list->count; ++i) {
    if (i)
      strcat(text, ", ");
    strcat(text, list->children[i].text);
  }
  return text;
}

/* Whether the ", "-joined `list` holds `item` (case-insensitive). */
int hodu_plugin_list_has(const char *list, const char *item) {
  size_t n = strlen(item);
  for (const char *c = list; c && *c;) {
    const char *end = strstr(c, ", ");
    size_t length = end ? (size_t)(end - c) : strlen(c);
    if (length == n && strncasecmp(c, item, n) == 0)
      return 1;
    c = end ? end + 2 : c + length;
  }
  return 0;
}

/*===--------------------------------------------------------------------===*
 * Manifests
 *===--------------------------------------------------------------------===*/

void hodu_plugin_refuse(plugin *p, char *problem) {
  p->state = STATE_REFUSED;
  free(p->problem);
  p->problem = problem ? problem : hodu_copy_string("out of memory");
}

/* Reads `dir`/manifest.json into `p` (refused, with the reason, when it is
 * unreadable or malformed). */
void hodu_plugin_read_manifest(plugin *p, const char *dir) {
  char *path = hodu_plugin_format_string("%s/manifest.json", dir);
  if (!path) {
    hodu_plugin_refuse(p, NULL);
    return;
  }
  FILE *file = fopen(path, "rb");
  if (!file) {
    hodu_plugin_refuse(p, hodu_plugin_format_string("cannot read '%s': %s",
                                                    path, strerror(errno)));
    free(path);
    return;
  }
  char *text = malloc(HODU_MAX_MANIFEST_BYTES + 1);
  size_t size = text ? fread(text, 1, HODU_MAX_MANIFEST_BYTES + 1, file) : 0;
  int read_error = ferror(file);
  fclose(file);
  char error[256] = "";
  if (!text)
    hodu_plugin_refuse(p, NULL);
  else if (read_error)
    hodu_plugin_refuse(p, hodu_plugin_format_string("cannot read '%s'", path));
  else if (size > HODU_MAX_MANIFEST_BYTES)
    hodu_plugin_refuse(p, hodu_plugin_format_string(
                              "'%s' is larger than %u bytes: not a manifest",
                              path, HODU_MAX_MANIFEST_BYTES));
  else if (!(p->manifest = hodu_json_parse(text, size, error, sizeof error)))
    hodu_plugin_refuse(p, hodu_plugin_format_string("'%s': %s", path, error));
  free(text);
  if (p->state == STATE_REFUSED) {
    free(path);
    return;
  }

  const hodu_json *m = p->manifest;
  char *problem = NULL;
  const hodu_json *schema = hodu_json_get(m, "schema");
  const hodu_json *abi = hodu_json_get(m, "abi_version");
  const hodu_json *kinds = hodu_json_get(m, "kinds");
  const hodu_json *library = hodu_json_get(m, "library");
  const hodu_json *options = hodu_json_get(m, "options");
  if (library && library->type == HODU_JSON_OBJECT)
    library = hodu_json_get(library, "default"); /* seed 003's per-GPU form */
  if (m->type != HODU_JSON_OBJECT)
    problem = hodu_copy_string("not a JSON object");
  else if (!schema || schema->type != HODU_JSON_NUMBER || schema->number != 1)
    problem = hodu_copy_string("\"schema\" must be 1");
  else if (!hodu_json_string(hodu_json_get(m, "plugin_id")))
    problem = hodu_copy_string("\"plugin_id\" is missing or not a string");
  else if (!valid_id(hodu_json_string(hodu_json_get(m, "plugin_id"))))
    problem = hodu_plugin_format_string(
        "\"plugin_id\" '%s' is not 1 to 64 of "
        "[a-z0-9._-]",
        hodu_json_string(hodu_json_get(m, "plugin_id")));
  else if (!hodu_json_string(hodu_json_get(m, "plugin_version")))
    problem = hodu_copy_string("\"plugin_version\" is missing or not a string");
  else if (!abi || abi->type != HODU_JSON_NUMBER || abi->number < 1 ||
           abi->number > 1e6 || abi->number != (double)(uint32_t)abi->number)
    problem = hodu_copy_string("\"abi_version\" is missing or not a positive "
                               "integer");
  else if (abi->number > HODU_PLUGIN_ABI_VERSION)
    problem = hodu_plugin_format_string(
        "built for plugin ABI %u; this host (hodurt %s) "
        "supports ABI %u",
        (unsigned)abi->number, HODU_RUNTIME_VERSION, HODU_PLUGIN_ABI_VERSION);
  else if (!kinds || kinds->type != HODU_JSON_ARRAY || kinds->count == 0)
    problem = hodu_copy_string("\"kinds\" is missing or not a non-empty array");
  else if (!hodu_json_string(library))
    problem = hodu_copy_string("\"library\" is missing or not a string");
  else if (!inside_path(hodu_json_string(library)))
    problem = hodu_plugin_format_string(
        "\"library\" '%s' must be a relative path inside "
        "the plugin's directory",
        hodu_json_string(library));
  else if (options && options->type != HODU_JSON_OBJECT)
    problem = hodu_copy_string("\"options\" is not an object");
  for (size_t i = 0; !problem && i < kinds->count; ++i) {
    uint32_t bit;
    const char *name = hodu_json_string(&kinds->children[i]);
    if (!name || !kind_bit(name, &bit))
      problem =
          hodu_plugin_format_string("\"kinds\"[%zu] is not one of importer, "
                                    "target, device, engine, compiler, format",
                                    i);
    else
      p->kinds |= bit;
  }
  if (!problem) {
    p->id = hodu_copy_string(hodu_json_string(hodu_json_get(m, "plugin_id")));
    p->version =
        hodu_copy_string(hodu_json_string(hodu_json_get(m, "plugin_version")));
    const char *description = hodu_json_string(hodu_json_get(m, "description"));
    p->description = hodu_copy_string(description ? description : "");
    p->library =
        hodu_plugin_format_string("%s/%s", dir, hodu_json_string(library));
    p->abi_version = (uint32_t)abi->number;
    p->engines = joined_strings(m, "engines", &problem);
    if (!problem)
      p->formats = joined_strings(m, "formats", &problem);
    if (!problem)
      p->capabilities = joined_strings(m, "capabilities", &problem);
    if (!problem)
      p->devices = joined_strings(m, "devices", &problem);
    if (!problem)
      p->targets = joined_strings(m, "targets", &problem);
    if (!problem && (!p->id || !p->version || !p->description || !p->library ||
                     !p->engines || !p->formats || !p->capabilities ||
                     !p->devices || !p->targets))
      problem = hodu_copy_string("out of memory");
    if (!problem && (p->kinds & (HODU_PLUGIN_ENGINE | HODU_PLUGIN_COMPILER)) &&
        !*p->engines)
      problem = hodu_copy_string("an engine or compiler plugin must name its "
                                 "engines (\"engines\")");
    if (!problem && (p->kinds & HODU_PLUGIN_DEVICE) && !*p->devices)
      problem = hodu_copy_string("a device plugin must name its devices "
                                 "(\"devices\")");
  }
  if (problem) {
    hodu_plugin_refuse(p, hodu_plugin_format_string("'%s': %s", path, problem));
    free(problem);
  }
  free(path);
}
