//===- Codegen.cpp - LLVM target machines, optimisation, emission ---------===//
#include "CPUTarget.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace hodu;

std::unique_ptr<llvm::TargetMachine>
cpu::createTargetMachine(const TargetOptions &opts, Location loc) {
  std::string error;
  auto tm = createTargetMachine(opts, error);
  if (!tm)
    emitError(loc, error);
  return tm;
}

std::unique_ptr<llvm::TargetMachine>
cpu::createTargetMachine(const TargetOptions &opts, std::string &error) {
  static bool initialised = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    return true;
  }();
  (void)initialised;
  bool host = opts.triple.empty();
  llvm::Triple triple(host ? llvm::sys::getDefaultTargetTriple()
                           : llvm::Triple::normalize(opts.triple));
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "unknown target triple '" + opts.triple + "': " + lookupError;
    return nullptr;
  }
  std::string cpu = opts.cpu;
  std::string features = opts.features;
  if (cpu.empty() || cpu == "native" || cpu == "host") {
    if (host || cpu == "native" || cpu == "host") {
      cpu = llvm::sys::getHostCPUName().str();
      SmallVector<std::string> fs;
      for (auto &f : llvm::sys::getHostCPUFeatures())
        fs.push_back((f.second ? "+" : "-") + f.first().str());
      if (!features.empty())
        fs.push_back(features);
      features = llvm::join(fs, ",");
    } else {
      cpu = "generic";
    }
  }
  llvm::TargetOptions to;
  // Multiplies and adds of different ops fuse into FMAs only when asked
  // (--fp-contract=fast): the kernels' own FMAs are explicit (llvm.fma) and
  // kept either way, and a model's ops otherwise round as ONNX defines
  // them, as ONNX Runtime's do (a dynamically quantized model re-quantizes
  // each layer's output, and one rounding differing flips a step).
  to.AllowFPOpFusion = opts.optLevel >= 2 && opts.fpContract == "fast"
                           ? llvm::FPOpFusion::Fast
                           : llvm::FPOpFusion::Standard;
  auto level = opts.optLevel == 0   ? llvm::CodeGenOptLevel::None
               : opts.optLevel == 1 ? llvm::CodeGenOptLevel::Less
               : opts.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) {
    error = "cannot create a target machine for '" + triple.str() + "' (cpu '" +
            cpu + "')";
    return nullptr;
  }
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    error = "unknown CPU '" + cpu + "' for " + triple.str();
    return nullptr;
  }
  return tm;
}

cpu::VectorShape cpu::vectorShapeOf(llvm::TargetMachine &tm) {
  // TargetTransformInfo answers per function: ask about an empty one.
  llvm::LLVMContext ctx;
  llvm::Module m("hodu-probe", ctx);
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(tm.getTargetTriple());
  auto *fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
      llvm::GlobalValue::ExternalLinkage, "probe", m);
  if (!tm.getTargetCPU().empty())
    fn->addFnAttr("target-cpu", tm.getTargetCPU());
  if (!tm.getTargetFeatureString().empty())
    fn->addFnAttr("target-features", tm.getTargetFeatureString());
  llvm::TargetTransformInfo tti = tm.getTargetTransformInfo(*fn);
  VectorShape shape;
  shape.vectorRegisters =
      tti.getNumberOfRegisters(tti.getRegisterClassForType(/*Vector=*/true));
  shape.vectorBits = tti.getRegisterBitWidth(
                            llvm::TargetTransformInfo::RGK_FixedWidthVector)
                         .getFixedValue();
  // On x86 that is the *preferred* width (prefer-vector-width, 256 on some
  // AVX-512 parts, for LLVM's auto-vectoriser); Hodu's register kernels are
  // sized for the architectural width, which AVX-512F makes 512 bits.
  const llvm::MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  if (tm.getTargetTriple().isX86() && sti->checkFeatures("+avx512f"))
    shape.vectorBits = 512;
  shape.int8Dot = tm.getTargetTriple().isX86() &&
                  sti->checkFeatures("+avx512vnni,+avx512bw");
  shape.int16Dot =
      tm.getTargetTriple().isX86() && !shape.int8Dot &&
      sti->checkFeatures(shape.vectorBits == 512 ? "+avx512bw" : "+avx2");
  shape.amx = shape.int8Dot &&
              tm.getTargetTriple().getArch() == llvm::Triple::x86_64 &&
              tm.getTargetTriple().isOSLinux() &&
              sti->checkFeatures("+amx-int8,+amx-tile");
  shape.bf16Dot = tm.getTargetTriple().isX86() && shape.vectorBits == 512 &&
                  sti->checkFeatures("+avx512bf16,+avx512f");
  if (shape.vectorBits < 128)
    shape.vectorBits = 128;
  if (shape.vectorRegisters == 0)
    shape.vectorRegisters = 16;
  return shape;
}

void cpu::optimize(llvm::Module &m, llvm::TargetMachine &tm,
                   unsigned optLevel) {
  if (optLevel == 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  pb.buildPerModuleDefaultPipeline(level).run(m, mam);
}

void cpu::constantsAsBytes(llvm::Module &m) {
  // Small arrays cost nothing either way.
  constexpr uint64_t kMinBytes = 4096;
  llvm::SmallVector<llvm::GlobalVariable *> globals;
  for (llvm::GlobalVariable &g : m.globals())
    globals.push_back(&g);
  for (llvm::GlobalVariable *g : globals) {
    if (!g->isConstant() || !g->hasInitializer())
      continue;
    auto *data =
        llvm::dyn_cast<llvm::ConstantDataSequential>(g->getInitializer());
    if (!data || data->isString())
      continue;
    StringRef bytes = data->getRawDataValues();
    if (bytes.size() < kMinBytes)
      continue;
    // The raw data is in the host's byte order; the target's must match.
    if (m.getDataLayout().isLittleEndian() != llvm::sys::IsLittleEndianHost)
      continue;
    auto *init = llvm::ConstantDataArray::getRaw(
        bytes, bytes.size(), llvm::Type::getInt8Ty(m.getContext()));
    auto *flat = new llvm::GlobalVariable(
        m, init->getType(), /*isConstant=*/true, g->getLinkage(), init, "", g,
        g->getThreadLocalMode(), g->getAddressSpace());
    flat->copyAttributesFrom(g);
    flat->setAlignment(
        g->getAlign().value_or(m.getDataLayout().getPreferredAlign(g)));
    flat->takeName(g);
    g->replaceAllUsesWith(flat);
    g->eraseFromParent();
  }
}

LogicalResult cpu::emitMachineCode(llvm::Module &m, llvm::TargetMachine &tm,
                                   llvm::CodeGenFileType kind, StringRef path,
                                   Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(loc, "cannot open '") << path << "': " << ec.message();
  {
    // The pass manager owns the streamer: destroy it (flushing the asm
    // printer) before closing the file.
    if (kind == llvm::CodeGenFileType::ObjectFile)
      constantsAsBytes(m);
    llvm::legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, os, nullptr, kind))
      return emitError(loc, "the target cannot emit this file type");
    pm.run(m);
  }
  os.close();
  if (os.has_error())
    return emitError(loc, "error writing '") << path << "'";
  return success();
}
