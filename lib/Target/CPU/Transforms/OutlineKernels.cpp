//===- OutlineKernels.cpp - every loop nest of a model a function ---------===//
//
// See hodu-cpu-outline-kernels in include/hodu/Target/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

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
    // A global is passed, not named, so that kernels that differ only in
    // which weights they read are one function (dedupe below).
    if (isa_and_nonnull<memref::GetGlobalOp>(def) && passable(v.getType())) {
      arguments.insert(v);
      return true;
    }
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

/// A kernel to outline: the ops cloned into it, in order, and those of
/// them that leave the caller (a straight-line kernel's pure ops that no
/// moved op feeds stay, as later code may use them; an op with regions is
/// both).
struct Kernel {
  SmallVector<Operation *> ops;
  SmallVector<Operation *> moved;
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
  /// kernel itself, but the loop nests in its regions are. Runs of
  /// region-free ops that read and write memory (the vector code of small
  /// ops, vectorised whole, with no loop) are kernels too (straightLine).
  void collect(Block &block, SmallVectorImpl<Kernel> &kernels,
               SmallVectorImpl<Block *> &blocks) {
    blocks.push_back(&block);
    SmallVector<Operation *> run;
    for (Operation &op : block.without_terminator()) {
      if (op.getNumRegions() == 0) {
        if (isMemoryEffectFree(&op) || readsOrWritesOnly(&op)) {
          run.push_back(&op);
          continue;
        }
        straightLine(run, kernels);
        continue;
      }
      straightLine(run, kernels);
      if (op.use_empty() && !freesOutside(&op)) {
        kernels.push_back({{&op}, {&op}});
        continue;
      }
      if (isa<scf::IfOp, scf::IndexSwitchOp, scf::WhileOp,
              scf::ExecuteRegionOp>(op))
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            collect(nested, kernels, blocks);
    }
    straightLine(run, kernels);
  }

  /// Whether `op` only reads or writes memory (no allocation, no free, no
  /// unknown effects).
  static bool readsOrWritesOnly(Operation *op) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return false;
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect());
    });
  }

  /// The ops of `run` that move into a straight-line kernel: those with
  /// memory effects and the pure ops that use their results, transitively.
  /// Empty unless one of the former writes, they move at least
  /// kMinStraightLine elements (a transfer of an n-D vector becomes a load
  /// or store per row, or per element, in LLVM), and nothing outside the
  /// run uses what they compute.
  static SmallVector<Operation *> straightLineOps(ArrayRef<Operation *> run) {
    constexpr int64_t kMinStraightLine = 16;
    llvm::SmallPtrSet<Operation *, 32> moved;
    int64_t effects = 0;
    bool writes = false;
    for (Operation *op : run) {
      bool pure = isMemoryEffectFree(op);
      bool fed = llvm::any_of(op->getOperands(), [&](Value v) {
        return v.getDefiningOp() && moved.contains(v.getDefiningOp());
      });
      if (pure && !fed)
        continue;
      moved.insert(op);
      if (!pure) {
        int64_t elements = 1;
        for (Type t : llvm::concat<Type>(op->getOperandTypes(),
                                         op->getResultTypes()))
          if (auto vector = dyn_cast<VectorType>(t))
            elements = std::max(elements, vector.getNumElements());
        effects += elements;
        writes |= hasEffect<MemoryEffects::Write>(op);
      }
    }
    if (effects < kMinStraightLine || !writes)
      return {};
    SmallVector<Operation *> ops;
    for (Operation *op : run) {
      if (!moved.contains(op))
        continue;
      for (Operation *user : op->getUsers())
        if (!moved.contains(user))
          return {};
      ops.push_back(op);
    }
    return ops;
  }

  /// Records the straight-line kernels of `run` and clears it. An op with
  /// memory effects whose result is used after the run (a scalar load that
  /// later code reads) stays inline and splits the run around it.
  static void straightLine(SmallVectorImpl<Operation *> &run,
                           SmallVectorImpl<Kernel> &kernels) {
    llvm::SmallPtrSet<Operation *, 32> inRun(run.begin(), run.end());
    SmallVector<Operation *> part;
    for (Operation *op : run) {
      if (!isMemoryEffectFree(op) &&
          llvm::any_of(op->getUsers(),
                       [&](Operation *user) { return !inRun.contains(user); })) {
        straightLinePart(part, kernels);
        continue;
      }
      part.push_back(op);
    }
    straightLinePart(part, kernels);
    run.clear();
  }

  /// Records `part`'s straight-line kernel, if it has one, as the whole
  /// part less the pure ops at its ends (pure ops inside are cloned into
  /// the kernel), and clears `part`.
  static void straightLinePart(SmallVectorImpl<Operation *> &part,
                               SmallVectorImpl<Kernel> &kernels) {
    while (!part.empty() && isMemoryEffectFree(part.back()))
      part.pop_back();
    size_t first = 0;
    while (first < part.size() && isMemoryEffectFree(part[first]))
      ++first;
    ArrayRef<Operation *> ops = ArrayRef(part).drop_front(first);
    SmallVector<Operation *> moved = straightLineOps(ops);
    if (!moved.empty())
      kernels.push_back({SmallVector<Operation *>(ops), std::move(moved)});
    part.clear();
  }

  /// Marks the arguments that are constant globals as what they are to
  /// LLVM: never written, reached through no other argument, and as
  /// aligned as the global (what LLVM knew of the global it named).
  static void markConstantArguments(func::FuncOp kernel,
                                    const llvm::SetVector<Value> &arguments,
                                    SymbolTable &symbols) {
    Builder b(kernel.getContext());
    for (auto [i, v] : llvm::enumerate(arguments)) {
      auto get = v.getDefiningOp<memref::GetGlobalOp>();
      if (!get)
        continue;
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      if (!global || !global.getConstant())
        continue;
      kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                        b.getUnitAttr());
      kernel.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(),
                        b.getUnitAttr());
      if (std::optional<uint64_t> align = global.getAlignment())
        kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          b.getI64IntegerAttr(*align));
    }
  }

  /// A hash of what a kernel computes: its type, argument attributes and,
  /// in order, its ops' names, attributes, properties and types (values by
  /// position only; kernels with equal hashes are then compared in full).
  static llvm::hash_code kernelHash(func::FuncOp kernel) {
    llvm::hash_code h = llvm::hash_combine(kernel.getFunctionType(),
                                           kernel.getArgAttrsAttr());
    kernel.getBody().walk([&](Operation *op) {
      h = llvm::hash_combine(
          h, OperationEquivalence::computeHash(
                 op, OperationEquivalence::ignoreHashValue,
                 OperationEquivalence::ignoreHashValue,
                 OperationEquivalence::IgnoreLocations));
    });
    return h;
  }

  /// Kernels that compute the same thing on the same kinds of arguments
  /// (convolutions of one shape with other weights, at the same place in
  /// the arena: the views a kernel recomputes carry their offsets, so one at
  /// another place stays a function of its own) are one function: `calls[i]`
  /// calls `outlined[i]`; the later of two equal kernels is erased and its
  /// call made to the first. LLVM then optimises and compiles each once.
  static void dedupe(MutableArrayRef<func::FuncOp> outlined,
                     MutableArrayRef<func::CallOp> calls, SymbolTable &symbols) {
    llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> seen;
    for (size_t i = 0; i < outlined.size(); ++i) {
      func::FuncOp kernel = outlined[i];
      SmallVector<func::FuncOp, 1> &same = seen[kernelHash(kernel)];
      auto *equal = llvm::find_if(same, [&](func::FuncOp first) {
        return first.getFunctionType() == kernel.getFunctionType() &&
               first.getArgAttrsAttr() == kernel.getArgAttrsAttr() &&
               OperationEquivalence::isRegionEquivalentTo(
                   &first.getBody(), &kernel.getBody(),
                   OperationEquivalence::IgnoreLocations);
      });
      if (equal == same.end()) {
        same.push_back(kernel);
        continue;
      }
      calls[i].setCallee(equal->getSymName());
      symbols.erase(kernel);
    }
  }

  void outlineIn(func::FuncOp func, SymbolTable &symbols) {
    if (!func.getBody().hasOneBlock())
      return;
    SmallVector<Kernel> kernels;
    SmallVector<Block *> blocks;
    collect(func.getBody().front(), kernels, blocks);
    if (kernels.size() < 2)
      return; // the function is its kernel already
    int64_t index = 0;
    SmallVector<func::FuncOp> outlined;
    SmallVector<func::CallOp> calls;
    for (const Kernel &k : kernels) {
      ArrayRef<Operation *> ops = k.ops;
      Operation *op = ops.front();
      llvm::SmallPtrSet<Operation *, 32> inKernel(ops.begin(), ops.end());
      Captures captures;
      llvm::SetVector<Value> used;
      for (Operation *o : ops) {
        getUsedValuesDefinedAbove(o->getRegions(), used);
        for (Value v : o->getOperands())
          if (!v.getDefiningOp() || !inKernel.contains(v.getDefiningOp()))
            used.insert(v);
      }
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
      markConstantArguments(kernel, captures.arguments, symbols);

      Block *entry = kernel.addEntryBlock();
      OpBuilder kb = OpBuilder::atBlockBegin(entry);
      IRMapping map;
      for (auto [v, arg] : llvm::zip(captures.arguments, entry->getArguments()))
        map.map(v, arg);
      // SetVector keeps insertion order, which is producers first.
      for (Operation *def : captures.recomputed)
        kb.clone(*def, map);
      for (Operation *o : ops)
        kb.clone(*o, map);
      func::ReturnOp::create(kb, op->getLoc());

      OpBuilder cb(op);
      calls.push_back(func::CallOp::create(
          cb, op->getLoc(), kernel, llvm::to_vector(captures.arguments)));
      outlined.push_back(kernel);
      // What stays and is dead goes below.
      for (Operation *o : llvm::reverse(k.moved))
        o->erase();
    }
    dedupe(outlined, calls, symbols);
    // What only the kernels used (views, constants) is left dead.
    for (Block *block : llvm::reverse(blocks))
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
        if (isOpTriviallyDead(&op))
          op.erase();
  }
};
} // namespace
