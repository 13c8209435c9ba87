//===- Bundle.cpp - writing bundles (runtime/include/hodu/bundle.h) -------===//
//
// The file is assembled in memory, then written through an OutputFile: the
// header, the section table, and the sections at 64-byte boundaries. Every
// record is one of bundle.h's structs, whose sizes are checked here as the
// runtime checks them, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/GPU/Bundle.h"

#include "hodu/Support/DType.h"
#include "hodu/Support/Output.h"
#include "hodu/bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <type_traits>

using namespace mlir;
using namespace hodu;
using namespace hodu::gpu;

static_assert(sizeof(hodu_bundle_header) == 40, "bundle.h layout");
static_assert(sizeof(hodu_bundle_section) == 24, "bundle.h layout");
static_assert(sizeof(hodu_bundle_model) == 24, "bundle.h layout");
static_assert(sizeof(hodu_bundle_device) == 16, "bundle.h layout");
static_assert(sizeof(hodu_bundle_tensor) == 40, "bundle.h layout");
static_assert(sizeof(hodu_bundle_code) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_kernel) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_step) == 32, "bundle.h layout");
static_assert(sizeof(hodu_bundle_arg) == 24, "bundle.h layout");
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

LogicalResult hodu::gpu::writeBundle(ModuleOp module,
                                     const SerializeRequest &request,
                                     uint32_t device,
                                     ArrayRef<CodeObject> code) {
  Location loc = module.getLoc();
  const EntrySignature &sig = request.signature;
  FailureOr<LaunchPlan> plan = buildLaunchPlan(module, sig);
  if (failed(plan))
    return failure();
  if (request.outputPath == "-")
    return emitError(loc, "refusing to write a bundle (binary) to stdout");

  StringTable strings;
  hodu_bundle_model model{};
  model.name = strings.add(sig.modelName);
  model.producer = strings.add("hoduc");
  size_t regular = sig.inputs.size() - sig.numMetaSlots;
  model.num_inputs = regular;
  model.num_outputs = sig.outputs.size();
  model.num_meta_slots = sig.numMetaSlots;

  std::vector<hodu_bundle_device> devices = {{device, 0, plan->arenaSize}};

  // TENSORS: the inputs, the outputs, then the meta slots, whose initial
  // values go after the weights.
  std::vector<const TensorSignature *> order;
  for (size_t i = 0; i < regular; ++i)
    order.push_back(&sig.inputs[i]);
  for (const TensorSignature &t : sig.outputs)
    order.push_back(&t);
  for (size_t i = regular; i < sig.inputs.size(); ++i)
    order.push_back(&sig.inputs[i]);
  std::vector<int64_t> dims;
  std::vector<hodu_bundle_tensor> tensors;
  for (const TensorSignature *tp : order) {
      const TensorSignature &t = *tp;
      hodu_bundle_tensor r{};
      r.name = strings.add(t.name);
      r.dtype = t.dtype;
      r.rank = t.shape.size();
      r.first_dim = dims.size();
      r.device = 0;
      uint64_t bytes = dtypeSize(t.dtype);
      for (int64_t d : t.shape) {
        dims.push_back(d);
        bytes *= static_cast<uint64_t>(d);
      }
      r.bytes = bytes;
      r.init = HODU_BUNDLE_NONE;
      if (!t.init.empty()) {
        if (t.init.size() != bytes)
          return emitError(loc, "internal error: meta slot '")
                 << t.name << "' has an initial value of the wrong size";
        r.init = llvm::alignTo(plan->weights.size(),
                               HODU_BUNDLE_BUFFER_ALIGNMENT);
        plan->weights.resize(r.init, '\0');
        plan->weights += t.init;
      }
      tensors.push_back(r);
  }

  std::string blobs;
  std::vector<hodu_bundle_code> codes;
  for (const CodeObject &c : code) {
    uint64_t offset = llvm::alignTo(blobs.size(), HODU_BUNDLE_SECTION_ALIGNMENT);
    blobs.resize(offset, '\0');
    blobs += c.bytes;
    codes.push_back({0, c.format, strings.add(c.arch), 0, offset,
                     c.bytes.size()});
  }

  std::vector<hodu_bundle_kernel> kernels;
  for (const PlanKernel &k : plan->kernels)
    kernels.push_back({strings.add(k.name),
                       0,
                       {k.block[0], k.block[1], k.block[2]},
                       k.numArgs,
                       0,
                       0});
  std::vector<hodu_bundle_step> steps;
  std::vector<hodu_bundle_arg> args;
  for (const PlanStep &s : plan->steps) {
    steps.push_back({s.op,
                     0,
                     s.kernel,
                     {s.grid[0], s.grid[1], s.grid[2]},
                     static_cast<uint32_t>(args.size()),
                     static_cast<uint32_t>(s.args.size())});
    for (const PlanArg &a : s.args)
      args.push_back({a.space, a.space == HODU_SPACE_ARENA ||
                                       a.space == HODU_SPACE_WEIGHTS
                                   ? 0u
                                   : a.index,
                      a.offset, a.size});
  }

  std::vector<Section> sections = {
      {HODU_BUNDLE_SECTION_STRINGS, 1, strings.data},
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
      {HODU_BUNDLE_SECTION_WEIGHTS, 1, plan->weights},
      {HODU_BUNDLE_SECTION_BLOBS, 1, blobs},
  };
  // The strings are complete only now: STRINGS goes first in the table but
  // is copied last.
  sections.front().bytes = strings.data;

  OutputFile out(request.outputPath);
  return success(succeeded(out.open(loc)) &&
                 succeeded(out.write(layOut(std::move(sections)), loc)) &&
                 succeeded(out.commit(loc)));
}
