#include "hodu/Support/DType.h"
#include "hodu/Support/Names.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace hodu;

TEST(Names, CIdentifier) {
  EXPECT_EQ(cIdentifier("my-model"), "my_model");
  EXPECT_EQ(cIdentifier("input.1"), "input_1");
  EXPECT_EQ(cIdentifier("conv/weights"), "conv_weights");
  EXPECT_EQ(cIdentifier("3d"), "m_3d");
  EXPECT_EQ(cIdentifier(""), "m_");
  EXPECT_EQ(defaultModelName("dir/my-model.onnx"), "my_model");
  EXPECT_TRUE(isCIdentifier("net_2"));
  EXPECT_FALSE(isCIdentifier("9lives"));
  EXPECT_FALSE(isCIdentifier(""));
}

TEST(Names, InputShape) {
  InputShape pin;
  std::string error;
  ASSERT_TRUE(parseInputShape("onnx::Flatten_0:1x3x48x320", pin, error));
  EXPECT_EQ(pin.first, "onnx::Flatten_0");
  EXPECT_EQ(pin.second, (std::vector<int64_t>{1, 3, 48, 320}));
  ASSERT_TRUE(parseInputShape("s:", pin, error));
  EXPECT_TRUE(pin.second.empty()); // a scalar
  EXPECT_FALSE(parseInputShape("x", pin, error));
  EXPECT_NE(error.find("expects NAME:DIMS"), std::string::npos);
  EXPECT_FALSE(parseInputShape("x:1xfoo", pin, error));
  EXPECT_NE(error.find("'foo' is not a non-negative dimension"),
            std::string::npos);
  EXPECT_FALSE(parseInputShape("x:-1", pin, error));
  ASSERT_TRUE(parseInputShape("x:?x3", pin, error)); // '?' keeps a dim symbolic
  EXPECT_EQ(pin.second, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(dimsString(pin.second), "?x3");
}

TEST(Names, DimSpecs) {
  DimSpec d;
  std::string error;
  ASSERT_TRUE(parseDimSpec("seq=128", d, error)) << error;
  EXPECT_EQ(d.name, "seq");
  EXPECT_EQ(d.size, 128);
  ASSERT_TRUE(parseDimSpec("batch=1..64", d, error)) << error;
  EXPECT_FALSE(d.size.has_value());
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 64);
  EXPECT_EQ(d.multiple, 1);
  EXPECT_EQ(d.chunk, 0);
  ASSERT_TRUE(parseDimSpec("n=8..%8@16", d, error)) << error;
  EXPECT_EQ(d.min, 8);
  EXPECT_EQ(d.max, -1);
  EXPECT_EQ(d.multiple, 8);
  EXPECT_EQ(d.chunk, 16);
  EXPECT_EQ(d.buckets, std::vector<int64_t>({16}));
  ASSERT_TRUE(parseDimSpec("seq=1..512@64,128,256", d, error)) << error;
  EXPECT_EQ(d.max, 512);
  EXPECT_EQ(d.buckets, std::vector<int64_t>({64, 128, 256}));
  ASSERT_TRUE(parseDimSpec("b=..32", d, error)) << error;
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 32);
  ASSERT_TRUE(parseDimSpec("state_dim1=input_dim0", d, error)) << error;
  EXPECT_EQ(d.sameAs, "input_dim0");
  for (const char *bad :
       {"batch", "=4", "b=4..2", "b=1..8%0", "b=1..8@0", "b=4%2", "b=-3",
        "b=1..x", "s=1..8@4,2", "s=1..8@4,,6", "s=1..8@4,"}) {
    EXPECT_FALSE(parseDimSpec(bad, d, error)) << bad;
    EXPECT_NE(error.find("--dim '"), std::string::npos) << bad;
  }
}

TEST(Names, ParsesSequenceLengths) {
  std::pair<std::string, int64_t> length;
  std::string error;
  ASSERT_TRUE(parseSequenceLength("a:b:3", length, error)) << error;
  EXPECT_EQ(length.first, "a:b");
  EXPECT_EQ(length.second, 3);
  ASSERT_TRUE(parseSequenceLength("s:0", length, error)) << error;
  EXPECT_EQ(length.second, 0);
  for (const char *bad : {"s", ":3", "s:", "s:-1", "s:x", "s:2x2"}) {
    EXPECT_FALSE(parseSequenceLength(bad, length, error)) << bad;
    EXPECT_NE(error.find("expects NAME:N"), std::string::npos) << error;
  }
}

TEST(DType, RoundTripsEveryABIDType) {
  mlir::MLIRContext ctx;
  for (int32_t d = 0; d < HODU_DTYPE_COUNT; ++d) {
    mlir::Type t = elementTypeOf(&ctx, d);
    ASSERT_TRUE(t) << d;
    EXPECT_EQ(dtypeOf(t), static_cast<hodu_dtype>(d)) << dtypeName(d);
  }
  EXPECT_EQ(dtypeOf(mlir::IndexType::get(&ctx)), std::nullopt);
  EXPECT_FALSE(elementTypeOf(&ctx, HODU_DTYPE_COUNT));
  EXPECT_STREQ(dtypeName(HODU_DTYPE_BF16), "bf16");
  EXPECT_STREQ(dtypeCType(HODU_DTYPE_F32), "float");
  // Signless integers are the signed dtypes.
  EXPECT_EQ(dtypeOf(mlir::IntegerType::get(&ctx, 32)), HODU_DTYPE_I32);
}
