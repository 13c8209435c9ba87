//===- Bundle.cpp - writing bundles (runtime/include/hodu/bundle.h) -------===//
//
// The file is assembled in memory, then written through an OutputFile: the
// header, the section table, and the sections at 64-byte boundaries. Every
// record is one of bundle.h's structs, whose sizes are checked here as the
// runtime checks them, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Bundle.h"

#include "hodu/Dialect/Hodu/Symbols.h"
#include "hodu/Support/DType.h"
#include "hodu/Support/Output.h"
#include "hodu/bundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <type_traits>
#include <unordered_map>

using namespace mlir;
using namespace hodu;
using namespace hodu::gpu;

static_assert(sizeof(hodu_bundle_header) == 40, "bundle.h layout");
static_assert(sizeof(hodu_bundle_section) == 24, "bundle.h layout");
static_assert(sizeof(hodu_bundle_model) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_device) == 24, "bundle.h layout");
static_assert(sizeof(hodu_bundle_tensor) == 40, "bundle.h layout");
static_assert(sizeof(hodu_bundle_code) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_kernel) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_step) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_arg) == 24, "bundle.h layout");
static_assert(sizeof(hodu_bundle_symbol) == 48, "bundle.h layout");
static_assert(sizeof(hodu_bundle_dynamic_dim) == 40, "bundle.h layout");
static_assert(sizeof(hodu_bundle_variant) == 16, "bundle.h layout");
static_assert(offsetof(hodu_bundle_tensor, bytes) == 24, "bundle.h layout");
static_assert(offsetof(hodu_bundle_arg, offset) == 8, "bundle.h layout");
// The records are written as they are in memory: the format is
// little-endian.
static_assert(llvm::endianness::native == llvm::endianness::little,
              "bundles are written on little-endian hosts only");

ArtifactKind hodu::gpu::bundleArtifactKind() {
  return {"bundle", {"hodu"}, ".hodu", "", false,
          "a bundle: the device code, the launch plan and the weights in "
          "one file that libhodurt loads (docs/bundle.md)"};
}

namespace {

/// STRINGS: deduplicated, offset 0 is "".
class StringTable {
public:
  StringTable() { data.push_back('\0'); }
  hodu_bundle_string add(StringRef s) {
    if (s.empty())
      return 0;
    auto [it, inserted] = offsets.try_emplace(s, data.size());
    if (inserted) {
      data.append(s.begin(), s.end());
      data.push_back('\0');
    }
    return it->second;
  }
  std::string data;

private:
  llvm::StringMap<uint32_t> offsets;
};

template <typename T> std::string bytesOf(const std::vector<T> &records) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::string out(records.size() * sizeof(T), '\0');
  if (!records.empty())
    std::memcpy(out.data(), records.data(), out.size());
  return out;
}

struct Section {
  uint32_t kind, entrySize;
  std::string bytes;
};

/// The header, the table and the sections, each section 64-byte aligned.
std::string layOut(std::vector<Section> sections) {
  uint64_t tableOffset = sizeof(hodu_bundle_header);
  uint64_t at = tableOffset + sections.size() * sizeof(hodu_bundle_section);
  std::vector<hodu_bundle_section> table;
  for (const Section &s : sections) {
    at = llvm::alignTo(at, HODU_BUNDLE_SECTION_ALIGNMENT);
    table.push_back({s.kind, s.entrySize, at, s.bytes.size()});
    at += s.bytes.size();
  }
  hodu_bundle_header header{};
  std::memcpy(header.magic, HODU_BUNDLE_MAGIC, HODU_BUNDLE_MAGIC_SIZE);
  header.version_major = HODU_BUNDLE_VERSION_MAJOR;
  header.version_minor = HODU_BUNDLE_VERSION_MINOR;
  header.header_size = sizeof(hodu_bundle_header);
  header.file_size = at;
  header.section_table_offset = tableOffset;
  header.section_count = sections.size();
  header.section_entry_size = sizeof(hodu_bundle_section);

  std::string file(at, '\0');
  std::memcpy(file.data(), &header, sizeof header);
  std::memcpy(file.data() + tableOffset, table.data(),
              table.size() * sizeof(hodu_bundle_section));
  for (auto [s, entry] : llvm::zip(sections, table))
    std::memcpy(file.data() + entry.offset, s.bytes.data(), s.bytes.size());
  return file;
}

} // namespace

namespace {

/// The records of one bundle, filled in by the writers below, then laid out.
struct BundleBuilder {
  StringTable strings;
  hodu_bundle_model model{};
  std::vector<hodu_bundle_device> devices;
  std::vector<int64_t> dims;
  std::vector<hodu_bundle_tensor> tensors;
  std::vector<hodu_bundle_code> codes;
  std::vector<hodu_bundle_kernel> kernels;
  std::vector<hodu_bundle_step> steps;
  std::vector<hodu_bundle_arg> args;
  std::vector<hodu_bundle_symbol> symbols;
  std::vector<hodu_bundle_dynamic_dim> dynamicDims;
  std::vector<hodu_bundle_variant> variants;
  std::vector<hodu_bundle_step> variantSteps;
  std::string weights, blobs;
  llvm::StringMap<uint32_t> kernelIndex;

  void addTensor(const TensorSignature &t, uint32_t device, uint64_t init) {
    hodu_bundle_tensor r{};
    r.name = strings.add(t.name);
    r.dtype = t.dtype;
    r.rank = t.shape.size();
    r.first_dim = dims.size();
    r.device = device;
    uint64_t bytes = dtypeSize(t.dtype);
    for (int64_t d : t.shape) {
      dims.push_back(d);
      bytes *= static_cast<uint64_t>(d);
    }
    r.bytes = bytes;
    r.init = init;
    tensors.push_back(r);
  }

  /// Appends `bytes` to WEIGHTS at the next aligned offset; returns it.
  uint64_t addWeights(StringRef bytes) {
    uint64_t offset =
        llvm::alignTo(weights.size(), HODU_BUNDLE_BUFFER_ALIGNMENT);
    weights.resize(offset, '\0');
    weights += bytes;
    return offset;
  }

  void addCode(uint32_t device, const CodeObject &c) {
    uint64_t offset = llvm::alignTo(blobs.size(), HODU_BUNDLE_SECTION_ALIGNMENT);
    blobs.resize(offset, '\0');
    blobs += c.bytes;
    codes.push_back({device, c.format, strings.add(c.arch), 0, offset,
                     c.bytes.size()});
  }

  uint32_t kernel(StringRef name, uint32_t device,
                  std::array<uint32_t, 3> block, uint32_t numArgs) {
    auto [it, inserted] = kernelIndex.try_emplace(name, kernels.size());
    if (inserted)
      kernels.push_back({strings.add(name),
                         device,
                         {block[0], block[1], block[2]},
                         numArgs,
                         0,
                         0});
    return it->second;
  }

  void step(uint32_t op, uint32_t device, uint32_t kernel,
            std::array<uint32_t, 3> grid, ArrayRef<hodu_bundle_arg> stepArgs,
            std::vector<hodu_bundle_step> *into = nullptr) {
    (into ? *into : steps)
        .push_back({op,
                    device,
                    kernel,
                    {grid[0], grid[1], grid[2]},
                    static_cast<uint32_t>(args.size()),
                    static_cast<uint32_t>(stepArgs.size())});
    args.insert(args.end(), stepArgs.begin(), stepArgs.end());
  }

  std::string layOutFile() {
    std::vector<Section> sections = {
        {HODU_BUNDLE_SECTION_STRINGS, 1, ""},
        {HODU_BUNDLE_SECTION_MODEL, sizeof(hodu_bundle_model),
         bytesOf(std::vector<hodu_bundle_model>{model})},
        {HODU_BUNDLE_SECTION_DEVICES, sizeof(hodu_bundle_device),
         bytesOf(devices)},
        {HODU_BUNDLE_SECTION_TENSORS, sizeof(hodu_bundle_tensor),
         bytesOf(tensors)},
        {HODU_BUNDLE_SECTION_DIMS, sizeof(int64_t), bytesOf(dims)},
        {HODU_BUNDLE_SECTION_CODE, sizeof(hodu_bundle_code), bytesOf(codes)},
        {HODU_BUNDLE_SECTION_KERNELS, sizeof(hodu_bundle_kernel),
         bytesOf(kernels)},
        {HODU_BUNDLE_SECTION_STEPS, sizeof(hodu_bundle_step), bytesOf(steps)},
        {HODU_BUNDLE_SECTION_ARGS, sizeof(hodu_bundle_arg), bytesOf(args)},
        {HODU_BUNDLE_SECTION_WEIGHTS, 1, weights},
        {HODU_BUNDLE_SECTION_BLOBS, 1, blobs},
    };
    // Minor 1's sections, only where there is a symbol: a static model's
    // bundle stays what minor 0 wrote.
    if (!symbols.empty()) {
      sections.push_back({HODU_BUNDLE_SECTION_SYMBOLS,
                          sizeof(hodu_bundle_symbol), bytesOf(symbols)});
      sections.push_back({HODU_BUNDLE_SECTION_DYNAMIC_DIMS,
                          sizeof(hodu_bundle_dynamic_dim),
                          bytesOf(dynamicDims)});
    }
    // Minor 6's, only where a padded symbol has variants.
    if (!variants.empty()) {
      sections.push_back({HODU_BUNDLE_SECTION_VARIANTS,
                          sizeof(hodu_bundle_variant), bytesOf(variants)});
      sections.push_back({HODU_BUNDLE_SECTION_VARIANT_STEPS,
                          sizeof(hodu_bundle_step), bytesOf(variantSteps)});
    }
    // Every string is in the table only now.
    sections.front().bytes = strings.data;
    return layOut(std::move(sections));
  }

  /// Names the plugin device `name` in DEVICES (SerializeRequest::
  /// pluginDevice): the CPU device when `host` (the plan must use no other
  /// device, which is dropped), else every accelerator device.
  LogicalResult namePluginDevice(StringRef name, bool host, Location loc) {
    if (name.empty())
      return success();
    if (host) {
      auto elsewhere = [](uint32_t device) { return device != 0; };
      bool used =
          llvm::any_of(codes, [&](auto &c) { return elsewhere(c.device); }) ||
          llvm::any_of(kernels, [&](auto &k) { return elsewhere(k.device); }) ||
          llvm::any_of(steps, [&](auto &s) { return elsewhere(s.device); }) ||
          llvm::any_of(tensors, [&](auto &t) { return elsewhere(t.device); }) ||
          llvm::any_of(args, [&](auto &a) {
            return (a.space == HODU_SPACE_ARENA ||
                    a.space == HODU_SPACE_WEIGHTS) &&
                   elsewhere(a.index);
          });
      if (devices.empty() || devices[0].kind != HODU_DEVICE_CPU || used)
        return emitError(loc, "internal error: device '")
               << name
               << "' runs host code, but the plan is not all on "
                  "the CPU";
      devices.resize(1);
      devices[0].kind = HODU_DEVICE_PLUGIN;
      devices[0].name = strings.add(name);
      return success();
    }
    for (hodu_bundle_device &d : devices)
      if (d.kind != HODU_DEVICE_CPU) {
        d.kind = HODU_DEVICE_PLUGIN;
        d.name = strings.add(name);
      }
    return success();
  }

  LogicalResult write(StringRef path, Location loc) {
    OutputFile out(path.str());
    return success(succeeded(out.open(loc)) &&
                   succeeded(out.write(layOutFile(), loc)) &&
                   succeeded(out.commit(loc)));
  }
};

/// SYMBOLS and DYNAMIC_DIMS from the signature: each symbol (a padded one
/// with the meta slot of its value), and for each input and output dim
/// that is one ("batch", "4*batch", "past+1", "samples/4-1"), its record.
/// The tensors are TENSORS' first inputs and outputs, in order.
LogicalResult addSymbols(const EntrySignature &sig, size_t regular,
                         Location loc, BundleBuilder &b) {
  for (const EntrySignature::Symbol &s : sig.symbols) {
    hodu_bundle_symbol symbol = {
        b.strings.add(s.name), 0, s.min, s.max, s.multiple, s.chunk, 0, 0};
    if (s.padded) {
      // The meta slot the kernels read the value from.
      auto slot = llvm::find_if(sig.inputs, [&](const TensorSignature &t) {
        return t.symbolValue == s.name;
      });
      size_t index = slot - sig.inputs.begin();
      if (slot == sig.inputs.end() || index < regular)
        return emitError(loc, "internal error: padded symbol '")
               << s.name << "' has no meta slot for its value";
      symbol.flags = HODU_BUNDLE_SYMBOL_PADDED;
      symbol.value_slot = static_cast<uint32_t>(index - regular);
    }
    b.symbols.push_back(symbol);
  }
  auto add = [&](const TensorSignature &t, uint32_t tensor) -> LogicalResult {
    for (auto [d, text] : llvm::enumerate(t.dims)) {
      if (text.empty())
        continue;
      std::optional<SymbolicExtent> e = parseSymbolicExtent(text);
      auto known = e ? llvm::find_if(sig.symbols,
                                     [&](const EntrySignature::Symbol &s) {
                                       return s.name == e->symbol;
                                     })
                     : sig.symbols.end();
      if (known == sig.symbols.end() ||
          (!known->padded && (e->offset != 0 || e->divisor != 1)))
        return emitError(loc, "internal error: '")
               << t.name << "' dim " << d << " is '" << text
               << "', not an extent of one of the model's symbols";
      b.dynamicDims.push_back(
          {tensor, static_cast<uint32_t>(d),
           static_cast<uint32_t>(known - sig.symbols.begin()), 0, e->scale,
           e->offset, e->divisor});
    }
    return success();
  };
  for (size_t i = 0; i < regular; ++i)
    if (failed(add(sig.inputs[i], i)))
      return failure();
  for (auto [o, t] : llvm::enumerate(sig.outputs))
    if (failed(add(t, regular + o)))
      return failure();
  return success();
}

/// VARIANTS and VARIANT_STEPS: each function mergeVariant marked, read as
/// a plan over the bound's tensors. Inputs, outputs and meta slots are
/// passed whole, as in STEPS (a variant reads the prefix its sizes lay
/// out); its weights are the bound's where the bytes are equal, the rest
/// appended; the device's arena holds the largest plan's.
LogicalResult addVariants(ModuleOp module, const EntrySignature &sig,
                          size_t regular, BundleBuilder &b) {
  // The bound's weights by content, each weight once however many steps
  // read it.
  std::unordered_multimap<size_t, uint64_t> weightAt;
  DenseSet<uint64_t> remembered;
  auto bytesAt = [&](uint64_t offset, uint64_t size) {
    return StringRef(b.weights).substr(offset, size);
  };
  auto remember = [&](uint64_t offset, uint64_t size) {
    if (remembered.insert(offset).second)
      weightAt.emplace(llvm::hash_value(bytesAt(offset, size)), offset);
  };
  for (const hodu_bundle_arg &a : b.args)
    if (a.space == HODU_SPACE_WEIGHTS)
      remember(a.offset, a.size);
  auto weightOf = [&](StringRef bytes) {
    auto [first, last] = weightAt.equal_range(llvm::hash_value(bytes));
    for (auto it = first; it != last; ++it)
      if (bytesAt(it->second, bytes.size()) == bytes)
        return it->second;
    uint64_t offset = b.addWeights(bytes);
    remember(offset, bytes.size());
    return offset;
  };
  for (auto fn : module.getOps<func::FuncOp>()) {
    auto sizes = fn->getAttrOfType<DenseI64ArrayAttr>(kVariantSizesAttr);
    if (!sizes)
      continue;
    if (sizes.size() != static_cast<int64_t>(sig.symbols.size()))
      return fn.emitError("internal error: a variant with ")
             << sizes.size() << " sizes for " << sig.symbols.size()
             << " symbols";
    FailureOr<LaunchPlan> plan =
        buildLaunchPlan(module, fn.getName(), sig.inputs.size(),
                        sig.outputs.size(), sig.numMetaSlots);
    if (failed(plan))
      return failure();
    // Where each of the variant's weights went (a weight read by several
    // steps is looked up once).
    DenseMap<uint64_t, uint64_t> placed;
    hodu_bundle_variant record{};
    record.first_step = b.variantSteps.size();
    record.first_size = b.dims.size();
    for (auto [k, size] : llvm::enumerate(sizes.asArrayRef()))
      b.dims.push_back(size >= 0 ? size : sig.symbols[k].chunk);
    b.devices[0].arena_size =
        std::max(b.devices[0].arena_size, plan->arenaSize);
    for (const PlanStep &s : plan->steps) {
      SmallVector<hodu_bundle_arg> stepArgs;
      for (const PlanArg &a : s.args) {
        hodu_bundle_arg r = {a.space, 0, a.offset, a.size};
        if (a.space == HODU_SPACE_WEIGHTS) {
          auto [it, fresh] = placed.try_emplace(a.offset, 0);
          if (fresh)
            it->second =
                weightOf(StringRef(plan->weights).substr(a.offset, a.size));
          r.offset = it->second;
        } else if (a.space != HODU_SPACE_ARENA) {
          size_t tensor = a.index + (a.space == HODU_SPACE_INPUT ? 0
                                     : a.space == HODU_SPACE_OUTPUT
                                         ? regular
                                         : regular + sig.outputs.size());
          if (tensor >= b.tensors.size() || a.offset != 0 ||
              a.size > b.tensors[tensor].bytes)
            return fn.emitError("internal error: the variant passes ")
                   << a.size << " bytes of a tensor the bound's plan "
                   << "passes in fewer";
          r.index = a.index;
          r.size = b.tensors[tensor].bytes;
        }
        stepArgs.push_back(r);
      }
      uint32_t k = 0;
      if (s.op == HODU_STEP_LAUNCH) {
        const PlanKernel &kernel = plan->kernels[s.kernel];
        k = b.kernel(kernel.name, 0, kernel.block, kernel.numArgs);
      }
      b.step(s.op, 0, k, s.grid, stepArgs, &b.variantSteps);
    }
    record.num_steps = b.variantSteps.size() - record.first_step;
    b.variants.push_back(record);
  }
  return success();
}

hodu_bundle_arg argOf(const PlanArg &a) {
  return {a.space, a.index, a.offset, a.size};
}

/// A model split between the CPU (device 0: inputs, outputs, the schedule's
/// host calls into its shared library) and the accelerator (device 1: the
/// partition functions' launch plans, one after the other through one
/// scratch region of its arena), joined by TRANSFER steps.
LogicalResult writeHeterogeneous(ModuleOp module,
                                 const SerializeRequest &request,
                                 uint32_t deviceKind,
                                 ArrayRef<CodeObject> code, BundleBuilder &b) {
  Location loc = module.getLoc();
  const Schedule &s = *request.schedule;
  const uint32_t host = 0, accel = 1;

  // Where each value of the schedule lives.
  struct Place {
    bool placed = false;
    uint32_t device = 0;
    hodu_bundle_arg arg{};
  };
  std::vector<Place> where(s.values.size());
  // The last inputs are the meta slots (the session's, on the host).
  size_t regular = s.inputs.size() - request.signature.numMetaSlots;
  for (auto [k, v] : llvm::enumerate(s.inputs))
    where[v] = {true, host,
                k < regular ? hodu_bundle_arg{HODU_SPACE_INPUT,
                                              static_cast<uint32_t>(k), 0,
                                              s.values[v].bytes}
                            : hodu_bundle_arg{HODU_SPACE_META,
                                              static_cast<uint32_t>(k - regular),
                                              0, s.values[v].bytes}};
  // A value returned is produced into its output buffer when it is the
  // first output it is and not a model input; the rest are copied there.
  DenseMap<unsigned, uint32_t> outputSlot;
  for (auto [j, v] : llvm::enumerate(s.outputs))
    if (!outputSlot.count(v) && !llvm::is_contained(s.inputs, v))
      outputSlot[v] = j;
  uint64_t hostArena = 0, accelSchedule = 0;
  auto place = [&](unsigned v, uint32_t device) {
    Place &p = where[v];
    p.placed = true;
    p.device = device;
    uint64_t bytes = s.values[v].bytes;
    auto slot = outputSlot.find(v);
    if (device == host && slot != outputSlot.end()) {
      p.arg = {HODU_SPACE_OUTPUT, slot->second, 0, bytes};
      return;
    }
    uint64_t &top = device == host ? hostArena : accelSchedule;
    uint64_t offset = llvm::alignTo(top, HODU_BUNDLE_BUFFER_ALIGNMENT);
    top = offset + std::max<uint64_t>(bytes, 1);
    p.arg = {HODU_SPACE_ARENA, device, offset, bytes};
  };

  // Each accelerator partition's plan, and the scratch they share.
  llvm::StringMap<LaunchPlan> plans;
  llvm::StringMap<uint64_t> weightBase;
  uint64_t scratch = 0;
  for (const ScheduleStep &step : s.steps) {
    if (step.transfer || step.host || plans.count(step.callee))
      continue;
    FailureOr<LaunchPlan> plan = buildLaunchPlan(
        module, step.callee, step.operands.size(), step.results.size());
    if (failed(plan))
      return failure();
    weightBase[step.callee] = b.addWeights(plan->weights);
    scratch = std::max(scratch, plan->arenaSize);
    plans[step.callee] = std::move(*plan);
  }
  for (const ScheduleStep &step : s.steps)
    for (unsigned r : step.results)
      place(r, step.transfer ? (step.to == "cpu" ? host : accel)
                             : (step.host ? host : accel));
  uint64_t scratchBase =
      llvm::alignTo(accelSchedule, HODU_BUNDLE_BUFFER_ALIGNMENT);

  for (const ScheduleStep &step : s.steps) {
    if (step.transfer) {
      const Place &from = where[step.operands[0]], &to = where[step.results[0]];
      b.step(HODU_STEP_TRANSFER, accel, 0, {1, 1, 1}, {from.arg, to.arg});
      continue;
    }
    SmallVector<hodu_bundle_arg> operands;
    for (unsigned v : llvm::concat<const unsigned>(step.operands, step.results))
      operands.push_back(where[v].arg);
    if (step.host) {
      uint32_t k = b.kernel(step.hostSymbol, host, {1, 1, 1}, operands.size());
      b.step(HODU_STEP_HOST_CALL, host, k, {1, 1, 1}, operands);
      continue;
    }
    const LaunchPlan &plan = plans[step.callee];
    uint64_t weights = weightBase[step.callee];
    for (const PlanStep &ps : plan.steps) {
      SmallVector<hodu_bundle_arg> remapped;
      for (const PlanArg &a : ps.args) {
        hodu_bundle_arg r = argOf(a);
        switch (a.space) {
        case HODU_SPACE_INPUT:
          r = operands[a.index];
          break;
        case HODU_SPACE_OUTPUT:
          r = operands[step.operands.size() + a.index];
          break;
        case HODU_SPACE_ARENA:
          r.index = accel;
          r.offset += scratchBase;
          break;
        case HODU_SPACE_WEIGHTS:
          r.index = accel;
          r.offset += weights;
          break;
        default:
          return emitError(loc, "internal error: a partition's plan uses "
                                "buffer space ")
                 << a.space;
        }
        if (r.size != a.size)
          return emitError(loc, "internal error: partition @")
                 << step.callee << " passes " << a.size
                 << " bytes where the schedule has " << r.size;
        remapped.push_back(r);
      }
      uint32_t k = 0;
      if (ps.op == HODU_STEP_LAUNCH) {
        const PlanKernel &kernel = plan.kernels[ps.kernel];
        k = b.kernel(kernel.name, accel, kernel.block, kernel.numArgs);
      }
      b.step(ps.op, accel, k, ps.grid, remapped);
    }
  }
  // Outputs that are model inputs, or returned twice, are copied.
  for (auto [j, v] : llvm::enumerate(s.outputs)) {
    auto slot = outputSlot.find(v);
    if (slot != outputSlot.end() && slot->second == j)
      continue;
    hodu_bundle_arg to{HODU_SPACE_OUTPUT, static_cast<uint32_t>(j), 0,
                       s.values[v].bytes};
    b.step(HODU_STEP_COPY, host, 0, {1, 1, 1}, {where[v].arg, to});
  }

  b.devices = {{HODU_DEVICE_CPU, 0, hostArena},
               {deviceKind, 0, scratchBase + scratch}};
  b.addCode(host, {HODU_CODE_ELF, "", s.hostCode});
  for (const CodeObject &c : code)
    b.addCode(accel, c);
  return success();
}

} // namespace

LogicalResult hodu::gpu::writeBundle(ModuleOp module,
                                     const SerializeRequest &request,
                                     uint32_t device,
                                     ArrayRef<CodeObject> code) {
  Location loc = module.getLoc();
  if (request.outputPath == "-")
    return emitError(loc, "refusing to write a bundle (binary) to stdout");
  const EntrySignature &sig = request.signature;
  BundleBuilder b;
  size_t regular = sig.inputs.size() - sig.numMetaSlots;
  b.model.name = b.strings.add(sig.modelName);
  b.model.producer = b.strings.add("hoduc");
  b.model.num_inputs = regular;
  b.model.num_outputs = sig.outputs.size();
  b.model.num_meta_slots = sig.numMetaSlots;
  b.model.num_state_tensors = sig.numStateTensors;
  // A tensor with an initial value (a meta slot, a state input): its bytes
  // after the weights.
  auto addInitialized = [&](const TensorSignature &t,
                            uint32_t device) -> LogicalResult {
    uint64_t init = HODU_BUNDLE_NONE;
    if (!t.init.empty())
      init = b.addWeights(t.init);
    b.addTensor(t, device, init);
    if (!t.init.empty() && t.init.size() != b.tensors.back().bytes)
      return emitError(loc, "internal error: '")
             << t.name << "' has an initial value of the wrong size";
    return success();
  };

  if (request.schedule) {
    // TENSORS: the inputs, the outputs, then the meta slots, as below.
    for (size_t i = 0; i < regular; ++i)
      if (failed(addInitialized(sig.inputs[i], 0)))
        return failure();
    for (const TensorSignature &t : sig.outputs)
      b.addTensor(t, 0, HODU_BUNDLE_NONE);
    for (size_t i = regular; i < sig.inputs.size(); ++i)
      if (failed(addInitialized(sig.inputs[i], 0)))
        return failure();
    // A symbol: the executor runs the whole plan, its CPU partitions and
    // transfers included, once per chunk (runtime/src/session.c).
    if (failed(addSymbols(sig, regular, loc, b)))
      return failure();
    if (failed(writeHeterogeneous(module, request, device, code, b)) ||
        failed(b.namePluginDevice(request.pluginDevice, request.pluginHostCode,
                                  loc)))
      return failure();
    return b.write(request.outputPath, loc);
  }

  FailureOr<LaunchPlan> plan = buildLaunchPlan(module, sig);
  if (failed(plan))
    return failure();
  b.weights = std::move(plan->weights);
  // TENSORS: the inputs, the outputs, then the meta slots, whose initial
  // values go after the weights.
  for (size_t i = 0; i < regular; ++i)
    if (failed(addInitialized(sig.inputs[i], 0)))
      return failure();
  for (const TensorSignature &t : sig.outputs)
    b.addTensor(t, 0, HODU_BUNDLE_NONE);
  for (size_t i = regular; i < sig.inputs.size(); ++i)
    if (failed(addInitialized(sig.inputs[i], 0)))
      return failure();
  if (failed(addSymbols(sig, regular, loc, b)))
    return failure();
  b.devices = {{device, 0, plan->arenaSize}};
  for (const CodeObject &c : code)
    b.addCode(0, c);
  for (const PlanKernel &k : plan->kernels)
    b.kernel(k.name, 0, k.block, k.numArgs);
  for (const PlanStep &s : plan->steps) {
    SmallVector<hodu_bundle_arg> stepArgs;
    for (const PlanArg &a : s.args)
      stepArgs.push_back({a.space,
                          a.space == HODU_SPACE_ARENA ||
                                  a.space == HODU_SPACE_WEIGHTS
                              ? 0u
                              : a.index,
                          a.offset, a.size});
    b.step(s.op, 0, s.kernel, s.grid, stepArgs);
  }
  if (failed(addVariants(module, sig, regular, b)))
    return failure();
  if (request.pluginHostCode)
    return emitError(loc, "internal error: device '")
           << request.pluginDevice << "' runs host code, but the plan is "
           << "not split with the CPU";
  if (failed(b.namePluginDevice(request.pluginDevice, false, loc)))
    return failure();
  return b.write(request.outputPath, loc);
}
