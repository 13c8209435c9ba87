//===- Registry.h - pluggable importers, targets and devices ----*- C++ -*-===//
//
// Importers (model formats) and targets (back ends, hodu/Target/Target.h)
// are components registered by name behind small interfaces, never switched
// on in the driver. Built-in components register through
// `registerBuiltinComponents()`; a plugin loader (seed 003's manifest rules)
// can add more through the same calls later.
//
// This header stays light: no MLIR headers, only forward declarations.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_REGISTRY_REGISTRY_H
#define HODU_REGISTRY_REGISTRY_H

#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class ModuleOp;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace hodu {

/// Options every importer understands.
struct ImportOptions {
  /// `NAME -> dims` pins for dynamic input dims (hoduc --input-shape).
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputShapes;
  /// ONNX: also run libonnx's shape inference and check the importer's
  /// types against it (a mismatch is an importer bug). Off by default:
  /// libonnx's inference functions crash on some malformed models
  /// (docs/security.md); the conformance sweeps turn it on.
  bool onnxShapeCheck = false;
  /// ONNX: graph inputs imported as constants, `NAME -> FILE` (a
  /// TensorProto .pb, or a test_data_set directory): hoduc --freeze-input.
  /// An If on such an input compiles only the branch taken.
  std::vector<std::pair<std::string, std::string>> frozenInputs;
  /// ONNX: `NAME -> N`, the length of sequence input NAME (hoduc
  /// --sequence-length); its elements become the inputs "NAME[0]" ...
  /// "NAME[N-1]", and a sequence output's the outputs "NAME[i]".
  std::vector<std::pair<std::string, int64_t>> sequenceLengths;
  /// ONNX: the elements a sequence whose length is known only at run time
  /// is stored for (hoduc --sequence-capacity).
  int64_t sequenceCapacity = 256;
  /// The most elements one tensor may have (hoduc --max-tensor-elements):
  /// the ONNX importer refuses a node past it as it converts it, before
  /// building anything of that size.
  int64_t maxTensorElements = int64_t(1) << 40;
  /// Symbolic dims (an ONNX dim_param, an unnamed dynamic dim, a `?` in
  /// --input-shape): the size each named symbol is imported at (hoduc
  /// --dim=NAME=N pins; the driver's probe and chunk sizes). An unnamed
  /// dynamic dim of input NAME is the symbol "NAME_dimI".
  std::map<std::string, int64_t> symbolSizes;
  /// `NAME -> OTHER`: symbol NAME is OTHER (hoduc --dim=NAME=OTHER).
  std::map<std::string, std::string> symbolAliases;
  /// The size of a symbol not in `symbolSizes`; 0: such a dim is an error
  /// ("pin it"). The arguments with such dims get `hodu.dims`, the symbol's
  /// name per dim ("" for a static one).
  int64_t unboundSymbolSize = 0;
  /// Symbols imported at a size of their own and named in `hodu.dims` as
  /// `unboundSymbolSize` ones are (the driver's probes of a model with two
  /// symbols, each at a size the other has not).
  std::map<std::string, int64_t> probeSymbolSizes;
  /// Symbols of `symbolSizes` imported at a size that is not a pin: a
  /// probe, or the bound a padded symbol is compiled at. While any input
  /// dim is such a symbol (or a `probeSymbolSizes` or `unboundSymbolSize`
  /// one), the ONNX importer keeps the values computed from a tensor's
  /// shape (Shape, Size) as ops where they meet data (a floating-point or
  /// boolean result), instead of evaluating them at the probe's size; an op
  /// that needs them at import time (a Reshape's shape) still gets them.
  std::vector<std::string> freeSymbols;
  /// When set, the importer adds the symbols it imported at
  /// `unboundSymbolSize` (also when the import then fails).
  std::shared_ptr<std::vector<std::string>> unboundSymbols;
  /// hoduc --train: a train step's parameters. With `trainAll`, the ONNX
  /// import makes every floating-point initializer, and the outputs of the
  /// Constant nodes `trainParams` names, entry arguments after the graph
  /// inputs, named after them and carrying their value as `hodu.param`;
  /// the driver trains those of them `trainParams` lists (all when it is
  /// empty) less those in `frozenParams`, the others becoming constants
  /// again. A name that is no parameter is an error.
  bool trainAll = false;
  std::vector<std::string> trainParams, frozenParams;
};

/// A model format: turns a file into a module of the hodu dialect. Errors are
/// reported as MLIR diagnostics on the context; a null module means failure.
struct Importer {
  std::string name;                    // "onnx", "hdss", "mlir"
  std::string description;
  std::vector<std::string> extensions; // with the dot: ".onnx"
  std::function<mlir::OwningOpRef<mlir::ModuleOp>(
      const std::string &path, mlir::MLIRContext &, const ImportOptions &)>
      import;
};

class TargetBackend; // hodu/Target/Target.h

class ComponentRegistry {
public:
  static ComponentRegistry &get();

  /// Adds a component; returns false (and adds nothing) if the name is taken.
  bool addImporter(Importer importer);
  bool addTarget(std::unique_ptr<TargetBackend> target);

  const Importer *findImporter(const std::string &name) const;
  /// Picks the importer by the path's extension (case-insensitive).
  const Importer *findImporterForPath(const std::string &path) const;
  const TargetBackend *findTarget(const std::string &name) const;

  const std::vector<Importer> &importers() const { return importers_; }
  const std::vector<std::unique_ptr<TargetBackend>> &targets() const {
    return targets_;
  }

private:
  std::vector<Importer> importers_;
  std::vector<std::unique_ptr<TargetBackend>> targets_;
};

/// Registers the components built into this binary (idempotent).
void registerBuiltinComponents();

} // namespace hodu

#endif
