//===- Elements.h - element conversions for hodu-run ------------*- C++ -*-===//
//
// Reading, writing and printing single elements of any hodu_dtype, including
// the 16- and 8-bit floats that C++ has no type for.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_RUN_ELEMENTS_H
#define HODU_RUN_ELEMENTS_H

#include "hodu/runtime.h"

#include <cstdint>
#include <string>

namespace hodu_run {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);
float float8ToFloat(hodu_dtype dtype, uint8_t bits);
uint8_t floatToFloat8(hodu_dtype dtype, float value);

bool isFloat(hodu_dtype dtype);
bool isSigned(hodu_dtype dtype);   // i8..i64
bool isUnsigned(hodu_dtype dtype); // u8..u64 and bool

// Element `index` of `data` as a double (every dtype).
double loadAsDouble(hodu_dtype dtype, const void *data, int64_t index);
// Integer elements, exactly (signed and unsigned dtypes, bool).
int64_t loadAsInt64(hodu_dtype dtype, const void *data, int64_t index);
uint64_t loadAsUint64(hodu_dtype dtype, const void *data, int64_t index);

// Stores `value` (rounded to nearest even for narrow floats) as a float dtype.
void storeFloat(hodu_dtype dtype, void *data, int64_t index, double value);
// Stores an integer, failing when it does not fit `dtype`.
bool storeSigned(hodu_dtype dtype, void *data, int64_t index, int64_t value);
bool storeUnsigned(hodu_dtype dtype, void *data, int64_t index,
                   uint64_t value);

// Element `index` as text: shortest round-tripping for floats when `exact`,
// six significant digits otherwise; NaN/Infinity/-Infinity as Python's json.
std::string formatElement(hodu_dtype dtype, const void *data, int64_t index,
                          bool exact);

} // namespace hodu_run

#endif // HODU_RUN_ELEMENTS_H
