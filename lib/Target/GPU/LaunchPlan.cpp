//===- LaunchPlan.cpp - the host function of a GPU model read as a plan ---===//
//
// See include/hodu/Target/GPU/Bundle.h. The shared `gpu` phase leaves a
// host function of a fixed shape (hodu-gpu-bind-buffers and
// hodu-plan-memory make it so): buffers are function arguments, weights
// (`memref.get_global`) or views into one arena (`memref.view` of the
// `memref.alloc` marked `hodu.arena`); work is `gpu.launch_func` and
// `memref.copy`. Anything else that touches memory would have to run on
// the host between kernels, which a bundle cannot express: it is reported
// with the op's location.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Bundle.h"

#include "hodu/Support/DType.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace hodu::gpu;

unsigned LaunchPlan::numLaunches() const {
  return llvm::count_if(
      steps, [](const PlanStep &s) { return s.op == HODU_STEP_LAUNCH; });
}

namespace {

/// Bytes per element of a buffer the plan passes: integers and floats of
/// whole bytes, and i1 stored as one byte (the runtime's bool).
std::optional<uint64_t> elementBytes(Type type) {
  if (!type.isIntOrFloat())
    return std::nullopt;
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return 1;
  if (width % 8 != 0)
    return std::nullopt;
  return width / 8;
}

/// The contents of a constant global as the device reads them: dense
/// row-major bytes, splats expanded, i1 one byte per element.
FailureOr<std::string> globalBytes(memref::GlobalOp global, uint64_t bytes) {
  auto fail = [&](const Twine &why) {
    return global.emitError("cannot put the global '")
           << global.getSymName() << "' in a bundle: " << why;
  };
  std::optional<Attribute> init = global.getInitialValue();
  if (!global.getConstant() || !init || isa<UnitAttr>(*init))
    return fail("it is not a constant with a value");
  std::string data;
  if (!hodu::constantBytes(*init, data))
    return fail("its initial value is not dense data (or its resource blob "
                "is missing)");
  if (data.size() != bytes)
    return fail("its data has " + Twine(data.size()) + " bytes, its type " +
                Twine(bytes));
  return data;
}

/// Reads @main into a LaunchPlan.
class PlanBuilder {
public:
  PlanBuilder(ModuleOp module, func::FuncOp main, unsigned numInputs,
              unsigned numMeta, unsigned numOutputs)
      : symbols(module), main(main), numInputs(numInputs), numMeta(numMeta),
        numOutputs(numOutputs) {}

  FailureOr<LaunchPlan> build() {
    if (main.getNumArguments() != numInputs + numOutputs ||
        numMeta > numInputs)
      return main.emitError("internal error: @main has ")
             << main.getNumArguments() << " arguments, expected "
             << numInputs + numOutputs << " inputs and outputs";
    if (!main.getBody().hasOneBlock())
      return main.emitError("internal error: @main's host code has branches");
    for (Operation &op : main.getBody().front())
      if (failed(visit(&op)))
        return failure();
    return std::move(plan);
  }

private:
  LogicalResult visit(Operation *op) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return addLaunch(launch);
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      return addCopy(copy);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (alloc->hasAttr("hodu.arena") && alloc.getType().hasStaticShape()) {
        plan.arenaSize = std::max<uint64_t>(plan.arenaSize,
                                            alloc.getType().getNumElements());
        return success();
      }
      return op->emitError("internal error: a buffer outside the device "
                           "arena (hodu-plan-memory did not place it)");
    }
    // Buffers, views, constants and frees are resolved where they are used.
    if (isa<memref::GetGlobalOp, memref::ViewOp, memref::DeallocOp,
            func::ReturnOp>(op) ||
        isPure(op) || op->hasTrait<OpTrait::ConstantLike>())
      return success();
    return op->emitError("'")
           << op->getName()
           << "' would run on the host between kernels, which a bundle "
              "cannot do (it should have been mapped to a kernel)";
  }

  LogicalResult addLaunch(gpu::LaunchFuncOp launch) {
    PlanStep step;
    step.op = HODU_STEP_LAUNCH;
    std::array<uint32_t, 3> block;
    if (failed(dims(launch, launch.getGridSizeOperandValues(), step.grid)) ||
        failed(dims(launch, launch.getBlockSizeOperandValues(), block)))
      return failure();
    if (launch.getDynamicSharedMemorySize())
      return launch.emitError("internal error: dynamic shared memory is not "
                              "part of the launch plan");
    for (Value operand : launch.getKernelOperands()) {
      FailureOr<PlanArg> arg = resolve(operand, launch);
      if (failed(arg))
        return failure();
      step.args.push_back(*arg);
    }
    std::string name = launch.getKernelName().str();
    auto [it, inserted] = kernelIndex.try_emplace(name, plan.kernels.size());
    if (inserted)
      plan.kernels.push_back(
          {name, block, static_cast<uint32_t>(step.args.size())});
    PlanKernel &kernel = plan.kernels[it->second];
    if (kernel.block != block || kernel.numArgs != step.args.size())
      return launch.emitError("internal error: kernel '")
             << name << "' launched with different block sizes or arguments";
    step.kernel = it->second;
    plan.steps.push_back(std::move(step));
    return success();
  }

  LogicalResult addCopy(memref::CopyOp copy) {
    PlanStep step;
    step.op = HODU_STEP_COPY;
    for (Value v : {copy.getSource(), copy.getTarget()}) {
      FailureOr<PlanArg> arg = resolve(v, copy);
      if (failed(arg))
        return failure();
      step.args.push_back(*arg);
    }
    if (step.args[0].size != step.args[1].size)
      return copy.emitError("internal error: a copy between buffers of "
                            "different sizes");
    plan.steps.push_back(std::move(step));
    return success();
  }

  static LogicalResult dims(Operation *op, gpu::KernelDim3 values,
                            std::array<uint32_t, 3> &out) {
    Value v[3] = {values.x, values.y, values.z};
    for (int i = 0; i < 3; ++i) {
      std::optional<int64_t> c = getConstantIntValue(v[i]);
      if (!c || *c < 1 || *c > UINT32_MAX)
        return op->emitError("internal error: a launch whose grid or block "
                             "size is not a positive constant");
      out[i] = static_cast<uint32_t>(*c);
    }
    return success();
  }

  /// The buffer and byte range `value` stands for.
  FailureOr<PlanArg> resolve(Value value, Operation *user) {
    auto type = dyn_cast<MemRefType>(value.getType());
    std::optional<uint64_t> elem =
        type ? elementBytes(type.getElementType()) : std::nullopt;
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !elem)
      return user->emitError("internal error: a kernel argument of type ")
             << value.getType()
             << " (kernel arguments are whole, statically shaped buffers "
                "of whole-byte elements)";
    PlanArg arg;
    arg.size = *elem * type.getNumElements();
    if (auto block = dyn_cast<BlockArgument>(value)) {
      if (block.getOwner()->getParentOp() != main)
        return user->emitError("internal error: a kernel argument defined "
                               "in a nested region");
      // @main(inputs..., meta slots..., outputs...).
      unsigned n = block.getArgNumber(), regular = numInputs - numMeta;
      if (n < regular) {
        arg.space = HODU_SPACE_INPUT;
        arg.index = n;
      } else if (n < numInputs) {
        arg.space = HODU_SPACE_META;
        arg.index = n - regular;
      } else {
        arg.space = HODU_SPACE_OUTPUT;
        arg.index = n - numInputs;
      }
      return arg;
    }
    Operation *def = value.getDefiningOp();
    if (auto get = dyn_cast<memref::GetGlobalOp>(def)) {
      FailureOr<uint64_t> offset = weight(get, arg.size);
      if (failed(offset))
        return failure();
      arg.space = HODU_SPACE_WEIGHTS;
      arg.offset = *offset;
      return arg;
    }
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto arena = view.getSource().getDefiningOp<memref::AllocOp>();
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      if (!arena || !arena->hasAttr("hodu.arena") || !shift || *shift < 0 ||
          *shift % HODU_BUNDLE_BUFFER_ALIGNMENT != 0)
        return user->emitError("internal error: a view that is not an "
                               "aligned slice of the device arena");
      arg.space = HODU_SPACE_ARENA;
      arg.offset = static_cast<uint64_t>(*shift);
      return arg;
    }
    // Reshapes of a whole buffer (a copy's operands may be seen through one).
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            def)) {
      FailureOr<PlanArg> base = resolve(def->getOperand(0), user);
      if (succeeded(base) && base->size != arg.size)
        return user->emitError("internal error: a reshape that changes the "
                               "buffer's size");
      return base;
    }
    return user->emitError("internal error: a kernel argument made by '")
           << def->getName() << "' (expected a model input or output, a "
           << "weight or a view into the device arena)";
  }

  /// The offset in WEIGHTS of the global `get` reads (placed on first use).
  FailureOr<uint64_t> weight(memref::GetGlobalOp get, uint64_t bytes) {
    auto [it, inserted] = weightOffset.try_emplace(get.getNameAttr(), 0);
    if (!inserted)
      return it->second;
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    if (!global)
      return get.emitError("internal error: no global '")
             << get.getName() << "'";
    FailureOr<std::string> data = globalBytes(global, bytes);
    if (failed(data))
      return failure();
    uint64_t offset =
        llvm::alignTo(plan.weights.size(), HODU_BUNDLE_BUFFER_ALIGNMENT);
    plan.weights.resize(offset, '\0');
    plan.weights += *data;
    it->second = offset;
    return offset;
  }

  SymbolTable symbols;
  func::FuncOp main;
  unsigned numInputs, numMeta, numOutputs;
  LaunchPlan plan;
  llvm::StringMap<unsigned> kernelIndex;
  DenseMap<Attribute, uint64_t> weightOffset;
};

} // namespace

FailureOr<LaunchPlan>
hodu::gpu::buildLaunchPlan(ModuleOp module, const EntrySignature &signature) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal())
    return module.emitError("internal error: the module has no @main");
  return PlanBuilder(module, main, signature.inputs.size(),
                     signature.numMetaSlots, signature.outputs.size())
      .build();
}

FailureOr<LaunchPlan> hodu::gpu::buildLaunchPlan(ModuleOp module,
                                                 StringRef function,
                                                 unsigned numInputs,
                                                 unsigned numOutputs,
                                                 unsigned numMetaSlots) {
  auto fn = module.lookupSymbol<func::FuncOp>(function);
  if (!fn || fn.isExternal())
    return module.emitError("internal error: the module has no @")
           << function;
  return PlanBuilder(module, fn, numInputs, numMetaSlots, numOutputs).build();
}
