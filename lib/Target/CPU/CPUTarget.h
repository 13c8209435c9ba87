//===- CPUTarget.h - the CPU back end's parts --------------------*- C++
//-*-===//
//
// Private to lib/Target/CPU: the pieces CPUTarget.cpp puts together.
//   Codegen.cpp  LLVM target machines, the target's vector shape, LLVM's
//                optimisation pipeline, object/assembly emission
//   Link.cpp     shared libraries, executables and archives
//   CHeader.cpp  the typed C header (hoduc --header)
//
//===----------------------------------------------------------------------===//
#ifndef HODU_LIB_TARGET_CPU_CPUTARGET_H
#define HODU_LIB_TARGET_CPU_CPUTARGET_H

#include "hodu/Support/Timer.h"
#include "hodu/Target/Target.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

namespace llvm {
class Module;
class TargetMachine;
enum class CodeGenFileType;
} // namespace llvm

namespace hodu::cpu {

/// What register-tile sizes derive from: the widest vector the target's
/// instructions take and how many vector registers it has.
struct VectorShape {
  unsigned vectorBits = 512;
  unsigned vectorRegisters = 32;
  /// AVX-512 VNNI and BW: int8 dot products (vpdpbusd) on 512-bit vectors.
  bool int8Dot = false;
  /// AVX2 (or AVX-512BW at 512 bits) without VNNI: exact 8-bit integer
  /// convolutions and matmuls on int16 pair products (vpmaddwd).
  bool int16Dot = false;
  /// AMX-INT8 tiles (tdpbusd) on Linux, which grants them per process at
  /// run time (arch_prctl); with int8Dot.
  bool amx = false;
  /// AVX512-BF16 at 512 bits: f32 sums of bf16 pair products (vdpbf16ps).
  bool bf16Dot = false;
};

/// The LLVM target machine for the options (host triple and CPU when none
/// are given); null with a diagnostic at `loc` when they name nothing LLVM
/// knows.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetOptions &options, mlir::Location loc);
/// The same, reporting a failure in `error` instead.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetOptions &options, std::string &error);

/// The vector shape of `tm`'s subtarget.
VectorShape vectorShapeOf(llvm::TargetMachine &tm);

/// LLVM's default -O<level> module pipeline.
void optimize(llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel);

/// Optimises and compiles `module` to one object file per part, the parts
/// on threads of their own (ParallelCodegen.cpp). The module's functions
/// (a model's kernels are functions of their own: hodu-cpu-outline-kernels)
/// are dealt into parts of about equal instruction count
/// (how many depends only on the module's size, never on the machine, so
/// the objects are the same everywhere); symbols local to the module become
/// hidden ones that the parts share, so the objects are for one final link
/// (a shared library or an executable), not an archive. `newObject` gives
/// the path of each object to write; `objects` gets them in order, for the
/// link; `timer` laps "optimize" and "codegen".
mlir::LogicalResult compileInParts(
    std::unique_ptr<llvm::Module> module, const TargetOptions &options,
    llvm::function_ref<mlir::FailureOr<std::string>()> newObject,
    std::vector<std::string> &objects, StatsTimer &timer, mlir::Location loc);

/// Gives each constant global of numbers (the weights, a [N x float]
/// array) the same bytes as an [M x i8] array, which the assembly printer
/// writes as one block; it writes the typed array element by element, which
/// took half of the CNN's code generation (2.5 MB of weights, 1.1 s).
/// For object files; a .ll keeps the typed arrays.
void constantsAsBytes(llvm::Module &module);

/// Writes an object file or assembly to `path`.
mlir::LogicalResult emitMachineCode(llvm::Module &module,
                                    llvm::TargetMachine &tm,
                                    llvm::CodeGenFileType kind,
                                    llvm::StringRef path, mlir::Location loc);

/// Turns the module's calls of libomp's entry points into calls through the
/// exported table `hodu_thread_api` that libhodurt fills (abi.h,
/// ThreadAPI.cpp); an OpenMP entry point without a slot is an error.
mlir::LogicalResult routeThreadCalls(llvm::Module &module, mlir::Location loc);

/// Links a shared library from objects; `triple` picks the system library
/// directories, `openmp` adds LLVM's OpenMP runtime.
mlir::LogicalResult linkShared(llvm::ArrayRef<std::string> objects,
                               llvm::StringRef out, const llvm::Triple &triple,
                               bool host, bool openmp, mlir::Location loc);
/// Links an executable from objects and hoduc's prebuilt main().
mlir::LogicalResult linkExecutable(llvm::ArrayRef<std::string> objects,
                                   llvm::StringRef out, bool openmp,
                                   mlir::Location loc);
/// Writes an archive holding one object.
mlir::LogicalResult writeArchive(llvm::StringRef object, llvm::StringRef out,
                                 mlir::Location loc);

/// hodu-cpu-expand-strided-copies (ExpandStridedCopies.cpp).
void registerExpandStridedCopiesPass();
/// hodu-cpu-omp-nowait (OmpNowait.cpp).
void registerOmpNowaitPass();

/// Writes the typed C header of the model.
mlir::LogicalResult writeHeader(const EntrySignature &sig,
                                llvm::StringRef prefix, llvm::StringRef source,
                                llvm::StringRef path, mlir::Location loc);

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_CPUTARGET_H
