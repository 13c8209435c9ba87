//===- TransformScript.h - transform scripts of the GPU passes --*- C++ -*-===//
//
// Internal to lib/Target/GPU. The GPU passes pick tile sizes and block
// shapes in C++, where the static shapes are known, and leave the tiling,
// promotion and mapping to upstream transform ops: each tags the payload
// ops it handles, writes the body of `@__transform_main(%root)` and runs it
// through the transform interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_GPU_TRANSFORMSCRIPT_H
#define HODU_LIB_TARGET_GPU_TRANSFORMSCRIPT_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace hodu::gpu {

/// The ops of one script's payload, tagged so that the script can match
/// them, and the script's body.
class TransformScript {
public:
  explicit TransformScript(mlir::ModuleOp payload) : payload(payload) {}

  /// Tags `op` and appends `%NAME = transform.structured.match` of it;
  /// returns NAME (`%h<n>`).
  std::string match(mlir::Operation *op);
  /// A fresh handle name (`%h<n>`).
  std::string handle();
  /// Appends one line of transform IR.
  TransformScript &operator<<(llvm::StringRef line);

  bool empty() const { return tagged.empty(); }
  /// Parses and runs the script, then removes the tags; `pass` names the
  /// caller in errors.
  mlir::LogicalResult apply(llvm::StringRef pass);

private:
  mlir::ModuleOp payload;
  std::string body;
  unsigned handles = 0;
  llvm::SmallVector<mlir::Operation *> tagged;
};

/// `[a, b, c]`.
std::string listOf(llvm::ArrayRef<int64_t> values);
/// The largest divisor of `n` that is at most `most` (at least 1).
int64_t largestDivisor(int64_t n, int64_t most);

} // namespace hodu::gpu

#endif // HODU_LIB_TARGET_GPU_TRANSFORMSCRIPT_H
