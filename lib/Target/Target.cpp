//===- Target.cpp - target back ends --------------------------------------===//
#include "hodu/Target/Target.h"
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Output.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace hodu;

TargetBackend::~TargetBackend() = default;

std::string TargetBackend::pipelineName(llvm::StringRef phase) const {
  return "hodu-" + name() + "-" + phase.str();
}

std::optional<ArtifactKind>
TargetBackend::findArtifactKind(llvm::StringRef name) const {
  for (ArtifactKind &kind : artifactKinds())
    if (kind.name == name || llvm::is_contained(kind.aliases, name))
      return kind;
  return std::nullopt;
}

std::optional<ArtifactKind>
TargetBackend::artifactKindForPath(llvm::StringRef path) const {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext.empty())
    return std::nullopt;
  for (ArtifactKind &kind : artifactKinds())
    if (!kind.extension.empty() && ext.equals_insensitive(kind.extension))
      return kind;
  return std::nullopt;
}

namespace {
template <typename... Ops> std::vector<std::string> opNames() {
  return {Ops::getOperationName().str()...};
}
} // namespace

std::vector<std::string> hodu::hoduComputeOps() {
  std::vector<std::string> all = opNames<
#define GET_OP_LIST
#include "Hodu/HoduOps.cpp.inc"
      >();
  llvm::erase_if(all, [](const std::string &name) {
    return name == EntryPointOp::getOperationName() ||
           name == TransferOp::getOperationName();
  });
  llvm::sort(all);
  return all;
}

std::vector<OpSupport> hodu::opSupportForAll(std::vector<int32_t> dtypes) {
  std::vector<OpSupport> table;
  for (std::string &name : hoduComputeOps())
    table.push_back({std::move(name), dtypes, "", nullptr});
  return table;
}

bool TargetBackend::isLegal(mlir::Operation *op, std::string *why) const {
  // The table is about hodu ops; a model given in other dialects (a .mlir
  // file already lowered past hodu) is for the target's pipeline to take.
  if (!isa<HoduDialect>(op->getDialect()))
    return true;
  if (!supportCache)
    supportCache = std::make_shared<std::vector<OpSupport>>(opSupport());
  llvm::StringRef name = op->getName().getStringRef();
  const OpSupport *row = nullptr;
  for (const OpSupport &r : *supportCache)
    if (r.op == name)
      row = &r;
  auto fail = [&](const llvm::Twine &reason) {
    if (why)
      *why = reason.str();
    return false;
  };
  if (!row)
    return fail("'" + name + "' is not in the op support table of '" +
                this->name() + "'");
  if (!row->dtypes.empty()) {
    auto check = [&](mlir::Type type) -> std::optional<std::string> {
      std::optional<hodu_dtype> d = dtypeOf(mlir::getElementTypeOrSelf(type));
      if (d && llvm::is_contained(row->dtypes, static_cast<int32_t>(*d)))
        return std::nullopt;
      return d ? std::string(dtypeName(*d)) : "an unknown dtype";
    };
    for (mlir::Type t : llvm::concat<const mlir::Type>(op->getOperandTypes(),
                                                       op->getResultTypes()))
      if (std::optional<std::string> bad = check(t))
        return fail("'" + this->name() + "' runs '" + name + "' on " +
                    dtypeList(row->dtypes) + ", not on " + *bad);
  }
  if (row->check && !row->check(op))
    return fail("'" + this->name() + "' runs '" + name + "' only " +
                row->condition);
  return true;
}

std::string hodu::dtypeList(llvm::ArrayRef<int32_t> dtypes) {
  if (dtypes.empty())
    return "any dtype";
  std::vector<std::string> names;
  for (int32_t d : dtypes)
    names.push_back(dtypeName(d));
  return llvm::join(names, " ");
}

std::vector<std::string> hodu::locateTools(const TargetBackend &target) {
  std::vector<std::string> found;
  for (const ToolRequirement &tool : target.tools()) {
    llvm::SmallVector<llvm::StringRef> names(tool.candidates.begin(),
                                             tool.candidates.end());
    found.push_back(findTool(names).value_or(""));
  }
  return found;
}

llvm::LogicalResult hodu::addPassPipeline(mlir::OpPassManager &pm,
                                          llvm::StringRef text) {
  if (text.empty())
    return llvm::success();
  std::string errors;
  llvm::raw_string_ostream es(errors);
  if (failed(mlir::parsePassPipeline(text, pm, es))) {
    llvm::errs() << "hoduc: internal error: bad pipeline '" << text
                 << "': " << errors << "\n";
    return llvm::failure();
  }
  return llvm::success();
}
