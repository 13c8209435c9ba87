//===- TransformScript.cpp - transform scripts of the GPU passes ----------===//
//
// The scripts are short and their shape depends only on the op kinds, so
// they are written as transform IR text and parsed: the sizes in them are
// the only thing the passes compute.
//
//===----------------------------------------------------------------------===//

#include "TransformScript.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using hodu::gpu::TransformScript;

static constexpr llvm::StringLiteral kTag = "hodu.gpu_payload";

std::string TransformScript::handle() { return "%h" + std::to_string(handles++); }

std::string TransformScript::match(Operation *op) {
  int64_t id = tagged.size();
  op->setAttr(kTag, IntegerAttr::get(IntegerType::get(op->getContext(), 64), id));
  tagged.push_back(op);
  std::string h = handle();
  *this << h + " = transform.structured.match attributes{" + kTag.str() +
               " = " + std::to_string(id) +
               "} in %root : (!transform.any_op) -> !transform.any_op";
  return h;
}

TransformScript &TransformScript::operator<<(StringRef line) {
  body += "    ";
  body += line;
  body += "\n";
  return *this;
}

LogicalResult TransformScript::apply(StringRef pass) {
  std::string text =
      "module attributes {transform.with_named_sequence} {\n"
      "  transform.named_sequence @__transform_main(%root: !transform.any_op "
      "{transform.readonly}) {\n" +
      body + "    transform.yield\n  }\n}\n";
  MLIRContext *context = payload.getContext();
  OwningOpRef<ModuleOp> script = parseSourceString<ModuleOp>(text, context);
  // A script that does not parse is a bug of the pass that wrote it.
  if (!script)
    return payload.emitError(pass) << ": internal error in the generated "
                                      "transform script:\n"
                                   << text;
  Operation *entry = script->lookupSymbol("__transform_main");
  LogicalResult result = transform::applyTransformNamedSequence(
      payload, entry, *script, transform::TransformOptions());
  payload.walk([](Operation *op) { op->removeAttr(kTag); });
  return result;
}

std::string hodu::gpu::listOf(ArrayRef<int64_t> values) {
  return "[" + llvm::join(llvm::map_range(values, [](int64_t v) {
                            return std::to_string(v);
                          }),
                          ", ") +
         "]";
}

int64_t hodu::gpu::largestDivisor(int64_t n, int64_t most) {
  for (int64_t d = std::min(n, most); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}
