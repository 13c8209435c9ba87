//===- CheckIndices.cpp - run-time checks of gather and scatter indices ---===//
//
// The lowering keeps every index within its dim (negative ones wrapped, the
// rest clamped), so a bad index cannot read or write outside a buffer; but
// a clamped index gives a plausible wrong answer. With mode=error, each
// index_select, gather, scatter* and index_put whose indices are not a
// constant gets a check that every index lies in [-n, n) (n: the size of
// the indexed dim), reported by a hodu.assert when the model runs. ONNX
// GatherND and ScatterND check their index tuples component by component
// in the importer (their indices are row numbers by the time they reach a
// hodu op); those asserts carry `hodu.index_check`. mode=clamp removes
// them and adds none.
//
//===----------------------------------------------------------------------===//

#include "hodu/Transforms/Passes.h"

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"

namespace hodu {
#define GEN_PASS_DEF_CHECKINDICES
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace {

/// Marks an assert as an index check (dropped by mode=clamp), and an
/// indexing op whose indices are checked (or need none).
constexpr llvm::StringLiteral kIndexCheck = "hodu.index_check";
constexpr llvm::StringLiteral kChecked = "hodu.indices_checked";
/// The name of the indices as the model calls them (the ONNX importer's).
constexpr llvm::StringLiteral kIndicesName = "hodu.indices_name";

/// Whether `op`, located at a node of op type `type`, takes the model's own
/// indices: an op of no node or of a node that is the op itself (a .hdss
/// node: "index_select"), or of an ONNX Gather, GatherElements,
/// ScatterElements or RotaryEmbedding (its position_ids). An index op located at a node of another type is an
/// importer's (NMS, GridSample, GatherND's row numbers ...), whose indices
/// are in range by construction or clamped on purpose.
bool checksIndices(Operation *op, StringRef type) {
  return type.empty() || type == op->getName().stripDialect() ||
         type == "Gather" || type == "GatherElements" ||
         type == "ScatterElements" || type == "Scatter" ||
         type == "RotaryEmbedding"; // its position_ids
}

/// The indices' name for messages: the importer's, a named argument's, or
/// none.
std::string indicesName(Operation *op, Value indices) {
  if (auto s = op->getAttrOfType<StringAttr>(kIndicesName))
    return "'" + s.str() + "'";
  if (auto arg = dyn_cast<BlockArgument>(indices))
    if (auto f = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      if (auto s =
              f.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "hodu.name"))
        return "'" + s.str() + "'";
  return "the indices";
}

struct Indexed {
  Value input, indices;
  int64_t dim;
};

std::optional<Indexed> indexedOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Indexed>>(op)
      .Case<IndexSelectOp, GatherOp, IndexPutOp, ScatterOp, ScatterAddOp,
            ScatterMulOp, ScatterMaxOp, ScatterMinOp>([](auto o) {
        return Indexed{o.getInput(), o.getIndices(), (int64_t)o.getDim()};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Puts an index check's assert at the end of its block, located at a node
/// of its own ("NAME/index-check"): on a GPU target with --fallback=cpu
/// only the assert goes to the CPU, once, after the device's work; the
/// comparison and reduction stay with the indexing op.
void placeAssert(AssertOp check, Location opLoc) {
  check->moveBefore(check->getBlock()->getTerminator());
  auto [name, type] = nodeOfLocation(opLoc);
  if (name.empty() || StringRef(name).ends_with("/index-check"))
    return;
  MLIRContext *ctx = check.getContext();
  Location fileLoc = opLoc;
  if (auto fused = dyn_cast<FusedLoc>(opLoc))
    for (Location l : fused.getLocations())
      if (auto n = dyn_cast<NameLoc>(l))
        fileLoc = n.getChildLoc();
  Location named =
      NameLoc::get(StringAttr::get(ctx, name + "/index-check"), fileLoc);
  check->setLoc(type.empty()
                    ? named
                    : FusedLoc::get(ctx, {named}, StringAttr::get(ctx, type)));
}

struct CheckIndicesPass : hodu::impl::CheckIndicesBase<CheckIndicesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode != "error" && mode != "clamp") {
      module.emitError("hodu-check-indices: mode must be 'error' or "
                       "'clamp', not '")
          << mode << "'";
      return signalPassFailure();
    }
    // The importer's checks (GatherND, ScatterND) and the index ops, in
    // program order: the first check that fails is the one reported.
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AssertOp>(op) ? op->hasAttr(kIndexCheck)
                            : indexedOf(op) && !op->hasAttr(kChecked))
        ops.push_back(op);
    });
    // A model run chunk by chunk along a symbolic dim was proved per
    // position (hodu-chunk-symbols); a check reducing over the chunk was
    // not: its indices stay clamped.
    bool clamp = mode == "clamp" || module->hasAttr("hodu.symbols");
    for (Operation *op : ops) {
      if (auto a = dyn_cast<AssertOp>(op)) {
        if (clamp)
          a->erase();
        else if (a->getBlock()->mightHaveTerminator())
          placeAssert(a, a.getLoc());
      } else if (!clamp) {
        check(op, *indexedOf(op));
      }
    }
  }

  void check(Operation *op, const Indexed &x) {
    op->setAttr(kChecked, UnitAttr::get(op->getContext()));
    auto [name, type] = nodeOfLocation(op->getLoc());
    if (!checksIndices(op, type) || matchPattern(x.indices, m_Constant()))
      return;
    auto in = dyn_cast<RankedTensorType>(x.input.getType());
    auto it = dyn_cast<RankedTensorType>(x.indices.getType());
    if (!in || !it || !it.hasStaticShape() || x.dim < 0 ||
        x.dim >= in.getRank() || in.isDynamicDim(x.dim) ||
        !op->getBlock()->mightHaveTerminator())
      return;
    int64_t n = in.getDimSize(x.dim);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type elt = it.getElementType();
    auto bools = RankedTensorType::get(it.getShape(), b.getI1Type());
    Value lo =
        GeScalarOp::create(b, loc, bools, x.indices, b.getIntegerAttr(elt, -n));
    Value hi =
        LtScalarOp::create(b, loc, bools, x.indices, b.getIntegerAttr(elt, n));
    Value ok = LogicalAndOp::create(b, loc, bools, lo, hi);
    if (it.getRank() > 0) {
      auto all = llvm::to_vector(llvm::seq<int64_t>(0, it.getRank()));
      ok = ReduceAllOp::create(b, loc, RankedTensorType::get({}, b.getI1Type()),
                               ok, all, false);
    }
    std::string where =
        name.empty()
            ? "'" + op->getName().getStringRef().str() + "'"
            : "node '" + name + "' (" +
                  (type.empty() ? op->getName().stripDialect().str() : type) +
                  ")";
    std::string message =
        where + ": an index in " + indicesName(op, x.indices) +
        " is outside [" + std::to_string(-n) + ", " + std::to_string(n - 1) +
        "] (axis " + std::to_string(x.dim) + " of the data has " +
        std::to_string(n) + " element" + (n == 1 ? "" : "s") + ")";
    auto a = AssertOp::create(b, loc, ok, b.getStringAttr(message));
    a->setAttr(kIndexCheck, b.getUnitAttr());
    placeAssert(a, loc);
  }
};

} // namespace
