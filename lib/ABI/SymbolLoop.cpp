//===- SymbolLoop.cpp - the entry point of a model with symbolic dims -----===//
//
// A model's symbols (hodu.symbols) in its descriptor, and the run of its
// code over them (docs/architecture.md, "Symbolic dims"): a symbol that no
// op mixes (a batch) runs over consecutive chunks of the size the code was
// compiled at, and a symbol that ops mix (a sequence) is padded to its
// bound, its value passed to the code, which masks the padding. A model may
// have one of each: each pass of the batch's loop runs the code once, on
// the caller's buffers where their layout is the code's and on staging
// copies in the workspace where it is not.
//
//===----------------------------------------------------------------------===//

#include "EntryPointLowering.h"

#include <cstddef>
#include <functional>

using namespace mlir;
using namespace hodu;
using hodu::abi::EntryPointLowering;

/// Reads the module's `hodu.symbols` and the entry point's `dims`: where
/// each symbol is in each input and output.
LogicalResult EntryPointLowering::readSymbols() {
  std::string error;
  if (failed(hodu::readSymbols(module, symbols, error)))
    return op.emitError(error);
  if (symbols.empty())
    return success();
  for (auto [i, s] : llvm::enumerate(symbols))
    if (!s.padded)
      chunkedIndex = (int)i;
  for (ArrayAttr list : {op.getInputs(), op.getOutputs()})
    for (Attribute a : list) {
      auto tensor = cast<DictionaryAttr>(a);
      StringRef name = tensor.getAs<StringAttr>("name").getValue();
      auto type =
          cast<RankedTensorType>(tensor.getAs<TypeAttr>("type").getValue());
      TensorSymbols t(symbols.size());
      t.shape.assign(type.getShape().begin(), type.getShape().end());
      t.eltBytes = dtypeSize(*dtypeOf(type.getElementType()));
      if (auto dims = tensor.getAs<ArrayAttr>("dims"))
        for (auto [d, attr] : llvm::enumerate(dims)) {
          StringRef text = cast<StringAttr>(attr).getValue();
          if (text.empty())
            continue;
          auto named = parseSymbolicExtent(text);
          const ChunkedSymbol *sym = nullptr;
          size_t k = 0;
          for (auto [i, s] : llvm::enumerate(symbols))
            if (named && s.name == named->symbol) {
              sym = &s;
              k = i;
            }
          if (!named || !sym ||
              ((named->offset != 0 || named->divisor != 1) && !sym->padded) ||
              (sym->chunk * named->scale) % named->divisor != 0)
            return op.emitError("bad symbolic dim '")
                   << text << "' of '" << name << "'";
          if (t.dim[k] >= 0)
            return op.emitError("dims of '")
                   << name << "' name symbol '" << sym->name << "' twice";
          int64_t extent = named->at(sym->chunk);
          if (t.shape[d] != extent || extent < 1)
            return op.emitError("'")
                   << name << "' must have " << extent << " in dim " << d;
          t.dim[k] = d;
          t.scale[k] = named->scale;
          t.offset[k] = named->offset;
          t.divisor[k] = named->divisor;
        }
      tensorSymbols.push_back(std::move(t));
    }
  return success();
}

uint64_t
EntryPointLowering::planStaging(SmallVectorImpl<std::string> &messages) {
  // A staging copy of each tensor that has a symbol, after the model's own
  // scratch.
  auto alignUp = [](uint64_t v) {
    return (v + HODU_WORKSPACE_ALIGNMENT - 1) / HODU_WORKSPACE_ALIGNMENT *
           HODU_WORKSPACE_ALIGNMENT;
  };
  uint64_t at = alignUp(coreWorkspace);
  for (const TensorSymbols &t : tensorSymbols) {
    stagingOffsets.push_back(t.any() ? at : ~uint64_t(0));
    if (t.any())
      at = alignUp(at + t.bytesAfter(-1));
  }
  symbolCheck = messages.size();
  for (const ChunkedSymbol &s : symbols) {
    std::string bounds = std::to_string(s.min) + ".." +
                         (s.max >= 0 ? std::to_string(s.max) : "");
    messages.push_back(
        "symbol '" + s.name + "': the run gives no value, or one outside " +
        bounds +
        (s.multiple > 1 ? " or not a multiple of " + std::to_string(s.multiple)
                        : std::string()));
  }
  return at;
}

/// The descriptor's `symbols`: one hodu_symbol_desc each.
LLVM::GlobalOp EntryPointLowering::symbolTable() {
  std::string prefix = op.getPrefix().str();
  auto symT = LLVM::LLVMStructType::getLiteral(ctx, {ptrT, i64, i64, i64, i64});
  auto arrT = LLVM::LLVMArrayType::get(symT, symbols.size());
  SmallVector<LLVM::GlobalOp> names;
  for (auto [i, s] : llvm::enumerate(symbols))
    names.push_back(cString(s.name, prefix + "_symbol_name" + Twine(i)));
  return aggregate(arrT, prefix + "_symbols", LLVM::Linkage::Internal,
                   [&]() -> Value {
                     Value arr = LLVM::UndefOp::create(b, loc, arrT);
                     for (auto [i, sym] : llvm::enumerate(symbols)) {
                       Value s = LLVM::UndefOp::create(b, loc, symT);
                       s = insert(s, addressOf(names[i]), 0);
                       s = insert(s, constant(i64, sym.min), 1);
                       s = insert(s, constant(i64, sym.max), 2);
                       s = insert(s, constant(i64, sym.multiple), 3);
                       s = insert(s, constant(i64, sym.chunk), 4);
                       arr = insert(arr, s, i);
                     }
                     return arr;
                   });
}

/// The descriptor's `dynamic_dims`: one hodu_dynamic_dim per symbolic dim
/// of an input or output; their divisors in `divisors`.
LLVM::GlobalOp EntryPointLowering::dynamicDimTable() {
  SmallVector<std::array<int64_t, 6>> rows;
  divisors.clear();
  size_t nIn = op.getInputs().size();
  for (auto [k, t] : llvm::enumerate(tensorSymbols)) {
    int64_t isOutput = k >= nIn, index = isOutput ? k - nIn : k;
    // In dim order, as the runtime lists them.
    for (int64_t d = 0; d < (int64_t)t.shape.size(); ++d)
      if (int k = t.symbolAt(d); k >= 0) {
        rows.push_back({isOutput, index, d, k, t.scale[k], t.offset[k]});
        divisors.push_back(t.divisor[k]);
      }
  }
  if (rows.empty())
    return {};
  auto rowT =
      LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32, i64, i64});
  auto arrT = LLVM::LLVMArrayType::get(rowT, rows.size());
  return aggregate(arrT, op.getPrefix().str() + "_dynamic_dims",
                   LLVM::Linkage::Internal, [&]() -> Value {
                     Value arr = LLVM::UndefOp::create(b, loc, arrT);
                     for (auto [k, row] : llvm::enumerate(rows)) {
                       Value r = LLVM::UndefOp::create(b, loc, rowT);
                       for (int f = 0; f < 6; ++f)
                         r = insert(r, constant(f < 4 ? i32 : i64, row[f]), f);
                       arr = insert(arr, r, k);
                     }
                     return arr;
                   });
}

/// Copies the box of tensor `t` that this pass runs between the caller's
/// buffer and its staging copy: along the chunked symbol, units
/// [off, off + rows) of the caller's and [0, rows) of the copy's; along each
/// padded one, its `scale * n / divisor + offset` real rows; every static dim
/// whole. With `zeros` (an input with a padded dim), the rest of the copy
/// (past the box along each symbolic dim) becomes zeros, each byte written
/// once. With `repeatLast` (an input of a chunk with no padded dim), the
/// copy's units past `rows` repeat the last real one.
void EntryPointLowering::copyBox(const TensorSymbols &t, const Pass &pass,
                                 Value caller, Value stage, bool toStage,
                                 bool repeatLast, bool zeros) {
  int64_t last = *llvm::max_element(t.dim);
  // Per dim up to the last symbolic one: the caller's extent, and the box's
  // start and length along it.
  SmallVector<Value> extent, start, length;
  for (int64_t d = 0; d <= last; ++d) {
    int k = t.symbolAt(d);
    if (k >= 0 && k == chunkedIndex) {
      Value scale = i64c(t.scale[k]);
      extent.push_back(mul(pass.n[k], scale));
      start.push_back(mul(pass.off, scale));
      length.push_back(mul(pass.rows, scale));
    } else if (k >= 0) {
      Value e = mul(pass.n[k], i64c(t.scale[k]));
      if (t.divisor[k] != 1)
        e = LLVM::SDivOp::create(b, loc, e, i64c(t.divisor[k]));
      e = add(e, i64c(t.offset[k]));
      extent.push_back(e);
      start.push_back(i64c(0));
      length.push_back(e);
    } else {
      extent.push_back(i64c(t.shape[d]));
      start.push_back(Value());
      length.push_back(Value());
    }
  }
  // Byte strides: the caller's from the run's extents, the copy's static.
  uint64_t rowBytes = t.bytesAfter(last);
  SmallVector<Value> callerStride(last + 1);
  callerStride[last] = i64c(rowBytes);
  for (int64_t d = last - 1; d >= 0; --d)
    callerStride[d] = mul(callerStride[d + 1], extent[d + 1]);
  // The loops: one per symbolic dim, one per run of static dims.
  struct Level {
    Value count, start, callerStride;
    int64_t stageStride, stageCount; // the copy's stride and extent
  };
  SmallVector<Level> levels;
  for (int64_t d = 0; d < last; ++d) {
    if (start[d]) {
      levels.push_back({length[d], start[d], callerStride[d],
                        (int64_t)t.bytesAfter(d), t.shape[d]});
      continue;
    }
    int64_t count = t.shape[d];
    while (d + 1 < last && !start[d + 1])
      count *= t.shape[++d];
    if (count != 1)
      levels.push_back({i64c(count), Value(), callerStride[d],
                        (int64_t)t.bytesAfter(d), count});
  }
  // for (i = from; i < to; ++i) body(i), at the insertion point.
  auto loop = [&](Value from, Value to, llvm::function_ref<void(Value)> body) {
    Block *head = newBlock({i64}), *inner = newBlock(), *done = newBlock();
    LLVM::BrOp::create(b, loc, ValueRange{from}, head);
    b.setInsertionPointToStart(head);
    Value i = head->getArgument(0);
    LLVM::CondBrOp::create(b, loc, icmp(LLVM::ICmpPredicate::slt, i, to), inner,
                           done);
    b.setInsertionPointToStart(inner);
    body(i);
    LLVM::BrOp::create(b, loc, ValueRange{add(i, i64c(1))}, head);
    b.setInsertionPointToStart(done);
  };
  // With zeros: the copy's blocks `count` .. `extent` of `stride` bytes at
  // `at` (what the box leaves along a symbolic dim) become zeros.
  auto zeroFrom = [&](Value at, Value count, int64_t extent, int64_t stride) {
    Value from = mul(count, i64c(stride));
    LLVM::MemsetOp::create(
        b, loc, gep(at, from),
        LLVM::ConstantOp::create(b, loc, b.getI8Type(), b.getI8IntegerAttr(0)),
        LLVM::SubOp::create(b, loc, i64c(extent * stride), from),
        /*isVolatile=*/false);
  };
  std::function<void(size_t, Value, Value)> emit = [&](size_t level,
                                                       Value callerAt,
                                                       Value stageAt) {
    if (level == levels.size()) {
      Value src = gep(callerAt, mul(start[last], callerStride[last]));
      Value bytes = mul(length[last], i64c(rowBytes));
      if (toStage)
        LLVM::MemcpyOp::create(b, loc, stageAt, src, bytes,
                               /*isVolatile=*/false);
      else
        LLVM::MemcpyOp::create(b, loc, src, stageAt, bytes,
                               /*isVolatile=*/false);
      if (zeros)
        zeroFrom(stageAt, length[last], t.shape[last], rowBytes);
      if (!repeatLast)
        return;
      // Units rows .. chunk repeat the last one (none for a full chunk).
      Value unit = i64c(t.scale[chunkedIndex] * rowBytes);
      Value lastUnit =
          gep(src, mul(LLVM::SubOp::create(b, loc, pass.rows, i64c(1)), unit));
      loop(pass.rows, i64c(symbols[chunkedIndex].chunk), [&](Value r) {
        LLVM::MemcpyOp::create(b, loc, gep(stageAt, mul(r, unit)), lastUnit,
                               unit, /*isVolatile=*/false);
      });
      return;
    }
    const Level &l = levels[level];
    loop(i64c(0), l.count, [&](Value i) {
      Value at = l.start ? add(l.start, i) : i;
      emit(level + 1, gep(callerAt, mul(at, l.callerStride)),
           gep(stageAt, mul(i, i64c(l.stageStride))));
    });
    if (zeros && l.start)
      zeroFrom(stageAt, l.count, l.stageCount, l.stageStride);
  };
  emit(0, caller, stage);
}

/// The run over the symbols: their values n from ctx (each checked against
/// its bounds, else its check "symbol values"), then for each chunk of the
/// chunked symbol (one pass when there is none) the model's code, with the
/// padded symbols' values as its hidden arguments after the inputs. A
/// tensor's chunk is the caller's buffer itself where its layout is the
/// code's (a full chunk of a tensor whose dims before the chunked one are
/// 1, the padded symbols at their bounds); else a staging copy in the
/// workspace: zeros past each padded symbol's value (the code masks them),
/// and past a partial chunk the last real unit repeated (zeros where the
/// tensor also has the padded symbol). Branches to `exit` with the return
/// code.
void EntryPointLowering::buildSymbolLoop(LLVM::LLVMFuncOp impl,
                                         ArrayRef<Value> pointers,
                                         Value workspace, Value status,
                                         bool passStatus, Value ctxArg,
                                         Block *exit) {
  Value null = LLVM::ZeroOp::create(b, loc, ptrT);
  Value badSymbols = constant(i32, 2 + symbolCheck);
  // The values: ctx, its struct_size, the count and the array.
  Block *sizeBB = newBlock(), *fieldsBB = newBlock(), *valueBB = newBlock();
  LLVM::CondBrOp::create(b, loc, icmp(LLVM::ICmpPredicate::eq, ctxArg, null),
                         exit, ValueRange{badSymbols}, sizeBB, ValueRange{});
  b.setInsertionPointToStart(sizeBB);
  constexpr int64_t kSymbolFieldsEnd =
      offsetof(hodu_run_context, num_symbol_values) +
      sizeof(hodu_run_context::num_symbol_values);
  Value structSize = LLVM::LoadOp::create(b, loc, i32, ctxArg);
  LLVM::CondBrOp::create(b, loc,
                         icmp(LLVM::ICmpPredicate::uge, structSize,
                              constant(i32, kSymbolFieldsEnd)),
                         fieldsBB, ValueRange{}, exit, ValueRange{badSymbols});
  b.setInsertionPointToStart(fieldsBB);
  Value values =
      loadAt(ptrT, ctxArg, offsetof(hodu_run_context, symbol_values));
  Value count =
      loadAt(i32, ctxArg, offsetof(hodu_run_context, num_symbol_values));
  Value given = andOf(icmp(LLVM::ICmpPredicate::ne, values, null),
                      icmp(LLVM::ICmpPredicate::eq, count,
                           constant(i32, (int64_t)symbols.size())));
  LLVM::CondBrOp::create(b, loc, given, valueBB, ValueRange{}, exit,
                         ValueRange{badSymbols});
  b.setInsertionPointToStart(valueBB);
  Pass pass;
  pass.n.resize(symbols.size());
  for (auto [i, sym] : llvm::enumerate(symbols)) {
    Value at =
        i ? Value(LLVM::GEPOp::create(b, loc, ptrT, i64, values,
                                      ArrayRef<LLVM::GEPArg>{(int32_t)i}))
          : values;
    Value n = LLVM::LoadOp::create(b, loc, i64, at);
    Value ok = icmp(LLVM::ICmpPredicate::sge, n, i64c(sym.min));
    if (sym.max >= 0)
      ok = andOf(ok, icmp(LLVM::ICmpPredicate::sle, n, i64c(sym.max)));
    if (sym.multiple > 1)
      ok = andOf(ok, icmp(LLVM::ICmpPredicate::eq,
                          LLVM::SRemOp::create(b, loc, n, i64c(sym.multiple)),
                          i64c(0)));
    Block *next = newBlock();
    LLVM::CondBrOp::create(b, loc, ok, next, ValueRange{}, exit,
                           ValueRange{constant(i32, 2 + symbolCheck + i)});
    b.setInsertionPointToStart(next);
    pass.n[i] = n;
  }

  // for (off = 0; off < n; off += chunk); one pass without a chunked
  // symbol (a padded one's n = 0 too: outputs of `past + 1`).
  bool chunked = chunkedIndex >= 0;
  int64_t chunk = chunked ? symbols[chunkedIndex].chunk : 1;
  Value limit = chunked ? pass.n[chunkedIndex] : i64c(1);
  // The padded symbols' values for the code: after the inputs.
  SmallVector<Value> valueSlots;
  for (auto [i, sym] : llvm::enumerate(symbols))
    if (sym.padded) {
      valueSlots.push_back(LLVM::AllocaOp::create(b, loc, ptrT, i64, i64c(1),
                                                  /*alignment=*/8));
      LLVM::StoreOp::create(b, loc, pass.n[i], valueSlots.back());
    }
  Block *headBB = newBlock({i64}), *bodyBB = newBlock();
  LLVM::BrOp::create(b, loc, ValueRange{i64c(0)}, headBB);
  b.setInsertionPointToStart(headBB);
  pass.off = headBB->getArgument(0);
  LLVM::CondBrOp::create(
      b, loc, icmp(LLVM::ICmpPredicate::slt, pass.off, limit), bodyBB,
      ValueRange{}, exit, ValueRange{constant(i32, 0)});
  b.setInsertionPointToStart(bodyBB);
  Value chunkFull;
  if (chunked) {
    Value left = LLVM::SubOp::create(b, loc, pass.n[chunkedIndex], pass.off);
    chunkFull = icmp(LLVM::ICmpPredicate::sge, left, i64c(chunk));
    pass.rows = LLVM::SelectOp::create(b, loc, chunkFull, i64c(chunk), left);
  } else {
    pass.rows = i64c(1);
  }
  // Whether each padded symbol is at its bound.
  SmallVector<Value> padFull(symbols.size());
  for (auto [i, sym] : llvm::enumerate(symbols))
    if (sym.padded)
      padFull[i] = icmp(LLVM::ICmpPredicate::eq, pass.n[i], i64c(sym.max));
  // Per tensor: whether this pass runs on the caller's buffer (null: never,
  // its chunks are strided), and where in it.
  size_t nIn = op.getInputs().size();
  SmallVector<Value> direct(tensorSymbols.size()),
      directAt(tensorSymbols.size());
  for (auto [k, t] : llvm::enumerate(tensorSymbols)) {
    if (!t.any())
      continue;
    Value cond;
    auto both = [&](Value c) { cond = cond ? andOf(cond, c) : c; };
    Value at = pointers[k];
    if (chunked && t.dim[chunkedIndex] >= 0) {
      int64_t d = t.dim[chunkedIndex];
      if (t.outer(d) != 1)
        continue;
      both(chunkFull);
      at =
          gep(at, mul(pass.off, i64c(t.scale[chunkedIndex] * t.bytesAfter(d))));
    }
    for (auto [i, d] : llvm::enumerate(t.dim))
      if (d >= 0 && padFull[i])
        both(padFull[i]);
    direct[k] = cond;
    directAt[k] = at;
  }
  auto stageOf = [&](size_t k) {
    return gep(workspace, i64c(stagingOffsets[k]));
  };
  // Inputs: the caller's buffer, or a staging copy.
  SmallVector<Value> args;
  for (size_t k = 0; k < pointers.size(); ++k) {
    if (k == nIn)
      args.append(valueSlots);
    const TensorSymbols &t = tensorSymbols[k];
    if (!t.any()) {
      args.push_back(pointers[k]);
      continue;
    }
    if (k >= nIn) {
      args.push_back(direct[k]
                         ? Value(LLVM::SelectOp::create(
                               b, loc, direct[k], directAt[k], stageOf(k)))
                         : stageOf(k));
      continue;
    }
    auto stage = [&]() {
      copyBox(t, pass, pointers[k], stageOf(k), /*toStage=*/true,
              /*repeatLast=*/!hasPaddedDim(t),
              /*zeros=*/hasPaddedDim(t));
    };
    if (!direct[k]) {
      stage();
      args.push_back(stageOf(k));
      continue;
    }
    Block *stageBB = newBlock(), *joinBB = newBlock({ptrT});
    LLVM::CondBrOp::create(b, loc, direct[k], joinBB, ValueRange{directAt[k]},
                           stageBB, ValueRange{});
    b.setInsertionPointToStart(stageBB);
    stage();
    LLVM::BrOp::create(b, loc, ValueRange{stageOf(k)}, joinBB);
    b.setInsertionPointToStart(joinBB);
    args.push_back(joinBB->getArgument(0));
  }
  if (coreWorkspace)
    args.push_back(workspace);
  if (passStatus)
    args.push_back(status);
  LLVM::CallOp::create(b, loc, impl, args);
  Value code = passStatus ? Value(LLVM::LoadOp::create(b, loc, i32, status))
                          : constant(i32, 0);
  Block *afterBB = newBlock();
  LLVM::CondBrOp::create(b, loc,
                         icmp(LLVM::ICmpPredicate::ne, code, constant(i32, 0)),
                         exit, ValueRange{code}, afterBB, ValueRange{});
  // Outputs staged in this pass back into the caller's buffers.
  b.setInsertionPointToStart(afterBB);
  for (size_t k = nIn; k < pointers.size(); ++k) {
    const TensorSymbols &t = tensorSymbols[k];
    if (!t.any())
      continue;
    Block *nextBB = nullptr;
    if (direct[k]) {
      Block *copyBB = newBlock();
      nextBB = newBlock();
      LLVM::CondBrOp::create(b, loc, direct[k], nextBB, copyBB);
      b.setInsertionPointToStart(copyBB);
    }
    copyBox(t, pass, pointers[k], stageOf(k), /*toStage=*/false,
            /*repeatLast=*/false, /*zeros=*/false);
    if (nextBB) {
      LLVM::BrOp::create(b, loc, nextBB);
      b.setInsertionPointToStart(nextBB);
    }
  }
  LLVM::BrOp::create(b, loc, ValueRange{add(pass.off, i64c(chunk))}, headBB);
}

/// The descriptor's `dynamic_dim_divisors` (ABI version 3): null when every
/// divisor is 1, which an artifact of version 2 says by not having them.
LLVM::GlobalOp EntryPointLowering::divisorTable() {
  if (llvm::all_of(divisors, [](int64_t d) { return d == 1; }))
    return {};
  return global(LLVM::LLVMArrayType::get(i64, divisors.size()),
                op.getPrefix().str() + "_dynamic_dim_divisors",
                DenseElementsAttr::get(
                    RankedTensorType::get({(int64_t)divisors.size()}, i64),
                    ArrayRef<int64_t>(divisors)));
}
