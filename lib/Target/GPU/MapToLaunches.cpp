//===- MapToLaunches.cpp - block and thread loops to gpu.launch -----------===//
//
// See hodu-gpu-map-to-launches in include/hodu/Target/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Passes.h"

#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace hodu::gpu {
#define GEN_PASS_DEF_GPUMAPTOLAUNCHES
#include "hodu/Target/GPU/Passes.h.inc"
} // namespace hodu::gpu

using namespace mlir;
using namespace hodu::gpu;
using hodu::TransformScript;

namespace {
bool inWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Whether `forall` is mapped to blocks (`blocks`) or threads.
bool mappedTo(scf::ForallOp forall, bool blocks) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty())
    return false;
  return blocks ? isa<gpu::GPUBlockMappingAttr>((*mapping)[0])
                : isa<gpu::GPUThreadMappingAttr>((*mapping)[0]);
}

/// The block size [x, y, z]: per dimension, the most iterations any thread
/// loop in `block` maps to it (linear mappings spread over what is there).
SmallVector<int64_t> blockDimsOf(scf::ForallOp block) {
  SmallVector<int64_t> dims = {1, 1, 1};
  block.walk([&](scf::ForallOp forall) {
    if (!mappedTo(forall, /*blocks=*/false))
      return;
    // Tiling makes normalised loops: the upper bound is the trip count.
    ArrayRef<int64_t> trips = forall.getStaticUpperBound();
    for (auto [attr, trip] : llvm::zip(*forall.getMapping(), trips)) {
      auto mapping = cast<gpu::GPUThreadMappingAttr>(attr);
      if (mapping.isLinearMapping())
        continue;
      auto dim = static_cast<int64_t>(mapping.getMappingId());
      if (dim < 3)
        dims[dim] = std::max(dims[dim], trip);
    }
  });
  return dims;
}

/// The kernel's ops ids for mapping: MappingId of a block mapping.
int64_t idOf(Attribute attr) {
  return static_cast<int64_t>(
      cast<gpu::GPUBlockMappingAttr>(attr).getMappingId());
}

/// A block loop with dims mapped past x and y (upstream's linear block
/// mapping keeps only three dims) gets them folded into one z dim: the
/// loop is rebuilt over (x, y, z) and the folded indices recovered with
/// affine.delinearize_index.
void foldIntoZ(scf::ForallOp forall) {
  SmallVector<int64_t> trips(forall.getStaticUpperBound());
  ArrayAttr mapping = *forall.getMapping();
  SmallVector<unsigned> folded;
  bool linear = false;
  for (auto [i, attr] : llvm::enumerate(mapping)) {
    if (idOf(attr) >= 2)
      folded.push_back(i);
    linear |= idOf(attr) > 2;
  }
  if (!linear)
    return;
  // Outermost folded dim first: z = ((d0 * n1) + d1) * n2 + ...
  llvm::sort(folded, [&](unsigned a, unsigned b) {
    return idOf(mapping[a]) > idOf(mapping[b]);
  });
  MLIRContext *ctx = forall.getContext();
  SmallVector<OpFoldResult> ubs;
  SmallVector<Attribute> newMapping;
  SmallVector<int64_t> foldedTrips;
  int64_t z = 1;
  for (auto [i, attr] : llvm::enumerate(mapping))
    if (!llvm::is_contained(folded, i)) {
      ubs.push_back(OpBuilder(ctx).getIndexAttr(trips[i]));
      newMapping.push_back(attr);
    }
  for (unsigned i : folded) {
    foldedTrips.push_back(trips[i]);
    z *= trips[i];
  }
  ubs.push_back(OpBuilder(ctx).getIndexAttr(z));
  newMapping.push_back(gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ));
  OpBuilder b(forall);
  Location loc = forall.getLoc();
  auto rebuilt = scf::ForallOp::create(b, loc, ubs, ValueRange{},
                                       b.getArrayAttr(newMapping));
  Block *body = rebuilt.getBody();
  b.setInsertionPointToStart(body);
  SmallVector<Value> ivs(trips.size());
  unsigned next = 0;
  for (unsigned i = 0; i < trips.size(); ++i)
    if (!llvm::is_contained(folded, i))
      ivs[i] = body->getArgument(next++);
  auto split = affine::AffineDelinearizeIndexOp::create(
      b, loc, body->getArgument(next), foldedTrips, /*hasOuterBound=*/true);
  for (auto [k, i] : llvm::enumerate(folded))
    ivs[i] = split.getResult(k);
  // Move the old body (without its terminator) in.
  Block *old = forall.getBody();
  old->getTerminator()->erase();
  b.setInsertionPointToEnd(body);
  Operation *terminator = body->getTerminator();
  for (auto [arg, iv] : llvm::zip(old->getArguments(), ivs))
    arg.replaceAllUsesWith(iv);
  body->getOperations().splice(terminator->getIterator(),
                               old->getOperations());
  forall.erase();
}

struct GpuMapToLaunches
    : hodu::gpu::impl::GpuMapToLaunchesBase<GpuMapToLaunches> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(kernelsForHostOps(module)) ||
        failed(lowerWorkgroupReductions(module)))
      return signalPassFailure();

    SymbolTable symbols(module);
    SmallVector<scf::ForallOp> blocks;
    module.walk([&](func::FuncOp func) {
      for (auto forall : llvm::to_vector(func.getBody().getOps<scf::ForallOp>()))
        if (mappedTo(forall, /*blocks=*/true))
          foldIntoZ(forall);
      for (auto forall : func.getBody().getOps<scf::ForallOp>())
        if (mappedTo(forall, /*blocks=*/true))
          blocks.push_back(forall);
    });

    TransformScript script(module);
    for (scf::ForallOp block : blocks) {
      if (failed(lowerTensorCoreContractions(block)))
        return signalPassFailure();
      SmallVector<int64_t> dims = blockDimsOf(block);
      if (failed(placeTemporaries(block)) ||
          failed(toWorkgroupGlobals(block, symbols)))
        return signalPassFailure();
      // Copies into workgroup memory, spread over the block's threads.
      SmallVector<linalg::CopyOp> toTile = copiesIntoWorkgroup(block);
      Value blockLoop = script.match(block);
      SmallVector<Value> copyHandles;
      for (linalg::CopyOp copy : toTile)
        copyHandles.push_back(script.match(copy));
      for (auto [copy, h] : llvm::zip(toTile, copyHandles))
        tileCopy(script, copy, h, dims[0] * dims[1] * dims[2]);
      placeBarriers(block.getBody());
      script.mapNestedForallToThreads(script.mapForallToBlocks(blockLoop),
                                      dims, /*syncAfterDistribute=*/false);
    }
    if (!script.empty() && failed(script.apply(getArgument())))
      return signalPassFailure();
  }

  /// Computation that bufferisation left outside the kernels (the fills and
  /// copies of tensor.pad, insert_slice and concatenation, ops without
  /// parallel loops, reductions to one value) would run on the host, on
  /// device buffers: each becomes a kernel. Ops with parallel loops get a
  /// thread per element; the others one thread, or a workgroup when marked
  /// for a workgroup reduction.
  LogicalResult kernelsForHostOps(ModuleOp module) {
    SmallVector<linalg::LinalgOp> perElement;
    // Runs of ops one thread does, in order.
    SmallVector<SmallVector<Operation *>> single;
    module.walk([&](func::FuncOp func) {
      SmallVector<Operation *> run;
      DenseSet<Operation *> inRun;
      auto flush = [&] {
        if (run.empty())
          return;
        // Values the run computes must not be needed outside it.
        bool escapes = llvm::any_of(run, [&](Operation *op) {
          return llvm::any_of(op->getUsers(), [&](Operation *user) {
            return !inRun.contains(user) &&
                   !llvm::any_of(run, [&](Operation *r) {
                     return r->isProperAncestor(user);
                   });
          });
        });
        if (!escapes)
          single.push_back(run);
        run.clear();
        inRun.clear();
      };
      for (Operation &op : llvm::make_early_inc_range(func.getBody().getOps())) {
        Operation *current = &op;
        if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          OpBuilder b(copy);
          current = linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                                           copy.getTarget());
          copy.erase();
        }
        // Scalar work left on the host (the loops of scatter and
        // determinant lowerings, which write buffers element by element,
        // the loads and stores around them, the arithmetic between them)
        // runs on one thread, in one kernel.
        bool scalarWork =
            (isa<scf::ForOp, scf::WhileOp, scf::IfOp>(current) &&
             !isMemoryEffectFree(current)) ||
            isa<memref::StoreOp, memref::LoadOp>(current);
        bool usesRun = llvm::any_of(current->getOperands(), [&](Value v) {
          return v.getDefiningOp() && inRun.contains(v.getDefiningOp());
        });
        if (scalarWork || (usesRun && isMemoryEffectFree(current) &&
                           current->getNumRegions() == 0)) {
          run.push_back(current);
          inRun.insert(current);
          continue;
        }
        if (isMemoryEffectFree(current) || isa<memref::AllocOp>(current))
          continue; // views, constants, index maths: stay before the run
        flush();
        auto linalgOp = dyn_cast<linalg::LinalgOp>(current);
        if (!linalgOp || !linalgOp.hasPureBufferSemantics())
          continue;
        if (linalgOp.getNumParallelLoops() > 0 &&
            !linalgOp->hasAttr(kWorkgroupReduce))
          perElement.push_back(linalgOp);
        else
          single.push_back({linalgOp});
      }
      flush();
    });
    MLIRContext *ctx = module.getContext();
    for (ArrayRef<Operation *> ops : single) {
      // At the run's last op, so that what the run reads is defined.
      OpBuilder b(ops.back());
      Location loc = ops.front()->getLoc();
      auto inLoop = [&](ArrayAttr mapping) {
        auto forall = scf::ForallOp::create(
            b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(1)}, ValueRange{},
            mapping, [&](OpBuilder &nested, Location l, ValueRange) {
              scf::InParallelOp::create(nested, l);
            });
        b.setInsertionPoint(forall.getBody()->getTerminator());
      };
      inLoop(b.getArrayAttr(
          gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)));
      // A workgroup reduction builds its own thread loops.
      if (!ops.front()->hasAttr(kWorkgroupReduce))
        inLoop(b.getArrayAttr(
            gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)));
      Operation *terminator = b.getInsertionBlock()->getTerminator();
      for (Operation *op : ops)
        op->moveBefore(terminator);
    }
    if (perElement.empty())
      return success();
    TileOptions o;
    o.maxThreads = blockThreads;
    TransformScript script(module);
    SmallVector<Value> handles;
    for (linalg::LinalgOp op : perElement)
      handles.push_back(script.match(op));
    for (auto [op, h] : llvm::zip(perElement, handles))
      tilePerElement(script, op, h, nullptr, Value(), o);
    return script.apply(getArgument());
  }

  /// A copy into workgroup memory (tiled over the threads in the same
  /// script): its target, else null.
  static Value workgroupCopyTarget(Operation *op) {
    auto copy = dyn_cast<linalg::CopyOp>(op);
    if (!copy || !copy.hasPureBufferSemantics())
      return Value();
    Value target = copy.getOutputs()[0];
    return inWorkgroupMemory(cast<MemRefType>(target.getType())) ? target
                                                                  : Value();
  }

  /// Whether `op` is work the block's threads share (a thread loop, or a
  /// copy into workgroup memory that becomes one), or holds some.
  static bool isThreadWork(Operation *op) {
    if (auto forall = dyn_cast<scf::ForallOp>(op))
      return mappedTo(forall, /*blocks=*/false);
    if (workgroupCopyTarget(op))
      return true;
    bool nested = false;
    op->walk([&](Operation *inner) {
      if (inner != op && isThreadWork(inner))
        nested = true;
    });
    return nested;
  }

  /// The barriers upstream's thread mapping would put after every thread
  /// loop, less two it need not: between copies into different workgroup
  /// buffers (a K step's A and B tiles: nothing reads either until both
  /// are written), and after the kernel's last work. Everywhere else (the
  /// K step's end, a tree's levels, an epilogue's reads) a barrier follows.
  void placeBarriers(Block *body, bool top = true) {
    SmallVector<Operation *> work;
    for (Operation &op : *body)
      if (isThreadWork(&op))
        work.push_back(&op);
    for (auto [i, op] : llvm::enumerate(work)) {
      // Thread loops inside loops (a K loop) get their barriers there.
      if (!isa<scf::ForallOp>(op) && !workgroupCopyTarget(op))
        for (Region &region : op->getRegions())
          for (Block &block : region)
            placeBarriers(&block, /*top=*/false);
      bool last = i + 1 == work.size();
      if (last && top)
        continue;
      if (!last) {
        Value a = workgroupCopyTarget(op), b = workgroupCopyTarget(work[i + 1]);
        if (a && b && a != b && nothingBetween(op, work[i + 1]))
          continue;
      }
      OpBuilder builder(op->getContext());
      builder.setInsertionPointAfter(op);
      gpu::BarrierOp::create(builder, op->getLoc());
    }
  }

  /// Whether only side-effect-free ops (views, index arithmetic) lie
  /// between `a` and `b` in their block.
  static bool nothingBetween(Operation *a, Operation *b) {
    for (Operation *op = a->getNextNode(); op && op != b; op = op->getNextNode())
      if (!isMemoryEffectFree(op))
        return false;
    return true;
  }

  /// Temporaries bufferisation allocated inside a kernel (the unused output
  /// of an argmax's tile, a tile computed out of place), which a kernel
  /// cannot allocate: in a thread loop they are the thread's own (private
  /// memory: registers or the stack), in the block its threads' shared
  /// buffer (workgroup memory). Copies between them become linalg.copy,
  /// which is lowered to loops like the kernel's other linalg ops.
  LogicalResult placeTemporaries(scf::ForallOp block) {
    SmallVector<memref::AllocOp> allocs;
    block.walk([&](memref::AllocOp alloc) {
      if (!alloc.getType().getMemorySpace())
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape())
        return alloc.emitError("a kernel's temporary buffers need static "
                               "shapes");
      bool perThread = false;
      for (auto forall = alloc->getParentOfType<scf::ForallOp>();
           forall && forall != block;
           forall = forall->getParentOfType<scf::ForallOp>())
        perThread |= mappedTo(forall, /*blocks=*/false);
      Attribute space = gpu::AddressSpaceAttr::get(
          alloc.getContext(), perThread ? gpu::AddressSpace::Private
                                        : gpu::AddressSpace::Workgroup);
      // Private memory is per thread wherever it is allocated: at the
      // kernel's start, where SPIR-V wants its function variables.
      OpBuilder b(alloc);
      if (perThread)
        b.setInsertionPointToStart(block.getBody());
      auto newType = MemRefType::Builder(type).setMemorySpace(space);
      Value replacement =
          perThread
              ? memref::AllocaOp::create(b, alloc.getLoc(), newType).getResult()
              : memref::AllocOp::create(b, alloc.getLoc(), newType).getResult();
      alloc.replaceAllUsesWith(replacement);
      alloc.erase();
      // Views of it live in the same memory space.
      SmallVector<Value> worklist = {replacement};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
          if (isa<memref::DeallocOp>(user)) {
            user->erase();
            continue;
          }
          if (!isa<ViewLikeOpInterface>(user))
            continue;
          for (Value result : user->getResults())
            if (auto t = dyn_cast<MemRefType>(result.getType())) {
              result.setType(MemRefType::Builder(t).setMemorySpace(space));
              worklist.push_back(result);
            }
        }
      }
    }
    SmallVector<memref::CopyOp> copies;
    block.walk([&](memref::CopyOp copy) {
      if (!inWorkgroupMemory(cast<MemRefType>(copy.getTarget().getType())) ||
          copy->getParentOfType<scf::ForallOp>() != block)
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
    return success();
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

  /// A copy into workgroup memory over all `threads` threads of the block
  /// (linear thread ids): up to `vector-width` consecutive elements of the
  /// last dim per thread, then rows of the dim before; vectorised, so that
  /// the loads are vectors where the target allows.
  void tileCopy(TransformScript &s, linalg::CopyOp copy, Value h,
                int64_t threads) {
    ArrayRef<int64_t> shape =
        cast<MemRefType>(copy.getOutputs()[0].getType()).getShape();
    MLIRContext *ctx = copy->getContext();
    int64_t rank = shape.size();
    SmallVector<int64_t> sizes(rank, 0);
    SmallVector<Attribute> mapping;
    int64_t width = largestDivisor(shape.back(), vectorWidth);
    int64_t lastTrips = largestDivisor(shape.back() / width, threads);
    sizes.back() = shape.back() / lastTrips;
    int64_t left = threads / lastTrips;
    // Rows: the innermost other dim with more than one (a tile's leading
    // dims are mostly 1: batch, heads).
    int64_t rowDim = -1;
    for (int64_t d = rank - 2; d >= 0; --d)
      if (shape[d] > 1) {
        rowDim = d;
        break;
      }
    if (rowDim >= 0 && left > 1) {
      int64_t rowTrips = largestDivisor(shape[rowDim], left);
      sizes[rowDim] = shape[rowDim] / rowTrips;
      mapping.push_back(
          gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::LinearDim1));
    }
    mapping.push_back(
        gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::LinearDim0));
    s.vectorize(s.tileUsingForall(h, sizes, mapping).op);
  }
};
} // namespace
