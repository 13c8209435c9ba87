//===- Elements.cpp - element conversions for hodu-run --------------------===//
#include "Elements.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace hodu_run {

namespace {
uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}
float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}
template <typename T> T loadRaw(const void *data, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char *>(data) + index * sizeof(T),
              sizeof(T));
  return value;
}
template <typename T> void storeRaw(void *data, int64_t index, T value) {
  std::memcpy(static_cast<char *>(data) + index * sizeof(T), &value,
              sizeof(T));
}
} // namespace

float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f,
           mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7e00;
  if (magnitude >= 65520.0f) // rounds past the largest half, 65504
    return sign | 0x7c00;
  if (magnitude < 6.103515625e-05f) {
    // Subnormal: units of 2^-24, rounded to nearest even by nearbyint.
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.0f));
  }
  uint32_t mbits = floatBits(magnitude);
  uint32_t exponent = (mbits >> 23) - 127 + 15;
  uint32_t mantissa = mbits & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is still correct
  return sign | static_cast<uint16_t>(half);
}

float bfloat16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToBfloat16(float value) {
  uint32_t bits = floatBits(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float float8ToFloat(hodu_dtype dtype, uint8_t bits) {
  if (dtype == HODU_DTYPE_F8E5M2)
    return halfToFloat(static_cast<uint16_t>(bits) << 8);
  // E4M3FN: bias 7, no infinities, S.1111.111 is NaN.
  uint32_t sign = bits >> 7, exponent = (bits >> 3) & 0xf, mantissa = bits & 7;
  float magnitude;
  if (exponent == 15 && mantissa == 7)
    magnitude = std::numeric_limits<float>::quiet_NaN();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -9);
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 8),
                           static_cast<int>(exponent) - 10);
  return sign ? -magnitude : magnitude;
}

uint8_t floatToFloat8(hodu_dtype dtype, float value) {
  bool e5m2 = dtype == HODU_DTYPE_F8E5M2;
  if (std::isnan(value))
    return e5m2 ? 0x7e : 0x7f;
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  // E4M3FN has no infinity: saturate to 448, as ONNX Cast does.
  if (std::isinf(value))
    return sign | (e5m2 ? 0x7c : 0x7e);
  // The 128 non-negative codes grow monotonically, so a nearest search is
  // simpler than bit tricks and exact; a tie goes to the even code, and
  // values past the largest finite code saturate to it.
  float magnitude = std::fabs(value);
  int best = 0;
  float bestError = std::numeric_limits<float>::infinity();
  for (int code = 0; code < 128; ++code) {
    float candidate = float8ToFloat(dtype, static_cast<uint8_t>(code));
    if (!std::isfinite(candidate))
      continue;
    float error = std::fabs(candidate - magnitude);
    if (error < bestError || (error == bestError && (code & 1) == 0)) {
      best = code;
      bestError = error;
    }
  }
  return sign | static_cast<uint8_t>(best);
}

bool isFloat(hodu_dtype dtype) {
  switch (dtype) {
  case HODU_DTYPE_F8E4M3:
  case HODU_DTYPE_F8E5M2:
  case HODU_DTYPE_BF16:
  case HODU_DTYPE_F16:
  case HODU_DTYPE_F32:
  case HODU_DTYPE_F64:
    return true;
  default:
    return false;
  }
}

bool isSigned(hodu_dtype dtype) {
  return dtype == HODU_DTYPE_I8 || dtype == HODU_DTYPE_I16 ||
         dtype == HODU_DTYPE_I32 || dtype == HODU_DTYPE_I64;
}

bool isUnsigned(hodu_dtype dtype) {
  return dtype == HODU_DTYPE_BOOL || dtype == HODU_DTYPE_U8 ||
         dtype == HODU_DTYPE_U16 || dtype == HODU_DTYPE_U32 ||
         dtype == HODU_DTYPE_U64;
}

int64_t loadAsInt64(hodu_dtype dtype, const void *data, int64_t index) {
  switch (dtype) {
  case HODU_DTYPE_I8:
    return loadRaw<int8_t>(data, index);
  case HODU_DTYPE_I16:
    return loadRaw<int16_t>(data, index);
  case HODU_DTYPE_I32:
    return loadRaw<int32_t>(data, index);
  case HODU_DTYPE_I64:
    return loadRaw<int64_t>(data, index);
  default:
    return static_cast<int64_t>(loadAsUint64(dtype, data, index));
  }
}

uint64_t loadAsUint64(hodu_dtype dtype, const void *data, int64_t index) {
  switch (dtype) {
  case HODU_DTYPE_BOOL:
  case HODU_DTYPE_U8:
    return loadRaw<uint8_t>(data, index);
  case HODU_DTYPE_U16:
    return loadRaw<uint16_t>(data, index);
  case HODU_DTYPE_U32:
    return loadRaw<uint32_t>(data, index);
  case HODU_DTYPE_U64:
    return loadRaw<uint64_t>(data, index);
  default:
    return static_cast<uint64_t>(loadAsInt64(dtype, data, index));
  }
}

double loadAsDouble(hodu_dtype dtype, const void *data, int64_t index) {
  switch (dtype) {
  case HODU_DTYPE_F8E4M3:
  case HODU_DTYPE_F8E5M2:
    return float8ToFloat(dtype, loadRaw<uint8_t>(data, index));
  case HODU_DTYPE_BF16:
    return bfloat16ToFloat(loadRaw<uint16_t>(data, index));
  case HODU_DTYPE_F16:
    return halfToFloat(loadRaw<uint16_t>(data, index));
  case HODU_DTYPE_F32:
    return loadRaw<float>(data, index);
  case HODU_DTYPE_F64:
    return loadRaw<double>(data, index);
  default:
    if (isSigned(dtype))
      return static_cast<double>(loadAsInt64(dtype, data, index));
    return static_cast<double>(loadAsUint64(dtype, data, index));
  }
}

void storeFloat(hodu_dtype dtype, void *data, int64_t index, double value) {
  switch (dtype) {
  case HODU_DTYPE_F8E4M3:
  case HODU_DTYPE_F8E5M2:
    storeRaw<uint8_t>(data, index,
                      floatToFloat8(dtype, static_cast<float>(value)));
    return;
  case HODU_DTYPE_BF16:
    storeRaw<uint16_t>(data, index, floatToBfloat16(static_cast<float>(value)));
    return;
  case HODU_DTYPE_F16:
    storeRaw<uint16_t>(data, index, floatToHalf(static_cast<float>(value)));
    return;
  case HODU_DTYPE_F32:
    storeRaw<float>(data, index, static_cast<float>(value));
    return;
  case HODU_DTYPE_F64:
    storeRaw<double>(data, index, value);
    return;
  default:
    return;
  }
}

bool storeSigned(hodu_dtype dtype, void *data, int64_t index, int64_t value) {
  switch (dtype) {
  case HODU_DTYPE_I8:
    if (value < INT8_MIN || value > INT8_MAX)
      return false;
    storeRaw<int8_t>(data, index, static_cast<int8_t>(value));
    return true;
  case HODU_DTYPE_I16:
    if (value < INT16_MIN || value > INT16_MAX)
      return false;
    storeRaw<int16_t>(data, index, static_cast<int16_t>(value));
    return true;
  case HODU_DTYPE_I32:
    if (value < INT32_MIN || value > INT32_MAX)
      return false;
    storeRaw<int32_t>(data, index, static_cast<int32_t>(value));
    return true;
  case HODU_DTYPE_I64:
    storeRaw<int64_t>(data, index, value);
    return true;
  default:
    return value >= 0 &&
           storeUnsigned(dtype, data, index, static_cast<uint64_t>(value));
  }
}

bool storeUnsigned(hodu_dtype dtype, void *data, int64_t index,
                   uint64_t value) {
  switch (dtype) {
  case HODU_DTYPE_BOOL:
    if (value > 1)
      return false;
    storeRaw<uint8_t>(data, index, static_cast<uint8_t>(value));
    return true;
  case HODU_DTYPE_U8:
    if (value > UINT8_MAX)
      return false;
    storeRaw<uint8_t>(data, index, static_cast<uint8_t>(value));
    return true;
  case HODU_DTYPE_U16:
    if (value > UINT16_MAX)
      return false;
    storeRaw<uint16_t>(data, index, static_cast<uint16_t>(value));
    return true;
  case HODU_DTYPE_U32:
    if (value > UINT32_MAX)
      return false;
    storeRaw<uint32_t>(data, index, static_cast<uint32_t>(value));
    return true;
  case HODU_DTYPE_U64:
    storeRaw<uint64_t>(data, index, value);
    return true;
  default:
    return value <= static_cast<uint64_t>(INT64_MAX) &&
           storeSigned(dtype, data, index, static_cast<int64_t>(value));
  }
}

std::string formatElement(hodu_dtype dtype, const void *data, int64_t index,
                          bool exact) {
  char buffer[64];
  if (dtype == HODU_DTYPE_BOOL)
    return loadAsUint64(dtype, data, index) ? "true" : "false";
  if (isSigned(dtype)) {
    std::snprintf(buffer, sizeof(buffer), "%lld",
                  static_cast<long long>(loadAsInt64(dtype, data, index)));
    return buffer;
  }
  if (isUnsigned(dtype)) {
    std::snprintf(buffer, sizeof(buffer), "%llu",
                  static_cast<unsigned long long>(
                      loadAsUint64(dtype, data, index)));
    return buffer;
  }
  double value = loadAsDouble(dtype, data, index);
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  int digits = !exact ? 6 : dtype == HODU_DTYPE_F64 ? 17 : 9;
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
  return buffer;
}

} // namespace hodu_run
