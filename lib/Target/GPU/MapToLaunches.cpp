//===- MapToLaunches.cpp - block and thread loops to gpu.launch -----------===//
//
// See hodu-gpu-map-to-launches in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "TransformScript.h"

#include "hodu/Target/TransformScript.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUMAPTOLAUNCHES
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;
using hodu::TransformScript;

namespace {
bool inWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Whether `forall` is mapped to blocks (`kind` "block") or threads.
bool mappedTo(scf::ForallOp forall, bool blocks) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty())
    return false;
  return blocks ? isa<gpu::GPUBlockMappingAttr>((*mapping)[0])
                : isa<gpu::GPUThreadMappingAttr>((*mapping)[0]);
}

/// The block size [x, y, z]: per dimension, the most iterations any thread
/// loop in `block` maps to it.
SmallVector<int64_t> blockDimsOf(scf::ForallOp block) {
  SmallVector<int64_t> dims = {1, 1, 1};
  block.walk([&](scf::ForallOp forall) {
    if (!mappedTo(forall, /*blocks=*/false))
      return;
    // Tiling makes normalised loops: the upper bound is the trip count.
    ArrayRef<int64_t> trips = forall.getStaticUpperBound();
    for (auto [attr, trip] : llvm::zip(*forall.getMapping(), trips)) {
      auto dim = static_cast<int64_t>(
          cast<gpu::GPUThreadMappingAttr>(attr).getMappingId());
      if (dim < 3)
        dims[dim] = std::max(dims[dim], trip);
    }
  });
  return dims;
}

struct GpuMapToLaunches
    : hodu::gpu::impl::GpuMapToLaunchesBase<GpuMapToLaunches> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<scf::ForallOp> blocks;
    module.walk([&](func::FuncOp func) {
      for (auto forall : func.getBody().getOps<scf::ForallOp>())
        if (mappedTo(forall, /*blocks=*/true))
          blocks.push_back(forall);
    });

    TransformScript script(module);
    for (scf::ForallOp block : blocks) {
      SmallVector<int64_t> dims = blockDimsOf(block);
      if (failed(toWorkgroupGlobals(block, symbols)))
        return signalPassFailure();
      // Copies into workgroup memory, spread over the block's threads.
      SmallVector<linalg::CopyOp> toTile = copiesIntoWorkgroup(block);
      Value blockLoop = script.match(block);
      SmallVector<Value> copyHandles;
      for (linalg::CopyOp copy : toTile)
        copyHandles.push_back(script.match(copy));
      for (auto [copy, h] : llvm::zip(toTile, copyHandles))
        tileCopy(script, copy, h, dims);
      script.mapNestedForallToThreads(script.mapForallToBlocks(blockLoop),
                                      dims);
    }
    if (!script.empty() && failed(script.apply(getArgument())))
      return signalPassFailure();
    if (failed(checkNothingOnHost(module)))
      signalPassFailure();
  }

  /// Computation that bufferisation made outside the tiled ops (the fills
  /// and copies of tensor.pad, insert_slice, concatenation) would run on
  /// the host, on device buffers: reported rather than built.
  LogicalResult checkNothingOnHost(ModuleOp module) {
    WalkResult result = module.walk([&](Operation *op) {
      if (!isa<linalg::LinalgOp, memref::CopyOp>(op) ||
          op->getParentOfType<gpu::LaunchOp>())
        return WalkResult::advance();
      op->emitError("'") << op->getName()
                         << "' (from tensor padding, slicing or "
                            "concatenation) cannot be mapped to a GPU kernel "
                            "yet";
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  /// Workgroup buffers (static `memref.alloc`s in workgroup memory, which
  /// a kernel cannot allocate) become module-level `memref.global`s.
  LogicalResult toWorkgroupGlobals(scf::ForallOp block, SymbolTable &symbols) {
    SmallVector<memref::AllocOp> allocs;
    block.walk([&](memref::AllocOp alloc) {
      if (inWorkgroupMemory(alloc.getType()))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape())
        return alloc.emitError("workgroup buffers need static shapes");
      OpBuilder b(symbols.getOp()->getRegion(0));
      b.setInsertionPointToEnd(&symbols.getOp()->getRegion(0).front());
      auto global = memref::GlobalOp::create(
          b, alloc.getLoc(), "__wg", b.getStringAttr("private"), type,
          /*initial_value=*/Attribute(), /*constant=*/false,
          alloc.getAlignmentAttr());
      symbols.insert(global); // renamed to be unique
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      b.setInsertionPoint(alloc);
      Value g = memref::GetGlobalOp::create(b, alloc.getLoc(), type,
                                            global.getSymName());
      alloc.replaceAllUsesWith(g);
      alloc.erase();
    }
    return success();
  }

  /// The `memref.copy`s into workgroup memory in `block`, as linalg.copy
  /// (which can be tiled).
  SmallVector<linalg::CopyOp> copiesIntoWorkgroup(scf::ForallOp block) {
    SmallVector<memref::CopyOp> copies;
    block.walk([&](memref::CopyOp copy) {
      if (inWorkgroupMemory(cast<MemRefType>(copy.getTarget().getType())))
        copies.push_back(copy);
    });
    SmallVector<linalg::CopyOp> result;
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      result.push_back(linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                                              copy.getTarget()));
      copy.erase();
    }
    return result;
  }

  /// The last two dimensions of `copy` over the block's y and x threads.
  void tileCopy(TransformScript &s, linalg::CopyOp copy, Value h,
                ArrayRef<int64_t> dims) {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(copy.getOutputs()[0].getType()).getShape();
    SmallVector<int64_t> sizes(shape.size(), 0);
    MLIRContext *ctx = copy->getContext();
    SmallVector<Attribute> mapping = {
        gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)};
    sizes.back() = llvm::divideCeil(shape.back(), dims[0]);
    if (shape.size() >= 2) {
      sizes[shape.size() - 2] =
          llvm::divideCeil(shape[shape.size() - 2], dims[1]);
      mapping.insert(mapping.begin(), gpu::GPUThreadMappingAttr::get(
                                          ctx, gpu::MappingId::DimY));
    }
    s.tileUsingForall(h, sizes, mapping);
  }
};
} // namespace
