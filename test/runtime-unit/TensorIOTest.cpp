//===- TensorIOTest.cpp - hodu-run's tensor codecs and element conversions ===//
//
// Hand-made byte strings cover what round trips cannot: the typed
// TensorProto fields ONNX writers use instead of raw_data, NumPy files in
// big-endian and Fortran order, and malformed input.
//
//===----------------------------------------------------------------------===//
#include "Elements.h"
#include "TensorIO.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace hodu_run;

namespace {

std::string varint(uint64_t value) {
  std::string out;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(char(value ? byte | 0x80 : byte));
  } while (value);
  return out;
}
std::string key(int field, int wireType) {
  return varint(uint64_t(field) << 3 | uint64_t(wireType));
}
std::string header(std::initializer_list<int64_t> dims, int dataType) {
  std::string out;
  for (int64_t dim : dims)
    out += key(1, 0) + varint(uint64_t(dim));
  return out + key(2, 0) + varint(uint64_t(dataType));
}
std::string lengthDelimited(int field, const std::string &payload) {
  return key(field, 2) + varint(payload.size()) + payload;
}

bool decodePb(const std::string &bytes, HostTensor &tensor,
              std::string &error) {
  return decodeTensorProto(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size(), tensor, error);
}

template <typename T> T at(const HostTensor &tensor, size_t index) {
  T value;
  std::memcpy(&value, tensor.data.data() + index * sizeof(T), sizeof(T));
  return value;
}

TEST(TensorProto, FloatDataPackedAndUnpacked) {
  float values[] = {1.5f, -2.0f};
  std::string packed = header({2}, 1) +
                       lengthDelimited(4, std::string((char *)values, 8));
  std::string unpacked = header({2}, 1) + key(4, 5) +
                         std::string((char *)&values[0], 4) + key(4, 5) +
                         std::string((char *)&values[1], 4);
  for (const std::string &bytes : {packed, unpacked}) {
    HostTensor tensor;
    std::string error;
    ASSERT_TRUE(decodePb(bytes, tensor, error)) << error;
    EXPECT_EQ(tensor.dtype, HODU_DTYPE_F32);
    EXPECT_EQ(tensor.shape, std::vector<int64_t>{2});
    EXPECT_EQ(at<float>(tensor, 0), 1.5f);
    EXPECT_EQ(at<float>(tensor, 1), -2.0f);
  }
}

TEST(TensorProto, Int32DataCarriesNarrowTypes) {
  // int8: negative values are sign-extended 10-byte varints.
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(decodePb(header({3}, 3) +
                           lengthDelimited(5, varint(uint64_t(-128)) +
                                                  varint(5) + varint(127)),
                       tensor, error))
      << error;
  EXPECT_EQ(tensor.dtype, HODU_DTYPE_I8);
  EXPECT_EQ(at<int8_t>(tensor, 0), -128);
  EXPECT_EQ(at<int8_t>(tensor, 2), 127);

  // float16: the bits, one value per entry.
  ASSERT_TRUE(decodePb(header({2}, 10) +
                           lengthDelimited(5, varint(0x3c00) + varint(0xc100)),
                       tensor, error));
  EXPECT_EQ(tensor.dtype, HODU_DTYPE_F16);
  EXPECT_EQ(halfToFloat(at<uint16_t>(tensor, 0)), 1.0f);
  EXPECT_EQ(halfToFloat(at<uint16_t>(tensor, 1)), -2.5f);

  // bool, unpacked entries.
  ASSERT_TRUE(decodePb(header({2}, 9) + key(5, 0) + varint(1) + key(5, 0) +
                           varint(0),
                       tensor, error));
  EXPECT_EQ(tensor.dtype, HODU_DTYPE_BOOL);
  EXPECT_EQ(tensor.data, (std::vector<uint8_t>{1, 0}));
}

TEST(TensorProto, WideTypedFields) {
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(decodePb(header({2}, 7) +
                           lengthDelimited(7, varint(uint64_t(-3)) +
                                                  varint(1ull << 62)),
                       tensor, error));
  EXPECT_EQ(at<int64_t>(tensor, 0), -3);
  EXPECT_EQ(at<int64_t>(tensor, 1), int64_t(1) << 62);

  ASSERT_TRUE(decodePb(header({1}, 12) + lengthDelimited(11, varint(4000000000u)),
                       tensor, error));
  EXPECT_EQ(tensor.dtype, HODU_DTYPE_U32);
  EXPECT_EQ(at<uint32_t>(tensor, 0), 4000000000u);

  double value = 0.125;
  ASSERT_TRUE(decodePb(header({}, 11) + key(10, 1) +
                           std::string((char *)&value, 8),
                       tensor, error));
  EXPECT_EQ(tensor.dtype, HODU_DTYPE_F64);
  EXPECT_TRUE(tensor.shape.empty());
  EXPECT_EQ(at<double>(tensor, 0), 0.125);
}

TEST(TensorProto, SkipsUnknownFieldsAndKeepsName) {
  HostTensor tensor;
  std::string error;
  std::string bytes = lengthDelimited(12, "a doc string") + header({1}, 6) +
                      lengthDelimited(8, "input") +
                      lengthDelimited(9, std::string("\x07\x00\x00\x00", 4));
  ASSERT_TRUE(decodePb(bytes, tensor, error)) << error;
  EXPECT_EQ(tensor.name, "input");
  EXPECT_EQ(at<int32_t>(tensor, 0), 7);
}

TEST(TensorProto, Errors) {
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(decodePb(header({2}, 1) + lengthDelimited(4, "abc"), tensor,
                        error));
  EXPECT_NE(error.find("bad or truncated field 4"), std::string::npos);
  EXPECT_FALSE(decodePb(header({3}, 1) + lengthDelimited(9, "abcd"), tensor,
                        error));
  EXPECT_NE(error.find("raw_data holds 4 bytes"), std::string::npos) << error;
  EXPECT_FALSE(decodePb(key(1, 0) + varint(2), tensor, error));
  EXPECT_NE(error.find("no data_type"), std::string::npos);
  EXPECT_FALSE(decodePb(header({1}, 8) + lengthDelimited(6, "hi"), tensor,
                        error));
  EXPECT_NE(error.find("string tensors"), std::string::npos);
  EXPECT_FALSE(decodePb(header({1}, 14), tensor, error)); // COMPLEX128
  EXPECT_NE(error.find("unsupported ONNX data_type 14"), std::string::npos);
  EXPECT_FALSE(decodePb(header({2}, 7) + lengthDelimited(7, varint(1)), tensor,
                        error));
  EXPECT_NE(error.find("int64_data holds 1 values, but shape [2] needs 2"),
            std::string::npos);
  EXPECT_FALSE(decodePb(header({1}, 1) + key(14, 0) + varint(1), tensor,
                        error));
  EXPECT_NE(error.find("external data"), std::string::npos);
}

// Found by hodu-fuzz-tensor: a shape of 2^40 elements with one typed value
// was allocated (4 TiB) before the value count was checked.
TEST(TensorProto, HugeShapeWithFewTypedValuesAllocatesNothing) {
  HostTensor tensor;
  std::string error;
  std::string oneFloat("\0\0\x80\x3f", 4);
  EXPECT_FALSE(decodePb(header({int64_t(1) << 40}, 1) +
                            lengthDelimited(4, oneFloat),
                        tensor, error));
  EXPECT_NE(error.find("float_data holds 1 values, but shape [1099511627776] "
                       "needs 1099511627776"),
            std::string::npos)
      << error;
  EXPECT_TRUE(tensor.data.empty());
}

TEST(TensorProto, RoundTrip) {
  HostTensor tensor{"t", HODU_DTYPE_BF16, {2, 1}, {0x80, 0x3f, 0xc0, 0x7f}};
  HostTensor back;
  std::string error;
  ASSERT_TRUE(decodePb(encodeTensorProto(tensor), back, error)) << error;
  EXPECT_EQ(back.name, "t");
  EXPECT_EQ(back.dtype, HODU_DTYPE_BF16);
  EXPECT_EQ(back.shape, tensor.shape);
  EXPECT_EQ(back.data, tensor.data);
}

bool decodeSeq(const std::string &bytes, std::vector<HostTensor> &elements,
               std::string &error) {
  return decodeSequenceProto(reinterpret_cast<const uint8_t *>(bytes.data()),
                             bytes.size(), elements, error);
}

TEST(SequenceProto, ElementsInOrderOfTheirOwnShapes) {
  HostTensor a{"", HODU_DTYPE_I64, {2}, {}}, b{"", HODU_DTYPE_I64, {1, 1}, {}};
  a.data.assign(16, 0);
  a.data[0] = 7;
  b.data.assign(8, 0);
  b.data[0] = 9;
  // name, elem_type TENSOR, two tensor_values, and a field from a later
  // ONNX version, skipped.
  std::string bytes = lengthDelimited(1, "seq") + key(2, 0) + varint(1) +
                      lengthDelimited(3, encodeTensorProto(a)) +
                      lengthDelimited(3, encodeTensorProto(b)) + key(20, 0) +
                      varint(5);
  std::vector<HostTensor> elements;
  std::string error;
  ASSERT_TRUE(decodeSeq(bytes, elements, error)) << error;
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(at<int64_t>(elements[0], 0), 7);
  EXPECT_EQ(elements[1].shape, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(at<int64_t>(elements[1], 0), 9);
  // An empty sequence (elem_type UNDEFINED) has no elements.
  ASSERT_TRUE(decodeSeq(lengthDelimited(1, "e"), elements, error)) << error;
  EXPECT_TRUE(elements.empty());
}

TEST(SequenceProto, Errors) {
  std::vector<HostTensor> elements;
  std::string error;
  EXPECT_FALSE(decodeSeq(key(2, 0) + varint(3), elements, error));
  EXPECT_NE(error.find("sequences of sequences"), std::string::npos) << error;
  EXPECT_FALSE(decodeSeq(lengthDelimited(5, ""), elements, error));
  EXPECT_NE(error.find("not supported"), std::string::npos) << error;
  // A broken element names its position.
  std::string bad = lengthDelimited(3, header({2}, 1) + key(4, 5) + "ab");
  EXPECT_FALSE(decodeSeq(
      lengthDelimited(3, header({1}, 7) +
                             lengthDelimited(9, std::string(8, '\0'))) +
          bad,
      elements, error));
  EXPECT_EQ(error.rfind("element 1: ", 0), 0u) << error;
  // Truncated: a length past the end.
  EXPECT_FALSE(decodeSeq(key(3, 2) + varint(100) + "x", elements, error));
  EXPECT_NE(error.find("not a valid SequenceProto"), std::string::npos)
      << error;
}

bool decodeOpt(const std::string &bytes, OptionalValue &value,
               std::string &error) {
  return decodeOptionalProto(reinterpret_cast<const uint8_t *>(bytes.data()),
                             bytes.size(), value, error);
}

TEST(OptionalProto, TensorSequenceAndEmpty) {
  HostTensor a{"", HODU_DTYPE_I64, {2}, {}};
  a.data.assign(16, 0);
  a.data[8] = 4;
  OptionalValue value;
  std::string error;
  // name, elem_type TENSOR, tensor_value.
  ASSERT_TRUE(decodeOpt(lengthDelimited(1, "o") + key(2, 0) + varint(1) +
                            lengthDelimited(3, encodeTensorProto(a)),
                        value, error))
      << error;
  EXPECT_TRUE(value.present);
  EXPECT_FALSE(value.sequence);
  ASSERT_EQ(value.elements.size(), 1u);
  EXPECT_EQ(at<int64_t>(value.elements[0], 1), 4);
  // elem_type SEQUENCE, sequence_value of two tensors.
  std::string seq = key(2, 0) + varint(1) +
                    lengthDelimited(3, encodeTensorProto(a)) +
                    lengthDelimited(3, encodeTensorProto(a));
  ASSERT_TRUE(
      decodeOpt(key(2, 0) + varint(3) + lengthDelimited(5, seq), value, error))
      << error;
  EXPECT_TRUE(value.present);
  EXPECT_TRUE(value.sequence);
  EXPECT_EQ(value.elements.size(), 2u);
  // elem_type UNDEFINED: empty.
  ASSERT_TRUE(
      decodeOpt(lengthDelimited(1, "o") + key(2, 0) + varint(0), value, error))
      << error;
  EXPECT_FALSE(value.present);
  EXPECT_TRUE(value.elements.empty());
}

TEST(OptionalProto, Errors) {
  HostTensor a{"", HODU_DTYPE_I64, {1}, {}};
  a.data.assign(8, 0);
  OptionalValue value;
  std::string error;
  // A TensorProto is not an OptionalProto (its dims are varints in field 1).
  EXPECT_FALSE(decodeOpt(encodeTensorProto(a), value, error));
  EXPECT_NE(error.find("not a valid OptionalProto"), std::string::npos)
      << error;
  // elem_type TENSOR without a tensor_value, and with a sequence_value.
  EXPECT_FALSE(decodeOpt(key(2, 0) + varint(1), value, error));
  EXPECT_NE(error.find("does not match its value"), std::string::npos) << error;
  EXPECT_FALSE(
      decodeOpt(key(2, 0) + varint(1) + lengthDelimited(5, ""), value, error));
  // No elem_type at all.
  EXPECT_FALSE(decodeOpt(lengthDelimited(1, "o"), value, error));
  // Maps and optionals of optionals.
  EXPECT_FALSE(
      decodeOpt(key(2, 0) + varint(5) + lengthDelimited(7, ""), value, error));
  EXPECT_NE(error.find("not supported"), std::string::npos) << error;
  // A broken tensor inside.
  EXPECT_FALSE(decodeOpt(
      key(2, 0) + varint(1) +
          lengthDelimited(3, key(1, 0) + varint(2) + key(2, 0) + varint(7)),
      value, error));
  EXPECT_FALSE(error.empty());
}

std::string npyFile(const std::string &dict, const std::string &data,
                    int major = 1) {
  std::string header = dict + "\n";
  std::string out("\x93NUMPY", 6);
  out.push_back(char(major));
  out.push_back(0);
  out.push_back(char(header.size() & 0xff));
  out.push_back(char(header.size() >> 8));
  if (major >= 2)
    out += std::string(2, '\0');
  return out + header + data;
}

bool decodeNpyString(const std::string &bytes, HostTensor &tensor,
                     std::string &error) {
  return decodeNpy(reinterpret_cast<const uint8_t *>(bytes.data()),
                   bytes.size(), tensor, error);
}

TEST(Npy, BigEndianFortranAndVersion2) {
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(decodeNpyString(
      npyFile("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
              std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)),
      tensor, error))
      << error;
  EXPECT_EQ(at<int32_t>(tensor, 0), 0x0102);
  EXPECT_EQ(at<int32_t>(tensor, 1), -2);

  // Column-major [[1,2,3],[4,5,6]] is stored 1,4,2,5,3,6.
  std::string data;
  for (uint8_t value : {1, 4, 2, 5, 3, 6})
    data.push_back(char(value));
  ASSERT_TRUE(decodeNpyString(
      npyFile("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }",
              data, 2),
      tensor, error))
      << error;
  EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensor.data, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, RoundTripAndErrors) {
  HostTensor tensor{"", HODU_DTYPE_I16, {}, {0x34, 0x12}};
  std::string bytes, error;
  ASSERT_TRUE(encodeNpy(tensor, bytes, error));
  EXPECT_EQ((bytes.size() - tensor.data.size()) % 64, 0u); // aligned data
  HostTensor back;
  ASSERT_TRUE(decodeNpyString(bytes, back, error)) << error;
  EXPECT_TRUE(back.shape.empty());
  EXPECT_EQ(back.dtype, HODU_DTYPE_I16);
  EXPECT_EQ(back.data, tensor.data);

  EXPECT_FALSE(decodeNpyString("NUMPY", back, error));
  EXPECT_NE(error.find("bad magic"), std::string::npos);
  EXPECT_FALSE(decodeNpyString(
      npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
              std::string(8, '\0')),
      back, error));
  EXPECT_NE(error.find("unsupported .npy dtype '<c8'"), std::string::npos);
  EXPECT_FALSE(decodeNpyString(
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
              std::string(8, '\0')),
      back, error));
  EXPECT_NE(error.find("truncated"), std::string::npos);
}

TEST(Json, ParsesNestedExactAndSpecialValues) {
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(decodeJsonTensor(
      R"({"dtype": "i64", "shape": [3], "data": [9007199254740993, -1, 2.0]})",
      tensor, error))
      << error;
  EXPECT_EQ(at<int64_t>(tensor, 0), 9007199254740993);
  EXPECT_EQ(at<int64_t>(tensor, 2), 2);

  ASSERT_TRUE(decodeJsonTensor(
      R"({"shape":[2,2],"dtype":"f64","data":[[NaN,Infinity],[-Infinity,1e-3]]})",
      tensor, error));
  EXPECT_TRUE(std::isnan(at<double>(tensor, 0)));
  EXPECT_EQ(at<double>(tensor, 2), -INFINITY);
  EXPECT_EQ(at<double>(tensor, 3), 1e-3);
  EXPECT_EQ(encodeJsonTensor(tensor),
            "{\"shape\":[2,2],\"dtype\":\"f64\",\"data\":[NaN,Infinity,"
            "-Infinity,0.001]}\n");
}

TEST(Json, Errors) {
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"dtype":"u8","data":[256]})",
                                tensor, error));
  EXPECT_NE(error.find("data[0] = 256 does not fit u8"), std::string::npos);
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"dtype":"i32","data":[1.5]})",
                                tensor, error));
  EXPECT_NE(error.find("is not an integer"), std::string::npos);
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"dtype":"float32","data":[1]})",
                                tensor, error));
  EXPECT_NE(error.find("unknown dtype \"float32\""), std::string::npos);
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"data":[1]})", tensor, error));
  EXPECT_NE(error.find("no \"dtype\""), std::string::npos);
  EXPECT_FALSE(decodeJsonTensor("[1,2", tensor, error));
  EXPECT_NE(error.find("invalid JSON at line 1, column 5"), std::string::npos)
      << error;
}

TEST(Npy, HostileHeadersGiveErrors) {
  // A shape far larger than the file is refused before it is allocated.
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(decodeNpyString(
      npyFile("{'descr': '<f8', 'fortran_order': False, "
              "'shape': (1000000, 1000000), }",
              std::string(16, '\0')),
      tensor, error));
  EXPECT_NE(error.find(".npy data is truncated: 16 bytes, need 8000000000000"),
            std::string::npos)
      << error;
  EXPECT_FALSE(decodeNpyString(
      npyFile("{'descr': '<f8', 'fortran_order': False, "
              "'shape': (4294967296, 4294967296, 8), }",
              ""),
      tensor, error));
  EXPECT_NE(error.find("is too large"), std::string::npos) << error;
  EXPECT_FALSE(decodeNpyString(std::string("\x93NUMPY\x01\x00\xff\x00{", 11),
                               tensor, error));
  EXPECT_NE(error.find("truncated .npy header"), std::string::npos) << error;
  EXPECT_FALSE(decodeNpyString("", tensor, error));
}

TEST(Json, SyntaxErrorsPointAtTheToken) {
  HostTensor tensor;
  std::string error;
  auto errorOf = [&](const std::string &text) {
    EXPECT_FALSE(decodeJsonTensor(text, tensor, error)) << text;
    return error;
  };
  EXPECT_EQ(errorOf("{\"shape\" [1]}"),
            "invalid JSON at line 1, column 10: expected ':'");
  EXPECT_EQ(errorOf("{\"shape\":[1,}"),
            "invalid JSON at line 1, column 13: unexpected '}'; expected "
            "'[', '{', or a literal");
  EXPECT_EQ(errorOf("{\"shape\":[1] 2}"),
            "invalid JSON at line 1, column 14: expected ',' or '}'");
  EXPECT_EQ(errorOf("{\"a\":1,}"),
            "invalid JSON at line 1, column 8: expected a string key");
  EXPECT_EQ(errorOf("{\"data\":[1 2]}"),
            "invalid JSON at line 1, column 12: expected ',' or ']'");
  EXPECT_EQ(errorOf("{\"a\":\"x\\\"y\" 3}"),
            "invalid JSON at line 1, column 13: expected ',' or '}'");
  EXPECT_EQ(errorOf("{\"data\":[1]"),
            "invalid JSON at line 1, column 12: unexpected end of input");
  EXPECT_EQ(errorOf(""),
            "invalid JSON at line 1, column 1: unexpected end of input");
  // Columns count in the text as written, before NaN and Infinity are
  // read as the strings that JSON can carry.
  EXPECT_EQ(errorOf("{\"data\":[NaN,-Infinity]\n \"x\":1}"),
            "invalid JSON at line 2, column 2: expected ',' or '}'");
  EXPECT_NE(errorOf("{\"data\":[1.5e999]}").find("number overflow"),
            std::string::npos)
      << error;
}

TEST(Json, Members) {
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(decodeJsonTensor("[1]", tensor, error));
  EXPECT_NE(error.find("must be an object"), std::string::npos);
  EXPECT_FALSE(
      decodeJsonTensor(R"({"shape":[-1],"dtype":"f32","data":[]})", tensor,
                       error));
  EXPECT_NE(error.find("non-negative integers"), std::string::npos);
  EXPECT_FALSE(
      decodeJsonTensor(R"({"shape":[2.0],"dtype":"f32","data":[1,2]})",
                       tensor, error));
  EXPECT_NE(error.find("non-negative integers"), std::string::npos);
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"dtype":"f32","data":["a"]})",
                                tensor, error));
  EXPECT_NE(error.find("data[0] is not a number"), std::string::npos);
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"dtype":"i8","data":[NaN]})",
                                tensor, error));
  EXPECT_NE(error.find("data[0] = NaN is not an integer"), std::string::npos)
      << error;
  EXPECT_FALSE(decodeJsonTensor(R"({"shape":[1],"dtype":7,"data":[1]})",
                                tensor, error));
  EXPECT_NE(error.find("unknown dtype 7 (expected bool, f8e4m3, f8e5m2, bf16, "
                       "f16, f32, f64, u8, u16, u32, u64, i8, i16, i32 or "
                       "i64)"),
            std::string::npos)
      << error;
  // "data" deeper than any rank is refused, not recursed into.
  std::string deep = R"({"shape":[1],"dtype":"f32","data":)" +
                     std::string(100000, '[') + "1" +
                     std::string(100000, ']') + "}";
  EXPECT_FALSE(decodeJsonTensor(deep, tensor, error));
  EXPECT_NE(error.find("nested more than 64 deep"), std::string::npos);
  // NaN inside a string stays text; booleans and u64 beyond 2^63 are exact.
  ASSERT_TRUE(decodeJsonTensor(
      R"({"shape":[3],"dtype":"u64","data":[true, 18446744073709551615, 7]})",
      tensor, error))
      << error;
  EXPECT_EQ(at<uint64_t>(tensor, 0), 1u);
  EXPECT_EQ(at<uint64_t>(tensor, 1), 18446744073709551615u);
  ASSERT_TRUE(decodeJsonTensor(
      R"({"note":"NaN \"Infinity\"","shape":[],"dtype":"f32","data":-Infinity})",
      tensor, error))
      << error;
  EXPECT_EQ(at<float>(tensor, 0), -INFINITY);
}

TEST(Hdt, MatchesPostcardLayout) {
  // shape [2, 300] -> varints 02 02 ac02; dtype u8 = 7; data length 600.
  HostTensor tensor{"", HODU_DTYPE_U8, {2, 300}, std::vector<uint8_t>(600, 9)};
  std::string bytes = encodeHdt(tensor);
  EXPECT_EQ(bytes.substr(0, 7), std::string("\x02\x02\xac\x02\x07\xd8\x04", 7));
  HostTensor back;
  std::string error;
  ASSERT_TRUE(decodeHdt(reinterpret_cast<const uint8_t *>(bytes.data()),
                        bytes.size(), back, error))
      << error;
  EXPECT_EQ(back.shape, tensor.shape);
  EXPECT_EQ(back.data, tensor.data);
  EXPECT_FALSE(decodeHdt(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size() - 1, back, error));
}

TEST(Elements, HalfAndBfloat16) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // rounds up to infinity
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie: even
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) // every finite half
    ASSERT_EQ(floatToHalf(halfToFloat(uint16_t(bits))), bits);

  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80); // tie
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(bfloat16ToFloat(0xc040), -3.0f);
}

TEST(Elements, Float8) {
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E4M3, 1.0f), 0x38);
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E4M3, 448.0f), 0x7e);
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E4M3, 1000.0f), 0x7e); // saturates
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E4M3, -INFINITY), 0xfe);
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E4M3, NAN), 0x7f);
  EXPECT_EQ(float8ToFloat(HODU_DTYPE_F8E4M3, 0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(float8ToFloat(HODU_DTYPE_F8E4M3, 0xff)));
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E5M2, 1.0f), 0x3c);
  EXPECT_EQ(floatToFloat8(HODU_DTYPE_F8E5M2, INFINITY), 0x7c);
  EXPECT_EQ(float8ToFloat(HODU_DTYPE_F8E5M2, 0x7b), 57344.0f);
  for (int code = 0; code < 256; ++code) {
    for (hodu_dtype dtype : {HODU_DTYPE_F8E4M3, HODU_DTYPE_F8E5M2}) {
      float value = float8ToFloat(dtype, uint8_t(code));
      if (std::isfinite(value) && !(value == 0 && code != 0 && code != 0x80))
        ASSERT_EQ(floatToFloat8(dtype, value), code) << code;
    }
  }
}

TEST(Elements, IntegerRanges) {
  uint8_t buffer[8];
  EXPECT_TRUE(storeSigned(HODU_DTYPE_I8, buffer, 0, -128));
  EXPECT_FALSE(storeSigned(HODU_DTYPE_I8, buffer, 0, 128));
  EXPECT_FALSE(storeSigned(HODU_DTYPE_U16, buffer, 0, -1));
  EXPECT_TRUE(storeUnsigned(HODU_DTYPE_U64, buffer, 0, UINT64_MAX));
  EXPECT_EQ(loadAsUint64(HODU_DTYPE_U64, buffer, 0), UINT64_MAX);
  EXPECT_FALSE(storeUnsigned(HODU_DTYPE_I64, buffer, 0, UINT64_MAX));
  EXPECT_FALSE(storeUnsigned(HODU_DTYPE_BOOL, buffer, 0, 2));
  EXPECT_EQ(formatElement(HODU_DTYPE_U64, buffer, 0, true),
            "18446744073709551615");
}

} // namespace
