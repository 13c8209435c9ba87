//===- interp_model.cpp - the hodu IR run op by op on the evaluator -------===//
//
// A loaded model is a module imported into an MLIRContext of its own (one
// thread runs a model at a time, plugin.h, so nothing here is shared between
// threads but the importers' registry, which is read-only once filled). A
// run walks the entry function's one block in order: constants give their
// value, every other op must be a hodu op without regions whose results
// `hodu::evaluateResults` computes from its operands' values; anything else
// is refused with the op's name and location, never guessed at.
//
// Where the values live. MLIR attributes are interned in their context and
// never freed, so a run that made a `dense` attribute of every tensor it
// computes would grow the context by all of them, every run. Instead:
//  - each input is a `dense_resource` whose blob entry (one per input,
//    made at load) points at the caller's buffer for the run (no copy) and
//    is emptied afterwards;
//  - the evaluator writes every result of more than `resourceBytes` (0
//    here) into a heap blob of a fresh `dense_resource` entry; the blob is
//    freed as soon as the last value that refers to it is dead (shape-only
//    ops share their operand's blob), and at the end of the run at the
//    latest. Results that stay `dense` (interned) are small: booleans
//    (bit-packed), splats (one element) and empty tensors;
//  - what a run leaves behind is one empty entry (its name) and one
//    attribute per tensor computed, ~200 bytes. The blob manager also names
//    a new entry by counting up from "hodu_folded_1" until a name is free,
//    so each new entry costs a probe (~40 ns) per entry made before it:
//    left alone, 20,000 runs of a 4-op model took 350 s (1.1 s as below).
//    After N computed tensors the model is therefore written as bytecode
//    and read into a fresh context, which drops all of it. N is the option
//    rebuild_after; by default it balances the probes, N^2/2 of them,
//    against what the last build of the context took: N = sqrt(2 * build /
//    40 ns), between 256 and 65536.
//
//===----------------------------------------------------------------------===//

#include "interp_model.h"

#include "hodu/Dialect/Hodu/Evaluator.h"
#include "hodu/Dialect/Hodu/Entry.h"
#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Diagnostics.h"
#ifdef HODU_HAVE_ONNX_IMPORTER
#include "hodu/Import/Onnx.h"
#endif
#ifdef HODU_HAVE_HDSS_IMPORTER
#include "hodu/Import/Hdss.h"
#endif

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>

using namespace mlir;
using hodu::interp::InterpError;
using hodu::interp::LoadOptions;
using hodu::interp::ValueInfo;

namespace {

using BlobEntry = DialectResourceBlobManager::BlobEntry;

/// What the static-shape refusals add: how to pin the dims.
std::string staticShapes(const std::string &path) {
  bool onnx = llvm::StringRef(path).ends_with_insensitive(".onnx");
  return std::string("; the interpreter needs static shapes (pin them, "
                     "hoduc --input-shape") +
         (onnx ? "; here the plugin option dims, HODU_PLUGIN_INTERP_DIMS="
                 "NAME=N,...)"
               : "; here write them in the file)");
}

/// The bounds of one op's evaluation: generous (a reference run may be
/// slow), but a model cannot make the interpreter allocate without limit.
/// Every result of more than 0 bytes goes into a blob (see the top).
const hodu::EvaluationLimits kLimits(int64_t(1) << 28, int64_t(1) << 32, 0);

/// Where `loc` is, for a message: "model.onnx: node 'n' (Relu)" for an
/// importer's location, "file.mlir:3:10" for a line of IR; empty when
/// unknown.
std::string locationText(Location loc) {
  std::string prefix = hodu::modelLocationPrefix(loc);
  if (!prefix.empty())
    return prefix;
  std::string text;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      text = (f.getFilename().getValue() + ":" + llvm::Twine(f.getLine()) +
              ":" + llvm::Twine(f.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The stored bytes of a constant.
uint64_t storedBytes(Attribute value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.getRawData().size();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData().size();
  return 0;
}

class InterpModel final : public hodu::interp::Model {
public:
  InterpModel(std::string path, LoadOptions options)
      : path_(std::move(path)), options_(std::move(options)) {}
  ~InterpModel() override {
    // The module and the handler before the context they live in.
    module_ = OwningOpRef<ModuleOp>();
    diagnostics_.reset();
    context_.reset();
  }

  void load();
  void run(const hodu_engine_tensor *inputs, int32_t numInputs,
           hodu_engine_tensor *outputs, int32_t numOutputs,
           const hodu_host_api *host) override;

private:
  friend class RunValues;

  std::unique_ptr<MLIRContext> newContext();
  std::unique_ptr<ScopedDiagnosticHandler> newHandler(MLIRContext *ctx);
  void prepare(bool first);
  ValueInfo describe(Type type, DictionaryAttr attrs, const std::string &fallback,
                     const char *what);
  void rebuild();
  /// The computed tensors after which the context is rebuilt (0: never).
  int64_t rebuildThreshold() const;
  void warn(const std::string &message);
  [[noreturn]] void refuse(Operation &op, const std::string &why);
  void copyOutputs(func::ReturnOp ret, class RunValues &values,
                   hodu_engine_tensor *outputs, const hodu_host_api *host);

  std::string path_;
  LoadOptions options_;
  std::unique_ptr<MLIRContext> context_;
  std::unique_ptr<ScopedDiagnosticHandler> diagnostics_;
  /// The first error the context reported (formatted), since it was reset.
  std::string firstError_;
  OwningOpRef<ModuleOp> module_;
  func::FuncOp entry_;
  /// One per entry argument: a `dense_resource` whose blob is the caller's
  /// input during a run, empty otherwise.
  SmallVector<DenseResourceElementsAttr> inputAttrs_;
  /// The blob entries of the module's own constants and of the inputs,
  /// which a run never frees.
  llvm::DenseSet<BlobEntry *> kept_;
  /// The values whose last use is an op (dead results: their op).
  llvm::DenseMap<Operation *, SmallVector<Value, 2>> lastUses_;
  /// The ops of the entry block whose results the outputs or a check need,
  /// and those with side effects; the others are not computed.
  llvm::DenseSet<Operation *> needed_;
  /// Tensors computed since the context was made (each left an attribute
  /// in it, most also a blob entry).
  int64_t computed_ = 0;
  /// What making the current context and module took (the import, or the
  /// last rebuild).
  double buildSeconds_ = 0;
  bool rebuildFailed_ = false;
  bool broken_ = false;
};

/// The values of one run, by SSA value, and who refers to the blobs the run
/// made. Frees every blob the run made when it ends, whatever way it ends.
class RunValues {
public:
  explicit RunValues(InterpModel &model) : model(model) {}
  ~RunValues() {
    for (auto &entry : refs)
      entry.first->setBlob(AsmResourceBlob());
    for (DenseResourceElementsAttr input : model.inputAttrs_)
      input.getRawHandle().getResource()->setBlob(AsmResourceBlob());
  }

  void set(Value v, ElementsAttr value) {
    values[v] = value;
    if (BlobEntry *entry = madeHere(value))
      ++refs[entry];
  }
  ElementsAttr get(Value v) const { return values.lookup(v); }
  void drop(Value v) {
    auto it = values.find(v);
    if (it == values.end())
      return;
    ElementsAttr value = it->second;
    values.erase(it);
    if (BlobEntry *entry = madeHere(value)) {
      auto ref = refs.find(entry);
      if (ref != refs.end() && --ref->second == 0) {
        entry->setBlob(AsmResourceBlob()); // frees the heap blob
        refs.erase(ref);
      }
    }
  }

private:
  /// The blob entry of `value` when the run made it (not the model's).
  BlobEntry *madeHere(ElementsAttr value) const {
    auto res = dyn_cast<DenseResourceElementsAttr>(value);
    if (!res)
      return nullptr;
    BlobEntry *entry = res.getRawHandle().getResource();
    return entry && !model.kept_.contains(entry) ? entry : nullptr;
  }

  InterpModel &model;
  llvm::DenseMap<Value, ElementsAttr> values;
  llvm::DenseMap<BlobEntry *, int64_t> refs;
};

std::unique_ptr<MLIRContext> InterpModel::newContext() {
  DialectRegistry registry;
  registry.insert<hodu::HoduDialect, func::FuncDialect, arith::ArithDialect>();
  // One thread runs a model: no thread pool per loaded model.
  auto ctx =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadDialect<hodu::HoduDialect, func::FuncDialect>();
  return ctx;
}

std::unique_ptr<ScopedDiagnosticHandler>
InterpModel::newHandler(MLIRContext *ctx) {
  firstError_.clear();
  // Nothing reaches stderr: the first error becomes the status's message,
  // warnings go to the host's log.
  return std::make_unique<ScopedDiagnosticHandler>(
      ctx, [this](Diagnostic &d) -> LogicalResult {
        try { // nothing is thrown through MLIR's frames
          std::string at = locationText(d.getLocation());
          std::string text = (at.empty() ? "" : at + ": ") + d.str();
          if (d.getSeverity() == DiagnosticSeverity::Error) {
            if (firstError_.empty())
              firstError_ = text;
          } else if (d.getSeverity() == DiagnosticSeverity::Warning) {
            warn(text);
          }
        } catch (...) {
          if (firstError_.empty())
            firstError_ = "out of memory while reporting an error";
        }
        return success();
      });
}

void InterpModel::warn(const std::string &message) {
  if (options_.host && options_.host->log)
    options_.host->log(HODU_LOG_WARNING, "interp", message.c_str());
}

void InterpModel::load() {
  auto start = std::chrono::steady_clock::now();
  if (!llvm::sys::fs::exists(path_))
    throw InterpError(HODU_NOT_FOUND, "cannot open '" + path_ + "'");
  const hodu::Importer *importer =
      hodu::ComponentRegistry::get().findImporterForPath(path_);
  if (!importer)
    throw InterpError(HODU_INVALID_ARTIFACT,
                      "no importer for '" + path_ +
                          "' (this build reads .onnx, .mlir and .hdss)");
  context_ = newContext();
  diagnostics_ = newHandler(context_.get());
  hodu::ImportOptions options; // static shapes: a dynamic dim is an error
  options.symbolSizes = options_.dims;
  module_ = importer->import(path_, *context_, options);
  if (!module_) {
    std::string message = firstError_.empty()
                              ? "cannot import '" + path_ + "'"
                              : firstError_;
    if (message.find("dynamic dim") != std::string::npos ||
        message.find("has no shape") != std::string::npos)
      message += staticShapes(path_);
    throw InterpError(HODU_INVALID_ARTIFACT, message);
  }
  if (failed(verify(*module_)))
    throw InterpError(HODU_INVALID_ARTIFACT,
                      firstError_.empty() ? "the imported module is invalid"
                                          : firstError_);
  prepare(/*first=*/true);
  buildSeconds_ = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
}

int64_t InterpModel::rebuildThreshold() const {
  if (options_.rebuildAfter >= 0)
    return options_.rebuildAfter;
  double n = std::sqrt(2.0 * buildSeconds_ / 40e-9);
  return static_cast<int64_t>(std::clamp(n, 256.0, 65536.0));
}

ValueInfo InterpModel::describe(Type type, DictionaryAttr attrs,
                                const std::string &fallback, const char *what) {
  ValueInfo info;
  info.name = fallback;
  if (attrs)
    if (auto n = attrs.getAs<StringAttr>("hodu.name"))
      info.name = n.str();
  auto rt = dyn_cast<RankedTensorType>(type);
  if (!rt)
    throw InterpError(HODU_INVALID_ARTIFACT,
                      std::string(what) + " '" + info.name + "' has type " +
                          typeText(type) +
                          "; the interpreter takes ranked tensors");
  if (!rt.hasStaticShape())
    throw InterpError(HODU_INVALID_ARTIFACT,
                      std::string(what) + " '" + info.name + "' has type " +
                          typeText(type) + staticShapes(path_));
  std::optional<hodu_dtype> dtype = hodu::dtypeOf(rt.getElementType());
  if (!dtype)
    throw InterpError(HODU_INVALID_ARTIFACT,
                      std::string(what) + " '" + info.name +
                          "' has element type " +
                          typeText(rt.getElementType()) +
                          ", which has no hodu dtype");
  info.dtype = *dtype;
  info.shape.assign(rt.getShape().begin(), rt.getShape().end());
  return info;
}

/// Everything a run needs of the module (again after a rebuild).
void InterpModel::prepare(bool first) {
  entry_ = hodu::findEntryFunction(*module_);
  if (!entry_ || entry_.isExternal())
    throw InterpError(HODU_INVALID_ARTIFACT,
                      "expected one public function (named @main) with a "
                      "body as the model's entry point");
  if (!entry_.getBody().hasOneBlock())
    throw InterpError(HODU_INVALID_ARTIFACT,
                      "the entry function has " +
                          std::to_string(entry_.getBody().getBlocks().size()) +
                          " blocks; the interpreter runs one");
  std::vector<ValueInfo> inputs, outputs;
  for (unsigned i = 0; i < entry_.getNumArguments(); ++i)
    inputs.push_back(describe(entry_.getArgumentTypes()[i],
                              entry_.getArgAttrDict(i),
                              "input_" + std::to_string(i), "input"));
  for (unsigned i = 0; i < entry_.getNumResults(); ++i)
    outputs.push_back(describe(entry_.getResultTypes()[i],
                               entry_.getResultAttrDict(i),
                               "output_" + std::to_string(i), "output"));
  if (first) {
    inputs_ = std::move(inputs);
    outputs_ = std::move(outputs);
  } else if (inputs.size() != inputs_.size() ||
             outputs.size() != outputs_.size()) {
    throw InterpError(HODU_RUN_FAILED,
                      "the model read back into a fresh context has another "
                      "signature");
  }

  inputAttrs_.clear();
  kept_.clear();
  for (BlockArgument arg : entry_.getArguments()) {
    auto attr = DenseResourceElementsAttr::get(
        cast<ShapedType>(arg.getType()), "interp_input", AsmResourceBlob());
    inputAttrs_.push_back(attr);
    kept_.insert(attr.getRawHandle().getResource());
  }
  constantBytes_ = 0;
  module_->walk([&](Operation *op) {
    for (NamedAttribute a : op->getAttrs())
      a.getValue().walk([&](DenseResourceElementsAttr r) {
        kept_.insert(r.getRawHandle().getResource());
      });
    if (auto c = dyn_cast<hodu::ConstantOp>(op))
      constantBytes_ += storedBytes(c.getValue());
    else if (auto c = dyn_cast<arith::ConstantOp>(op))
      constantBytes_ += storedBytes(c.getValue());
  });

  // What the outputs and the checks need, from the end: as compiled code,
  // the interpreter computes nothing else (an op nothing needs may be one
  // the evaluator cannot do).
  needed_.clear();
  Block &block = entry_.getBody().front();
  for (Operation &op : llvm::reverse(block)) {
    bool needed = op.hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(&op);
    for (Operation *user : op.getUsers()) {
      Operation *at = block.findAncestorOpInBlock(*user);
      needed = needed || (at && needed_.contains(at));
    }
    if (needed)
      needed_.insert(&op);
  }

  // Each value dies after its last use in the block (its op, if unused).
  lastUses_.clear();
  llvm::DenseMap<Value, Operation *> last;
  for (Operation &op : block) {
    for (Value v : op.getOperands())
      last[v] = &op;
    for (Value r : op.getResults())
      if (r.use_empty())
        last[r] = &op;
  }
  for (BlockArgument arg : entry_.getArguments())
    if (arg.use_empty())
      last.erase(arg);
  for (auto &[value, op] : last)
    lastUses_[op].push_back(value);
  computed_ = 0;
}

/// Writes the module as bytecode and reads it into a fresh context, which
/// drops everything the runs left in the old one. On failure the model
/// goes on in its old context (and grows), with a warning.
void InterpModel::rebuild() {
  auto start = std::chrono::steady_clock::now();
  std::string bytes;
  {
    llvm::raw_string_ostream os(bytes);
    if (failed(writeBytecodeToFile(*module_, os))) {
      warn("cannot write '" + path_ +
           "' as bytecode to refresh its context; it keeps growing");
      rebuildFailed_ = true;
      return;
    }
  }
  std::unique_ptr<MLIRContext> ctx = newContext();
  std::string oldError = firstError_;
  std::unique_ptr<ScopedDiagnosticHandler> handler = newHandler(ctx.get());
  ParserConfig config(ctx.get());
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(bytes, config, path_);
  if (!module) {
    warn("cannot read '" + path_ + "' back into a fresh context (" +
         firstError_ + "); it keeps growing");
    firstError_ = oldError;
    rebuildFailed_ = true;
    module = OwningOpRef<ModuleOp>();
    handler.reset();
    return;
  }
  bytes.clear();
  module_ = OwningOpRef<ModuleOp>();
  diagnostics_.reset();
  context_ = std::move(ctx);
  diagnostics_ = std::move(handler);
  module_ = std::move(module);
  try {
    prepare(/*first=*/false);
  } catch (...) {
    broken_ = true;
    throw;
  }
  buildSeconds_ = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
}

void InterpModel::refuse(Operation &op, const std::string &why) {
  std::string at = locationText(op.getLoc());
  throw InterpError(HODU_RUN_FAILED,
                    "op '" + op.getName().getStringRef().str() + "'" +
                        (at.empty() ? "" : " at " + at) +
                        " cannot be evaluated (" + why + ")");
}

void InterpModel::run(const hodu_engine_tensor *inputs, int32_t numInputs,
                      hodu_engine_tensor *outputs, int32_t numOutputs,
                      const hodu_host_api *host) {
  if (broken_)
    throw InterpError(HODU_INVALID_STATE,
                      "the model could not be read back after its context "
                      "was refreshed; load it again");
  int64_t threshold = rebuildThreshold();
  if (threshold > 0 && computed_ >= threshold && !rebuildFailed_)
    rebuild();
  if (numInputs != static_cast<int32_t>(inputs_.size()) ||
      numOutputs != static_cast<int32_t>(outputs_.size()))
    throw InterpError(HODU_MISMATCH,
                      "the run has " + std::to_string(numInputs) +
                          " inputs and " + std::to_string(numOutputs) +
                          " outputs; the model takes " +
                          std::to_string(inputs_.size()) + " and gives " +
                          std::to_string(outputs_.size()));
  if ((numInputs && !inputs) || (numOutputs && !outputs))
    throw InterpError(HODU_INVALID_ARGUMENT, "run without its tensors");

  RunValues values(*this);
  for (int32_t i = 0; i < numInputs; ++i) {
    const ValueInfo &info = inputs_[static_cast<size_t>(i)];
    const hodu_engine_tensor &t = inputs[i];
    uint64_t want = hodu::dtypeSize(info.dtype);
    for (int64_t d : info.shape)
      want *= static_cast<uint64_t>(d);
    if (t.dtype != info.dtype || t.bytes != want || (want && !t.data))
      throw InterpError(HODU_MISMATCH,
                        "input '" + info.name + "' has " +
                            std::to_string(t.bytes) + " bytes of " +
                            hodu::dtypeName(t.dtype) + "; the model takes " +
                            std::to_string(want) + " bytes of " +
                            hodu::dtypeName(info.dtype));
    DenseResourceElementsAttr attr = inputAttrs_[static_cast<size_t>(i)];
    attr.getRawHandle().getResource()->setBlob(
        UnmanagedAsmResourceBlob::allocateWithAlign(
            llvm::ArrayRef<char>(static_cast<const char *>(t.data),
                                 static_cast<size_t>(t.bytes)),
            1));
    values.set(entry_.getArgument(static_cast<unsigned>(i)), attr);
  }

  for (Operation &op : entry_.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      copyOutputs(ret, values, outputs, host);
      return;
    }
    if (auto c = dyn_cast<hodu::ConstantOp>(op)) {
      values.set(c.getResult(), c.getValue());
    } else if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto value = dyn_cast<ElementsAttr>(c.getValue());
      if (!value || !isa<RankedTensorType>(value.getType()))
        refuse(op, "a scalar constant; the interpreter computes tensors");
      values.set(c.getResult(), value);
    } else if (!needed_.contains(&op)) {
      // Nothing needs it: not computed (as compiled code would not be).
    } else if (auto check = dyn_cast<hodu::AssertOp>(op)) {
      auto view = hodu::ConstantView::get(values.get(check.getCondition()));
      if (!view)
        refuse(op, "its condition is not a boolean tensor");
      for (int64_t k = 0; k < view->size(); ++k)
        if (!view->truth(k))
          throw InterpError(HODU_RUN_FAILED,
                            "the input data breaks a run-time check: " +
                                check.getMessage().str());
    } else {
      if (op.getNumRegions() != 0)
        refuse(op, "it has regions (control flow), which the interpreter "
                   "does not run");
      if (!op.getDialect() || !isa<hodu::HoduDialect>(op.getDialect()))
        refuse(op, "the interpreter evaluates hodu ops and constants only");
      if (op.getNumResults() == 0)
        refuse(op, "it has no results; the interpreter computes values only");
      SmallVector<hodu::ConstantView, 3> views;
      for (auto [k, v] : llvm::enumerate(op.getOperands())) {
        ElementsAttr value = values.get(v);
        std::optional<hodu::ConstantView> view =
            value ? hodu::ConstantView::get(value) : std::nullopt;
        if (!view)
          refuse(op, "operand #" + std::to_string(k) + " of type " +
                         typeText(v.getType()) +
                         " is not a tensor the evaluator reads");
        views.push_back(std::move(*view));
      }
      SmallVector<ElementsAttr> results =
          hodu::evaluateResults(&op, views, kLimits);
      if (results.size() != op.getNumResults())
        refuse(op, "the evaluator does not compute it, or leaves its value "
                   "on these operands to run time: an index out of range, an "
                   "integer division by zero, an out-of-range float-to-int "
                   "cast, a result past 2^28 elements");
      for (auto [r, value] : llvm::zip_equal(op.getResults(), results)) {
        values.set(r, value); // first: freed with the run whatever happens
        ++computed_;
        if (value.getType() != r.getType())
          refuse(op, "the evaluator gave " + typeText(value.getType()) +
                         " for a result of type " + typeText(r.getType()));
      }
    }
    auto dying = lastUses_.find(&op);
    if (dying != lastUses_.end())
      for (Value v : dying->second)
        values.drop(v);
  }
  throw InterpError(HODU_INVALID_ARTIFACT,
                    "the entry function does not end with func.return");
}

void InterpModel::copyOutputs(func::ReturnOp ret, RunValues &values,
                              hodu_engine_tensor *outputs,
                              const hodu_host_api *host) {
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    const ValueInfo &info = outputs_[i];
    hodu_engine_tensor &t = outputs[i];
    std::optional<hodu::ConstantView> view =
        hodu::ConstantView::get(values.get(v));
    if (!view)
      throw InterpError(HODU_RUN_FAILED,
                        "output '" + info.name + "' has no value");
    if (t.dtype != info.dtype || t.rank != static_cast<int32_t>(info.shape.size()))
      throw InterpError(HODU_MISMATCH,
                        "output '" + info.name + "' is " +
                            hodu::dtypeName(info.dtype) + shapeText(info.shape) +
                            "; the caller's tensor has dtype " +
                            hodu::dtypeName(t.dtype) + " and rank " +
                            std::to_string(t.rank));
    unsigned size = hodu::dtypeSize(info.dtype);
    uint64_t bytes = static_cast<uint64_t>(view->size()) * size;
    if (t.data) {
      bool same = t.shape != nullptr || info.shape.empty();
      for (size_t d = 0; same && d < info.shape.size(); ++d)
        same = t.shape[d] == info.shape[d];
      if (!same || t.bytes < bytes)
        throw InterpError(
            HODU_MISMATCH,
            "output '" + info.name + "' is " + shapeText(info.shape) +
                " (" + std::to_string(bytes) +
                " bytes); the caller's tensor is " +
                (t.shape ? shapeText(llvm::ArrayRef<int64_t>(
                               t.shape, static_cast<size_t>(t.rank)))
                         : std::string("unshaped")) +
                " (" + std::to_string(t.bytes) + " bytes)");
    } else {
      if (!info.shape.empty() && !t.shape)
        throw InterpError(HODU_INVALID_ARGUMENT,
                          "output '" + info.name + "' has no room for its shape");
      for (size_t d = 0; d < info.shape.size(); ++d)
        t.shape[d] = info.shape[d];
      t.data = host->alloc(bytes ? bytes : 1, 64);
      if (!t.data)
        throw InterpError(HODU_OUT_OF_MEMORY,
                          "out of memory for output '" + info.name + "' (" +
                              std::to_string(bytes) + " bytes)");
      t.bytes = bytes;
    }
    char *out = static_cast<char *>(t.data);
    if (bytes == 0)
      continue;
    if (view->isSplat()) {
      for (int64_t k = 0; k < view->size(); ++k)
        std::memcpy(out + k * size, view->ptr(0), size);
    } else {
      std::memcpy(out, view->ptr(0), bytes);
    }
  }
}

} // namespace

namespace hodu::interp {

Model::~Model() = default;

void registerImporters() {
  static std::once_flag once;
  std::call_once(once, [] {
    hodu::registerBuiltinComponents(); // .mlir
#ifdef HODU_HAVE_HDSS_IMPORTER
    hodu::registerHdssImporter();
#endif
#ifdef HODU_HAVE_ONNX_IMPORTER
    hodu::registerOnnxImporter();
#endif
  });
}

std::unique_ptr<Model> Model::load(const std::string &path,
                                   const LoadOptions &options) {
  registerImporters();
  auto model = std::make_unique<InterpModel>(path, options);
  model->load();
  return model;
}

} // namespace hodu::interp
