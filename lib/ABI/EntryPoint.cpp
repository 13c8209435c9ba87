//===- EntryPoint.cpp - recording the entry point, phase boundaries -------===//
//
// hodu-record-entry-point, hodu-check-lowered, hodu-arena-to-workspace and
// hodu-lower-asserts: the target-independent steps that carry the model's
// signature from the hodu dialect to the artifact's entry point.
//
//===----------------------------------------------------------------------===//

#include "hodu/ABI/Passes.h"
#include "hodu/Dialect/Hodu/Entry.h"
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/SmallBitVector.h"

namespace hodu {
#define GEN_PASS_DEF_RECORDENTRYPOINT
#define GEN_PASS_DEF_CHECKLOWERED
#define GEN_PASS_DEF_ARENATOWORKSPACE
#define GEN_PASS_DEF_LOWERASSERTS
#include "ABI/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace {

/// The argument attribute of a padded symbol's value (hodu-pad-symbols).
constexpr llvm::StringLiteral kSymbolValueKey = "hodu.symbol_value";

/// Whether entry argument `i` is a padded symbol's value that the entry
/// point passes itself (hodu-pad-symbols' last argument): no input of the
/// descriptor. On an accelerator the value is a meta slot instead, which
/// the runtime writes at each run.
bool isEntryOwnValue(func::FuncOp entry, unsigned i, StringAttr metaKey) {
  return entry.getArgAttr(i, kSymbolValueKey) && !entry.getArgAttr(i, metaKey);
}

/// The name an entry argument or result is recorded under.
std::string entryName(DictionaryAttr attrs, StringAttr nameKey,
                      StringRef fallback, unsigned index) {
  if (attrs)
    if (auto n = attrs.getAs<StringAttr>(nameKey))
      return n.str();
  return (fallback + std::to_string(index)).str();
}

/// Puts the entry's arguments in the ABI's order -- the plain inputs, then
/// the state tensors (`hodu.state`), then the meta slots (`hodu.meta_slot`),
/// each group in its order -- and its results too: the plain outputs, then
/// each state tensor's new value (the result marked `hodu.state` with the
/// state argument's name and type) in the state arguments' order. The
/// attributes' values must fit: a unit attribute or an initial value of
/// the argument's type.
LogicalResult orderEntry(func::FuncOp entry, StringAttr metaKey,
                         StringAttr stateKey, StringAttr nameKey) {
  auto initFits = [&](Attribute attr, Type type) {
    auto init = dyn_cast<ElementsAttr>(attr);
    return isa<UnitAttr>(attr) || (init && init.getType() == type);
  };
  SmallVector<unsigned> plain, state, meta, symbolValues;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    if (isEntryOwnValue(entry, i, metaKey)) {
      symbolValues.push_back(i);
      continue;
    }
    Attribute m = entry.getArgAttr(i, metaKey);
    Attribute st = entry.getArgAttr(i, stateKey);
    Type type = entry.getArgumentTypes()[i];
    if (m && st)
      return entry.emitError("argument #")
             << i << " is marked both hodu.meta_slot and hodu.state: a meta "
             << "slot is what the host writes, a state tensor what the run "
             << "updates";
    for (auto [attr, key] : {std::pair(m, metaKey), std::pair(st, stateKey)})
      if (attr && !initFits(attr, type))
        return entry.emitError("argument #")
               << i << ": " << key.getValue()
               << " must be a unit attribute or an initial value of the "
               << "argument's type " << type << ", got " << attr;
    (m ? meta : st ? state : plain).push_back(i);
  }

  // Results: each state argument's new value, found by name.
  SmallVector<unsigned> plainResults, stateResults;
  llvm::SmallBitVector claimed(entry.getNumResults());
  for (unsigned a : state) {
    std::string name = entryName(entry.getArgAttrDict(a), nameKey, "input_", a);
    std::optional<unsigned> found;
    for (unsigned r = 0; r < entry.getNumResults(); ++r) {
      if (!entry.getResultAttr(r, stateKey) ||
          entryName(entry.getResultAttrDict(r), nameKey, "output_", r) != name)
        continue;
      if (found)
        return entry.emitError("state tensor '")
               << name << "' has two results marked hodu.state (#" << *found
               << " and #" << r << ")";
      found = r;
    }
    if (!found)
      return entry.emitError("state tensor '")
             << name << "' (argument #" << a
             << ") has no result marked hodu.state of its name: a state "
             << "tensor is an input and the output of its new value";
    if (entry.getResultTypes()[*found] != entry.getArgumentTypes()[a])
      return entry.emitError("state tensor '")
             << name << "' is " << entry.getArgumentTypes()[a]
             << " but its new value (result #" << *found << ") is "
             << entry.getResultTypes()[*found];
    claimed.set(*found);
    stateResults.push_back(*found);
  }
  for (unsigned r = 0; r < entry.getNumResults(); ++r) {
    if (claimed.test(r))
      continue;
    if (entry.getResultAttr(r, stateKey))
      return entry.emitError("result #")
             << r << " ('"
             << entryName(entry.getResultAttrDict(r), nameKey, "output_", r)
             << "') is marked hodu.state, but no argument of its name is";
    plainResults.push_back(r);
  }

  // Arguments in the new order: appended in it, the old ones erased.
  SmallVector<unsigned> order(plain);
  llvm::append_range(order, state);
  llvm::append_range(order, meta);
  llvm::append_range(order, symbolValues);
  unsigned n = entry.getNumArguments();
  if (!llvm::equal(order, llvm::seq<unsigned>(0, n))) {
    for (unsigned i : order) {
      unsigned at = entry.getNumArguments();
      if (failed(entry.insertArgument(at, entry.getArgumentTypes()[i],
                                      entry.getArgAttrDict(i),
                                      entry.getArgument(i).getLoc())))
        return failure();
      entry.getArgument(i).replaceAllUsesWith(entry.getArgument(at));
    }
    llvm::BitVector erased(entry.getNumArguments());
    erased.set(0, n);
    if (failed(entry.eraseArguments(erased)))
      return failure();
  }

  SmallVector<unsigned> results(plainResults);
  llvm::append_range(results, stateResults);
  if (!llvm::equal(results, llvm::seq<unsigned>(0, entry.getNumResults()))) {
    SmallVector<DictionaryAttr> attrs;
    SmallVector<Type> types;
    for (unsigned r : results) {
      attrs.push_back(entry.getResultAttrDict(r));
      types.push_back(entry.getResultTypes()[r]);
    }
    for (Block &block : entry.getBody())
      if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator())) {
        SmallVector<Value> operands;
        for (unsigned r : results)
          operands.push_back(ret.getOperand(r));
        ret->setOperands(operands);
      }
    entry.setType(
        FunctionType::get(entry.getContext(), entry.getArgumentTypes(), types));
    for (auto [r, dict] : llvm::enumerate(attrs))
      entry.setResultAttrs(r, dict ? dict
                                   : DictionaryAttr::get(entry.getContext()));
  }
  return success();
}

struct RecordEntryPointPass
    : hodu::impl::RecordEntryPointBase<RecordEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.getOps<EntryPointOp>().empty())
      return;
    func::FuncOp entry = findEntryFunction(module);
    if (!entry) {
      module.emitError("expected one public function (named @main) as the "
                       "model entry point");
      return signalPassFailure();
    }
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    auto nameKey = b.getStringAttr("hodu.name");
    auto metaKey = b.getStringAttr("hodu.meta_slot");
    auto stateKey = b.getStringAttr("hodu.state");
    auto dimsKey = b.getStringAttr("hodu.dims");
    if (failed(orderEntry(entry, metaKey, stateKey, nameKey)))
      return signalPassFailure();
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
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("name", b.getStringAttr(name)),
          b.getNamedAttr("type", TypeAttr::get(tt))};
      // Symbolic dims (hodu-chunk-symbols): the symbol of each dim.
      if (Attribute dims = attrs ? attrs.get(dimsKey) : Attribute())
        fields.push_back(b.getNamedAttr("dims", dims));
      if (Attribute meta = attrs ? attrs.get(metaKey) : Attribute()) {
        fields.push_back(b.getNamedAttr("meta", b.getUnitAttr()));
        // A padded symbol's value, in a meta slot (an accelerator's).
        if (Attribute symbol = attrs.get(kSymbolValueKey))
          fields.push_back(b.getNamedAttr("symbol_value", symbol));
        if (auto init = dyn_cast<ElementsAttr>(meta))
          fields.push_back(b.getNamedAttr("init", init));
      }
      // A state tensor (inputs: with its initial value; outputs: its new
      // value).
      if (Attribute state = attrs ? attrs.get(stateKey) : Attribute()) {
        fields.push_back(b.getNamedAttr("state", b.getUnitAttr()));
        if (auto init = dyn_cast<ElementsAttr>(state))
          fields.push_back(b.getNamedAttr("init", init));
      }
      out.push_back(b.getDictionaryAttr(fields));
      return success();
    };
    SmallVector<Attribute> inputs, outputs;
    for (unsigned i = 0; i < entry.getNumArguments(); ++i)
      if (!isEntryOwnValue(entry, i, metaKey) &&
          failed(record(entry.getArgumentTypes()[i], entry.getArgAttrDict(i),
                        "input_" + std::to_string(i), inputs)))
        return signalPassFailure();
    for (unsigned i = 0; i < entry.getNumResults(); ++i)
      if (failed(record(entry.getResultTypes()[i], entry.getResultAttrDict(i),
                        "output_" + std::to_string(i), outputs)))
        return signalPassFailure();

    // The names now live in the entry point; lowering has no use for them.
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      entry.removeArgAttr(i, nameKey);
      entry.removeArgAttr(i, metaKey);
      entry.removeArgAttr(i, stateKey);
      entry.removeArgAttr(i, dimsKey);
      entry.removeArgAttr(i, kSymbolValueKey);
    }
    for (unsigned i = 0; i < entry.getNumResults(); ++i) {
      entry.removeResultAttr(i, nameKey);
      entry.removeResultAttr(i, stateKey);
      entry.removeResultAttr(i, dimsKey);
    }
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
      if (auto check = dyn_cast<AssertOp>(op)) {
        if (target == "cpu" && check.getCondition().getType().isInteger(1))
          return WalkResult::advance();
        auto diag = op->emitError("the model checks at run time what it "
                                  "assumes of its data (")
                    << check.getCheckedFact()
                    << "); only the CPU target runs such checks, not the "
                    << backend << " target";
        if (check->hasAttr("hodu.index_check"))
          diag << " (--index-checks=clamp compiles the model without its "
                  "index checks, --fallback=cpu runs them on the CPU)";
        return WalkResult::interrupt();
      }
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

struct LowerAssertsPass : hodu::impl::LowerAssertsBase<LowerAssertsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AssertOp> asserts;
    module.walk([&](AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    auto main = module.lookupSymbol<func::FuncOp>("main");
    bool hasEntry = !module.getOps<EntryPointOp>().empty();
    // The functions whose checks are lowered: the entry function of a
    // whole-CPU model, or the CPU partitions of a heterogeneous bundle
    // (hodu.host_call; their HOST_CALL returns the status word).
    auto runsChecks = [&](func::FuncOp f) {
      return f && (hasEntry ? f == main : f->hasAttr("hodu.host_call"));
    };
    for (AssertOp op : asserts) {
      if (!runsChecks(op->getParentOfType<func::FuncOp>())) {
        op.emitError("a run-time check (")
            << op.getCheckedFact()
            << ") outside the entry function of a CPU model and outside the "
               "CPU partitions of a bundle: nothing would report it";
        return signalPassFailure();
      }
      if (!op.getCondition().getType().isInteger(1)) {
        op.emitError("hodu-lower-asserts: the assert is not on an i1 (run "
                     "it after the lowering to linalg)");
        return signalPassFailure();
      }
    }
    MLIRContext *ctx = module.getContext();
    Type i32 = IntegerType::get(ctx, 32);
    auto statusT = MemRefType::get({}, i32);
    // Each function with checks takes the status word as a last argument.
    DenseMap<Operation *, Value> statusOf;
    for (AssertOp op : asserts) {
      auto f = op->getParentOfType<func::FuncOp>();
      if (statusOf.count(f))
        continue;
      unsigned index = f.getNumArguments();
      if (failed(f.insertArgument(index, statusT, {}, f.getLoc())))
        return signalPassFailure();
      if (f != main)
        f->setAttr("hodu.host_call_status", UnitAttr::get(ctx));
      statusOf[f] = f.getArgument(index);
    }
    SmallVector<Attribute> messages;
    for (auto [k, op] : llvm::enumerate(asserts)) {
      Value status = statusOf[op->getParentOfType<func::FuncOp>()];
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value old = memref::LoadOp::create(b, loc, status);
      Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
      Value code = arith::ConstantIntOp::create(b, loc, i32, int64_t(k) + 2);
      Value clean =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, old, zero);
      Value fail =
          arith::SelectOp::create(b, loc, op.getCondition(), old, code);
      Value next = arith::SelectOp::create(b, loc, clean, fail, old);
      memref::StoreOp::create(b, loc, next, status);
      messages.push_back(op.getMessageAttr());
      op.erase();
    }
    module->setAttr("hodu.asserts", ArrayAttr::get(ctx, messages));
  }
};

} // namespace
