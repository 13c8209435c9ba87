//===- Output.h - writing artifacts safely, running tools --------*- C++ -*-===//
//
// Every file hoduc writes goes through `OutputFile`: the bytes go to a
// temporary created exclusively (O_EXCL, a random name) beside the
// destination and are renamed over it only on success, so a failed compile
// leaves nothing half-written and a planted symlink at a predictable name
// cannot redirect the write. External tools (the linker, ptxas, ...) are
// found and run through `findTool`/`runTool`.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_SUPPORT_OUTPUT_H
#define HODU_SUPPORT_OUTPUT_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm::sys::fs {
class TempFile;
} // namespace llvm::sys::fs

namespace hodu {

/// A file written through an exclusive temporary. `open` creates the
/// temporary; `path()` names it for tools that write files themselves;
/// `commit` renames it onto the destination. Destroyed uncommitted, it
/// removes the temporary.
class OutputFile {
public:
  explicit OutputFile(std::string destination);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  /// Creates the temporary; fails (with a diagnostic at `loc`) when the
  /// destination exists and is not a regular file (a FIFO, a device, a
  /// directory), or its directory cannot be written. A destination that is
  /// a symlink is written through (its target is replaced).
  mlir::LogicalResult open(mlir::Location loc);
  /// The temporary's path (valid after a successful `open`).
  const std::string &path() const { return tmpPath; }
  /// Replaces `contents` of the temporary (after `open`).
  mlir::LogicalResult write(mlir::StringRef contents, mlir::Location loc);
  /// Moves the temporary onto the destination.
  mlir::LogicalResult commit(mlir::Location loc);

private:
  std::string destination, tmpPath;
  std::unique_ptr<llvm::sys::fs::TempFile> tmp;
};

/// The first of `names` found on PATH or in LLVM 22's bin directory.
std::optional<std::string> findTool(mlir::ArrayRef<mlir::StringRef> names);

/// Runs `tool` with `argv` (argv[0] included) and waits; a non-zero exit is
/// an error naming the tool, with what it printed on stderr.
mlir::LogicalResult runTool(mlir::StringRef tool,
                            mlir::ArrayRef<std::string> argv,
                            mlir::Location loc);

/// Writes `module`'s text to `path` ("-" is stdout) through an OutputFile.
mlir::LogicalResult writeText(mlir::StringRef path, mlir::StringRef text,
                              mlir::Location loc);

} // namespace hodu

#endif // HODU_SUPPORT_OUTPUT_H
