//===- ParallelCodegen.cpp - optimise and compile a model in parts --------===//
//
// A model's LLVM module, whose kernels are functions of their own
// (hodu-cpu-outline-kernels), is dealt into parts of about equal size. Each
// part is written as bitcode, read back into an LLVMContext of its own (a
// context is not thread-safe) and optimised and compiled on its own thread; the
// linker puts the objects together. The part count depends only on the module,
// so the artifact is the same on every machine; the threads only change how
// long it takes.
//
//===----------------------------------------------------------------------===//

#include "CPUTarget.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <mutex>

using namespace mlir;
using namespace hodu;

namespace {

/// A part is worth its own thread past this many instructions (before
/// optimisation); a smaller module is one part, and there are never more
/// than kMaxParts (each part repeats some fixed work: the pass pipelines,
/// the declarations of what the others define). Hidden, for tests.
llvm::cl::opt<unsigned> instructionsPerPart(
    "hodu-instructions-per-part", llvm::cl::Hidden, llvm::cl::init(12000),
    llvm::cl::desc("CPU: split the LLVM module into parts of at least this "
                   "many instructions, compiled in parallel"));
constexpr unsigned kMaxParts = 8;

uint64_t instructionCount(const llvm::Function &f) {
  uint64_t n = 0;
  for (const llvm::BasicBlock &bb : f)
    n += bb.size();
  return n;
}

/// Makes every local symbol a hidden global one (named, if it had no name),
/// so that one part can define what another uses. Hidden: nothing outside
/// the shared library or executable sees them.
void externalizeLocals(llvm::Module &m) {
  unsigned anon = 0;
  auto externalize = [&](llvm::GlobalValue &gv) {
    if (!gv.hasLocalLinkage())
      return;
    if (!gv.hasName())
      gv.setName("hodu.part.anon." + llvm::Twine(anon++));
    gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
    gv.setVisibility(llvm::GlobalValue::HiddenVisibility);
    gv.setDSOLocal(true);
  };
  for (llvm::Function &f : m)
    externalize(f);
  for (llvm::GlobalVariable &gv : m.globals())
    externalize(gv);
  for (llvm::GlobalAlias &ga : m.aliases())
    externalize(ga);
}

/// Which part defines each function: the largest first, each into the part
/// with the fewest instructions so far (ties by name, so the result does
/// not depend on anything but the module).
llvm::DenseMap<const llvm::GlobalValue *, unsigned>
assignParts(llvm::Module &m, unsigned parts) {
  struct Item {
    const llvm::Function *f;
    uint64_t size;
  };
  std::vector<Item> items;
  for (const llvm::Function &f : m)
    if (!f.isDeclaration())
      items.push_back({&f, instructionCount(f)});
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    if (a.size != b.size)
      return a.size > b.size;
    return a.f->getName() < b.f->getName();
  });
  std::vector<uint64_t> load(parts, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> owner;
  for (const Item &item : items) {
    unsigned p = std::min_element(load.begin(), load.end()) - load.begin();
    owner[item.f] = p;
    load[p] += item.size;
  }
  return owner;
}

/// One part on its thread: its own context, module and target machine.
struct Part {
  llvm::SmallVector<char, 0> bitcode;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::string error;
};

} // namespace

LogicalResult cpu::compileInParts(
    std::unique_ptr<llvm::Module> module, const TargetOptions &options,
    function_ref<FailureOr<std::string>()> newObject,
    std::vector<std::string> &objects, StatsTimer &timer, Location loc) {
  objects.clear();
  uint64_t total = 0;
  for (const llvm::Function &f : *module)
    total += instructionCount(f);
  unsigned parts = static_cast<unsigned>(std::clamp<uint64_t>(
      total / std::max(1u, instructionsPerPart.getValue()), 1, kMaxParts));

  // One part: no splitting, no bitcode round trip.
  if (parts == 1) {
    auto tm = createTargetMachine(options, loc);
    if (!tm)
      return failure();
    optimize(*module, *tm, options.optLevel);
    timer.lap("optimize");
    FailureOr<std::string> path = newObject();
    if (failed(path) ||
        failed(emitMachineCode(*module, *tm, llvm::CodeGenFileType::ObjectFile,
                               *path, loc)))
      return failure();
    timer.lap("codegen");
    objects.push_back(*path);
    if (timer.enabled)
      llvm::errs() << "hoduc: stats: object code: 1 part of " << total
                   << " instructions\n";
    return success();
  }

  externalizeLocals(*module);
  auto owner = assignParts(*module, parts);
  // Parts 1.. are copies of their functions' definitions and declarations
  // of the rest, written as bitcode for a context of their own. Part 0 is
  // the module itself with the others' functions stripped to declarations:
  // it keeps the variables (the weights), which are neither copied nor
  // written (both cost more than the rest of the split together).
  std::vector<Part> work(parts);
  for (unsigned p = 1; p < parts; ++p) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(*module, map, [&](const llvm::GlobalValue *gv) {
          auto it = owner.find(gv);
          return it != owner.end() && it->second == p;
        });
    llvm::raw_svector_ostream os(work[p].bitcode);
    llvm::WriteBitcodeToFile(*part, os);
  }
  for (llvm::Function &f : *module)
    if (!f.isDeclaration() && owner.lookup(&f) != 0)
      f.deleteBody();
  work[0].module = std::move(module);

  // Parse, optimise; then (once every part is optimised, so that the two
  // phases' times mean what they say) compile. A part that fails records
  // why; the first failure is reported after the threads are done.
  unsigned threads = llvm::hardware_concurrency().compute_thread_count();
  llvm::DefaultThreadPool pool(
      llvm::hardware_concurrency(std::min(parts, std::max(threads, 1u))));
  for (unsigned p = 0; p < parts; ++p)
    pool.async([&, p] {
      Part &part = work[p];
      part.tm = createTargetMachine(options, part.error);
      if (!part.tm)
        return;
      if (part.module) { // part 0, in the module's own context
        optimize(*part.module, *part.tm, options.optLevel);
        return;
      }
      part.context = std::make_unique<llvm::LLVMContext>();
      auto parsed = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(
              StringRef(part.bitcode.data(), part.bitcode.size()), "part"),
          *part.context);
      if (!parsed) {
        part.error = "cannot read back part " + std::to_string(p) + ": " +
                     llvm::toString(parsed.takeError());
        return;
      }
      part.module = std::move(*parsed);
      part.bitcode = {};
      optimize(*part.module, *part.tm, options.optLevel);
    });
  pool.wait();
  for (Part &part : work)
    if (!part.error.empty())
      return emitError(loc, "internal error: ") << part.error;
  timer.lap("optimize");

  for (unsigned p = 0; p < parts; ++p) {
    FailureOr<std::string> path = newObject();
    if (failed(path))
      return failure();
    objects.push_back(*path);
  }
  // emitMachineCode reports through MLIR diagnostics, which are not meant
  // for several threads at once: each part notes its failure instead.
  for (unsigned p = 0; p < parts; ++p)
    pool.async([&, p] {
      Part &part = work[p];
      std::error_code ec;
      llvm::raw_fd_ostream os(objects[p], ec, llvm::sys::fs::OF_None);
      if (ec) {
        part.error = "cannot open '" + objects[p] + "': " + ec.message();
        return;
      }
      {
        constantsAsBytes(*part.module);
        llvm::legacy::PassManager pm;
        if (part.tm->addPassesToEmitFile(pm, os, nullptr,
                                         llvm::CodeGenFileType::ObjectFile)) {
          part.error = "the target cannot emit object files";
          return;
        }
        pm.run(*part.module);
      }
      os.close();
      if (os.has_error())
        part.error = "error writing '" + objects[p] + "'";
    });
  pool.wait();
  for (Part &part : work)
    if (!part.error.empty())
      return emitError(loc, part.error);
  timer.lap("codegen");
  if (timer.enabled)
    llvm::errs() << "hoduc: stats: object code: " << parts << " parts of about "
                 << total / parts << " instructions, compiled on "
                 << pool.getMaxConcurrency() << " thread(s)\n";
  return success();
}
