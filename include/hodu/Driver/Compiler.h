//===- Compiler.h - hoduc as a library --------------------------*- C++ -*-===//
//
// The compile pipeline as named phases (IREE's Pipelines.h style): a model is
// imported into the hodu dialect and then taken through
//
//   input -> hodu -> linalg -> bufferized -> llvm -> (LLVM IR) -> artifact
//
// `--compile-to=<phase>` stops after any phase and prints the IR there.
// Used by tools/hoduc and, later, by the capture API's Script::compile.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_DRIVER_COMPILER_H
#define HODU_DRIVER_COMPILER_H

#include "hodu/Registry/Registry.h"

#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
class DialectRegistry;
} // namespace mlir

namespace hodu {

/// What the compiler writes.
enum class EmitKind {
  Mlir,       // .mlir: the IR after import (or after --compile-to's phase)
  LLVMIR,     // .ll
  Bitcode,    // .bc
  Assembly,   // .s
  Object,     // .o
  Shared,     // .so (default)
  Static,     // .a
  Executable, // no extension / --emit=exe
};

/// Named phases, in pipeline order.
enum class Phase { Input, Hodu, Linalg, Bufferized, LLVM };

std::optional<EmitKind> parseEmitKind(const std::string &name);
/// Emit kind implied by an output file's extension, if any.
std::optional<EmitKind> emitKindForPath(const std::string &path);
std::optional<Phase> parsePhase(const std::string &name);
const char *phaseName(Phase phase);
/// All phase names, comma-separated (for help and error texts).
const char *phaseList();

struct CompileOptions {
  std::string inputPath;
  std::string outputPath; // "-" is stdout (text kinds only)
  EmitKind emit = EmitKind::Shared;
  std::optional<Phase> compileTo;
  unsigned optLevel = 2;  // -O0..-O3
  std::string triple;     // empty: host
  std::string cpu;        // empty: host CPU for a host triple, "generic" otherwise
  std::string features;   // extra "+avx2,-fma" style features
  std::string name;       // symbol prefix; empty: from the input file name
  std::string target = "cpu";
  ImportOptions import;
  /// Also write a C header with a typed entry point `<prefix>_run(...)`.
  std::string headerPath;
  bool stats = false;
};

/// Registers every importer and target built into this binary.
void registerAllComponents();

/// Registers every dialect, interface and translation the compiler uses.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// Compiles `options.inputPath` to `options.outputPath`. Errors go to the
/// context's diagnostic handler; on failure no output file is left behind.
bool compile(mlir::MLIRContext &context, const CompileOptions &options);

/// The C identifier made from a file name's stem ("my-model.onnx" -> "my_model").
std::string defaultModelName(const std::string &path);

} // namespace hodu

#endif
