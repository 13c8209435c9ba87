// Unit tests of the evaluator entry points that no hodu op reaches
// (evaluateRange, ONNX Range); the op families are covered by
// test/Transforms/fold-constants*.mlir and test/Import/Onnx/evaluation.test.
#include "hodu/Dialect/Hodu/Evaluator.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace hodu;
using namespace mlir;

namespace {

class EvaluatorTest : public ::testing::Test {
protected:
  /// A one-element constant of `type` holding `v`.
  ConstantView scalar(Type type, double v) {
    auto t = RankedTensorType::get({}, type);
    Attribute a =
        isa<FloatType>(type)
            ? Attribute(DenseElementsAttr::get(t, FloatAttr::get(type, v)))
            : Attribute(DenseElementsAttr::get(
                  t, IntegerAttr::get(type, static_cast<int64_t>(v))));
    return *ConstantView::get(a);
  }
  ConstantView i64(int64_t v) {
    auto t = RankedTensorType::get({}, IntegerType::get(&ctx, 64));
    return *ConstantView::get(DenseElementsAttr::get(t, v));
  }
  /// The elements of a range result, as doubles; nullopt for no result.
  std::optional<std::vector<double>> range(const ConstantView &start,
                                           const ConstantView &limit,
                                           const ConstantView &delta,
                                           int64_t maxElements = 1000) {
    ElementsAttr r = evaluateRange(start, limit, delta,
                                   EvaluationLimits(maxElements, 1000, 64));
    if (!r)
      return std::nullopt;
    auto view = ConstantView::get(r);
    EXPECT_TRUE(view.has_value());
    EXPECT_EQ(view->getType().getRank(), 1);
    std::vector<double> out;
    for (int64_t i = 0; i < view->size(); ++i)
      out.push_back(view->f(i));
    return out;
  }

  MLIRContext ctx;
  Type f32 = Float32Type::get(&ctx);
  Type i32 = IntegerType::get(&ctx, 32);
};

TEST_F(EvaluatorTest, RangeOfIntegers) {
  EXPECT_EQ(range(i64(0), i64(5), i64(2)), (std::vector<double>{0, 2, 4}));
  // ONNX's test_range_int32_type_negative_delta.
  EXPECT_EQ(range(scalar(i32, 10), scalar(i32, 6), scalar(i32, -3)),
            (std::vector<double>{10, 7}));
  // A limit behind the start gives an empty range, not an error.
  EXPECT_EQ(range(i64(5), i64(0), i64(1)), std::vector<double>{});
}

TEST_F(EvaluatorTest, RangeOfFloats) {
  // ONNX's test_range_float_type_positive_delta.
  EXPECT_EQ(range(scalar(f32, 1), scalar(f32, 5), scalar(f32, 2)),
            (std::vector<double>{1, 3}));
  EXPECT_EQ(range(scalar(f32, 0), scalar(f32, 1), scalar(f32, 0.25)),
            (std::vector<double>{0, 0.25, 0.5, 0.75}));
}

TEST_F(EvaluatorTest, RangeCountIsExactAtTheEdgesOfInt64) {
  // limit - start overflows int64; the count is still 3.
  auto r = range(i64(INT64_MIN), i64(INT64_MAX), i64(INT64_MAX));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->size(), 3u);
}

TEST_F(EvaluatorTest, RangeRefusals) {
  // A delta of 0 has no count.
  EXPECT_FALSE(range(i64(0), i64(5), i64(0)).has_value());
  EXPECT_FALSE(range(scalar(f32, 0), scalar(f32, 5), scalar(f32, 0)));
  // Operands of different dtypes.
  EXPECT_FALSE(range(i64(0), scalar(i32, 5), i64(1)).has_value());
  // More elements than the limits allow.
  EXPECT_FALSE(range(i64(0), i64(1001), i64(1)).has_value());
  EXPECT_TRUE(range(i64(0), i64(1000), i64(1)).has_value());
  EXPECT_FALSE(
      range(scalar(f32, 0), scalar(f32, 1e30), scalar(f32, 1)).has_value());
}

TEST_F(EvaluatorTest, LargeResultsAreResourceBlobs) {
  // 100 i64 elements are 800 bytes, beyond the 64-byte threshold above.
  ElementsAttr r =
      evaluateRange(i64(0), i64(100), i64(1), EvaluationLimits(1000, 1000, 64));
  ASSERT_TRUE(r);
  EXPECT_TRUE(isa<DenseResourceElementsAttr>(r));
  auto view = ConstantView::get(r);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->f(99), 99.0);
}

} // namespace
