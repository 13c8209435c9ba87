//===- EntryPoint.cpp - recording the entry point, phase boundaries -------===//
//
// hodu-record-entry-point, hodu-check-lowered and hodu-arena-to-workspace:
// the target-independent steps that carry the model's signature from the
// hodu dialect to the artifact's entry point.
//
//===----------------------------------------------------------------------===//

#include "hodu/ABI/Passes.h"
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace hodu {
#define GEN_PASS_DEF_RECORDENTRYPOINT
#define GEN_PASS_DEF_CHECKLOWERED
#define GEN_PASS_DEF_ARENATOWORKSPACE
#include "ABI/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace {

/// `@main`, or else the module's only public function with a body.
func::FuncOp findEntry(ModuleOp module) {
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp only;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isPrivate() || f.isExternal())
      continue;
    if (only)
      return {};
    only = f;
  }
  return only;
}

struct RecordEntryPointPass
    : hodu::impl::RecordEntryPointBase<RecordEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.getOps<EntryPointOp>().empty())
      return;
    func::FuncOp entry = findEntry(module);
    if (!entry) {
      module.emitError("expected one public function (named @main) as the "
                       "model entry point");
      return signalPassFailure();
    }
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    auto nameKey = b.getStringAttr("hodu.name");
    std::string backend = StringRef(target).upper();

    // {name, type} per input and output, with names from hodu.name.
    auto record = [&](Type t, DictionaryAttr attrs, std::string name,
                      SmallVectorImpl<Attribute> &out) -> LogicalResult {
      if (attrs)
        if (auto n = attrs.getAs<StringAttr>(nameKey))
          name = n.str();
      auto tt = dyn_cast<RankedTensorType>(t);
      if (!tt || !tt.hasStaticShape())
        return entry.emitError("entry point ")
               << name << " has type " << t << "; the " << backend
               << " backend needs tensors with static shapes (pin dynamic "
                  "dims with --input-shape)";
      if (!dtypeOf(tt.getElementType()))
        return entry.emitError("entry point ")
               << name << " has unsupported element type "
               << tt.getElementType();
      out.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("name", b.getStringAttr(name)),
           b.getNamedAttr("type", TypeAttr::get(tt))}));
      return success();
    };
    SmallVector<Attribute> inputs, outputs;
    for (unsigned i = 0; i < entry.getNumArguments(); ++i)
      if (failed(record(entry.getArgumentTypes()[i], entry.getArgAttrDict(i),
                        "input_" + std::to_string(i), inputs)))
        return signalPassFailure();
    for (unsigned i = 0; i < entry.getNumResults(); ++i)
      if (failed(record(entry.getResultTypes()[i], entry.getResultAttrDict(i),
                        "output_" + std::to_string(i), outputs)))
        return signalPassFailure();

    // The names now live in the entry point; lowering has no use for them.
    for (unsigned i = 0; i < entry.getNumArguments(); ++i)
      entry.removeArgAttr(i, nameKey);
    for (unsigned i = 0; i < entry.getNumResults(); ++i)
      entry.removeResultAttr(i, nameKey);
    if (entry.getSymName() != "main")
      entry.setSymName("main");

    std::string modelName = "model";
    if (auto n = module->getAttrOfType<StringAttr>("hodu.model_name"))
      modelName = n.str();
    std::string symbolPrefix = prefix.empty() ? cIdentifier(modelName) : prefix;
    OpBuilder ob = OpBuilder::atBlockEnd(module.getBody());
    EntryPointOp::create(ob, entry.getLoc(), entry.getSymName(),
                         StringRef(symbolPrefix), StringRef(modelName),
                         b.getArrayAttr(inputs), b.getArrayAttr(outputs));
  }
};

struct CheckLoweredPass : hodu::impl::CheckLoweredBase<CheckLoweredPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string backend = StringRef(target).upper();
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (isa<HoduDialect>(op->getDialect()) && !isa<EntryPointOp>(op)) {
        op->emitError("'") << op->getName() << "' cannot be lowered for the "
                           << backend << " target";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

struct ArenaToWorkspacePass
    : hodu::impl::ArenaToWorkspaceBase<ArenaToWorkspacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal() || !main.getBody().hasOneBlock())
      return;
    memref::AllocOp arena;
    for (auto alloc : main.getBody().front().getOps<memref::AllocOp>())
      if (alloc->hasAttr("hodu.arena"))
        arena = alloc;
    if (!arena ||
        arena.getAlignment().value_or(1) > HODU_WORKSPACE_ALIGNMENT)
      return;
    for (Operation *user : llvm::make_early_inc_range(arena->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    unsigned index = main.getNumArguments();
    if (failed(main.insertArgument(index, arena.getType(), {}, arena.getLoc())))
      return signalPassFailure();
    arena.replaceAllUsesWith(main.getArgument(index));
    module->setAttr("hodu.workspace_size",
                    IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                     arena.getType().getNumElements()));
    arena.erase();
  }
};

} // namespace
