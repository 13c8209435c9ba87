//===- BindBuffers.cpp - kernel arguments as whole buffers ----------------===//
//
// See hodu-gpu-bind-buffers in include/hodu/Target/GPU/Passes.td.
//
// Upstream's sinkOperationsIntoLaunchOp (gpu-launch-sink-index-computations)
// moves an op into a launch only when its operands are already available
// there, so a view of a buffer defined outside stays outside; and nothing
// frees a host function's intermediates on a GPU (buffer-deallocation does
// not know that a launch only accesses its operands). Hence this pass.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUBINDBUFFERS
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;

namespace {
/// Views whose result is a kernel argument's buffer seen through another
/// shape or layout. `memref.view` is not one of them: it gives an arena's
/// bytes their element type, which a SPIR-V kernel cannot do itself.
bool isLayoutView(Operation *op) {
  return isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::ReinterpretCastOp, memref::TransposeOp>(
      op);
}

/// What may move into a launch with a view: the view, and the constants and
/// pure index arithmetic its sizes and offsets come from.
bool isSinkable(Operation *op) {
  if (isLayoutView(op) || op->hasTrait<OpTrait::ConstantLike>() ||
      isa<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(op))
    return true;
  return op->getDialect() == op->getContext()->getLoadedDialect("arith") &&
         isPure(op) && llvm::all_of(op->getResultTypes(), [](Type t) {
           return t.isIndex();
         });
}

struct GpuBindBuffers : hodu::gpu::impl::GpuBindBuffersBase<GpuBindBuffers> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](gpu::LaunchOp launch) { sinkViews(launch); });
    for (auto func : module.getOps<func::FuncOp>())
      freeAtReturn(func);
  }

  /// Clones into `launch` every chain of layout views it uses, down to the
  /// buffer the chain starts from, which becomes what the launch captures.
  void sinkViews(gpu::LaunchOp launch) {
    Region &body = launch.getBody();
    SetVector<Value> above;
    getUsedValuesDefinedAbove(body, above);
    OpBuilder b = OpBuilder::atBlockBegin(&body.front());
    IRMapping cloned;
    std::function<Value(Value)> sink = [&](Value v) -> Value {
      if (Value inside = cloned.lookupOrNull(v))
        return inside;
      Operation *def = v.getDefiningOp();
      if (!def || !isSinkable(def))
        return v; // the buffer itself (or a value the chain does not own)
      for (Value operand : def->getOperands())
        sink(operand);
      Operation *copy = b.clone(*def, cloned);
      return copy->getResult(cast<OpResult>(v).getResultNumber());
    };
    for (Value v : above) {
      Operation *def = v.getDefiningOp();
      if (def && isLayoutView(def))
        replaceAllUsesInRegionWith(v, sink(v), body);
    }
  }

  /// A dealloc before the return for each static top-level alloc of `func`
  /// that launches use and nothing frees.
  void freeAtReturn(func::FuncOp func) {
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    if (body.getOps<gpu::LaunchOp>().empty())
      return;
    Operation *terminator = body.getTerminator();
    OpBuilder b(terminator);
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      if (!alloc.getType().hasStaticShape() ||
          alloc.getType().getMemorySpace() ||
          llvm::any_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          }))
        continue;
      memref::DeallocOp::create(b, alloc.getLoc(), alloc);
    }
  }
};
} // namespace
