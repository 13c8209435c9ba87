//===- Link.cpp - shared libraries, executables and archives --------------===//
//
// The only step that runs other programs: ld.lld (LLVM 22) for shared
// libraries, a C compiler driver for executables (it knows the C start-up
// files). Archives are written in process.
//
//===----------------------------------------------------------------------===//

#include "CPUTarget.h"

#include "hodu/Support/Output.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace hodu;

/// Debian's multiarch name of a triple: x86_64-linux-gnu, aarch64-linux-gnu.
static std::string multiarch(const llvm::Triple &triple) {
  std::string arch = triple.getArchName().str();
  if (triple.getArch() == llvm::Triple::x86)
    arch = "i386";
  std::string env = triple.getEnvironmentName().str();
  return arch + "-" + triple.getOSName().str() + (env.empty() ? "" : "-" + env);
}

LogicalResult cpu::linkShared(ArrayRef<std::string> objects, StringRef out,
                              const llvm::Triple &triple, bool host,
                              bool openmp, Location loc) {
  auto lld = findTool({"ld.lld-22", "ld.lld"});
  if (!lld)
    return emitError(loc, "linking a shared library needs ld.lld from LLVM 22, "
                          "which was not found; install it with: apt-get "
                          "install lld-22");
  std::vector<std::string> argv = {*lld, "-shared", "--hash-style=gnu",
                                   "-z", "noexecstack", "--as-needed",
                                   "-o", out.str()};
  argv.insert(argv.end(), objects.begin(), objects.end());
  // Maths from libm (expf, erff, ...), memory from libc: the target's own
  // multiarch directories, plus the host's generic ones for host builds.
  SmallVector<std::string> dirs = {"/lib/" + multiarch(triple),
                                   "/usr/lib/" + multiarch(triple)};
  if (host)
    dirs.append({"/lib64", "/usr/lib64", "/lib", "/usr/lib"});
  bool haveLibc = false;
  bool haveLibgcc = false;
  for (const std::string &dir : dirs)
    if (llvm::sys::fs::is_directory(dir)) {
      argv.push_back("-L" + dir);
      haveLibc = true;
      haveLibgcc |= llvm::sys::fs::exists(dir + "/libgcc_s.so.1");
    }
  if (haveLibc) {
    argv.push_back("-lm");
    argv.push_back("-lc");
  }
  // f16 conversions on a CPU without F16C are calls to __extendhfsf2 and
  // __truncsfhf2, which libgcc_s has (GCC 12 and later); --as-needed keeps
  // it out of the libraries that make no such call. Without it the library
  // would load only into programs that happen to have libgcc_s already.
  if (haveLibgcc)
    argv.push_back("-l:libgcc_s.so.1");
  // Multi-threaded models call LLVM's OpenMP runtime (libomp), found beside
  // LLVM 22 for the host. A cross-compiled library leaves its symbols to be
  // resolved by the program that loads it.
  if (openmp && host) {
    argv.push_back("-L" HODU_LLVM_LIBDIR);
    argv.push_back("-rpath=" HODU_LLVM_LIBDIR);
    argv.push_back("-lomp");
  }
  return runTool(*lld, argv, loc);
}

LogicalResult cpu::linkExecutable(ArrayRef<std::string> objects, StringRef out,
                                  bool openmp, Location loc) {
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable("hoduc", &anchor);
  SmallString<256> mainObj(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(mainObj, "lib", "hodu", "hodu_exe_main.o");
  if (!llvm::sys::fs::exists(mainObj))
    return emitError(loc, "cannot find hoduc's executable driver at '")
           << mainObj << "' (is the installation complete?)";
  auto cc = findTool({"cc", "clang-22", "clang", "gcc"});
  if (!cc)
    return emitError(loc, "linking an executable needs a C compiler driver (cc, "
                          "clang-22 or gcc) for the C start-up files; install "
                          "one with: apt-get install clang-22");
  std::vector<std::string> argv = {*cc, "-o", out.str()};
  argv.insert(argv.end(), objects.begin(), objects.end());
  argv.push_back(mainObj.str().str());
  if (openmp)
    argv.insert(argv.end(), {"-L" HODU_LLVM_LIBDIR,
                             "-Wl,-rpath," HODU_LLVM_LIBDIR, "-Wl,--as-needed",
                             "-lomp"});
  argv.push_back("-lm");
  return runTool(*cc, argv, loc);
}

LogicalResult cpu::writeArchive(StringRef object, StringRef out, Location loc) {
  auto member = llvm::NewArchiveMember::getFile(object, /*Deterministic=*/true);
  if (!member)
    return emitError(loc, "cannot read object: ")
           << llvm::toString(member.takeError());
  member->MemberName = "model.o";
  if (auto err = llvm::writeArchive(out, {std::move(*member)},
                                    llvm::SymtabWritingMode::NormalSymtab,
                                    llvm::object::Archive::K_GNU,
                                    /*Deterministic=*/true, /*Thin=*/false))
    return emitError(loc, "cannot write archive: ")
           << llvm::toString(std::move(err));
  return success();
}
