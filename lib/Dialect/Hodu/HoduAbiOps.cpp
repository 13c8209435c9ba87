//===- HoduAbiOps.cpp - hodu.entry_point ----------------------------------===//
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Support/DType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace hodu;

/// Each entry of `inputs`/`outputs` is {name = "...", type = tensor<...>}
/// with a static shape and an element type the ABI can describe. Inputs
/// may be meta slots (`meta`, optionally with an `init` value of their
/// type), all of them after the other inputs.
static LogicalResult verifyTensors(EntryPointOp op, ArrayAttr list,
                                   StringRef kind) {
  bool sawMeta = false;
  for (auto [i, attr] : llvm::enumerate(list)) {
    auto dict = cast<DictionaryAttr>(attr);
    auto name = dict.getAs<StringAttr>("name");
    auto type = dict.getAs<TypeAttr>("type");
    bool meta = kind == "input" && dict.get("meta");
    auto init = dict.getAs<ElementsAttr>("init");
    auto dims = dict.getAs<ArrayAttr>("dims");
    if (!name || !type ||
        dict.size() != 2 + (meta ? 1 : 0) + (meta && init ? 1 : 0) +
                           (dims ? 1 : 0))
      return op.emitOpError()
             << kind << " #" << i
             << " must be {name = \"...\", type = ...} (inputs may add "
                "meta and init, and any tensor dims)";
    if (dims) {
      auto ranked = dyn_cast<RankedTensorType>(type.getValue());
      if (!ranked || (int64_t)dims.size() != ranked.getRank() ||
          !llvm::all_of(dims, llvm::IsaPred<StringAttr>))
        return op.emitOpError()
               << kind << " #" << i
               << ": dims must give one symbol (or \"\") per dim";
    }
    if (init && init.getType() != type.getValue())
      return op.emitOpError() << "meta slot '" << name.getValue()
                              << "' has an initial value of type "
                              << init.getType() << ", not " << type.getValue();
    if (sawMeta && !meta)
      return op.emitOpError() << "input '" << name.getValue()
                              << "' follows a meta slot; meta slots are the "
                                 "last inputs";
    sawMeta |= meta;
    auto tensor = dyn_cast<RankedTensorType>(type.getValue());
    if (!tensor || !tensor.hasStaticShape())
      return op.emitOpError() << kind << " '" << name.getValue() << "' has type "
                              << type.getValue()
                              << "; entry points need tensors with static shapes";
    if (!dtypeOf(tensor.getElementType()))
      return op.emitOpError() << kind << " '" << name.getValue()
                              << "' has element type "
                              << tensor.getElementType()
                              << ", which the artifact ABI cannot describe";
  }
  return success();
}

LogicalResult EntryPointOp::verify() {
  if (getPrefix().empty())
    return emitOpError("needs a non-empty symbol prefix");
  if (failed(verifyTensors(*this, getInputs(), "input")))
    return failure();
  return verifyTensors(*this, getOutputs(), "output");
}

LogicalResult
EntryPointOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *fn = symbolTable.lookupNearestSymbolFrom(*this, getFunctionAttr());
  if (!fn || !isa<func::FuncOp, LLVM::LLVMFuncOp>(fn))
    return emitOpError("names '")
           << getFunction() << "', which is not a function of this module";
  return success();
}
