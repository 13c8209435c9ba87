/*===- artifact.c - checks on a shared library before and after dlopen ------===*
 *
 * dlopen maps a file's segments as its headers describe them and runs its
 * initialisers: a truncated or foreign file can crash the process (SIGBUS
 * on a segment past the end of the file) before dlopen can say anything.
 * So the ELF headers are read and checked against the file's size first.
 * After dlopen, the descriptor symbol must be data of the library itself:
 * `hodu_model_descriptor` is also the name of a runtime API function, and a
 * library linking libhodurt (or libhodurt itself) would otherwise hand its
 * code to the runtime as a descriptor.
 *
 *===----------------------------------------------------------------------===*/
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#define HODU_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HODU_ELF_MACHINE EM_AARCH64
#elif defined(__riscv)
#define HODU_ELF_MACHINE EM_RISCV
#endif

/* a + b <= limit, without overflow. */
static int fits(uint64_t a, uint64_t b, uint64_t limit) {
  return a <= limit && b <= limit - a;
}

/* The file cannot be loaded: the same first words as dlopen's failures. */
static hodu_status bad(const char *path, const char *why) {
  return hodu_make_status(HODU_INVALID_ARTIFACT,
                          "'%s' is not a Hodu artifact: cannot load it as a "
                          "shared library (%s)",
                          path, why);
}

/* It loaded, but what it exports is not a descriptor. */
static hodu_status bad_symbol(const char *path, const char *why) {
  return hodu_make_status(HODU_INVALID_ARTIFACT,
                          "'%s' is not a Hodu artifact: %s", path, why);
}

const char *hodu_elf_file_problem(const char *open_path, int *cannot_open) {
  *cannot_open = 0;
  FILE *f = fopen(open_path, "rb");
  if (!f) {
    *cannot_open = 1;
    return strerror(errno);
  }
  const char *why = NULL;
  Elf64_Ehdr eh;
  uint64_t size = 0;
  if (fseek(f, 0, SEEK_END) != 0 || (size = (uint64_t)ftell(f)) == 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    why = "the file is empty or cannot be read";
  } else if (size < sizeof eh || fread(&eh, sizeof eh, 1, f) != 1 ||
             memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    why = "it is not an ELF file (a shared library from hoduc "
          "-o model.so)";
  } else if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
             eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    why = "it is not a 64-bit little-endian ELF file";
  } else if (eh.e_type != ET_DYN) {
    why = "it is an ELF file but not a shared library (link "
          "objects and archives into a program instead)";
#ifdef HODU_ELF_MACHINE
  } else if (eh.e_machine != HODU_ELF_MACHINE) {
    why = "it was built for another machine (its ELF machine "
          "differs from this process's)";
#endif
  } else if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
             !fits(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr),
                   size)) {
    why = "its program headers lie outside the file (is it "
          "truncated?)";
  } else if (eh.e_shnum != 0 &&
             (eh.e_shentsize != sizeof(Elf64_Shdr) ||
              !fits(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr),
                    size))) {
    why = "its section headers lie outside the file (is it "
          "truncated?)";
  } else if (fseek(f, (long)eh.e_phoff, SEEK_SET) != 0) {
    why = "its program headers cannot be read";
  } else {
    /* Every segment dlopen maps from the file must be inside it. */
    for (unsigned i = 0; i < eh.e_phnum && !why; ++i) {
      Elf64_Phdr ph;
      if (fread(&ph, sizeof ph, 1, f) != 1)
        why = "its program headers cannot be read";
      else if (ph.p_type == PT_LOAD && !fits(ph.p_offset, ph.p_filesz, size))
        why = "a loadable segment lies outside the file (is it "
              "truncated?)";
    }
  }
  fclose(f);
  return why;
}

hodu_status hodu_check_elf_file(const char *open_path, const char *path) {
  int cannot_open;
  const char *why = hodu_elf_file_problem(open_path, &cannot_open);
  if (!why)
    return NULL;
  if (cannot_open)
    return hodu_make_status(HODU_NOT_FOUND, "cannot open model '%s': %s",
                            path, why);
  return bad(path, why);
}

hodu_status hodu_check_descriptor_symbol(const char *path, const void *symbol,
                                         uint64_t min_size) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!dladdr1(symbol, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
    return NULL; /* nothing known about it: the descriptor checks follow */
  if (ELF64_ST_TYPE(sym->st_info) != STT_OBJECT) {
    char why[256];
    snprintf(why, sizeof why,
             "its symbol '%s' is not data (a function of that name: is it "
             "libhodurt itself, or a library linking it?)",
             HODU_DESCRIPTOR_SYMBOL);
    return bad_symbol(path, why);
  }
  if (sym->st_size != 0 && sym->st_size < min_size) {
    char why[256];
    snprintf(why, sizeof why,
             "its symbol '%s' is %llu bytes, smaller than a descriptor",
             HODU_DESCRIPTOR_SYMBOL, (unsigned long long)sym->st_size);
    return bad_symbol(path, why);
  }
  return NULL;
}

/* Reads `size` bytes at `offset` of f, which has `file_size` bytes. */
static int read_at(FILE *f, uint64_t file_size, uint64_t offset, void *out,
                   uint64_t size) {
  return fits(offset, size, file_size) &&
         fseek(f, (long)offset, SEEK_SET) == 0 &&
         fread(out, 1, size, f) == size;
}

int hodu_elf_function_name(const char *path, uint64_t address, char *out,
                           size_t out_size) {
  if (!out_size)
    return 0;
  out[0] = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  int found = 0;
  Elf64_Ehdr eh;
  uint64_t file_size = 0;
  Elf64_Shdr *sections = NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (file_size = (uint64_t)ftell(f)) == 0 ||
      !read_at(f, file_size, 0, &eh, sizeof eh) ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0)
    goto done;
  sections = calloc(eh.e_shnum, sizeof *sections);
  if (!sections || !read_at(f, file_size, eh.e_shoff, sections,
                            (uint64_t)eh.e_shnum * sizeof *sections))
    goto done;
  /* The full symbol table (.symtab), else the dynamic one. */
  for (int pass = 0; pass < 2 && !found; ++pass)
    for (unsigned s = 0; s < eh.e_shnum && !found; ++s) {
      const Elf64_Shdr *sym = &sections[s];
      if (sym->sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
          sym->sh_entsize != sizeof(Elf64_Sym) || sym->sh_link >= eh.e_shnum)
        continue;
      const Elf64_Shdr *str = &sections[sym->sh_link];
      uint64_t count = sym->sh_size / sizeof(Elf64_Sym);
      for (uint64_t i = 0; i < count; ++i) {
        Elf64_Sym e;
        if (!read_at(f, file_size, sym->sh_offset + i * sizeof e, &e, sizeof e))
          break;
        if (ELF64_ST_TYPE(e.st_info) != STT_FUNC || address < e.st_value ||
            address - e.st_value >= (e.st_size ? e.st_size : 1) ||
            e.st_name >= str->sh_size)
          continue;
        uint64_t n = str->sh_size - e.st_name;
        if (n > out_size - 1)
          n = out_size - 1;
        if (!read_at(f, file_size, str->sh_offset + e.st_name, out, n))
          break;
        out[n] = 0;
        found = out[0] != 0;
        break;
      }
    }
done:
  free(sections);
  fclose(f);
  return found;
}
