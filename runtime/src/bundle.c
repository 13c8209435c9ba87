/*===- bundle.c - reading and validating bundles (hodu/bundle.h)
 *------------===*
 *
 * A bundle is untrusted input: every field is checked before anything uses
 * it, with overflow-safe arithmetic, and every problem becomes a status whose
 * message names the section, the entry and the field. After
 * hodu_bundle_parse succeeds, the rest of the runtime indexes the plan's
 * tables without further checks.
 *
 * Records are copied out of the file with memcpy (never read in place), so
 * neither the file's alignment nor a minor version's longer records (a
 * larger entry_size; fields are only appended) matter.
 *
 * This file reads the file, checks the header and the section table, and
 * drives the parse; bundle_tables.c checks each section's contents
 * (bundle_internal.h).
 *
 *===----------------------------------------------------------------------===*/
#include "bundle_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(hodu_bundle_header) == 40, "bundle header layout");
_Static_assert(sizeof(hodu_bundle_section) == 24, "bundle section layout");
_Static_assert(sizeof(hodu_bundle_model) == 32, "bundle model layout");
_Static_assert(sizeof(hodu_bundle_device) == 24, "bundle device layout");
_Static_assert(sizeof(hodu_bundle_tensor) == 40, "bundle tensor layout");
_Static_assert(sizeof(hodu_bundle_code) == 32, "bundle code layout");
_Static_assert(sizeof(hodu_bundle_kernel) == 32, "bundle kernel layout");
_Static_assert(sizeof(hodu_bundle_step) == 32, "bundle step layout");
_Static_assert(sizeof(hodu_bundle_arg) == 24, "bundle arg layout");
_Static_assert(sizeof(hodu_bundle_symbol) == 48, "bundle symbol layout");
_Static_assert(sizeof(hodu_bundle_dynamic_dim) == 40,
               "bundle dynamic dim layout");

/* The format is little-endian; so is every host this runtime supports. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bundles are little-endian; this runtime reads them in place"
#endif

static const char *const section_names[] = {
    NULL,      "STRINGS",      "MODEL",    "DEVICES",      "TENSORS", "DIMS",
    "CODE",    "KERNELS",      "STEPS",    "ARGS",         "WEIGHTS", "BLOBS",
    "SYMBOLS", "DYNAMIC_DIMS", "VARIANTS", "VARIANT_STEPS"};
_Static_assert(sizeof(section_names) / sizeof(section_names[0]) ==
                   SECTION_KINDS,
               "a name for every section kind");

const char *hodu_step_op_name(uint32_t op) {
  switch (op) {
  case HODU_STEP_LAUNCH:
    return "LAUNCH";
  case HODU_STEP_COPY:
    return "COPY";
  case HODU_STEP_TRANSFER:
    return "TRANSFER";
  case HODU_STEP_HOST_CALL:
    return "HOST_CALL";
  case HODU_STEP_ENTRY_:
    return "ENTRY";
  }
  return "?";
}

const char *hodu_buffer_space_name(uint32_t space) {
  static const char *const names[] = {NULL,    "INPUT",   "OUTPUT",
                                      "ARENA", "WEIGHTS", "META"};
  if (space == HODU_SPACE_STATE_)
    return "STATE";
  if (space == HODU_SPACE_STATE_NEXT_)
    return "STATE_NEXT";
  return space > 0 && space < HODU_SPACE_COUNT ? names[space] : "?";
}

const char *hodu_code_format_name(uint32_t format) {
  static const char *const names[] = {NULL,     "spirv", "ptx", "cubin",
                                      "fatbin", "hsaco", "msl", "elf"};
  return format > 0 && format < HODU_CODE_FORMAT_COUNT ? names[format] : "?";
}

void hodu_plan_free(hodu_plan *plan) {
  if (!plan)
    return;
  free(plan->file);
  free(plan->tensors);
  free(plan->dims);
  free(plan->devices);
  free(plan->codes);
  free(plan->kernels);
  free(plan->steps);
  free(plan->args);
  free(plan->symbols);
  free(plan->dynamic_dims);
  free(plan->divisors);
  free(plan->shapes);
  free(plan->described);
  free(plan->variants);
  free(plan->variant_records);
  free(plan);
}

uint32_t hodu_plan_arg_tensor(const hodu_plan *plan,
                              const hodu_bundle_arg *arg) {
  switch (arg->space) {
  case HODU_SPACE_INPUT:
    return arg->index;
  case HODU_SPACE_OUTPUT:
    return plan->num_inputs + arg->index;
  case HODU_SPACE_META:
    return plan->num_inputs + plan->num_outputs + arg->index;
  case HODU_SPACE_STATE_:
    return hodu_plan_state_tensor(plan, arg->index);
  case HODU_SPACE_STATE_NEXT_:
    return hodu_plan_next_tensor(plan, arg->index);
  default: /* ARENA, WEIGHTS */
    return UINT32_MAX;
  }
}

uint32_t hodu_plan_arg_device(const hodu_plan *plan,
                              const hodu_bundle_arg *arg) {
  uint32_t tensor = hodu_plan_arg_tensor(plan, arg);
  /* ARENA, WEIGHTS: the index is the device. */
  return tensor == UINT32_MAX ? arg->index : plan->tensors[tensor].device;
}

/*===--------------------------------------------------------------------===*
 * Parsing
 *===--------------------------------------------------------------------===*/

hodu_status hodu_bundle_bad(const parser *p, const char *format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return hodu_make_status(HODU_INVALID_ARTIFACT, "%s: malformed bundle: %s",
                          p->origin, text);
}

/* Copies the entries of section `kind` into a new array of `count`
 * records of `record_size` bytes (the prefix of each entry). */
hodu_status hodu_bundle_copy_table(parser *p, uint32_t kind, size_t record_size,
                                   void **out, uint32_t *count) {
  *out = NULL;
  *count = 0;
  if (!p->present[kind])
    return NULL;
  const hodu_bundle_section *s = &p->sections[kind];
  uint64_t n = s->size / s->entry_size;
  if (n > UINT32_MAX)
    return BAD(p, "section %s has %llu entries, more than 2^32 - 1",
               section_names[kind], (unsigned long long)n);
  if (n == 0)
    return NULL;
  uint8_t *table = calloc((size_t)n, record_size);
  if (!table)
    return out_of_memory();
  /* Records shorter than this reader's (an older minor) leave the
   * appended fields 0. */
  size_t copied = s->entry_size < record_size ? s->entry_size : record_size;
  for (uint64_t i = 0; i < n; ++i)
    memcpy(table + i * record_size, p->data + s->offset + i * s->entry_size,
           copied);
  *out = table;
  *count = (uint32_t)n;
  return NULL;
}

static hodu_status check_header(parser *p, hodu_bundle_header *header) {
  if (p->size < sizeof *header)
    return BAD(p, "the file is %llu bytes, smaller than the %zu-byte header",
               (unsigned long long)p->size, sizeof *header);
  memcpy(header, p->data, sizeof *header);
  if (memcmp(header->magic, HODU_BUNDLE_MAGIC, HODU_BUNDLE_MAGIC_SIZE) != 0)
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "%s is not a Hodu bundle: it does not start with "
                            "'%s'",
                            p->origin, HODU_BUNDLE_MAGIC);
  if (header->version_major != HODU_BUNDLE_VERSION_MAJOR)
    return hodu_make_status(HODU_INCOMPATIBLE,
                            "%s is a version %u.%u bundle, but this runtime "
                            "(%s) reads version %u.x",
                            p->origin, (unsigned)header->version_major,
                            (unsigned)header->version_minor,
                            HODU_RUNTIME_VERSION,
                            (unsigned)HODU_BUNDLE_VERSION_MAJOR);
  if (header->header_size < sizeof *header || header->header_size > p->size)
    return BAD(p,
               "header: header_size is %u, expected at least %zu and at "
               "most the file size %llu",
               (unsigned)header->header_size, sizeof *header,
               (unsigned long long)p->size);
  if (header->file_size != p->size)
    return BAD(p,
               "header: file_size says %llu bytes, but the file has %llu "
               "(truncated or padded?)",
               (unsigned long long)header->file_size,
               (unsigned long long)p->size);
  if (header->section_entry_size < sizeof(hodu_bundle_section))
    return BAD(p, "header: section_entry_size is %u, expected at least %zu",
               (unsigned)header->section_entry_size,
               sizeof(hodu_bundle_section));
  if (header->section_count > HODU_BUNDLE_MAX_SECTIONS)
    return BAD(p, "header: section_count is %u, more than %u",
               (unsigned)header->section_count,
               (unsigned)HODU_BUNDLE_MAX_SECTIONS);
  uint64_t table_bytes =
      (uint64_t)header->section_count * header->section_entry_size;
  if (!fits(header->section_table_offset, table_bytes, p->size))
    return BAD(p,
               "header: the section table (%u entries of %u bytes at "
               "offset %llu) lies outside the file",
               (unsigned)header->section_count,
               (unsigned)header->section_entry_size,
               (unsigned long long)header->section_table_offset);
  if (header->section_table_offset < header->header_size)
    return BAD(p,
               "header: the section table at offset %llu overlaps the "
               "header",
               (unsigned long long)header->section_table_offset);
  return NULL;
}

static const char *kind_label(uint32_t kind, char *buffer, size_t size) {
  if (kind < SECTION_KINDS && section_names[kind])
    return section_names[kind];
  snprintf(buffer, size, "of kind %u", (unsigned)kind);
  return buffer;
}

static hodu_status check_sections(parser *p, const hodu_bundle_header *h) {
  uint32_t count = h->section_count;
  hodu_bundle_section *all = calloc(count ? count : 1, sizeof *all);
  if (!all)
    return out_of_memory();
  hodu_status status = NULL;
  uint64_t table_begin = h->section_table_offset;
  uint64_t table_end = table_begin + (uint64_t)count * h->section_entry_size;
  for (uint32_t i = 0; i < count && !status; ++i) {
    hodu_bundle_section *s = &all[i];
    memcpy(s, p->data + table_begin + (uint64_t)i * h->section_entry_size,
           sizeof *s);
    char label[32];
    const char *name = kind_label(s->kind, label, sizeof label);
    if (s->offset % HODU_BUNDLE_SECTION_ALIGNMENT != 0)
      status = BAD(p,
                   "section table entry %u (section %s): offset %llu is "
                   "not a multiple of %u",
                   (unsigned)i, name, (unsigned long long)s->offset,
                   (unsigned)HODU_BUNDLE_SECTION_ALIGNMENT);
    else if (!fits(s->offset, s->size, p->size))
      status = BAD(p,
                   "section table entry %u (section %s): %llu bytes at "
                   "offset %llu lie outside the %llu-byte file",
                   (unsigned)i, name, (unsigned long long)s->size,
                   (unsigned long long)s->offset, (unsigned long long)p->size);
    else if (s->size && s->offset < h->header_size)
      status = BAD(p,
                   "section table entry %u (section %s) overlaps the "
                   "header",
                   (unsigned)i, name);
    else if (s->size && s->offset < table_end &&
             table_begin < s->offset + s->size)
      status = BAD(p,
                   "section table entry %u (section %s) overlaps the "
                   "section table",
                   (unsigned)i, name);
    if (status)
      break;
    for (uint32_t j = 0; j < i && !status; ++j) {
      const hodu_bundle_section *o = &all[j];
      if (s->size && o->size && s->offset < o->offset + o->size &&
          o->offset < s->offset + s->size) {
        char other[32];
        status = BAD(p,
                     "section table entries %u (section %s) and %u "
                     "(section %s) overlap",
                     (unsigned)j, kind_label(o->kind, other, sizeof other),
                     (unsigned)i, name);
      }
    }
    if (status)
      break;
    if (s->kind == 0 || s->kind >= SECTION_KINDS)
      continue; /* unknown kinds are skipped (a minor version may add some) */
    if (p->present[s->kind]) {
      status = BAD(p, "section table entry %u: a second %s section",
                   (unsigned)i, name);
      break;
    }
    /* Entry sizes: byte sections 1, DIMS 8, tables at least their record
     * (minor versions may append fields). */
    size_t record = 0;
    switch (s->kind) {
    case HODU_BUNDLE_SECTION_STRINGS:
    case HODU_BUNDLE_SECTION_WEIGHTS:
    case HODU_BUNDLE_SECTION_BLOBS:
      record = 1;
      break;
    case HODU_BUNDLE_SECTION_DIMS:
      record = sizeof(int64_t);
      break;
    case HODU_BUNDLE_SECTION_MODEL:
      /* Minor 2 appended num_state_tensors; minor 0 and 1 records end
       * before it. */
      record = offsetof(hodu_bundle_model, num_state_tensors);
      break;
    case HODU_BUNDLE_SECTION_DEVICES:
      /* Minor 3 appended name; older records end before it. */
      record = offsetof(hodu_bundle_device, name);
      break;
    case HODU_BUNDLE_SECTION_TENSORS:
      record = sizeof(hodu_bundle_tensor);
      break;
    case HODU_BUNDLE_SECTION_CODE:
      record = sizeof(hodu_bundle_code);
      break;
    case HODU_BUNDLE_SECTION_KERNELS:
      record = sizeof(hodu_bundle_kernel);
      break;
    case HODU_BUNDLE_SECTION_STEPS:
    case HODU_BUNDLE_SECTION_VARIANT_STEPS:
      record = sizeof(hodu_bundle_step);
      break;
    case HODU_BUNDLE_SECTION_ARGS:
      record = sizeof(hodu_bundle_arg);
      break;
    case HODU_BUNDLE_SECTION_SYMBOLS:
      /* Minor 4 appended value_slot; older records end before it. */
      record = offsetof(hodu_bundle_symbol, value_slot);
      break;
    case HODU_BUNDLE_SECTION_DYNAMIC_DIMS:
      /* Minor 4 appended divisor; older records end before it. */
      record = offsetof(hodu_bundle_dynamic_dim, divisor);
      break;
    case HODU_BUNDLE_SECTION_VARIANTS:
      record = sizeof(hodu_bundle_variant);
      break;
    }
    int exact = record == 1 || s->kind == HODU_BUNDLE_SECTION_DIMS;
    if (exact ? s->entry_size != record : s->entry_size < record)
      status = BAD(p, "section %s: entry_size is %u, expected %s%zu", name,
                   (unsigned)s->entry_size, exact ? "" : "at least ", record);
    else if (s->size % s->entry_size != 0)
      status = BAD(p,
                   "section %s: size %llu is not a multiple of its "
                   "entry_size %u",
                   name, (unsigned long long)s->size, (unsigned)s->entry_size);
    else if (s->kind == HODU_BUNDLE_SECTION_MODEL && s->size != s->entry_size)
      status = BAD(p, "section MODEL: holds %llu entries, expected exactly 1",
                   (unsigned long long)(s->size / s->entry_size));
    if (!status) {
      p->sections[s->kind] = *s;
      p->present[s->kind] = 1;
    }
  }
  free(all);
  if (status)
    return status;
  static const uint32_t required[] = {HODU_BUNDLE_SECTION_STRINGS,
                                      HODU_BUNDLE_SECTION_MODEL,
                                      HODU_BUNDLE_SECTION_DEVICES};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i)
    if (!p->present[required[i]])
      return BAD(p, "it has no %s section", section_names[required[i]]);
  return NULL;
}

static void byte_section(parser *p, uint32_t kind, const uint8_t **data,
                         uint64_t *size) {
  *data = p->data; /* a valid pointer even when absent or empty */
  *size = 0;
  if (p->present[kind]) {
    *data = p->data + p->sections[kind].offset;
    *size = p->sections[kind].size;
  }
}

hodu_status hodu_bundle_parse(uint8_t *data, uint64_t size, const char *origin,
                              hodu_plan **out) {
  *out = NULL;
  parser p;
  memset(&p, 0, sizeof p);
  p.data = data;
  p.size = size;
  p.origin = origin;
  p.plan = calloc(1, sizeof *p.plan);
  if (!p.plan) {
    free(data);
    return out_of_memory();
  }
  p.plan->file = data;
  p.plan->file_size = size;
  p.plan->chunk_symbol = -1; /* until SYMBOLS says */
  hodu_bundle_header header;
  hodu_status status = check_header(&p, &header);
  if (!status)
    status = check_sections(&p, &header);
  if (!status) {
    p.plan->version_major = header.version_major;
    p.plan->version_minor = header.version_minor;
    byte_section(&p, HODU_BUNDLE_SECTION_WEIGHTS, &p.plan->weights,
                 &p.plan->weights_size);
    byte_section(&p, HODU_BUNDLE_SECTION_BLOBS, &p.plan->blobs,
                 &p.plan->blobs_size);
    status = hodu_bundle_check_tables(&p);
  }
  if (status) {
    hodu_plan_free(p.plan);
    return status;
  }
  *out = p.plan;
  return NULL;
}

/*===--------------------------------------------------------------------===*
 * Files
 *===--------------------------------------------------------------------===*/

/* Opens `path` for reading without blocking on FIFOs and checks that it is
 * a regular file; returns the descriptor or -1 with *status set. */
static int open_regular(const char *path, uint64_t *size, hodu_status *status) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    *status =
        hodu_make_status(HODU_NOT_FOUND, "cannot open model '%s': %s", path,
                         error == ENOENT   ? "no such file"
                         : error == EACCES ? "permission denied"
                                           : "cannot open it");
    return -1;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    *status = hodu_make_status(HODU_INVALID_ARTIFACT,
                               "cannot read model '%s': it is not a regular "
                               "file",
                               path);
    return -1;
  }
  *size = (uint64_t)info.st_size;
  return fd;
}

int hodu_is_bundle_bytes(const void *data, size_t size) {
  return size >= HODU_BUNDLE_MAGIC_SIZE &&
         memcmp(data, HODU_BUNDLE_MAGIC, HODU_BUNDLE_MAGIC_SIZE) == 0;
}

int hodu_is_bundle_file(const char *path) {
  uint64_t size;
  hodu_status status = NULL;
  int fd = open_regular(path, &size, &status);
  if (fd < 0) {
    hodu_status_free(status);
    return 0;
  }
  char magic[HODU_BUNDLE_MAGIC_SIZE];
  ssize_t got = read(fd, magic, sizeof magic);
  close(fd);
  return got == (ssize_t)sizeof magic &&
         memcmp(magic, HODU_BUNDLE_MAGIC, sizeof magic) == 0;
}

hodu_status hodu_bundle_read_file(const char *path, hodu_plan **out) {
  *out = NULL;
  uint64_t size;
  hodu_status status = NULL;
  int fd = open_regular(path, &size, &status);
  if (fd < 0)
    return status;
  if (size > HODU_BUNDLE_MAX_FILE_SIZE || size > SIZE_MAX - 64) {
    close(fd);
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "'%s': the bundle is %llu bytes, more than the "
                            "%llu this runtime reads",
                            path, (unsigned long long)size,
                            (unsigned long long)HODU_BUNDLE_MAX_FILE_SIZE);
  }
  /* 64-byte aligned, so sections (64-aligned in the file) are too. */
  size_t rounded = ((size_t)size + 63) / 64 * 64;
  uint8_t *data = aligned_alloc(64, rounded ? rounded : 64);
  if (!data) {
    close(fd);
    return hodu_make_status(HODU_OUT_OF_MEMORY,
                            "'%s': cannot allocate %llu bytes for the bundle",
                            path, (unsigned long long)size);
  }
  uint64_t done = 0;
  while (done < size) {
    ssize_t got = read(fd, data + done, (size_t)(size - done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    done += (uint64_t)got;
  }
  close(fd);
  if (done != size) {
    free(data);
    return hodu_make_status(HODU_INVALID_ARTIFACT,
                            "'%s': read %llu of its %llu bytes (did it "
                            "change while being read?)",
                            path, (unsigned long long)done,
                            (unsigned long long)size);
  }
  size_t origin_size = strlen(path) + 3;
  char *origin = malloc(origin_size);
  if (!origin) {
    free(data);
    return out_of_memory();
  }
  snprintf(origin, origin_size, "'%s'", path);
  status = hodu_bundle_parse(data, size, origin, out);
  free(origin);
  return status;
}
