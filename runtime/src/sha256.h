/*===- sha256.h - SHA-256 of files (private) ------------------------------===*/
#ifndef HODU_RUNTIME_SHA256_H
#define HODU_RUNTIME_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct hodu_sha256 {
  uint32_t h[8];
  uint64_t length;
  uint8_t buffer[64];
  size_t used;
} hodu_sha256;

void hodu_sha256_init(hodu_sha256 *s);
void hodu_sha256_update(hodu_sha256 *s, const void *data, size_t size);
/* Finishes and writes the digest as 64 hex digits and a NUL. */
void hodu_sha256_hex(hodu_sha256 *s, char out[65]);
/* The digest of a file's contents; 0 when it cannot be read. */
int hodu_sha256_file(const char *path, char out[65]);

#endif /* HODU_RUNTIME_SHA256_H */
