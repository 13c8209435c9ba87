//===- CaptureMemoryTest.cpp - capture graphs compiled into memory --------===//
//
// Script::compileToMemory compiles a captured graph in this process into
// artifact bytes, and hodu_model_load_memory loads them: a shared library
// for the CPU, a bundle for Vulkan (lavapipe here). Each runs and gives
// plain C++'s numbers; nothing is left in the temporary directory.
//
//===----------------------------------------------------------------------===//
#include "hodu/Capture/Capture.h"
#include "hodu/runtime.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace hodu::capture;

namespace {

Script dense(const std::vector<float> &w, const std::vector<float> &b) {
  Board board("dense_mem");
  Tensor x = board.input("x", {2, 3});
  board.addTarget(
      "y", relu(matmul(x, board.constant({3, 2}, w)) + board.constant({2}, b)));
  return board.capture();
}

/// Runs the artifact `bytes` from memory on x; the status of the load.
hodu_status runBytes(const std::vector<uint8_t> &bytes, std::vector<float> x,
                     std::vector<float> &y) {
  hodu_model *model = nullptr;
  hodu_status status = hodu_model_load_memory(bytes.data(), bytes.size(),
                                              "dense_mem", nullptr, &model);
  if (status)
    return status;
  int64_t xs[] = {2, 3}, ys[] = {2, 2};
  hodu_tensor *in = nullptr, *out = nullptr;
  y.assign(4, -1.0f);
  status = hodu_tensor_wrap(HODU_DTYPE_F32, 2, xs, x.data(),
                            x.size() * sizeof(float), &in);
  if (!status)
    status = hodu_tensor_wrap(HODU_DTYPE_F32, 2, ys, y.data(),
                              y.size() * sizeof(float), &out);
  if (!status)
    status = hodu_model_run(model, &in, 1, &out, 1);
  hodu_tensor_free(in);
  hodu_tensor_free(out);
  hodu_model_free(model);
  return status;
}

size_t entriesIn(const std::string &dir) {
  std::error_code ec;
  size_t n = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    n += llvm::StringRef(llvm::sys::path::filename(it->path()))
             .starts_with("hodu-compile");
  return n;
}

} // namespace

TEST(CaptureMemory, CpuAndVulkanFromMemory) {
  std::vector<float> w = {0.5f, -1, 2, 0.25f, -1, 1}, b = {0.5f, -0.5f};
  std::vector<float> x = {1, 2, 3, -1, 0, 4};
  std::vector<float> expect(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float s = b[j];
      for (int k = 0; k < 3; ++k)
        s += x[i * 3 + k] * w[k * 2 + j];
      expect[i * 2 + j] = std::max(0.0f, s);
    }
  Script script = dense(w, b);
  llvm::SmallString<128> tmp;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, tmp);
  size_t before = entriesIn(std::string(tmp));

  std::vector<uint8_t> library = script.compileToMemory(CompileOptions{});
  ASSERT_GT(library.size(), 4u);
  EXPECT_EQ(std::memcmp(library.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  std::vector<float> y;
  hodu_status status = runBytes(library, x, y);
  EXPECT_EQ(status, nullptr) << hodu_status_message(status);
  hodu_status_free(status);
  EXPECT_EQ(y, expect);

  CompileOptions vulkan;
  vulkan.device = "vulkan";
  std::vector<uint8_t> bundle = script.compileToMemory(vulkan);
  ASSERT_GT(bundle.size(), 8u);
  EXPECT_EQ(std::memcmp(bundle.data(), "HODUBNDL", 8), 0);
  status = runBytes(bundle, x, y);
  if (status && hodu_status_get_code(status) == HODU_NO_DEVICE) {
    hodu_status_free(status); // no Vulkan here: the bytes were checked
  } else {
    EXPECT_EQ(status, nullptr) << hodu_status_message(status);
    hodu_status_free(status);
    for (int i = 0; i < 4; ++i)
      EXPECT_NEAR(y[i], expect[i], 1e-5) << i;
  }
  EXPECT_EQ(entriesIn(std::string(tmp)), before);

  // An output path is the other API's.
  CompileOptions withPath;
  withPath.outputPath = "x.so";
  EXPECT_THROW(script.compileToMemory(withPath), Error);
}
