//===- OutlineKernels.cpp - every loop nest of a model a function ---------===//
//
// See hodu-cpu-outline-kernels in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace hodu::cpu {
#define GEN_PASS_DEF_CPUOUTLINEKERNELS
#include "hodu/Target/CPU/Passes.h.inc"
} // namespace hodu::cpu

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kKernel = "hodu.kernel";

/// Whether a value of `type` can be a kernel's argument under the
/// bare-pointer calling convention: a scalar, or a statically shaped memref
/// with the identity layout (offset 0, so its pointer is all it needs).
bool passable(Type type) {
  if (type.isIntOrIndexOrFloat())
    return true;
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getLayout().isIdentity();
}

/// Whether something inside `op` frees a buffer from outside it (the
/// deallocations buffer-deallocation places at the end of a region). Under
/// the bare-pointer convention a kernel sees a buffer's aligned pointer
/// only, not the one its allocation returned, so it must not free it.
bool freesOutside(Operation *op) {
  WalkResult result = op->walk([&](MemoryEffectOpInterface nested) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    nested.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value v = effect.getValue();
      if (!v || !op->isAncestor(v.getParentRegion()->getParentOp()))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// How an op's captured values reach its kernel: ops recomputed inside it
/// (pure, region-free ops: constants, views, index arithmetic; in order,
/// producers first) and arguments (the rest).
struct Captures {
  llvm::SetVector<Operation *> recomputed;
  llvm::SetVector<Value> arguments;

  /// False if `v` can be neither recomputed nor passed.
  bool add(Value v, Operation *kernelOp) {
    if (arguments.contains(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (def && recomputed.contains(def))
      return true;
    // Defined in the kernel op's block or one around it (an scf.if's
    // kernels recompute the views the function body made).
    if (def && def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
        def->getParentRegion()->isAncestor(kernelOp->getParentRegion())) {
      for (Value operand : def->getOperands())
        if (!add(operand, kernelOp))
          return false;
      recomputed.insert(def);
      return true;
    }
    if (!passable(v.getType()))
      return false;
    arguments.insert(v);
    return true;
  }
};

struct CpuOutlineKernels
    : hodu::cpu::impl::CpuOutlineKernelsBase<CpuOutlineKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kKernel))
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      outlineIn(func, symbols);
  }

  /// The kernels of `block` (ops with regions and no results), and those of
  /// the blocks of its control flow: an `scf.if` or `scf.index_switch` with
  /// results (a model's If) or an `scf.while` (a run-time Loop) is not a
  /// kernel itself, but the loop nests in its regions are.
  void collect(Block &block, SmallVectorImpl<Operation *> &kernels,
               SmallVectorImpl<Block *> &blocks) {
    blocks.push_back(&block);
    for (Operation &op : block.without_terminator()) {
      if (op.getNumRegions() == 0)
        continue;
      if (op.use_empty() && !freesOutside(&op)) {
        kernels.push_back(&op);
        continue;
      }
      if (isa<scf::IfOp, scf::IndexSwitchOp, scf::WhileOp,
              scf::ExecuteRegionOp>(op))
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            collect(nested, kernels, blocks);
    }
  }

  void outlineIn(func::FuncOp func, SymbolTable &symbols) {
    if (!func.getBody().hasOneBlock())
      return;
    SmallVector<Operation *> kernels;
    SmallVector<Block *> blocks;
    collect(func.getBody().front(), kernels, blocks);
    if (kernels.size() < 2)
      return; // the function is its kernel already
    int64_t index = 0;
    for (Operation *op : kernels) {
      Captures captures;
      llvm::SetVector<Value> used;
      getUsedValuesDefinedAbove(op->getRegions(), used);
      used.insert(op->operand_begin(), op->operand_end());
      if (!llvm::all_of(used, [&](Value v) { return captures.add(v, op); }))
        continue; // something it reads cannot cross a call: stays inline

      OpBuilder b(func);
      std::string name =
          (func.getSymName() + "_kernel" + llvm::Twine(index++)).str();
      SmallVector<Type> argTypes;
      for (Value v : captures.arguments)
        argTypes.push_back(v.getType());
      auto kernel = func::FuncOp::create(b, op->getLoc(), name,
                                         b.getFunctionType(argTypes, {}));
      kernel.setPrivate();
      kernel->setAttr(kKernel, b.getUnitAttr());
      // Kept out of line by LLVM too: the point is functions of a kernel's
      // size (LLVM's loop passes and the OpenMP outliner cost more than
      // linearly in the size of the function around a loop).
      kernel->setAttr("passthrough",
                      b.getArrayAttr({b.getStringAttr("noinline")}));
      symbols.insert(kernel);

      Block *entry = kernel.addEntryBlock();
      OpBuilder kb = OpBuilder::atBlockBegin(entry);
      IRMapping map;
      for (auto [v, arg] : llvm::zip(captures.arguments, entry->getArguments()))
        map.map(v, arg);
      // SetVector keeps insertion order, which is producers first.
      for (Operation *def : captures.recomputed)
        kb.clone(*def, map);
      kb.clone(*op, map);
      func::ReturnOp::create(kb, op->getLoc());

      OpBuilder cb(op);
      func::CallOp::create(cb, op->getLoc(), kernel,
                           llvm::to_vector(captures.arguments));
      op->erase();
    }
    // What only the kernels used (views, constants) is left dead.
    for (Block *block : llvm::reverse(blocks))
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
        if (isOpTriviallyDead(&op))
          op.erase();
  }
};
} // namespace
