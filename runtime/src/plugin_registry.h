/*===- plugin_registry.h - the plugin registry's entries (private) --------===*
 *
 * Shared by plugin.c (discovery, loading, the public calls) and
 * plugin_manifest.c (reading and checking manifest.json). Never installed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HODU_RUNTIME_PLUGIN_REGISTRY_H
#define HODU_RUNTIME_PLUGIN_REGISTRY_H

#include "json.h"
#include "plugin.h"

#include <stdint.h>

#define HODU_MAX_PLUGINS 256
/* A manifest is a few hundred bytes; anything far larger is not one. */
#define HODU_MAX_MANIFEST_BYTES (1u << 20)

enum { STATE_AVAILABLE, STATE_LOADED, STATE_REFUSED };

typedef struct plugin {
  char *id, *version, *description;
  char *dir, *library, *source;
  char *engines, *formats, *capabilities;
  char *devices; /* the manifest's "devices" (device plugins), joined */
  char *targets; /* the manifest's "targets" (target plugins), joined */
  uint32_t kinds, abi_version;
  hodu_json *manifest; /* options are read from it */
  int state;
  char *problem;
  void *handle;
  const hodu_plugin_header *header;
  const hodu_engine_plugin_v1 *engine;
  const hodu_compiler_plugin_v1 *compiler;
  const hodu_format_plugin_v1 *format;
  const hodu_device_plugin_v1 *device;
  const hodu_toolchain_plugin_v1 *toolchain; /* importer, target plugins */
} plugin;

/* The manifest's names of the hodu_plugin_kind bits, in bit order. */
#define NUM_KINDS 6
extern const char *const hodu_plugin_kind_names[NUM_KINDS];

char *hodu_plugin_format_string(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
/* Whether the ", "-joined `list` holds `item` (case-insensitive). */
int hodu_plugin_list_has(const char *list, const char *item);
/* Marks `p` refused for `problem` (owned; NULL: out of memory). */
void hodu_plugin_refuse(plugin *p, char *problem);
/* plugin_tables.c: why each interface table of `p` is unusable, or NULL
 * (the message is owned by the caller). */
char *hodu_plugin_check_engine_table(const plugin *p,
                                     const hodu_engine_plugin_v1 *t);
char *hodu_plugin_check_compiler_table(const plugin *p,
                                       const hodu_compiler_plugin_v1 *t);
char *hodu_plugin_check_format_table(const hodu_format_plugin_v1 *t);
char *hodu_plugin_check_device_table(const plugin *p,
                                     const hodu_device_plugin_v1 *t);
char *hodu_plugin_check_toolchain_table(const hodu_toolchain_plugin_v1 *t);
/* Why a toolchain plugin's header does not fit a host of `toolchain`
 * (its toolchain string differs), or NULL. */
char *hodu_plugin_check_toolchain(const hodu_plugin_header *h,
                                  const char *toolchain);
/* Reads `dir`/manifest.json into `p`, refusing it (with the reason) when
 * the file is unreadable or breaks a rule. */
void hodu_plugin_read_manifest(plugin *p, const char *dir);

#endif /* HODU_RUNTIME_PLUGIN_REGISTRY_H */
