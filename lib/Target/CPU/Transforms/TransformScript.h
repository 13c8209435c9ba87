//===- TransformScript.h - what the CPU passes share ------------*- C++ -*-===//
//
// Internal to lib/Target/CPU/Transforms. The tiling passes build their
// transform scripts with hodu::TransformScript (hodu/Target/TransformScript.h),
// and derive their tile sizes from the vector width.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_TRANSFORMSCRIPT_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_TRANSFORMSCRIPT_H

#include "hodu/Target/TransformScript.h"

namespace hodu::cpu {

using hodu::TransformScript;

/// f32 lanes of one vector register of `vectorBits` bits (at least one):
/// the unit of the tile sizes the passes derive from the target.
inline int64_t f32Lanes(int64_t vectorBits) {
  return std::max<int64_t>(vectorBits / 32, 1);
}

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_TRANSFORMSCRIPT_H
