//===- Varint.h - LEB128 varints of protobuf and postcard -------*- C++ -*-===//
//
// Protocol buffers (.pb) and postcard (.hdt) encode integers alike: seven
// bits a byte, least significant first, the high bit marking that more
// follow.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_RUN_VARINT_H
#define HODU_RUN_VARINT_H

#include <cstdint>
#include <string>

namespace hodu_run {

/// Reads a varint at `pos`, advancing it; false when the input ends first or
/// the varint is longer than a uint64_t's ten bytes.
inline bool readVarint(const uint8_t *&pos, const uint8_t *end,
                       uint64_t &value) {
  value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos >= end)
      return false;
    uint8_t byte = *pos++;
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

inline void appendVarint(std::string &out, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(char(value ? byte | 0x80 : byte));
  } while (value);
}

} // namespace hodu_run

#endif // HODU_RUN_VARINT_H
