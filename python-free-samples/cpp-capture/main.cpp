// Sample 2: build a model in C++ with the capture API (no Python, no ONNX),
// save it as .hdss, load it back, compile it in process and run it, then
// check the outputs against a plain C++ reference.
//
//   hodu-sample-capture [OUTDIR]   (writes OUTDIR/tiny_mlp.hdss, libtiny_mlp.so
//                                  and libtiny_mlp_any.so, whose rows are a symbol)
#include "hodu/Capture/Capture.h"
#include "hodu/Import/Hdss.h" // the Snapshot structs, for the round-trip check
#include "hodu/runtime.h"     // to run the symbolic-rows artifact

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace hodu::capture;

namespace {
// The reference: y = softmax(relu(x @ w + b)), m = mean(y * 3 - 1, dim 1).
void reference(const std::vector<float> &x, const std::vector<float> &w,
               const std::vector<float> &b, std::vector<float> &y,
               std::vector<float> &m) {
  const int rows = 2, in = 3, out = 4;
  y.assign(rows * out, 0);
  m.assign(rows, 0);
  for (int r = 0; r < rows; ++r) {
    float maxv = -INFINITY;
    for (int c = 0; c < out; ++c) {
      float acc = b[c];
      for (int k = 0; k < in; ++k)
        acc += x[r * in + k] * w[k * out + c];
      y[r * out + c] = acc > 0 ? acc : 0;
      maxv = std::fmax(maxv, y[r * out + c]);
    }
    float total = 0;
    for (int c = 0; c < out; ++c)
      total += (y[r * out + c] = std::exp(y[r * out + c] - maxv));
    for (int c = 0; c < out; ++c) {
      y[r * out + c] /= total;
      m[r] += (y[r * out + c] * 3 - 1) / out;
    }
  }
}

bool close(const std::vector<float> &got, const std::vector<float> &want) {
  if (got.size() != want.size())
    return false;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-5f + 1e-4f * std::fabs(want[i]))
      return false;
  return true;
}

void print(const char *name, const std::vector<float> &v) {
  std::printf("%s:", name);
  for (float f : v)
    std::printf(" %.5f", f);
  std::printf("\n");
}
} // namespace

int main(int argc, char **argv) {
  std::string outdir = argc > 1 ? argv[1] : ".";
  const std::vector<float> w = {0.5f, -1.0f, 0.25f, 2.0f,  1.0f, 0.0f,
                                -0.5f, 1.0f, 0.75f, 0.5f, -1.0f, 0.1f};
  const std::vector<float> b = {0.1f, 0.2f, -0.3f, 0.0f};
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, -1.0f, 0.5f, 2.0f};

  try {
    Board board("tiny_mlp");
    Tensor tx = board.input("x", {2, 3});
    Tensor tw = board.constant({3, 4}, w, "w");
    Tensor tb = board.constant({4}, b, "b");
    Tensor unused = exp(tx); // not reachable from a target: dropped by capture
    (void)unused;
    Tensor y = softmax(relu(matmul(tx, tw) + tb), -1);
    Tensor m = mean(y * 3.0f - 1.0f, {1});
    board.addTarget("y", y).addTarget("m", m);
    Script script = board.capture();

    std::string path = outdir + "/tiny_mlp.hdss";
    script.save(path);
    Script loaded = Script::load(path);
    if (!(loaded.snapshot() == script.snapshot())) {
      std::fprintf(stderr, "the .hdss round trip changed the snapshot\n");
      return 1;
    }
    std::printf("saved %s (%zu nodes)\n", path.c_str(),
                loaded.snapshot().nodes.size());

    CompileOptions options;
    options.outputPath = outdir + "/libtiny_mlp.so";
    options.headerPath = outdir + "/tiny_mlp.h";
    loaded.compile(options);
    std::printf("compiled %s\n", options.outputPath.c_str());

    std::vector<std::vector<float>> outputs = loaded.run({x});
    std::vector<float> wantY, wantM;
    reference(x, w, b, wantY, wantM);
    print("y", outputs[0]);
    print("m", outputs[1]);
    if (!close(outputs[0], wantY) || !close(outputs[1], wantM)) {
      print("expected y", wantY);
      print("expected m", wantM);
      std::fprintf(stderr, "outputs differ from the C++ reference\n");
      return 1;
    }
    std::printf("ok: matches the C++ reference\n");

    // The same model with x's dim 0 a symbol, "rows": compiled once (for
    // the captured 2 rows), run here at 5 rows through libhodurt.
    CompileOptions anyRows;
    anyRows.outputPath = outdir + "/libtiny_mlp_any.so";
    anyRows.symbolicDims = {{"x", 0, "rows", 1, 64}};
    loaded.compile(anyRows);
    std::vector<float> x5;
    for (int r = 0; r < 5; ++r) // rows 0 1 0 1 0 of x
      x5.insert(x5.end(), x.begin() + (r % 2) * 3, x.begin() + (r % 2) * 3 + 3);
    hodu_model *model = nullptr;
    hodu_tensor *in = nullptr, *outs[2] = {nullptr, nullptr};
    const int64_t shape[2] = {5, 3};
    hodu_status st = hodu_model_load(anyRows.outputPath.c_str(), &model);
    if (!st)
      st = hodu_tensor_wrap(HODU_DTYPE_F32, 2, shape, x5.data(),
                            x5.size() * sizeof(float), &in);
    if (!st)
      st = hodu_model_run_alloc(model, &in, 1, outs, 2);
    if (st) {
      std::fprintf(stderr, "symbolic rows: %s\n", hodu_status_message(st));
      return 1;
    }
    const float *y5 = static_cast<const float *>(hodu_tensor_data(outs[0]));
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 4; ++c)
        if (std::fabs(y5[r * 4 + c] - wantY[(r % 2) * 4 + c]) > 1e-5f) {
          std::fprintf(stderr, "symbolic rows: row %d differs\n", r);
          return 1;
        }
    std::printf("ok: %s runs 5 rows (y %lld x %lld)\n",
                anyRows.outputPath.c_str(),
                (long long)hodu_tensor_shape(outs[0])[0],
                (long long)hodu_tensor_shape(outs[0])[1]);
    hodu_tensor_free(outs[0]);
    hodu_tensor_free(outs[1]);
    hodu_tensor_free(in);
    hodu_model_free(model);
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
