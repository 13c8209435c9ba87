//===- Capture.h - build models in C++ (upstream's CaptureBoard) -*- C++ -*-===//
//
// A Python-free way to write a model: record tensor operations on a Board,
// capture them as a Script (an upstream Hodu Snapshot), then save it as
// .hdss, compile it with the in-process hoduc, or run it.
//
//   hodu::capture::Board board("mlp");
//   auto x = board.input("x", {2, 3}, hodu::capture::DType::F32);
//   auto w = board.constant({3, 4}, weights);       // std::vector<float>
//   auto y = relu(matmul(x, w) + b);
//   board.addTarget("y", y);
//   hodu::capture::Script script = board.capture();
//   script.save("mlp.hdss");
//   auto outputs = script.run({xData});              // std::vector<std::vector<float>>
//
// Shapes are static and checked when an op is recorded (errors throw
// hodu::capture::Error). Binary ops broadcast numpy-style by recording
// explicit Broadcast nodes, as upstream does. See docs/capture.md.
//
// No MLIR headers: the implementation is behind pimpl.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_CAPTURE_CAPTURE_H
#define HODU_CAPTURE_CAPTURE_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hodu {
namespace hdss {
struct Snapshot;
}
namespace capture {

/// Element types; numbering of upstream DType / hodu_dtype.
enum class DType : uint8_t { Bool = 0, F32 = 5, I32 = 13, I64 = 14 };

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Board;

/// A handle to a tensor recorded on a Board. Cheap to copy; valid while its
/// board lives.
class Tensor {
public:
  Tensor() = default;
  const std::vector<int64_t> &shape() const;
  DType dtype() const;
  int64_t rank() const { return int64_t(shape().size()); }
  bool valid() const { return board_ != nullptr; }

private:
  friend class Board;
  friend struct TensorAccess;
  Tensor(Board *board, uint64_t id) : board_(board), id_(id) {}
  Board *board_ = nullptr;
  uint64_t id_ = 0;
};

/// Options of Script::compile (a subset of hoduc's).
struct CompileOptions {
  std::string outputPath;   // .so, .o, .a, .ll, .mlir, .hodu ... (by extension)
  std::string headerPath;   // optional C header (hoduc --header)
  unsigned optLevel = 2;
  std::string name;         // symbol prefix; empty: the script's name
  std::string device = "cpu"; // hoduc --device: cpu, vulkan, cuda, rocm, metal
  /// Inputs that are meta slots (hoduc --meta-slots): small tensors the
  /// host writes between runs and replays through a session, e.g. {"lr"}.
  std::vector<std::string> metaSlots;
  /// Input dims that are a symbol (hoduc --dim): the model is compiled once,
  /// at the captured size, and runs at any size of the symbol within
  /// [min, max] (max -1: no bound), provided no op mixes positions along it
  /// (a batch; docs/architecture.md, "Symbolic dims"). E.g.
  /// {{"x", 0, "batch"}}: x's dim 0 is the batch.
  struct SymbolicDim {
    std::string input;
    int dim = 0;
    std::string symbol;
    int64_t min = 1, max = -1;
  };
  std::vector<SymbolicDim> symbolicDims;
};

/// A captured model: an upstream Snapshot plus its name.
class Script {
public:
  Script();
  explicit Script(const hdss::Snapshot &snapshot);
  Script(const Script &other);
  Script &operator=(const Script &other);
  Script(Script &&) noexcept;
  Script &operator=(Script &&) noexcept;
  ~Script();

  const std::string &name() const;
  const hdss::Snapshot &snapshot() const;

  /// Writes/reads the .hdss file (postcard); throws Error on failure.
  void save(const std::string &path) const;
  static Script load(const std::string &path);

  /// Compiles with the in-process hoduc. Throws Error with the compiler's
  /// diagnostics on failure.
  void compile(const CompileOptions &options) const;
  /// The same into memory: the artifact's bytes (`options.outputPath` and
  /// `headerPath` empty; the kind is the device's default: a shared library
  /// for the CPU, a bundle for a GPU), which hodu_model_load_memory loads.
  std::vector<uint8_t> compileToMemory(const CompileOptions &options) const;

  /// Compiles to a temporary shared library, runs it through libhodurt once
  /// and returns the outputs (F32 models: one vector per target, row-major).
  /// `inputs` holds one buffer per input, in input order.
  std::vector<std::vector<float>>
  run(const std::vector<std::vector<float>> &inputs) const;

private:
  std::unique_ptr<hdss::Snapshot> snapshot_;
};

class Board {
public:
  explicit Board(std::string name = "model");
  ~Board();
  Board(const Board &) = delete;
  Board &operator=(const Board &) = delete;

  Tensor input(const std::string &name, std::vector<int64_t> shape,
               DType dtype = DType::F32);
  Tensor constant(std::vector<int64_t> shape, const std::vector<float> &data,
                  const std::string &name = "");
  Tensor constant(std::vector<int64_t> shape, const std::vector<int32_t> &data,
                  const std::string &name = "");
  /// Chainable: board.addTarget("y", y).addTarget("z", z).
  Board &addTarget(const std::string &name, Tensor tensor);
  /// The recorded graph, with nodes that no target uses removed and tensor
  /// ids renumbered 0..n-1 (inputs, constants, then nodes).
  Script capture() const;

  // Recording, used by the free functions below.
  struct Impl;
  Impl &impl() { return *impl_; }

private:
  std::unique_ptr<Impl> impl_;
};

// Arithmetic (numpy broadcasting) and operators.
Tensor add(Tensor a, Tensor b);
Tensor sub(Tensor a, Tensor b);
Tensor mul(Tensor a, Tensor b);
Tensor div(Tensor a, Tensor b);
Tensor pow(Tensor a, Tensor b);
Tensor maximum(Tensor a, Tensor b);
Tensor minimum(Tensor a, Tensor b);
Tensor operator+(Tensor a, Tensor b);
Tensor operator-(Tensor a, Tensor b);
Tensor operator*(Tensor a, Tensor b);
Tensor operator/(Tensor a, Tensor b);
Tensor operator-(Tensor a);
// Tensor-scalar (UnaryScalar ops).
Tensor operator+(Tensor a, float s);
Tensor operator-(Tensor a, float s);
Tensor operator*(Tensor a, float s);
Tensor operator/(Tensor a, float s);
Tensor powScalar(Tensor a, float s);
Tensor leakyRelu(Tensor a, float slope);

// Unary math.
Tensor neg(Tensor a);
Tensor abs(Tensor a);
Tensor relu(Tensor a);
Tensor sigmoid(Tensor a);
Tensor tanh(Tensor a);
Tensor gelu(Tensor a);
Tensor silu(Tensor a);
Tensor exp(Tensor a);
Tensor log(Tensor a);
Tensor sqrt(Tensor a);
Tensor square(Tensor a);
Tensor recip(Tensor a);
Tensor sin(Tensor a);
Tensor cos(Tensor a);

/// Matrix product (2-D, or batched N-D with equal batch dims).
Tensor matmul(Tensor a, Tensor b);

// Reductions over `dims` (negative dims count from the end).
Tensor sum(Tensor a, std::vector<int64_t> dims, bool keepDim = false);
Tensor mean(Tensor a, std::vector<int64_t> dims, bool keepDim = false);
Tensor max(Tensor a, std::vector<int64_t> dims, bool keepDim = false);
Tensor min(Tensor a, std::vector<int64_t> dims, bool keepDim = false);

// Shape ops.
Tensor reshape(Tensor a, std::vector<int64_t> shape); // one -1 allowed
Tensor transpose(Tensor a, std::vector<int64_t> perm);
Tensor transpose(Tensor a); // swaps the last two dims
Tensor broadcastTo(Tensor a, std::vector<int64_t> shape);
Tensor concat(const std::vector<Tensor> &parts, int64_t dim);
Tensor cast(Tensor a, DType dtype);

/// softmax(x) along `dim`, as exp(x - max) / sum(exp(x - max)).
Tensor softmax(Tensor a, int64_t dim = -1);

} // namespace capture
} // namespace hodu

#endif // HODU_CAPTURE_CAPTURE_H
