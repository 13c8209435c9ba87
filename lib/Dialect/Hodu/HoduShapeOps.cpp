//===- HoduShapeOps.cpp - shape and layout ops (HoduShapeOps.td) ----------===//
//
// Shape inference, verifiers and folders of the shape family.
//
// Verifier messages name the problem (which operand, which dim, what was
// expected and what was found): test/Dialect/Hodu/invalid.mlir hits each.
//
//===----------------------------------------------------------------------===//

#include "HoduOpsCommon.h"

#include <cmath>

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace hodu;
using namespace hodu::detail;

//===----------------------------------------------------------------------===//
// Concat, Split
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "expects at least one input");
  auto first = rankedType(inputs[0].getType());
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, dim, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, v] : llvm::enumerate(inputs.drop_front())) {
    auto t = rankedType(v.getType());
    if (t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input #", i + 1, " has element type ",
                               t.getElementType(), ", expected ",
                               first.getElementType());
    if (t.getRank() != first.getRank())
      return emitOptionalError(loc, "input #", i + 1, " has rank ", t.getRank(),
                               ", expected ", first.getRank());
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d == dim) {
        shape[d] = ShapedType::isDynamic(shape[d]) || t.isDynamicDim(d)
                       ? ShapedType::kDynamic
                       : shape[d] + t.getDimSize(d);
      } else if (ShapedType::isDynamic(shape[d])) {
        shape[d] = t.getDimSize(d);
      } else if (!t.isDynamicDim(d) && t.getDimSize(d) != shape[d]) {
        return emitOptionalError(loc, "input #", i + 1, " has size ",
                                 t.getDimSize(d), " in dim ", d, ", expected ",
                                 shape[d]);
      }
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(loc, dim, t.getRank())))
    return failure();
  int64_t total = 0;
  for (int64_t s : adaptor.getSizes()) {
    if (s < 0)
      return emitOptionalError(loc, "expects non-negative sizes, got ", s);
    total += s;
  }
  if (!t.isDynamicDim(dim) && total != t.getDimSize(dim))
    return emitOptionalError(loc, "sizes add up to ", total, ", but dim ", dim,
                             " has size ", t.getDimSize(dim));
  for (int64_t s : adaptor.getSizes()) {
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] = s;
    types.push_back(RankedTensorType::get(shape, t.getElementType()));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shape family
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = rankedType(getInput().getType());
  if (failed(verifyResultElementType(*this, in.getElementType())))
    return failure();
  if (in.hasStaticShape() && getType().hasStaticShape() &&
      in.getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << in.getNumElements() << " elements " << shapeStr(in.getShape())
           << " into " << getType().getNumElements() << " elements "
           << shapeStr(getType().getShape());
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x)
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  // A constant reshapes for free (DenseElementsAttr needs a static shape).
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  return {};
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  int64_t r = std::max<int64_t>(t.getRank(), 1);
  int64_t start = adaptor.getStartDim(), end = adaptor.getEndDim();
  if (start < 0)
    start += r;
  if (end < 0)
    end += r;
  if (start < 0 || start >= r || end < 0 || end >= r || start > end)
    return emitOptionalError(loc, "invalid dim range [", adaptor.getStartDim(),
                             ", ", adaptor.getEndDim(), "] for rank ",
                             t.getRank());
  SmallVector<int64_t> shape;
  if (t.getRank() == 0) {
    shape.push_back(1);
  } else {
    int64_t merged = 1;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      if (d < start || d > end) {
        shape.push_back(t.getDimSize(d));
        continue;
      }
      merged = (ShapedType::isDynamic(merged) || t.isDynamicDim(d))
                   ? ShapedType::kDynamic
                   : merged * t.getDimSize(d);
      if (d == end)
        shape.push_back(merged);
    }
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto dims = adaptor.getDims();
  if (failed(checkDims(loc, dims, t.getRank(), "squeeze dim")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : dims) {
    if (t.getDimSize(d) != 1 && !t.isDynamicDim(d))
      return emitOptionalError(loc, "cannot squeeze dim ", d, " of size ",
                               t.getDimSize(d));
  }
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(t.getDimSize(d));
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto dims = adaptor.getDims();
  int64_t r = t.getRank() + dims.size();
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= r)
      return emitOptionalError(loc, "unsqueeze dim ", d,
                               " is out of range for result rank ", r);
    if (!seen.insert(d).second)
      return emitOptionalError(loc, "unsqueeze dim ", d,
                               " appears more than once");
  }
  SmallVector<int64_t> shape;
  auto it = t.getShape().begin();
  for (int64_t d = 0; d < r; ++d)
    shape.push_back(seen.contains(d) ? 1 : *it++);
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto in = rankedType(getInput().getType());
  auto out = getType();
  if (failed(verifyResultElementType(*this, in.getElementType())))
    return failure();
  if (in.getRank() > out.getRank())
    return emitOpError("cannot broadcast rank ")
           << in.getRank() << " to the smaller rank " << out.getRank();
  int64_t off = out.getRank() - in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t a = in.getDimSize(d), b = out.getDimSize(d + off);
    if (a != 1 && a != b && !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b))
      return emitOpError("cannot broadcast ")
             << shapeStr(in.getShape()) << " to " << shapeStr(out.getShape())
             << ": input dim " << d << " is " << a;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() && getType().hasStaticShape())
      return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  return {};
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto perm = adaptor.getPerm();
  if ((int64_t)perm.size() != t.getRank())
    return emitOptionalError(loc, "expects a permutation of ", t.getRank(),
                             " dims, got ", perm.size());
  SmallVector<bool> seen(t.getRank(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= t.getRank() || seen[p])
      return emitOptionalError(loc, "perm is not a permutation of [0, ",
                               t.getRank(), ")");
    seen[p] = true;
    shape.push_back(t.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2)
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    auto inner = producer.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner[p]);
    getInputMutable().assign(producer.getInput());
    setPerm(composed);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return getInput();
    return getResult();
  }
  return {};
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto starts = adaptor.getStarts(), ends = adaptor.getEnds(),
       steps = adaptor.getSteps();
  int64_t r = t.getRank();
  if ((int64_t)starts.size() != r || (int64_t)ends.size() != r ||
      (int64_t)steps.size() != r)
    return emitOptionalError(loc, "expects starts, ends and steps with one "
                                  "entry per dim (",
                             r, "), got ", starts.size(), ", ", ends.size(),
                             " and ", steps.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < r; ++d) {
    int64_t size = t.getDimSize(d), b = starts[d], e = ends[d], s = steps[d];
    if (s == 0)
      return emitOptionalError(loc, "step of dim ", d, " is zero");
    if (!ShapedType::isDynamic(size)) {
      bool ok = s > 0 ? (b >= 0 && b <= size && e >= 0 && e <= size)
                      : (b >= -1 && b < size && e >= -1 && e < size);
      if (!ok)
        return emitOptionalError(loc, "slice [", b, ":", e, ":", s, "] of dim ",
                                 d, " is out of bounds for size ", size);
    }
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // ceil(len / |s|) without overflow: len is at most size + 1 here, and
    // a step as long as INT64_MAX (or as short as INT64_MIN) takes one
    // entry.
    int64_t len = s > 0 ? e - b : b - e;
    uint64_t stride = s > 0 ? (uint64_t)s : 0 - (uint64_t)s;
    shape.push_back(len <= 0 ? 0 : (int64_t)(1 + (uint64_t)(len - 1) / stride));
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  // The identity only when every dim is taken whole: a matching type is not
  // enough, a dynamic dim has the same type whatever the bounds.
  auto t = rankedType(getInput().getType());
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.isDynamicDim(d) || getStarts()[d] != 0 ||
        getEnds()[d] != t.getDimSize(d) || getSteps()[d] != 1)
      return {};
  return getInput();
}

LogicalResult FlipOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  if (failed(checkDims(loc, adaptor.getDims(), t.getRank(), "flip dim")))
    return failure();
  types.push_back(t);
  return success();
}

//===----------------------------------------------------------------------===//
// Padding, Resize
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto t = rankedType(adaptor.getInput().getType());
  auto pads = adaptor.getPads();
  int64_t r = t.getRank();
  if ((int64_t)pads.size() != 2 * r)
    return emitOptionalError(loc, "expects ", 2 * r,
                             " pads (begin and end per dim), got ", pads.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < r; ++d) {
    if (pads[d] < 0 || pads[r + d] < 0)
      return emitOptionalError(loc, "expects non-negative pads, dim ", d,
                               " has ", pads[d], " and ", pads[r + d]);
    shape.push_back(t.isDynamicDim(d) ? ShapedType::kDynamic
                                      : t.getDimSize(d) + pads[d] + pads[r + d]);
  }
  types.push_back(RankedTensorType::get(shape, t.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  auto t = rankedType(getInput().getType());
  if (auto value = getValueAttr()) {
    if (getMode() != PadMode::constant)
      return emitOpError("a pad value is only allowed in constant mode");
    if (value.getType() != t.getElementType())
      return emitOpError("expects the pad value's type to be the element type ")
             << t.getElementType() << ", got " << value.getType();
  }
  if (getMode() == PadMode::reflect) {
    auto pads = getPads();
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!t.isDynamicDim(d) &&
          (pads[d] >= t.getDimSize(d) || pads[t.getRank() + d] >= t.getDimSize(d)))
        return emitOpError("reflect padding of dim ")
               << d << " must be smaller than its size " << t.getDimSize(d);
  }
  return success();
}

LogicalResult ResizeOp::verify() {
  auto in = rankedType(getInput().getType());
  if (in.getRank() != getType().getRank())
    return emitOpError("expects the result rank to equal the input rank ")
           << in.getRank() << ", got " << getType().getRank();
  if (failed(verifyResultElementType(*this, in.getElementType())))
    return failure();
  if (std::optional<ArrayRef<double>> scales = getScales()) {
    if ((int64_t)scales->size() != in.getRank())
      return emitOpError("has ") << scales->size() << " scales for rank "
                                 << in.getRank();
    for (double scale : *scales)
      if (!(scale > 0) || !std::isfinite(scale))
        return emitOpError("needs positive finite scales, got ") << scale;
  }
  if (Value sv = getScaleValues()) {
    if (getScales())
      return emitOpError("has both the scales attribute and a scales operand");
    auto st = rankedType(sv.getType());
    if (st.getRank() != 1 || st.getDimSize(0) != in.getRank())
      return emitOpError("expects a scales operand of one entry per dim (")
             << in.getRank() << "), got " << st;
  }
  if (Value roi = getRoi()) {
    if (getCoordTransform() != CoordTransform::tf_crop_and_resize)
      return emitOpError("takes a roi operand with tf_crop_and_resize only");
    auto rt = rankedType(roi.getType());
    if (rt.getRank() != 1 || rt.getDimSize(0) != 2 * in.getRank())
      return emitOpError("expects a roi operand of two entries per dim (")
             << 2 * in.getRank() << "), got " << rt;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Memory, Dummy
//===----------------------------------------------------------------------===//

LogicalResult ContiguousOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location>,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getInput().getType());
  return success();
}
OpFoldResult ContiguousOp::fold(FoldAdaptor) { return getInput(); }

LogicalResult DummyOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  types.push_back(adaptor.getInput().getType());
  return success();
}
OpFoldResult DummyOp::fold(FoldAdaptor) { return getInput(); }
