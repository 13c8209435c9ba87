//===- SafetensorsTest.cpp - the .safetensors reader ----------------------===//
//
// Round trips through the writer, the dtypes the reader converts, a
// captured graph whose weights come from a file (run against a plain C++
// reference), and every way a hostile file is refused, with its message.
//
//===----------------------------------------------------------------------===//
#include "hodu/Capture/Safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace hodu::capture;

namespace {

std::string scratch(const std::string &name) {
  return ::testing::TempDir() + "hodu-safetensors-" +
         std::to_string(::getpid()) + "-" + name;
}

/// A file of `header` (JSON text) and `data`, as the format lays it out.
std::string rawFile(const std::string &name, const std::string &header,
                    const std::string &data, int64_t claimed = -1) {
  std::string path = scratch(name);
  std::ofstream out(path, std::ios::binary);
  uint64_t length = claimed >= 0 ? uint64_t(claimed) : header.size();
  for (int i = 0; i < 8; ++i)
    out.put(char(length >> (8 * i)));
  out << header << data;
  return path;
}

std::string errorOf(const std::string &path) {
  try {
    Safetensors::open(path);
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Safetensors, RoundTrip) {
  std::string path = scratch("round.safetensors");
  Safetensors::write(path,
                     {{"w", {{2, 3}, {1, 2, 3, 4, 5, 6}}},
                      {"b", {{3}, {0.5f, -1, 2}}}},
                     {{"format", "pt"}});
  Safetensors file = Safetensors::open(path);
  ASSERT_EQ(file.entries().size(), 2u);
  EXPECT_TRUE(file.contains("w"));
  EXPECT_EQ(file.entry("w").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(file.entry("b").dtype, "F32");
  EXPECT_EQ(file.floats("w"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(file.floats("b"), (std::vector<float>{0.5f, -1, 2}));
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_THROW(file.ints("w"), Error);
  try {
    file.entry("nope");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no tensor 'nope' (it has 'w', 'b')"),
              std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(Safetensors, HalfBfloatAndIntegers) {
  // F16 1.5 = 0x3e00, -2 = 0xc000; BF16 3.0 = 0x4040; I64 7, -3.
  std::string data;
  auto put16 = [&](uint16_t v) { data += char(v & 0xff), data += char(v >> 8); };
  put16(0x3e00), put16(0xc000), put16(0x4040);
  for (int64_t v : {int64_t(7), int64_t(-3)})
    for (int i = 0; i < 8; ++i)
      data += char(uint64_t(v) >> (8 * i));
  std::string header =
      R"({"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},)"
      R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[4,6]},)"
      R"("i":{"dtype":"I64","shape":[2],"data_offsets":[6,22]}})";
  Safetensors file = Safetensors::open(rawFile("types", header, data));
  EXPECT_EQ(file.floats("h"), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(file.floats("b"), (std::vector<float>{3.0f}));
  EXPECT_EQ(file.ints("i"), (std::vector<int32_t>{7, -3}));
}

TEST(Safetensors, WeightsOfACapturedGraph) {
  // y = relu(x @ w + b), w and b from a file, against plain C++.
  std::vector<float> w = {0.5f, -1, 2, 1, 0, -0.25f}, b = {0.1f, -0.2f, 0.3f};
  std::string path = scratch("mlp.safetensors");
  Safetensors::write(path, {{"fc.weight", {{2, 3}, w}}, {"fc.bias", {{3}, b}}});
  Safetensors weights = Safetensors::open(path);
  Board board("st_mlp");
  Tensor x = board.input("x", {1, 2});
  Tensor y = relu(matmul(x, weights.constant(board, "fc.weight")) +
                  weights.constant(board, "fc.bias"));
  board.addTarget("y", y);
  std::vector<float> xs = {2, -1};
  std::vector<std::vector<float>> out = board.capture().run({xs});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), 3u);
  for (int j = 0; j < 3; ++j) {
    float expect = std::max(0.0f, xs[0] * w[j] + xs[1] * w[3 + j] + b[j]);
    EXPECT_NEAR(out[0][j], expect, 1e-6) << j;
  }
  std::remove(path.c_str());
}

TEST(Safetensors, HostileFiles) {
  const std::string f32x2 = std::string(8, '\0');
  auto expect = [](const std::string &path, const std::string &text) {
    std::string message = errorOf(path);
    EXPECT_NE(message.find(text), std::string::npos)
        << "expected '" << text << "' in: " << message;
  };
  {
    std::string path = scratch("short");
    std::ofstream(path) << "abc";
    expect(path, "shorter than the 8-byte header length");
  }
  expect(rawFile("huge", "{}", "", int64_t(1) << 40),
         "more than the format's 100 MB");
  expect(rawFile("beyond", "{}", "", 1000),
         "its header claims 1000 bytes, but the file has 2");
  expect(rawFile("notjson", "{\"a\":", ""), "its header is not JSON");
  expect(rawFile("deep", std::string(100, '[') + std::string(100, ']'), ""),
         "nested deeper than 64");
  expect(rawFile("dup",
                 R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                 R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                 f32x2),
         "names tensor 'a' twice");
  expect(rawFile("dtype", R"({"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})",
                 f32x2),
         "tensor 'a' has dtype 'C64', which Hodu does not read");
  expect(rawFile("size", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                 f32x2),
         "tensor 'a': F32 of its shape is 3 elements, but it has 8 bytes");
  expect(rawFile("range", R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                 f32x2),
         "tensor 'a': bytes [0, 16) are outside the 8 bytes of data");
  expect(rawFile("overlap",
                 R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                 R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                 f32x2),
         "tensor 'b' overlaps the tensor before it");
  expect(rawFile("hole", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                 f32x2),
         "bytes [0, 4) of the data belong to no tensor");
  expect(rawFile("tail", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                 f32x2),
         "bytes [4, 8) of the data belong to no tensor");
  expect(rawFile("negative", R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,8]}})",
                 f32x2),
         "a dim of \"shape\" is not an integer >= 0");
  expect(rawFile("fields", R"({"a":{"dtype":"F32"}})", ""),
         "tensor 'a' needs \"dtype\", \"shape\" and \"data_offsets\"");
  expect(rawFile("overflow",
                 R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})",
                 f32x2),
         "overflows");
  expect(scratch("missing-file"), "cannot open it");
}

} // namespace
