//===- ChunkSymbols.cpp - which dims a symbol is, and that no op mixes them
//===//
//
// A symbolic dim that no op of the model mixes across (a batch: every
// sample's outputs depend on that sample's inputs alone) is compiled once at
// a fixed size, the chunk, and run over consecutive chunks of any size the
// caller gives (docs/architecture.md, "Symbolic dims"). This pass proves the
// first half: from the entry's arguments marked `hodu.dims` it follows the
// symbol's position through every op, refusing an op that would mix
// positions along it (a reduction over it, a matmul that contracts it, a
// slice of it, a gather along it, ...) with an error that names the op, and
// marks the results with the positions the symbol reaches. Run on a module
// imported with the symbol at a size no other dim has (the driver's probe),
// sizes tell the symbol's block apart in reshapes and broadcasts.
//
//===----------------------------------------------------------------------===//

#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Transforms/Passes.h"

#include "SymbolOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace hodu {
#define GEN_PASS_DEF_CHUNKSYMBOLS
#include "Hodu/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

namespace {

/// Where the symbol is in a value: the dim whose extent is p * inner (p the
/// symbol's size in this module), the symbol being the outer factor.
struct Pos {
  int64_t dim;
  int64_t inner;
  bool operator==(const Pos &o) const {
    return dim == o.dim && inner == o.inner;
  }
};

class ChunkAnalysis {
public:
  ChunkAnalysis(StringRef symbol, int64_t size) : symbol(symbol), p(size) {}

  LogicalResult seed(Value v, int64_t dim) {
    pos[v] = Pos{dim, 1};
    return success();
  }
  std::optional<Pos> get(Value v) const {
    auto it = pos.find(v);
    if (it == pos.end())
      return std::nullopt;
    return it->second;
  }
  LogicalResult run(Block &block);

private:
  LogicalResult visit(Operation *op);
  LogicalResult mixes(Operation *op, const Twine &why) {
    return symbolCannotVary(op, symbol, why);
  }
  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }
  void set(Value v, Pos p) { pos[v] = p; }
  LogicalResult elementwise(Operation *op);
  LogicalResult reshape(Operation *op, Value in, Value out);
  LogicalResult sameDimUnless(Operation *op, Value in, Value out,
                              ArrayRef<int64_t> touched, StringRef what);
  bool replicated(Value v, int64_t dim, unsigned depth = 0) const;

  std::string symbol;
  int64_t p;
  DenseMap<Value, Pos> pos;
};

/// Whether invariant `v` holds the same values at every index of `dim`
/// (a constant whose slices along it are equal, or what a broadcast along
/// it made), so that any slice of it is every chunk's slice.
bool ChunkAnalysis::replicated(Value v, int64_t dim, unsigned depth) const {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || dim < 0 || dim >= type.getRank())
    return false;
  if (type.getDimSize(dim) == 1)
    return true;
  if (depth > 8)
    return false;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense)
      return false;
    if (dense.isSplat())
      return true;
    // Compare every slice along `dim` with the first, element by element.
    ArrayRef<int64_t> shape = type.getShape();
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < dim; ++i)
      outer *= shape[i];
    for (int64_t i = dim + 1; i < (int64_t)shape.size(); ++i)
      inner *= shape[i];
    auto values = llvm::to_vector(dense.getValues<Attribute>());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t s = 1; s < shape[dim]; ++s)
        for (int64_t i = 0; i < inner; ++i)
          if (values[(o * shape[dim] + s) * inner + i] !=
              values[(o * shape[dim]) * inner + i])
            return false;
    return true;
  }
  if (auto b = dyn_cast<BroadcastOp>(def)) {
    auto in = cast<RankedTensorType>(b.getInput().getType());
    int64_t d = dim - (type.getRank() - in.getRank());
    return d < 0 || in.getDimSize(d) == 1 ||
           replicated(b.getInput(), d, depth + 1);
  }
  // Elementwise ops of replicated operands.
  if (isa<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, CastOp, SelectOp,
          NegOp, EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, LogicalAndOp, LogicalOrOp,
          LogicalNotOp, AddScalarOp, SubScalarOp, MulScalarOp, DivScalarOp>(
          def)) {
    for (Value operand : def->getOperands()) {
      auto ot = cast<RankedTensorType>(operand.getType());
      int64_t d = dim - (type.getRank() - ot.getRank());
      if (d >= 0 && !replicated(operand, d, depth + 1))
        return false;
    }
    return true;
  }
  return false;
}

/// Elementwise with numpy broadcasting: every operand that has the symbol
/// has it at the same result dim, unbroadcast; the others are 1 there or
/// hold the same values at every index of it.
LogicalResult ChunkAnalysis::elementwise(Operation *op) {
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = rt.getRank();
  std::optional<Pos> at;
  for (Value v : op->getOperands()) {
    std::optional<Pos> q = get(v);
    if (!q)
      continue;
    Pos r{q->dim + rank - (int64_t)shapeOf(v).size(), q->inner};
    if (at && !(*at == r))
      return mixes(op, "two operands have it at different dims");
    if (rt.getDimSize(r.dim) != shapeOf(v)[q->dim])
      return mixes(op, "an operand that has it is broadcast along it");
    at = r;
  }
  if (!at)
    return success();
  for (Value v : op->getOperands()) {
    if (get(v) || !isa<RankedTensorType>(v.getType()))
      continue;
    int64_t d = at->dim - (rank - (int64_t)shapeOf(v).size());
    if (d >= 0 && !replicated(v, d))
      return mixes(op, "an operand without it differs along it (its values "
                       "depend on the position in '" +
                           symbol + "')");
  }
  for (Value r : op->getResults())
    set(r, *at);
  return success();
}

/// Reshapes keep the symbol's block when the dims before it multiply to the
/// same count and the dim that holds it is p * inner'.
LogicalResult ChunkAnalysis::reshape(Operation *op, Value in, Value out) {
  std::optional<Pos> q = get(in);
  if (!q)
    return success();
  ArrayRef<int64_t> s = shapeOf(in), t = shapeOf(out);
  int64_t before = 1;
  for (int64_t i = 0; i < q->dim; ++i)
    before *= s[i];
  int64_t prefix = 1;
  for (int64_t d = 0; d < (int64_t)t.size(); ++d) {
    if (prefix == before && t[d] % p == 0 && t[d] >= p) {
      int64_t after = 1;
      for (int64_t i = d + 1; i < (int64_t)t.size(); ++i)
        after *= t[i];
      int64_t tail = 1;
      for (int64_t i = q->dim + 1; i < (int64_t)s.size(); ++i)
        tail *= s[i];
      if ((t[d] / p) * after == q->inner * tail) {
        set(out, Pos{d, t[d] / p});
        return success();
      }
    }
    prefix *= t[d];
    if (prefix > before)
      break;
  }
  return mixes(op, "the reshape spreads it over other dims");
}

/// Ops that keep every dim they do not `touch` (slices, pads, flips, ...).
LogicalResult ChunkAnalysis::sameDimUnless(Operation *op, Value in, Value out,
                                           ArrayRef<int64_t> touched,
                                           StringRef what) {
  std::optional<Pos> q = get(in);
  if (!q)
    return success();
  if (llvm::is_contained(touched, q->dim) ||
      shapeOf(out)[q->dim] != shapeOf(in)[q->dim])
    return mixes(op, Twine("the op ") + what + " along it");
  set(out, *q);
  return success();
}

LogicalResult ChunkAnalysis::visit(Operation *op) {
  bool any = llvm::any_of(op->getOperands(),
                          [&](Value v) { return get(v).has_value(); });
  if (isa<ConstantOp, func::ReturnOp, AssertOp, YieldOp>(op))
    return success();
  if (auto ifOp = dyn_cast<IfOp>(op)) {
    if (get(ifOp.getCondition()))
      return mixes(op, "an If's condition depends on it");
    if (failed(run(ifOp.getThenRegion().front())) ||
        failed(run(ifOp.getElseRegion().front())))
      return failure();
    auto thenYield = ifOp.getThenRegion().front().getTerminator();
    auto elseYield = ifOp.getElseRegion().front().getTerminator();
    for (auto [i, r] : llvm::enumerate(ifOp.getResults())) {
      std::optional<Pos> a = get(thenYield->getOperand(i)),
                         b = get(elseYield->getOperand(i));
      if (a.has_value() != b.has_value() || (a && !(*a == *b)))
        return mixes(op, "the If's branches give result #" + Twine(i) +
                             " with it at different places");
      if (a)
        set(r, *a);
    }
    return success();
  }
  // Values of the enclosing regions that an op's regions read.
  bool readsInside = false;
  op->walk([&](Operation *inner) {
    if (inner != op)
      for (Value v : inner->getOperands())
        if (get(v))
          readsInside = true;
  });
  if (!any && !readsInside)
    return success();
  if (isElementwiseOp(op))
    return elementwise(op);
  if (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op))
    return reshape(op, op->getOperand(0), op->getResult(0));
  if (auto b = dyn_cast<BroadcastOp>(op)) {
    std::optional<Pos> q = get(b.getInput());
    int64_t d =
        q->dim + shapeOf(b.getResult()).size() - shapeOf(b.getInput()).size();
    if (shapeOf(b.getResult())[d] != shapeOf(b.getInput())[q->dim])
      return mixes(op, "it is broadcast along it");
    set(b.getResult(), Pos{d, q->inner});
    return success();
  }
  if (auto t = dyn_cast<TransposeOp>(op)) {
    std::optional<Pos> q = get(t.getInput());
    for (auto [i, from] : llvm::enumerate(t.getPerm()))
      if (from == q->dim)
        set(t.getResult(), Pos{(int64_t)i, q->inner});
    return success();
  }
  if (auto s = dyn_cast<SliceOp>(op)) {
    std::optional<Pos> q = get(s.getInput());
    int64_t d = q->dim, n = shapeOf(s.getInput())[d];
    if (s.getStarts()[d] != 0 || s.getSteps()[d] != 1 || s.getEnds()[d] < n)
      return mixes(op, "the slice takes part of it");
    set(s.getResult(), *q);
    return success();
  }
  if (auto f = dyn_cast<FlipOp>(op))
    return sameDimUnless(
        op, f.getInput(), f.getResult(),
        symbolAxesOf(f.getDims(), shapeOf(f.getInput()).size()), "reverses");
  if (auto pad = dyn_cast<PadOp>(op)) {
    std::optional<Pos> q = get(pad.getInput());
    int64_t rank = shapeOf(pad.getInput()).size();
    ArrayRef<int64_t> pads = pad.getPads();
    if (pads[q->dim] != 0 || pads[rank + q->dim] != 0)
      return mixes(op, "the pad pads it");
    set(pad.getResult(), *q);
    return success();
  }
  if (auto r = dyn_cast<ResizeOp>(op)) {
    if (get(r.getScaleValues()) || (r.getRoi() && get(r.getRoi())))
      return mixes(op, "the resize's scales depend on it");
    return sameDimUnless(op, r.getInput(), r.getResult(), {}, "resizes");
  }
  if (auto c = dyn_cast<ConcatOp>(op)) {
    std::optional<Pos> at;
    for (Value v : c.getInputs())
      if (std::optional<Pos> q = get(v)) {
        if (at && !(*at == *q))
          return mixes(op, "two inputs have it at different dims");
        at = q;
      }
    int64_t dim = symbolAxisOf(c.getDim(), shapeOf(c.getResult()).size());
    if (dim == at->dim)
      return mixes(op, "the concat joins along it");
    for (Value v : c.getInputs())
      if (!get(v) && !replicated(v, at->dim))
        return mixes(op, "an input without it differs along it");
    set(c.getResult(), *at);
    return success();
  }
  if (auto s = dyn_cast<SplitOp>(op)) {
    std::optional<Pos> q = get(s.getInput());
    int64_t dim = symbolAxisOf(s.getDim(), shapeOf(s.getInput()).size());
    if (dim == q->dim)
      return mixes(op, "the split cuts along it");
    for (Value r : s.getResults())
      set(r, *q);
    return success();
  }
  // Reductions: not over it; the dims before it that go away move it.
  auto reduce = [&](Value in, Value out, ArrayRef<int64_t> dims,
                    bool keep) -> LogicalResult {
    std::optional<Pos> q = get(in);
    int64_t rank = shapeOf(in).size();
    SmallVector<int64_t> all = symbolAxesOf(dims, rank);
    if (all.empty()) // no dims: every dim
      for (int64_t i = 0; i < rank; ++i)
        all.push_back(i);
    if (llvm::is_contained(all, q->dim))
      return mixes(op, "the op reduces over it");
    int64_t d = q->dim;
    if (!keep)
      d -= llvm::count_if(all, [&](int64_t a) { return a < q->dim; });
    set(out, Pos{d, q->inner});
    return success();
  };
  // The importer's index check (GatherND, ScatterND: hodu.index_check),
  // which hodu-check-indices removes from a model with symbols.
  if (isa<ReduceAllOp>(op) && !op->use_empty() &&
      llvm::all_of(op->getUsers(), [](Operation *u) {
        return isa<AssertOp>(u) && u->hasAttr("hodu.index_check");
      }))
    return success();
#define HODU_REDUCE(Op)                                                        \
  if (auto r = dyn_cast<Op>(op))                                               \
    return reduce(r.getInput(), r.getResult(), r.getDims(), r.getKeepDim());
  HODU_REDUCE(ReduceSumOp)
  HODU_REDUCE(ReduceMeanOp)
  HODU_REDUCE(ReduceMaxOp)
  HODU_REDUCE(ReduceMinOp)
  HODU_REDUCE(ReduceProdOp)
  HODU_REDUCE(ReduceStdOp)
  HODU_REDUCE(ReduceVarOp)
  HODU_REDUCE(ReduceNormOp)
  HODU_REDUCE(ReduceLogSumOp)
  HODU_REDUCE(ReduceLogSumExpOp)
  HODU_REDUCE(ArgMaxOp)
  HODU_REDUCE(ArgMinOp)
  HODU_REDUCE(ReduceAnyOp)
  HODU_REDUCE(ReduceAllOp)
#undef HODU_REDUCE
  if (auto w = dyn_cast<ReduceWindowOp>(op)) {
    std::optional<Pos> q = get(w.getInput());
    int64_t d = q->dim, rank = shapeOf(w.getInput()).size();
    if (w.getWindowDims()[d] != 1 || w.getStrides()[d] != 1 ||
        w.getDilations()[d] != 1 || w.getPads()[d] != 0 ||
        w.getPads()[rank + d] != 0)
      return mixes(op, "the window slides along it");
    set(w.getResult(), *q);
    return success();
  }
  if (auto c = dyn_cast<CumSumOp>(op)) {
    int64_t rank = shapeOf(c.getInput()).size();
    return sameDimUnless(op, c.getInput(), c.getResult(),
                         {symbolAxisOf(c.getDim(), rank)}, "sums");
  }
  if (auto t = dyn_cast<TopKOp>(op)) {
    std::optional<Pos> q = get(t.getInput());
    int64_t rank = shapeOf(t.getInput()).size();
    if ((symbolAxisOf(t.getDim(), rank)) == q->dim)
      return mixes(op, "TopK selects along it");
    set(t.getValues(), *q);
    set(t.getIndices(), *q);
    return success();
  }
  if (isa<ConvOp, ConvTransposeOp>(op)) {
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    std::optional<Pos> q = get(lhs);
    if (get(rhs) || !q || q->dim == 1)
      return mixes(op, "the convolution's weights or channels depend on it");
    if (q->dim != 0)
      return mixes(op, "the convolution's window slides along it");
    set(op->getResult(0), *q);
    return success();
  }
  if (auto m = dyn_cast<MatmulOp>(op)) {
    int64_t a = shapeOf(m.getLhs()).size(), b = shapeOf(m.getRhs()).size(),
            rank = shapeOf(m.getResult()).size();
    std::optional<Pos> ql = get(m.getLhs()), qr = get(m.getRhs());
    std::optional<Pos> out;
    auto batchDim = [&](Value v, Pos q, int64_t r) -> std::optional<Pos> {
      if (r < 3 || q.dim >= r - 2)
        return std::nullopt;
      return Pos{q.dim + rank - r, q.inner};
    };
    if (ql) {
      if (a >= 2 && ql->dim == a - 2)
        out = Pos{rank - (b == 1 ? 1 : 2), ql->inner};
      else if (!(out = batchDim(m.getLhs(), *ql, a)))
        return mixes(op, "the matmul sums over it");
    }
    if (qr) {
      std::optional<Pos> o;
      if (b >= 2 && qr->dim == b - 1)
        o = Pos{rank - 1, qr->inner};
      else if (!(o = batchDim(m.getRhs(), *qr, b)))
        return mixes(op, "the matmul sums over it");
      if (out && !(*out == *o))
        return mixes(op, "the matmul pairs every position of it with every "
                         "other");
      out = o;
    }
    // A batch dim of an operand without it must be 1 or the same there.
    for (Value v : {m.getLhs(), m.getRhs()}) {
      int64_t r = shapeOf(v).size();
      int64_t d = out->dim - (rank - r);
      if (!get(v) && d >= 0 && d < r - 2 && !replicated(v, d))
        return mixes(op, "an operand without it differs along it");
    }
    set(m.getResult(), *out);
    return success();
  }
  if (auto e = dyn_cast<EinsumOp>(op)) {
    auto [lhs, rhs] = e.getEquation().split("->");
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    std::optional<char> label;
    int64_t inner = 1;
    for (auto [term, v] : llvm::zip(terms, e.getInputs())) {
      std::optional<Pos> q = get(v);
      if (!q)
        continue;
      char l = term.trim()[q->dim];
      if (label && *label != l)
        return mixes(op, "the einsum pairs it with other labels");
      label = l;
      inner = q->inner;
    }
    size_t at = rhs.trim().find(*label);
    if (at == StringRef::npos)
      return mixes(op, "the einsum sums over it");
    for (auto [term, v] : llvm::zip(terms, e.getInputs())) {
      size_t d = term.trim().find(*label);
      if (!get(v) && d != StringRef::npos && !replicated(v, d))
        return mixes(op, "an operand without it differs along it");
    }
    set(e.getResult(), Pos{(int64_t)at, inner});
    return success();
  }
  if (auto s = dyn_cast<IndexSelectOp>(op)) {
    int64_t rank = shapeOf(s.getInput()).size();
    int64_t dim = symbolAxisOf(s.getDim(), rank);
    int64_t idxRank = shapeOf(s.getIndices()).size();
    std::optional<Pos> qi = get(s.getInput()), qx = get(s.getIndices());
    if (qi && qx)
      return mixes(op, "both the gather's data and indices have it");
    if (qi) {
      if (qi->dim == dim)
        return mixes(op, "the gather picks along it");
      set(s.getResult(),
          Pos{qi->dim < dim ? qi->dim : qi->dim + idxRank - 1, qi->inner});
    } else {
      set(s.getResult(), Pos{dim + qx->dim, qx->inner});
    }
    return success();
  }
  if (auto g = dyn_cast<GatherOp>(op)) {
    int64_t rank = shapeOf(g.getInput()).size();
    int64_t dim = symbolAxisOf(g.getDim(), rank);
    std::optional<Pos> qi = get(g.getInput()), qx = get(g.getIndices());
    Pos q = qi ? *qi : *qx;
    if ((qi && qx && !(*qi == *qx)) || q.dim == dim)
      return mixes(op, "the gather picks along it");
    Value other = qi ? g.getIndices() : g.getInput();
    if (!get(other) && shapeOf(other)[q.dim] != shapeOf(g.getResult())[q.dim])
      return mixes(op, "the gather's operands differ in it");
    if (!get(other) && !replicated(other, q.dim))
      return mixes(op, "an operand without it differs along it");
    set(g.getResult(), q);
    return success();
  }
  if (auto o = dyn_cast<OneHotOp>(op)) {
    std::optional<Pos> q = get(o.getIndices());
    int64_t rank = shapeOf(o.getResult()).size();
    int64_t axis = symbolAxisOf(o.getAxis(), rank);
    set(o.getResult(), Pos{axis <= q->dim ? q->dim + 1 : q->dim, q->inner});
    return success();
  }
  if (isa<InvOp>(op) || isa<DetOp>(op)) {
    std::optional<Pos> q = get(op->getOperand(0));
    int64_t rank = shapeOf(op->getOperand(0)).size();
    if (q->dim >= rank - 2)
      return mixes(op, "the matrix op mixes it");
    set(op->getResult(0), *q);
    return success();
  }
  return mixes(op, Twine("'") + op->getName().getStringRef() +
                       "' is not known to keep its positions apart");
}

LogicalResult ChunkAnalysis::run(Block &block) {
  for (Operation &op : block)
    if (failed(visit(&op)))
      return failure();
  return success();
}

struct ChunkSymbolsPass : hodu::impl::ChunkSymbolsBase<ChunkSymbolsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isPrivate() || f.isExternal())
        continue;
      if (failed(runOn(f)))
        return signalPassFailure();
    }
  }

  LogicalResult runOn(func::FuncOp f) {
    auto key = StringAttr::get(f.getContext(), "hodu.dims");
    StringRef only = this->symbol;
    std::string symbol;
    int64_t size = -1;
    SmallVector<std::pair<Value, int64_t>> seeds;
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      auto dims = f.getArgAttrOfType<ArrayAttr>(i, key);
      if (!dims)
        continue;
      auto type = dyn_cast<RankedTensorType>(f.getArgument(i).getType());
      if (!type || (int64_t)dims.size() != type.getRank())
        return f.emitError("argument #")
               << i << ": hodu.dims must name one symbol (or \"\") per dim";
      for (auto [d, a] : llvm::enumerate(dims)) {
        auto s = dyn_cast<StringAttr>(a);
        if (!s)
          return f.emitError("argument #")
                 << i << ": hodu.dims must be strings";
        if (s.getValue().empty() || (!only.empty() && s.getValue() != only))
          continue;
        if (!symbol.empty() && symbol != s.getValue())
          return f.emitError("the model has two symbolic dims, '")
                 << symbol << "' and '" << s.getValue()
                 << "'; Hodu compiles one symbol per model: pin the other "
                    "(hoduc --dim=NAME=N)";
        if (size >= 0 && size != type.getDimSize(d))
          return f.emitError("symbol '")
                 << s.getValue() << "' has sizes " << size << " and "
                 << type.getDimSize(d) << " in the arguments";
        symbol = s.getValue().str();
        size = type.getDimSize(d);
        seeds.push_back({f.getArgument(i), (int64_t)d});
      }
    }
    if (symbol.empty())
      return success();
    ChunkAnalysis analysis(symbol, size);
    for (auto [v, d] : seeds)
      (void)analysis.seed(v, d);
    if (failed(analysis.run(f.getBody().front())))
      return failure();
    auto ret = cast<func::ReturnOp>(f.getBody().front().getTerminator());
    Builder b(f.getContext());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      std::optional<Pos> q = analysis.get(v);
      if (!q)
        continue;
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<Attribute> dims(type.getRank(), b.getStringAttr(""));
      dims[q->dim] = b.getStringAttr(symbolicDimText(symbol, q->inner));
      f.setResultAttr(i, key, b.getArrayAttr(dims));
    }
    return success();
  }
};

} // namespace
