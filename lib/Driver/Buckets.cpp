//===- Buckets.cpp - one artifact of a padded symbol at several sizes -----===//
//
// A symbol that ops mix is compiled at its bound, and a run costs what a
// run at the bound costs. `--dim=seq=1..512@64,128,256` compiles it at
// those sizes too; each bucket goes through the whole pipeline with a
// prefix of its own, and its LLVM module is merged into the bound's, whose
// descriptor then points at a dispatcher: the run's value picks the
// smallest bucket that holds it (docs/architecture.md, "Symbolic dims").
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "hodu/Support/DType.h"
#include "hodu/abi.h"

#include <cstddef>

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace hodu;

namespace {

/// hodu_model_desc's workspace_size, as the descriptor's struct lists its
/// fields (LowerEntryPoint.cpp): abi_version, struct_size, model_name,
/// target, num_inputs, num_outputs, inputs, outputs, entry, workspace_size.
constexpr int64_t kDescriptorWorkspaceField = 9;
constexpr int64_t kRunContextSymbolFieldsEnd =
    offsetof(hodu_run_context, num_symbol_values) +
    sizeof(hodu_run_context::num_symbol_values);
constexpr int64_t kRunContextSymbolValuesOffset =
    offsetof(hodu_run_context, symbol_values);
constexpr int64_t kRunContextNumSymbolValuesOffset =
    offsetof(hodu_run_context, num_symbol_values);

bool isDeclaration(Operation *op) {
  if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op))
    return f.isExternal();
  if (auto g = dyn_cast<LLVM::GlobalOp>(op))
    return g.getInitializerRegion().empty() && !g.getValueOrNull();
  return false;
}

/// The descriptor's workspace_size: the constant inserted at its field
/// (and, in `where`, the insertion).
std::optional<uint64_t> workspaceOf(LLVM::GlobalOp desc,
                                    LLVM::InsertValueOp *where = nullptr) {
  std::optional<uint64_t> found;
  desc.getInitializerRegion().walk([&](LLVM::InsertValueOp insert) {
    if (insert.getPosition().size() != 1 ||
        insert.getPosition()[0] != kDescriptorWorkspaceField)
      return;
    if (auto c = insert.getValue().getDefiningOp<LLVM::ConstantOp>())
      if (auto v = dyn_cast<IntegerAttr>(c.getValue())) {
        found = v.getValue().getZExtValue();
        if (where)
          *where = insert;
      }
  });
  return found;
}

/// A constant global's bytes, and whether they are a splat's one element.
std::optional<std::pair<StringRef, bool>> contentOf(LLVM::GlobalOp g) {
  if (!g.getConstant())
    return std::nullopt;
  auto stored = constantStorage(g.getValueOrNull());
  if (!stored)
    return std::nullopt;
  ArrayRef<char> data = stored->first;
  return std::pair(StringRef(data.data(), data.size()), stored->second);
}

/// The key two equal constants share.
llvm::hash_code keyOf(LLVM::GlobalOp g, std::pair<StringRef, bool> content) {
  return llvm::hash_combine(g.getGlobalType().getAsOpaquePointer(),
                            g.getAlignment().value_or(0), content.first,
                            content.second);
}

} // namespace

LogicalResult driver::mergeBuckets(ModuleOp module,
                                   MutableArrayRef<PaddedBucket> buckets,
                                   StringRef prefix, Location loc) {
  std::string entryName = (prefix + "_entry").str();
  std::string descName = (prefix + "_hodu_descriptor").str();
  auto desc = module.lookupSymbol<LLVM::GlobalOp>(descName);
  auto entry = module.lookupSymbol<LLVM::LLVMFuncOp>(entryName);
  LLVM::InsertValueOp workspaceField;
  std::optional<uint64_t> workspace =
      desc ? workspaceOf(desc, &workspaceField) : std::nullopt;
  if (!desc || !entry || !workspace)
    return emitError(loc, "internal error: no descriptor '")
           << descName << "' with an entry and a workspace to add buckets to";
  uint64_t largest = *workspace;
  // The weights are the same at every size: a bucket's constants that the
  // bound's module has already are read from there, not copied.
  DenseMap<llvm::hash_code, SmallVector<LLVM::GlobalOp, 1>> constants;
  for (auto g : module.getOps<LLVM::GlobalOp>())
    if (auto content = contentOf(g))
      constants[keyOf(g, *content)].push_back(g);
  auto sameAs = [&](LLVM::GlobalOp g) -> LLVM::GlobalOp {
    auto content = contentOf(g);
    if (!content)
      return {};
    auto it = constants.find(keyOf(g, *content));
    if (it == constants.end())
      return {};
    for (LLVM::GlobalOp other : it->second)
      if (other.getGlobalType() == g.getGlobalType() &&
          other.getAlignment() == g.getAlignment() &&
          contentOf(other) == content)
        return other;
    return {};
  };
  // Each bucket's symbols renamed apart (its own prefix names the entry and
  // descriptor; kernels and constants get a suffix), then moved in.
  SmallVector<std::pair<ArrayRef<int64_t>, std::string>> entries;
  for (PaddedBucket &bucket : buckets) {
    ModuleOp m = *bucket.module;
    std::string suffix = "__b" + bucket.label();
    std::string bucketPrefix = (prefix + suffix).str();
    auto bdesc =
        m.lookupSymbol<LLVM::GlobalOp>(bucketPrefix + "_hodu_descriptor");
    std::optional<uint64_t> bws = bdesc ? workspaceOf(bdesc) : std::nullopt;
    if (!bws || !m.lookupSymbol<LLVM::LLVMFuncOp>(bucketPrefix + "_entry"))
      return emitError(loc, "internal error: bucket ")
             << bucket.label() << " has no descriptor or entry";
    largest = std::max(largest, *bws);
    SymbolTable table(m);
    for (Operation &op :
         llvm::make_early_inc_range(m.getBody()->getOperations())) {
      auto sym = dyn_cast<SymbolOpInterface>(&op);
      if (!sym || isDeclaration(&op))
        continue;
      StringRef name = sym.getName();
      if (name.starts_with(bucketPrefix))
        continue;
      if (failed(table.rename(&op, (name + suffix).str())))
        return emitError(loc, "internal error: cannot rename '")
               << name << "' in bucket " << bucket.label();
    }
    // After the renaming, so that no name of the bound's module is one of
    // the bucket's own.
    for (auto g : llvm::make_early_inc_range(m.getOps<LLVM::GlobalOp>()))
      if (LLVM::GlobalOp same = sameAs(g)) {
        if (failed(SymbolTable::replaceAllSymbolUses(g, same.getSymNameAttr(),
                                                     m.getOperation())))
          return emitError(loc, "internal error: cannot share '")
                 << g.getSymName() << "' of bucket " << bucket.label();
        g.erase();
      }
    for (Operation &op :
         llvm::make_early_inc_range(m.getBody()->getOperations())) {
      auto sym = dyn_cast<SymbolOpInterface>(&op);
      if (sym && isDeclaration(&op) && module.lookupSymbol(sym.getName()))
        continue; // malloc, omp_*: declared once
      if (sym && !isDeclaration(&op) && module.lookupSymbol(sym.getName()))
        return emitError(loc, "internal error: bucket ")
               << bucket.label() << " defines '" << sym.getName() << "' twice";
      if (isa<LLVM::AliasOp>(op))
        continue; // hodu_model_descriptor: the bound's alone
      // Only the dispatcher reaches a bucket: nothing of it is exported.
      if (auto g = dyn_cast<LLVM::GlobalOp>(op); g && !isDeclaration(g))
        g.setLinkage(LLVM::Linkage::Internal);
      if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op); f && !f.isExternal())
        f.setLinkage(LLVM::Linkage::Internal);
      op.moveBefore(module.getBody(), module.getBody()->end());
    }
    entries.push_back({bucket.sizes, bucketPrefix + "_entry"});
  }
  // The workspace: the largest any bucket needs (a constant of its own:
  // the initializer's constants may be shared).
  if (largest != *workspace) {
    OpBuilder b(workspaceField);
    Type i64 = b.getI64Type();
    Value size =
        LLVM::ConstantOp::create(b, loc, i64, b.getIntegerAttr(i64, largest));
    workspaceField.getValueMutable().assign(size);
  }

  // int32_t dispatch(inputs, outputs, ctx): the padded symbol's value from
  // ctx
  // (the entries check it), the first bucket that holds it, else the
  // bound's entry.
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  Type ptrT = LLVM::LLVMPointerType::get(module.getContext());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto fnT = LLVM::LLVMFunctionType::get(i32, {ptrT, ptrT, ptrT});
  auto dispatch = LLVM::LLVMFuncOp::create(b, loc, (prefix + "_dispatch").str(),
                                           fnT, LLVM::Linkage::Internal);
  Block *start = dispatch.addEntryBlock(b);
  Region &body = dispatch.getBody();
  Value inputs = start->getArgument(0), outputs = start->getArgument(1),
        ctx = start->getArgument(2);
  auto call = [&](StringRef name) {
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    Value r = LLVM::CallOp::create(b, loc, fn, ValueRange{inputs, outputs, ctx})
                  .getResult();
    LLVM::ReturnOp::create(b, loc, r);
  };
  Block *fallback = b.createBlock(&body);
  call(entryName);
  b.setInsertionPointToEnd(start);
  // ctx, its struct_size, a value: else the bound's entry says what is
  // wrong.
  auto icmp = [&](LLVM::ICmpPredicate p, Value x, Value y) {
    return LLVM::ICmpOp::create(b, loc, p, x, y);
  };
  auto constant = [&](Type t, int64_t v) {
    return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  };
  Value null = LLVM::ZeroOp::create(b, loc, ptrT);
  Block *sizeBB = b.createBlock(&body), *fieldsBB = b.createBlock(&body),
        *valueBB = b.createBlock(&body);
  b.setInsertionPointToEnd(start);
  LLVM::CondBrOp::create(b, loc, icmp(LLVM::ICmpPredicate::eq, ctx, null),
                         fallback, sizeBB);
  b.setInsertionPointToEnd(sizeBB);
  Value structSize = LLVM::LoadOp::create(b, loc, i32, ctx);
  LLVM::CondBrOp::create(b, loc,
                         icmp(LLVM::ICmpPredicate::uge, structSize,
                              constant(i32, kRunContextSymbolFieldsEnd)),
                         fieldsBB, fallback);
  b.setInsertionPointToEnd(fieldsBB);
  auto loadAt = [&](Type t, int64_t offset) {
    Value p = LLVM::GEPOp::create(b, loc, ptrT, b.getI8Type(), ctx,
                                  ArrayRef<LLVM::GEPArg>{(int32_t)offset});
    return LLVM::LoadOp::create(b, loc, t, p).getResult();
  };
  Value values = loadAt(ptrT, kRunContextSymbolValuesOffset);
  Value count = loadAt(i32, kRunContextNumSymbolValuesOffset);
  ArrayRef<unsigned> indices =
      buckets.empty() ? ArrayRef<unsigned>() : buckets.front().symbolIndices;
  unsigned numSymbols = buckets.empty() ? 1 : buckets.front().numSymbols;
  Value given = LLVM::AndOp::create(
      b, loc, icmp(LLVM::ICmpPredicate::ne, values, null),
      icmp(LLVM::ICmpPredicate::eq, count, constant(i32, numSymbols)));
  LLVM::CondBrOp::create(b, loc, given, valueBB, fallback);
  b.setInsertionPointToEnd(valueBB);
  // Each padded symbol's value.
  SmallVector<Value> n;
  for (unsigned index : indices) {
    Value at = values;
    if (index)
      at = LLVM::GEPOp::create(b, loc, ptrT, i64, values,
                               ArrayRef<LLVM::GEPArg>{(int32_t)index});
    n.push_back(LLVM::LoadOp::create(b, loc, i64, at));
  }
  for (auto &[sizes, name] : entries) {
    Block *run = b.createBlock(&body), *next = b.createBlock(&body);
    b.setInsertionPointToEnd(valueBB);
    Value holds;
    for (auto [v, size] : llvm::zip(n, sizes)) {
      Value fits = icmp(LLVM::ICmpPredicate::sle, v, constant(i64, size));
      holds = holds ? Value(LLVM::AndOp::create(b, loc, holds, fits)) : fits;
    }
    LLVM::CondBrOp::create(b, loc, holds, run, next);
    b.setInsertionPointToEnd(run);
    call(name);
    valueBB = next;
    b.setInsertionPointToEnd(next);
  }
  LLVM::BrOp::create(b, loc, fallback);
  // The descriptor runs the dispatcher.
  bool pointed = false;
  desc.getInitializerRegion().walk([&](LLVM::AddressOfOp addr) {
    if (addr.getGlobalName() == entryName) {
      addr.setGlobalName(dispatch.getName());
      pointed = true;
    }
  });
  if (!pointed)
    return emitError(loc, "internal error: the descriptor does not name '")
           << entryName << "'";
  return success();
}
