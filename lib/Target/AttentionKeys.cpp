//===- AttentionKeys.cpp - the key dims of a fused attention loop ---------===//
//
// See AttentionKeys.h.
//
//===----------------------------------------------------------------------===//

#include "AttentionKeys.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace hodu::attention {

linalg::LinalgOp secondProduct(scf::ForallOp loop) {
  auto term = loop.getTerminator();
  if (!llvm::hasSingleElement(term.getYieldingOps()))
    return {};
  auto insert =
      dyn_cast<tensor::ParallelInsertSliceOp>(*term.getYieldingOps().begin());
  if (!insert)
    return {};
  auto pv = insert.getSource().getDefiningOp<linalg::LinalgOp>();
  if (!pv || pv->getBlock() != loop.getBody() ||
      !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(pv.getOperation()) ||
      pv.getNumReductionLoops() != 1)
    return {};
  return pv;
}

RankedTensorType KeyDims::narrowedType(Value v, int64_t keys) const {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  for (int64_t d : dims.lookup(v))
    shape[d] = keys;
  return t.clone(shape);
}

void retype(Value v, RankedTensorType t) {
  v.setType(t);
  Operation *def = v.getDefiningOp();
  if (auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def))
    slice.setStaticSizes(t.getShape());
  else if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    expand.setStaticOutputShape(t.getShape());
}

KeyDims findKeyDims(scf::ForallOp loop, linalg::LinalgOp pv) {
  KeyDims labels;
  labels.body = loop.getBody();
  SmallVector<unsigned> reductions;
  pv.getReductionDims(reductions);
  labels.keys = pv.getStaticLoopRanges()[reductions.front()];
  auto visitLinalg = [&](linalg::LinalgOp op) {
    bool changed = false;
    llvm::SmallBitVector loops(op.getNumLoops());
    if (op == pv)
      loops.set(reductions.front());
    auto mapOf = [&](OpOperand &o) { return op.getMatchingIndexingMap(&o); };
    for (OpOperand &o : op->getOpOperands()) {
      auto it = labels.dims.find(o.get());
      if (it == labels.dims.end())
        continue;
      for (int64_t d : it->second) {
        auto e = dyn_cast<AffineDimExpr>(mapOf(o).getResult(d));
        if (!e)
          return labels.failed = true, false;
        loops.set(e.getPosition());
      }
    }
    for (OpResult r : op->getResults()) {
      auto it = labels.dims.find(r);
      if (it == labels.dims.end())
        continue;
      for (int64_t d : it->second) {
        auto e = dyn_cast<AffineDimExpr>(
            op.getIndexingMapMatchingResult(r).getResult(d));
        if (!e)
          return labels.failed = true, false;
        loops.set(e.getPosition());
      }
    }
    auto readsKeys = [&](AffineMap map) {
      return llvm::any_of(map.getResults(), [&](AffineExpr e) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        return dim && loops.test(dim.getPosition());
      });
    };
    auto label = [&](Value v, AffineMap map) {
      for (auto [d, e] : llvm::enumerate(map.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(e);
            dim && loops.test(dim.getPosition()))
          changed |= labels.add(v, d);
    };
    // A tensor from outside the body read along the keys (K, V or a mask
    // of one head, which the fusion did not need to slice) is read
    // through a whole slice at the top of the body, which narrowing can
    // then take a part of.
    for (OpOperand &o : op->getOpOperands()) {
      auto t = dyn_cast<RankedTensorType>(o.get().getType());
      if (!t || labels.inBody(o.get()) || !readsKeys(mapOf(o)))
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(labels.body);
      SmallVector<OpFoldResult> zeros(t.getRank(), b.getIndexAttr(0)),
          ones(t.getRank(), b.getIndexAttr(1)), sizes;
      for (int64_t n : t.getShape())
        sizes.push_back(b.getIndexAttr(n));
      o.set(tensor::ExtractSliceOp::create(b, o.get().getLoc(), o.get(), zeros,
                                           sizes, ones));
      changed = true;
    }
    for (OpOperand &o : op->getOpOperands())
      label(o.get(), mapOf(o));
    for (OpResult r : op->getResults())
      label(r, op.getIndexingMapMatchingResult(r));
    return changed;
  };
  // A reshape's key dim is the one dim of its group larger than 1.
  auto visitReshape = [&](Value small, Value large,
                          ArrayRef<ReassociationIndices> groups) {
    bool changed = false;
    auto largeType = cast<RankedTensorType>(large.getType());
    for (auto [i, group] : llvm::enumerate(groups)) {
      int64_t wide = -1, count = 0;
      for (int64_t d : group)
        if (largeType.getDimSize(d) != 1) {
          wide = d;
          ++count;
        }
      bool smallKey = labels.has(small, i);
      bool largeKey =
          llvm::any_of(group, [&](int64_t d) { return labels.has(large, d); });
      if (!smallKey && !largeKey)
        continue;
      if (count != 1)
        return labels.failed = true, false;
      changed |= labels.add(small, i);
      changed |= labels.add(large, wide);
    }
    return changed;
  };
  for (int round = 0; round < 64 && !labels.failed; ++round) {
    bool changed = false;
    for (Operation &op : *labels.body) {
      if (auto l = dyn_cast<linalg::LinalgOp>(&op)) {
        changed |= visitLinalg(l);
      } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(&op)) {
        changed |= visitReshape(c.getResult(), c.getSrc(),
                                c.getReassociationIndices());
      } else if (auto e = dyn_cast<tensor::ExpandShapeOp>(&op)) {
        changed |= visitReshape(e.getSrc(), e.getResult(),
                                e.getReassociationIndices());
      } else if (auto s = dyn_cast<tensor::ExtractSliceOp>(&op)) {
        // Only whole key dims, so that the narrowed slice starts at key 0.
        auto it = labels.dims.find(s.getResult());
        if (it == labels.dims.end())
          continue;
        if (s.getSourceType().getRank() != s.getResultType().getRank()) {
          labels.failed = true;
          break;
        }
        for (int64_t d : it->second) {
          if (s.getStaticOffsets()[d] != 0 || s.getStaticStrides()[d] != 1 ||
              s.getSourceType().getDimSize(d) != labels.keys)
            labels.failed = true;
          changed |= labels.add(s.getSource(), d);
        }
      } else if (!isa<tensor::EmptyOp>(&op)) {
        for (Value v : op.getOperands())
          if (labels.dims.count(v))
            labels.failed = true;
      }
      if (labels.failed)
        break;
    }
    if (!changed)
      break;
  }
  // A source sliced whole that the body computes is narrowed too; any
  // other reader of a key dim would see a changed shape.
  for (auto &[v, dims] : labels.dims)
    for (Operation *user : v.getUsers())
      if (!isa<linalg::LinalgOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
               tensor::ExtractSliceOp>(user))
        labels.failed = true;
  return labels;
}

} // namespace hodu::attention
