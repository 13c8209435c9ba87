/*===- plugin_tables.c - checking a plugin's interface tables -------------===*
 *
 * What makes an engine, compiler, format, device or toolchain table
 * usable, and a toolchain plugin's header acceptable to its host (plugin.c
 * asks once the library's header agrees with its manifest): its size, its
 * required members, and its names against the manifest's. Each refusal
 * names what was expected and what was found.
 *
 *===----------------------------------------------------------------------===*/
#include "internal.h"
#include "plan.h"
#include "plugin_registry.h"

#include <stddef.h>
#include <string.h>

/* The members of the engine table up to `member` are present. */
#define ENGINE_HAS(table, member)                                              \
  ((table)->struct_size >=                                                     \
   offsetof(hodu_engine_plugin_v1, member) + sizeof((table)->member))

/* Why the engine table is unusable, or NULL. */
char *hodu_plugin_check_engine_table(const plugin *p,
                                     const hodu_engine_plugin_v1 *t) {
  if (!t)
    return hodu_copy_string(
        "its manifest lists kind \"engine\", but the library "
        "has no engine interface at version 1");
  if (!ENGINE_HAS(t, run))
    return hodu_plugin_format_string(
        "its engine table is %u bytes, shorter than "
        "version 1's required %zu",
        (unsigned)t->struct_size,
        offsetof(hodu_engine_plugin_v1, run) + sizeof(t->run));
  const char *missing = !t->name         ? "name"
                        : !t->probe      ? "probe"
                        : !t->load       ? "load"
                        : !t->unload     ? "unload"
                        : !t->num_values ? "num_values"
                        : !t->value      ? "value"
                        : !t->run        ? "run"
                                         : NULL;
  if (missing)
    return hodu_plugin_format_string("its engine table has no '%s'", missing);
  if (!hodu_plugin_list_has(p->engines, t->name))
    return hodu_plugin_format_string(
        "its engine is named '%s', but the manifest's "
        "\"engines\" are '%s'",
        t->name, p->engines);
  return NULL;
}

/* Why the compiler table is unusable, or NULL. */
char *hodu_plugin_check_compiler_table(const plugin *p,
                                       const hodu_compiler_plugin_v1 *t) {
  size_t need = offsetof(hodu_compiler_plugin_v1, compile) + sizeof(t->compile);
  if (!t)
    return hodu_copy_string(
        "its manifest lists kind \"compiler\", but the library "
        "has no compiler interface at version 1");
  if (t->struct_size < need)
    return hodu_plugin_format_string(
        "its compiler table is %u bytes, shorter than "
        "version 1's %zu",
        (unsigned)t->struct_size, need);
  const char *missing = !t->name        ? "name"
                        : !t->toolchain ? "toolchain"
                        : !t->probe     ? "probe"
                        : !t->compile   ? "compile"
                                        : NULL;
  if (missing)
    return hodu_plugin_format_string("its compiler table has no '%s'", missing);
  if (!hodu_plugin_list_has(p->engines, t->name))
    return hodu_plugin_format_string(
        "its compiler is named '%s', but the manifest's "
        "\"engines\" are '%s'",
        t->name, p->engines);
  return NULL;
}

/* Why the format table is unusable, or NULL. */
char *hodu_plugin_check_format_table(const hodu_format_plugin_v1 *t) {
  size_t need = offsetof(hodu_format_plugin_v1, convert) + sizeof(t->convert);
  if (!t)
    return hodu_copy_string(
        "its manifest lists kind \"format\", but the library "
        "has no format interface at version 1");
  if (t->struct_size < need)
    return hodu_plugin_format_string(
        "its format table is %u bytes, shorter than "
        "version 1's %zu",
        (unsigned)t->struct_size, need);
  const char *missing = !t->name      ? "name"
                        : !t->probe   ? "probe"
                        : !t->convert ? "convert"
                                      : NULL;
  return missing ? hodu_plugin_format_string("its format table has no '%s'",
                                             missing)
                 : NULL;
}

/* Why the device table is unusable, or NULL. */
char *hodu_plugin_check_device_table(const plugin *p,
                                     const hodu_device_plugin_v1 *t) {
  size_t need = offsetof(hodu_device_plugin_v1, program_release_capture) +
                sizeof(t->program_release_capture);
  if (!t)
    return hodu_copy_string(
        "its manifest lists kind \"device\", but the library "
        "has no device interface at version 1");
  if (t->struct_size < need)
    return hodu_plugin_format_string(
        "its device table is %u bytes, shorter than "
        "version 1's %zu",
        (unsigned)t->struct_size, need);
  const char *missing = !t->name             ? "name"
                        : !t->code_formats   ? "code_formats"
                        : !t->count          ? "count"
                        : !t->open           ? "open"
                        : !t->close          ? "close"
                        : !t->buffer_create  ? "buffer_create"
                        : !t->buffer_free    ? "buffer_free"
                        : !t->write          ? "write"
                        : !t->read           ? "read"
                        : !t->copy           ? "copy"
                        : !t->code_load      ? "code_load"
                        : !t->code_free      ? "code_free"
                        : !t->program_create ? "program_create"
                        : !t->program_free   ? "program_free"
                        : !t->program_run    ? "program_run"
                                             : NULL;
  if (missing)
    return hodu_plugin_format_string("its device table has no '%s'", missing);
  int captures =
      !!t->program_capture + !!t->program_replay + !!t->program_release_capture;
  if (captures != 0 && captures != 3)
    return hodu_copy_string("its device table has some of program_capture, "
                            "program_replay and program_release_capture: "
                            "all three or none");
  if (!*t->name || strlen(t->name) > HODU_PLUGIN_DEVICE_NAME_MAX)
    return hodu_plugin_format_string(
        "its device name is empty or longer than %d bytes",
        HODU_PLUGIN_DEVICE_NAME_MAX);
  for (int32_t k = 0; k < HODU_DEVICE_METAL; ++k)
    if (strcmp(t->name, hodu_builtin_device_table(k)->name) == 0)
      return hodu_plugin_format_string(
          "its device is named '%s', which is libhodurt's own device", t->name);
  if (!hodu_plugin_list_has(p->devices, t->name))
    return hodu_plugin_format_string(
        "its device is named '%s', but the manifest's "
        "\"devices\" are '%s'",
        t->name, *p->devices ? p->devices : "(none)");
  int formats = 0;
  for (; t->code_formats[formats]; ++formats)
    if (t->code_formats[formats] >= HODU_CODE_FORMAT_COUNT || formats >= 16)
      return hodu_plugin_format_string(
          "its code_formats[%d] is %u, not a hodu_code_format (or the list "
          "is not 0-terminated)",
          formats, (unsigned)t->code_formats[formats]);
  if (formats == 0)
    return hodu_copy_string("its code_formats list is empty");
  return NULL;
}

char *hodu_plugin_check_toolchain(const hodu_plugin_header *h,
                                  const char *toolchain) {
  const char *built =
      h->struct_size >=
              offsetof(hodu_plugin_header, toolchain) + sizeof(h->toolchain)
          ? h->toolchain
          : NULL;
  if (built && strcmp(built, toolchain) == 0)
    return NULL;
  return hodu_plugin_format_string(
      "it was built for the toolchain '%s'; this host is '%s' (a C++ "
      "plugin must be built with the same Hodu and LLVM)",
      built ? built : "(none)", toolchain);
}

char *hodu_plugin_check_toolchain_table(const hodu_toolchain_plugin_v1 *t) {
  if (!t)
    return hodu_copy_string("its manifest lists an importer or target, but "
                            "the library has no toolchain interface at "
                            "version 1");
  size_t need = offsetof(hodu_toolchain_plugin_v1, register_components) +
                sizeof(t->register_components);
  if (t->struct_size < need || !t->register_components)
    return hodu_copy_string("its toolchain table has no "
                            "'register_components'");
  return NULL;
}
