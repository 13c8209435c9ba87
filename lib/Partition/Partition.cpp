//===- Partition.cpp - accelerator/CPU partitioning -----------------------===//
//
// See hodu-partition in include/hodu/Partition/Passes.td. Seed 004 groups
// consecutive ops of one device in a single linear pass; here that
// grouping is the start, then partitions of the same device are merged
// while the partition graph stays acyclic, which the seed cannot do.
//
//===----------------------------------------------------------------------===//

#include "hodu/Partition/Passes.h"
#include "hodu/Support/Diagnostics.h"

#include "hodu/Dialect/Hodu/HoduDialect.h"
#include "hodu/Dialect/Hodu/HoduOps.h"
#include "hodu/Registry/Registry.h"
#include "hodu/Support/Output.h"
#include "hodu/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace hodu {
#define GEN_PASS_DEF_PARTITION
#include "hodu/Partition/Passes.h.inc"
} // namespace hodu

using namespace mlir;
using namespace hodu;

llvm::StringRef hodu::partitionDevice(Operation *func) {
  auto device = func->getAttrOfType<StringAttr>("hodu.device");
  return device ? device.getValue() : "";
}

namespace {

constexpr llvm::StringLiteral kHost = "cpu";

/// An ONNX node (the ops it became), or a single op without a node name.
struct Node {
  std::string name;   // the node name; "" for an unnamed op
  std::string opType; // the ONNX op type, else the hodu op's name
  SmallVector<Operation *> ops;
  std::string device;

  std::string describe() const {
    std::string what = name.empty() ? "an unnamed node" : "node '" + name + "'";
    return what + " (" + opType + ")";
  }
};

/// The node name and op type an op's location carries (the ONNX
/// importer's), the op's own name where it carries no type.
std::pair<std::string, std::string> nodeOf(Operation *op) {
  auto [name, type] = nodeOfLocation(op->getLoc());
  if (type.empty())
    type = op->getName().stripDialect().str();
  return {name, type};
}

int64_t tensorBytes(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  Type elem = type.getElementType();
  int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 0;
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

struct Part {
  std::string device;
  SmallVector<Operation *> ops;
};

struct TransferStats {
  int64_t partitions = 0, transfers = 0, bytes = 0;
};

struct PartitionPass : hodu::impl::PartitionBase<PartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target.empty() || target == kHost)
      return;
    auto main = module.lookupSymbol<func::FuncOp>("main");
    if (!main || main.isExternal() || !main.getBody().hasOneBlock())
      return;
    const TargetBackend *backend =
        ComponentRegistry::get().findTarget(target);
    if (!backend) {
      module.emitError("hodu-partition: unknown target '") << target << "'";
      return signalPassFailure();
    }
    Block &body = main.getBody().front();
    SmallVector<Node> nodes;
    DenseMap<Operation *, unsigned> nodeOfOp;
    collectNodes(body, nodes, nodeOfOp);
    if (failed(place(module, *backend, nodes)))
      return signalPassFailure();
    // A constant returned as it is belongs to no node; the target writes
    // it, and must hold its dtype (Metal has no f64).
    Operation *terminator = body.getTerminator();
    for (OpOperand &operand : terminator->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      std::string why;
      if (def && def->hasTrait<OpTrait::ConstantLike>() &&
          !backend->isLegal(def, &why)) {
        unsigned i = operand.getOperandNumber();
        auto name = main.getResultAttrOfType<StringAttr>(i, "hodu.name");
        main.emitError("output ")
            << i << (name ? " ('" + name.str() + "')" : std::string())
            << " is a constant that target '" << target
            << "' cannot write: " << why;
        return signalPassFailure();
      }
    }
    if (!dumpPlacement.empty() &&
        failed(writePlacement(nodes, module.getLoc())))
      return signalPassFailure();
    if (llvm::all_of(nodes, [&](const Node &n) { return n.device == target; }))
      return;

    std::vector<Part> parts = linearParts(body, nodes, nodeOfOp);
    TransferStats before = countTransfers(parts, main, /*seedPolicy=*/true);
    if (merge)
      mergeParts(parts);
    TransferStats after = countTransfers(parts, main, /*seedPolicy=*/false);
    outline(module, main, parts);

    Builder b(&getContext());
    auto stats = [&](const TransferStats &s) {
      return b.getDictionaryAttr(
          {b.getNamedAttr("partitions", b.getI64IntegerAttr(s.partitions)),
           b.getNamedAttr("transfers", b.getI64IntegerAttr(s.transfers)),
           b.getNamedAttr("transfer_bytes", b.getI64IntegerAttr(s.bytes))});
    };
    DictionaryAttr a = stats(after);
    SmallVector<NamedAttribute> fields(a.begin(), a.end());
    fields.push_back(b.getNamedAttr("before_merge", stats(before)));
    main->setAttr("hodu.partitions", b.getDictionaryAttr(fields));
  }

  /// The body's ops by node, in order; constants are not placed (each
  /// partition gets its own copy of those it reads).
  void collectNodes(Block &body, SmallVectorImpl<Node> &nodes,
                    DenseMap<Operation *, unsigned> &nodeOfOp) {
    llvm::StringMap<unsigned> named;
    for (Operation &op : body.without_terminator()) {
      if (op.hasTrait<OpTrait::ConstantLike>())
        continue;
      auto [name, type] = nodeOf(&op);
      unsigned index;
      auto it = name.empty() ? named.end() : named.find(name);
      if (it != named.end()) {
        index = it->second;
      } else {
        index = nodes.size();
        nodes.push_back({name, type, {}, ""});
        if (!name.empty())
          named[name] = index;
      }
      nodes[index].ops.push_back(&op);
      nodeOfOp[&op] = index;
    }
  }

  /// Each node's device: pinned, forced to the CPU, the target's when it
  /// can run every op of the node, else the fallback's (or an error).
  LogicalResult place(ModuleOp module, const TargetBackend &backend,
                      MutableArrayRef<Node> nodes) {
    llvm::StringMap<std::string> pins;
    if (!placement.empty() && failed(readPlacement(module.getLoc(), pins)))
      return failure();
    llvm::StringMap<unsigned> byName;
    for (auto [i, node] : llvm::enumerate(nodes))
      if (!node.name.empty())
        byName[node.name] = i;
    for (auto &pin : pins) {
      if (!byName.count(pin.getKey()))
        return module.emitError("placement '")
               << placement << "': no node named '" << pin.getKey()
               << "' in the model";
      if (pin.getValue() != kHost && pin.getValue() != target)
        return module.emitError("placement '")
               << placement << "': node '" << pin.getKey()
               << "' is placed on unknown device '" << pin.getValue()
               << "' (devices: cpu, " << target << ")";
    }
    for (Node &node : nodes) {
      std::string why;
      Operation *illegal = nullptr;
      for (Operation *op : node.ops)
        if (!illegal && !backend.isLegal(op, &why))
          illegal = op;
      auto pin = pins.find(node.name);
      if (!node.name.empty() && pin != pins.end()) {
        node.device = pin->getValue();
        if (node.device == target && illegal)
          return illegal->emitError("placement '")
                 << placement << "' puts " << node.describe() << " on '"
                 << target << "', which cannot run its op '"
                 << illegal->getName() << "': " << why;
        continue;
      }
      bool forced =
          (!node.name.empty() && llvm::is_contained(cpuNodes, node.name)) ||
          llvm::any_of(forceCpuOps, [&](const std::string &name) {
            return name == "*" ||
                   llvm::StringRef(name).equals_insensitive(node.opType) ||
                   llvm::any_of(node.ops, [&](Operation *op) {
                     return op->getName().getStringRef() == name ||
                            op->getName().stripDialect() == name;
                   });
          });
      if (forced) {
        node.device = kHost;
      } else if (!illegal) {
        node.device = target;
      } else if (fallback == kHost) {
        node.device = kHost;
      } else if (auto check = dyn_cast<hodu::AssertOp>(illegal)) {
        return illegal->emitError("the model checks at run time what it "
                                  "assumes of its data (")
               << check.getCheckedFact() << "); target '" << target
               << "' does not run such checks (--fallback=cpu runs them on "
                  "the CPU"
               << (check->hasAttr("hodu.index_check")
                       ? "; --index-checks=clamp compiles the model without "
                         "its index checks)"
                       : ")");
      } else {
        return illegal->emitError("op '")
               << illegal->getName() << "' of " << node.describe()
               << " cannot run on target '" << target << "': " << why
               << " (--fallback=cpu runs it on the CPU)";
      }
    }
    return success();
  }

  LogicalResult readPlacement(Location loc,
                              llvm::StringMap<std::string> &pins) {
    auto file = llvm::MemoryBuffer::getFile(placement);
    if (!file)
      return emitError(loc, "cannot read the placement file '")
             << placement << "': " << file.getError().message();
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse((*file)->getBuffer());
    if (!json)
      return emitError(loc, "placement '")
             << placement << "' is not JSON: " << toString(json.takeError());
    const llvm::json::Object *object = json->getAsObject();
    if (!object)
      return emitError(loc, "placement '")
             << placement << "' must be a JSON object of node names to "
             << "devices, e.g. {\"softmax\": \"cpu\"}";
    for (const auto &[key, value] : *object) {
      std::optional<llvm::StringRef> device = value.getAsString();
      if (!device)
        return emitError(loc, "placement '")
               << placement << "': the device of node '" << key.str()
               << "' must be a string";
      pins[key.str()] = device->str();
    }
    return success();
  }

  LogicalResult writePlacement(ArrayRef<Node> nodes, Location loc) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::json::OStream json(os, 2);
    json.object([&] {
      for (const Node &node : nodes)
        if (!node.name.empty())
          json.attribute(node.name, node.device);
    });
    os << "\n";
    return writeText(dumpPlacement, text, loc);
  }

  /// Seed 004's grouping: consecutive ops of one device.
  std::vector<Part> linearParts(Block &body, ArrayRef<Node> nodes,
                                const DenseMap<Operation *, unsigned> &node) {
    std::vector<Part> parts;
    for (Operation &op : body.without_terminator()) {
      auto it = node.find(&op);
      if (it == node.end())
        continue;
      const std::string &device = nodes[it->second].device;
      if (parts.empty() || parts.back().device != device)
        parts.push_back({device, {}});
      parts.back().ops.push_back(&op);
    }
    return parts;
  }

  /// dependsOn[j][i]: partition j reads a value partition i writes.
  static std::vector<llvm::BitVector> dependencies(ArrayRef<Part> parts) {
    DenseMap<Operation *, unsigned> partOf;
    for (auto [i, p] : llvm::enumerate(parts))
      for (Operation *op : p.ops)
        partOf[op] = i;
    std::vector<llvm::BitVector> deps(parts.size(),
                                      llvm::BitVector(parts.size()));
    for (size_t j = 0; j < parts.size(); ++j)
      for (Operation *op : parts[j].ops)
        op->walk([&](Operation *inner) {
          for (Value v : inner->getOperands()) {
            Operation *def = v.getDefiningOp();
            auto it = def ? partOf.find(def) : partOf.end();
            if (it != partOf.end() && it->second != j)
              deps[j].set(it->second);
          }
        });
    return deps;
  }

  /// Merges partitions of one device while no partition of another lies on
  /// a dependency path between them. Partitions stay in an order where
  /// each comes after those it reads from.
  void mergeParts(std::vector<Part> &parts) {
    for (bool changed = true; changed;) {
      changed = false;
      size_t n = parts.size();
      std::vector<llvm::BitVector> deps = dependencies(parts);
      // reaches[i][k]: a path of reads leads from partition i to k (the
      // order is topological, so k > i).
      std::vector<llvm::BitVector> reaches(n, llvm::BitVector(n));
      for (size_t i = n; i-- > 0;) {
        for (size_t k = i + 1; k < n; ++k)
          if (deps[k].test(i)) {
            reaches[i].set(k);
            reaches[i] |= reaches[k];
          }
      }
      for (size_t i = 0; i < n && !changed; ++i)
        for (size_t j = i + 1; j < n && !changed; ++j) {
          if (parts[i].device != parts[j].device)
            continue;
          bool blocked = false;
          for (size_t k = i + 1; k < j && !blocked; ++k)
            blocked = reaches[i].test(k) && reaches[k].test(j);
          if (blocked)
            continue;
          // Those j reads from (and so not from i) first, then i and j
          // together, then the rest in order.
          std::vector<Part> order(parts.begin(), parts.begin() + i);
          for (size_t k = i + 1; k < j; ++k)
            if (reaches[k].test(j))
              order.push_back(std::move(parts[k]));
          Part merged = std::move(parts[i]);
          merged.ops.append(parts[j].ops.begin(), parts[j].ops.end());
          order.push_back(std::move(merged));
          for (size_t k = i + 1; k < j; ++k)
            if (!reaches[k].test(j))
              order.push_back(std::move(parts[k]));
          for (size_t k = j + 1; k < n; ++k)
            order.push_back(std::move(parts[k]));
          parts = std::move(order);
          changed = true;
        }
    }
  }

  /// Values that cross devices with these partitions, model inputs from
  /// the host and outputs to it: each (value, device) once, as outline()
  /// does; or, under seed 004's policy, once per partition that reads it
  /// (its transfers carry each partition's inputs, with no reuse).
  TransferStats countTransfers(ArrayRef<Part> parts, func::FuncOp main,
                               bool seedPolicy) {
    DenseMap<Operation *, StringRef> deviceOf;
    for (const Part &p : parts)
      for (Operation *op : p.ops)
        deviceOf[op] = p.device;
    auto home = [&](Value v) -> StringRef {
      Operation *def = v.getDefiningOp();
      auto it = def ? deviceOf.find(def) : deviceOf.end();
      return it == deviceOf.end() ? StringRef(kHost) : it->second;
    };
    std::set<std::pair<void *, std::string>> crossings;
    TransferStats stats;
    auto need = [&](Value v, StringRef device, const std::string &reader) {
      Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        return; // copied into each partition that reads it
      if (home(v) != device &&
          crossings.insert({v.getAsOpaquePointer(), reader}).second) {
        ++stats.transfers;
        stats.bytes += tensorBytes(v);
      }
    };
    for (auto [i, p] : llvm::enumerate(parts))
      for (Operation *op : p.ops)
        for (Value v : op->getOperands())
          need(v, p.device, seedPolicy ? std::to_string(i) : p.device);
    for (Value v : main.getBody().front().getTerminator()->getOperands())
      need(v, kHost, seedPolicy ? "output" : kHost.str());
    stats.partitions = parts.size();
    return stats;
  }

  /// Each partition as a private function with `hodu.device`; @main calls
  /// them in order with the transfers between them.
  void outline(ModuleOp module, func::FuncOp main, ArrayRef<Part> parts) {
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    Block &body = main.getBody().front();
    Operation *terminator = body.getTerminator();
    DenseMap<Operation *, unsigned> partOf;
    for (auto [i, p] : llvm::enumerate(parts))
      for (Operation *op : p.ops)
        partOf[op] = i;
    auto isConstant = [](Value v) {
      Operation *def = v.getDefiningOp();
      return def && def->hasTrait<OpTrait::ConstantLike>();
    };

    // The value of each original value on each device, in the new @main.
    std::map<std::pair<void *, std::string>, Value> on;
    DenseMap<Value, std::string> homeOf;
    OpBuilder b(terminator);
    auto valueOn = [&](Value v, StringRef device) -> Value {
      if (isConstant(v))
        return v;
      auto key = std::make_pair(v.getAsOpaquePointer(), device.str());
      if (Value have = on[key])
        return have;
      std::string home = homeOf.count(v) ? homeOf[v] : kHost.str();
      Value source = on[{v.getAsOpaquePointer(), home}];
      Value moved = TransferOp::create(b, v.getLoc(), source,
                                       b.getStringAttr(device));
      on[key] = moved;
      return moved;
    };
    for (BlockArgument arg : body.getArguments())
      on[{arg.getAsOpaquePointer(), kHost.str()}] = arg;

    for (auto [index, part] : llvm::enumerate(parts)) {
      unsigned i = index;
      // Boundary: what the partition reads from outside, what others read.
      llvm::SetVector<Value> inputs, outputs;
      llvm::SetVector<Operation *> constants;
      for (Operation *op : part.ops)
        op->walk([&](Operation *inner) {
          for (Value v : inner->getOperands()) {
            Operation *def = v.getDefiningOp();
            if (def && def->hasTrait<OpTrait::ConstantLike>() &&
                def->getBlock() == &body)
              constants.insert(def);
            else if (!def ? cast<BlockArgument>(v).getOwner() == &body
                          : (def->getBlock() == &body &&
                             partOf.lookup(def) != i))
              inputs.insert(v);
          }
        });
      for (Operation *op : part.ops)
        for (Value r : op->getResults())
          for (OpOperand &use : r.getUses()) {
            Operation *user = body.findAncestorOpInBlock(*use.getOwner());
            if (user == terminator || partOf.lookup(user) != i)
              outputs.insert(r);
          }

      // The function.
      std::string name = part.device + "_" + std::to_string(i);
      SmallVector<Type> inTypes, outTypes;
      for (Value v : inputs)
        inTypes.push_back(v.getType());
      for (Value v : outputs)
        outTypes.push_back(v.getType());
      OpBuilder fb(module.getBodyRegion());
      fb.setInsertionPointToEnd(module.getBody());
      auto fn = func::FuncOp::create(fb, main.getLoc(), name,
                                     FunctionType::get(ctx, inTypes, outTypes));
      fn.setPrivate();
      fn->setAttr("hodu.device", StringAttr::get(ctx, part.device));
      symbols.insert(fn);
      Block *entry = fn.addEntryBlock();
      IRMapping map;
      for (auto [v, arg] : llvm::zip(inputs, entry->getArguments()))
        map.map(v, arg);
      OpBuilder inside = OpBuilder::atBlockEnd(entry);
      for (Operation *c : constants)
        inside.clone(*c, map);
      for (Operation *op : part.ops)
        inside.clone(*op, map);
      SmallVector<Value> results;
      for (Value v : outputs)
        results.push_back(map.lookup(v));
      func::ReturnOp::create(inside, main.getLoc(), results);

      // The call, with its operands on the partition's device.
      SmallVector<Value> operands;
      for (Value v : inputs)
        operands.push_back(valueOn(v, part.device));
      auto call = func::CallOp::create(b, main.getLoc(), fn, operands);
      for (auto [v, r] : llvm::zip(outputs, call.getResults())) {
        on[{v.getAsOpaquePointer(), part.device}] = r;
        homeOf[v] = part.device;
      }
    }
    // Outputs are returned from the host. A constant output (a
    // ConstantOfShape whose input only fed a run-time check, a window
    // function of a declared size) is computed by a CPU partition of its
    // own, which writes it into the output's buffer: a bundle's outputs
    // are values its steps compute.
    DenseMap<Value, Value> constantOutputs;
    for (OpOperand &operand : terminator->getOpOperands()) {
      Value v = operand.get();
      if (!isConstant(v)) {
        operand.set(valueOn(v, kHost));
        continue;
      }
      Value &computed = constantOutputs[v];
      if (!computed) {
        OpBuilder fb = OpBuilder::atBlockEnd(module.getBody());
        auto fn =
            func::FuncOp::create(fb, main.getLoc(), kHost.str() + "_constant",
                                 FunctionType::get(ctx, {}, {v.getType()}));
        fn.setPrivate();
        fn->setAttr("hodu.device", StringAttr::get(ctx, kHost));
        symbols.insert(fn); // renamed if the name is taken
        OpBuilder inside = OpBuilder::atBlockEnd(fn.addEntryBlock());
        Operation *copy = inside.clone(*v.getDefiningOp());
        func::ReturnOp::create(
            inside, main.getLoc(),
            copy->getResult(cast<OpResult>(v).getResultNumber()));
        computed = func::CallOp::create(b, main.getLoc(), fn, ValueRange{})
                       .getResult(0);
      }
      operand.set(computed);
    }
    // The originals, last use first.
    for (const Part &part : llvm::reverse(parts))
      for (Operation *op : llvm::reverse(part.ops)) {
        op->dropAllUses();
        op->erase();
      }
    for (Operation &op : llvm::make_early_inc_range(body))
      if (op.hasTrait<OpTrait::ConstantLike>() && op.use_empty())
        op.erase();
  }
};
} // namespace
