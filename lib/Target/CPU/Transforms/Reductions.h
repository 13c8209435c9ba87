//===- Reductions.h - reductions reshaped for threads and vectors -*- C++
//-*-===//
//
// Internal to hodu-cpu-parallelize (Parallelize.cpp) and
// hodu-cpu-vectorize-generics (VectorizeGenerics.cpp); defined in
// Reductions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_REDUCTIONS_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_REDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace hodu::cpu {

/// How one result of a reduction accumulates: its yielded value is
/// `combiner(acc, x)` (or `combiner(x, acc)`, `accFirst` false) with the
/// result's accumulator used nowhere else, the combiner's result used only
/// by the yield, and `neutral` the combiner's neutral element.
struct ReductionCombiner {
  mlir::Operation *combiner;
  mlir::TypedAttr neutral;
  bool accFirst;
};

/// The combiner of each result of `op` (in result order), if every result
/// accumulates through one associative arith op (add, mul, max, min, and,
/// or, xor) of its own accumulator, else nullopt. Such an op may be
/// reduced in parts and the parts combined with the same ops.
std::optional<llvm::SmallVector<ReductionCombiner>>
reductionCombiners(mlir::linalg::GenericOp op);

/// Splits the reduced innermost dim of `op` into a `lanes`-wide partial per
/// result, combined lane by lane, then reduced horizontally once per result
/// element (see the definition). No-op where the op does not qualify.
void splitInnerReduction(mlir::linalg::GenericOp op, int64_t lanes);

/// Merges reductions of one block that read a common input the same way
/// over the same iteration space (a DynamicQuantizeLinear's min and max, a
/// mean and a mean of squares) into one op with a result each, so the
/// input is read once. `wanted` picks the ops worth it. The merged op
/// takes the place of the later one; pairs where a user of the earlier
/// one's results comes before the later one are left as they are.
void fuseSiblingReductions(
    mlir::Operation *root,
    llvm::function_ref<bool(mlir::linalg::GenericOp)> wanted);

/// For a reduction with no parallel dim to spread over threads (a whole
/// tensor's min, max or sum): makes one of its reduced dims (the one whose
/// range splits best over `chunks` pieces, never the innermost) parallel
/// in a first op that writes a partial result per index of that dim, and
/// adds a second op that combines the partials into the original result.
/// Returns the first op, or null where `op` has a parallel dim of range 2
/// or more, no such reduced dim, or combiners reductionCombiners refuses.
mlir::linalg::GenericOp splitForThreads(mlir::linalg::GenericOp op,
                                        int64_t chunks);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_REDUCTIONS_H
