//===- PostcardTest.cpp - .hdss reader/writer unit tests ------------------===//
//
// Round trips (bytes -> Snapshot -> bytes, Snapshot -> bytes -> Snapshot) on
// the hand-written fixtures and on a snapshot using every params kind, and
// robustness: every truncation and every single-byte corruption of a fixture
// either decodes or fails with a message, never crashes.
//
//===----------------------------------------------------------------------===//
#include "hodu/Import/Hdss.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace hodu::hdss;

namespace {
std::vector<uint8_t> readHexFixture(const std::string &name) {
  std::ifstream in(std::string(HODU_HDSS_INPUTS) + "/" + name);
  EXPECT_TRUE(in) << name;
  std::vector<uint8_t> bytes;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#')
      continue;
    std::string digits;
    for (char c : line)
      if (std::isxdigit(static_cast<unsigned char>(c)))
        digits += c;
    for (size_t i = 0; i + 1 < digits.size(); i += 2)
      bytes.push_back(uint8_t(std::stoul(digits.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

class Fixtures : public ::testing::TestWithParam<const char *> {};

TEST_P(Fixtures, BytesRoundTrip) {
  std::vector<uint8_t> bytes = readHexFixture(GetParam());
  Snapshot s;
  std::string error;
  ASSERT_TRUE(readSnapshot(bytes.data(), bytes.size(), s, error)) << error;
  EXPECT_EQ(writeSnapshot(s), bytes);
}

TEST_P(Fixtures, TruncationsFailCleanly) {
  std::vector<uint8_t> bytes = readHexFixture(GetParam());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Snapshot s;
    std::string error;
    EXPECT_FALSE(readSnapshot(bytes.data(), n, s, error)) << "prefix " << n;
    EXPECT_NE(error.find("malformed .hdss at byte"), std::string::npos) << error;
  }
}

TEST_P(Fixtures, CorruptionsNeverCrash) {
  std::vector<uint8_t> bytes = readHexFixture(GetParam());
  for (size_t i = 0; i < bytes.size(); ++i)
    for (uint8_t v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::vector<uint8_t> copy = bytes;
      copy[i] = v;
      Snapshot s;
      std::string error;
      if (!readSnapshot(copy.data(), copy.size(), s, error))
        EXPECT_FALSE(error.empty());
    }
}

INSTANTIATE_TEST_SUITE_P(Hdss, Fixtures,
                         ::testing::Values("basic.hex", "ops.hex"));

TEST(Postcard, Varints) {
  // usize 300 = ac 02 (LEB128); i32 -3 = zigzag 5; f32 1.0 = 00 00 80 3f.
  Snapshot s;
  s.hasName = false;
  Node n;
  n.op = {OpFamily::Sort, 0};
  n.hasParams = true;
  n.params.kind = ParamsKind::TopK;
  n.params.fields.resize(5);
  n.params.fields[0].u = 300;
  n.params.fields[1].i = -3;
  n.params.fields[2].u = 1;
  n.params.fields[4].u = 7;
  n.outputLayout = Layout::contiguous({2});
  s.nodes.push_back(n);
  std::vector<uint8_t> bytes = writeSnapshot(s);
  const uint8_t expected[] = {
      0x00, 0x00, 0x00, 0x00, 0x01,          // name None, no inputs/consts/targets, 1 node
      0x12, 0x00,                            // Op::Sort(TopK)
      0x01, 0x25, 0xac, 0x02, 0x05, 0x01, 0x00, 0x07, // Some(TopK{300,-3,true,false,7})
      0x00, 0x00,                            // input_ids [], output_id 0
      0x00,                                  // input_layouts []
      0x01, 0x02, 0x01, 0x01, 0x00,          // output layout {[2],[1],0}
      0x05, 0x00};                           // F32, symbolic None
  ASSERT_EQ(bytes, std::vector<uint8_t>(std::begin(expected), std::end(expected)));
}

TEST(Postcard, EveryParamsKindRoundTrips) {
  Snapshot s;
  s.hasName = true;
  s.name = "all";
  for (unsigned k = 0; k < kNumParamsKinds; ++k) {
    Node n;
    n.op = {OpFamily::Binary, 0};
    n.hasParams = true;
    n.params.kind = ParamsKind(k);
    const char *schema = paramsSchema(n.params.kind);
    for (size_t i = 0; schema[i]; ++i) {
      Field f;
      switch (schema[i]) {
      case 'S': f.scalar = Scalar::ofF32(1.5f); break;
      case 'V': f.scalars = {Scalar::ofI64(-2), Scalar::ofI64(1 << 20)}; break;
      case 'u': case 'e': f.u = 12345; break;
      case 'i': f.i = -77; break;
      case 'b': f.u = 1; break;
      case 'd': f.u = 13; break;
      case 'o': f.present = true; f.u = 3; break;
      case 'U': f.list = {1, 2, 3}; break;
      case 'P': f.list = {0, 1, 2, 3}; break;
      case 's': f.str = "ij,jk->ik"; break;
      case 'c': f.list = {'i', 'k'}; break;
      case 'C': f.lists = {{'i', 'j'}, {'j', 'k'}}; break;
      }
      n.params.fields.push_back(f);
    }
    s.nodes.push_back(n);
  }
  std::vector<uint8_t> bytes = writeSnapshot(s);
  Snapshot back;
  std::string error;
  ASSERT_TRUE(readSnapshot(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_TRUE(back == s);
}

TEST(Postcard, ScalarEncodings) {
  struct Case {
    Scalar scalar;
    std::vector<uint8_t> bytes; // after the variant index
  };
  Scalar b; b.dtype = DType::Bool; b.i = 1;
  Scalar u8; u8.dtype = DType::U8; u8.i = 200;
  Scalar i8; i8.dtype = DType::I8; i8.i = -1;
  Scalar u32; u32.dtype = DType::U32; u32.i = 128;
  Scalar i32; i32.dtype = DType::I32; i32.i = -64;
  Scalar f16; f16.dtype = DType::F16; f16.f = 0.5;
  for (const Case &c : std::vector<Case>{{b, {0x01}},
                                          {u8, {0xc8}},
                                          {i8, {0xff}},
                                          {u32, {0x80, 0x01}},
                                          {i32, {0x7f}},
                                          {f16, {0x00, 0x00, 0x00, 0x3f}}}) {
    Snapshot s;
    Node n;
    n.hasParams = true;
    n.op = {OpFamily::UnaryScalar, 2};
    n.params.kind = ParamsKind::UnaryScalar;
    n.params.fields.resize(1);
    n.params.fields[0].scalar = c.scalar;
    s.nodes.push_back(n);
    std::vector<uint8_t> bytes = writeSnapshot(s);
    // name, 3 empty vecs, node count, Op (2 bytes), Some, kind, variant.
    std::vector<uint8_t> got(bytes.begin() + 10,
                             bytes.begin() + 10 + c.bytes.size());
    EXPECT_EQ(bytes[9], uint8_t(c.scalar.dtype));
    EXPECT_EQ(got, c.bytes) << dtypeName(c.scalar.dtype);
    Snapshot back;
    std::string error;
    ASSERT_TRUE(readSnapshot(bytes.data(), bytes.size(), back, error)) << error;
    EXPECT_TRUE(back.nodes[0].params == n.params) << dtypeName(c.scalar.dtype);
  }
}
} // namespace
