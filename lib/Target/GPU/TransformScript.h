//===- TransformScript.h - helpers of the GPU passes ------------*- C++ -*-===//
//
// Internal to lib/Target/GPU. The GPU passes pick tile sizes and block
// shapes in C++, where the static shapes are known, and leave the tiling,
// promotion and mapping to upstream transform ops, through
// hodu::TransformScript (hodu/Target/TransformScript.h).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_GPU_TRANSFORMSCRIPT_H
#define HODU_LIB_TARGET_GPU_TRANSFORMSCRIPT_H

#include <algorithm>
#include <cstdint>

namespace hodu::gpu {

/// The largest divisor of `n` that is at most `most` (at least 1).
inline int64_t largestDivisor(int64_t n, int64_t most) {
  for (int64_t d = std::min(n, most); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

} // namespace hodu::gpu

#endif // HODU_LIB_TARGET_GPU_TRANSFORMSCRIPT_H
