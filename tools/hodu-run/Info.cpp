//===- Info.cpp - hodu-run --info -----------------------------------------===//
//
// What --info prints: the model's inputs, outputs and meta slots with
// their dtypes and shapes (a dynamic dim by its symbol), its symbols with
// their bounds, its workspace and run-time checks, and for a
// bundle the device it runs on and its launch plan (devices, code objects,
// kernels and steps).
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include <algorithm>
#include <cstdio>

namespace hodu_run {

std::string symbolicShape(const hodu_model *model, bool isOutput,
                          int32_t index) {
  int32_t rank = isOutput ? hodu_model_output_rank(model, index)
                          : hodu_model_input_rank(model, index);
  const int64_t *shape = isOutput ? hodu_model_output_shape(model, index)
                                  : hodu_model_input_shape(model, index);
  bool dynamic = false;
  for (int32_t d = 0; d < rank; ++d)
    dynamic |= shape[d] == HODU_DIM_DYNAMIC;
  if (!dynamic)
    return formatShape(rank, shape);
  std::string text = "[";
  for (int32_t d = 0; d < rank; ++d) {
    text += d ? "," : "";
    if (shape[d] != HODU_DIM_DYNAMIC) {
      text += std::to_string(shape[d]);
      continue;
    }
    // The model validated its tables: the dim has exactly one record.
    if (const hodu_dynamic_dim *dim =
            hodu_model_dynamic_dim(model, isOutput, index, d)) {
      if (dim->scale != 1)
        text += std::to_string(dim->scale) + "*";
      text += hodu_model_symbol_name(model, dim->symbol);
      if (int64_t divisor =
              hodu_model_dynamic_dim_divisor(model, isOutput, index, d);
          divisor != 1)
        text += "/" + std::to_string(divisor);
      if (dim->offset)
        text += (dim->offset > 0 ? "+" : "") + std::to_string(dim->offset);
    } else {
      text += "?"; // an engine model's dim that only a run gives
    }
  }
  return text + "]";
}

std::string inputSignature(const hodu_model *model, int32_t index) {
  return std::string(hodu_model_input_name(model, index)) + ": " +
         hodu_dtype_name(hodu_model_input_dtype(model, index)) +
         symbolicShape(model, false, index);
}

namespace {

std::string outputSignature(const hodu_model *model, int32_t index) {
  return std::string(hodu_model_output_name(model, index)) + ": " +
         hodu_dtype_name(hodu_model_output_dtype(model, index)) +
         symbolicShape(model, true, index);
}

/// "batch: 1..16", "seq: 0..32, a multiple of 4", "n: 0.., run in chunks of
/// 8", "seq: 1..64, compiled at its bound, the padding masked".
std::string symbolLine(const hodu_symbol_desc &symbol) {
  std::string text =
      std::string(symbol.name) + ": " + std::to_string(symbol.min) + "..";
  if (symbol.max >= 0)
    text += std::to_string(symbol.max);
  if (symbol.multiple > 1)
    text += ", a multiple of " + std::to_string(symbol.multiple);
  if (symbol.chunk > 0 && symbol.chunk == symbol.max)
    text += ", compiled at its bound, the padding masked";
  else if (symbol.chunk > 0)
    text += ", run in chunks of " + std::to_string(symbol.chunk);
  return text;
}

/// A bundle with variants (format 1.6): "; also at 4, 8", the sizes its
/// variants compile symbol k at besides the bound ("" for a chunked
/// symbol, whose variants keep its chunk).
std::string variantSizes(const hodu_model *model, int32_t k) {
  auto variants = static_cast<const hodu_bundle_variant *>(
      hodu_model_plan_table(model, HODU_BUNDLE_SECTION_VARIANTS));
  auto dims = static_cast<const int64_t *>(
      hodu_model_plan_table(model, HODU_BUNDLE_SECTION_DIMS));
  const hodu_symbol_desc *symbol = hodu_model_symbol(model, k);
  std::vector<int64_t> sizes;
  for (uint64_t v = 0; variants && v < hodu_model_plan_count(
                                           model, HODU_BUNDLE_SECTION_VARIANTS);
       ++v)
    sizes.push_back(dims[variants[v].first_size + k]);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.erase(std::remove(sizes.begin(), sizes.end(), symbol->chunk),
              sizes.end());
  std::string text;
  for (int64_t size : sizes)
    text += (text.empty() ? "; also at " : ", ") + std::to_string(size);
  return text;
}

std::string metaSignature(const hodu_model *model, int32_t index) {
  std::string text = std::string(hodu_model_meta_slot_name(model, index)) +
                     ": " +
                     hodu_dtype_name(hodu_model_meta_slot_dtype(model, index)) +
                     formatShape(hodu_model_meta_slot_rank(model, index),
                                 hodu_model_meta_slot_shape(model, index));
  int32_t symbol = hodu_model_meta_slot_symbol(model, index);
  if (symbol >= 0)
    text += std::string(", the value of symbol '") +
            hodu_model_symbol_name(model, symbol) + "' (written at each run)";
  return text;
}

/// A bundle's launch plan: devices, code objects, kernels and steps.
void printPlan(const hodu_model *model) {
  auto table = [&](hodu_bundle_section_kind kind) {
    return hodu_model_plan_table(model, kind);
  };
  auto count = [&](hodu_bundle_section_kind kind) {
    return hodu_model_plan_count(model, kind);
  };
  auto text = [&](hodu_bundle_string ref) {
    return hodu_model_plan_string(model, ref);
  };
  static const char *const spaces[] = {"?", "INPUT", "OUTPUT", "ARENA",
                                       "WEIGHTS", "META"};
  static const char *const formats[] = {"?", "spirv", "ptx", "cubin",
                                        "fatbin", "hsaco", "msl", "elf"};
  static const char *const ops[] = {"?", "LAUNCH", "COPY", "TRANSFER",
                                    "HOST_CALL"};
  auto devices = static_cast<const hodu_bundle_device *>(
      table(HODU_BUNDLE_SECTION_DEVICES));
  std::printf("devices:\n");
  for (uint64_t d = 0; d < count(HODU_BUNDLE_SECTION_DEVICES); ++d)
    std::printf("  %llu: %s%s%s, arena %llu bytes\n", (unsigned long long)d,
                hodu_device_kind_name(hodu_device_kind(devices[d].kind)),
                devices[d].name ? " " : "",
                devices[d].name ? text(devices[d].name) : "",
                (unsigned long long)devices[d].arena_size);
  std::printf("weights: %llu bytes\n",
              (unsigned long long)count(HODU_BUNDLE_SECTION_WEIGHTS));
  auto codes =
      static_cast<const hodu_bundle_code *>(table(HODU_BUNDLE_SECTION_CODE));
  std::printf("code objects:\n");
  for (uint64_t c = 0; c < count(HODU_BUNDLE_SECTION_CODE); ++c)
    std::printf("  %llu: device %u, %s%s%s, %llu bytes\n",
                (unsigned long long)c, unsigned(codes[c].device),
                codes[c].format < 8 ? formats[codes[c].format] : "?",
                *text(codes[c].arch) ? " " : "", text(codes[c].arch),
                (unsigned long long)codes[c].size);
  auto kernels = static_cast<const hodu_bundle_kernel *>(
      table(HODU_BUNDLE_SECTION_KERNELS));
  std::printf("kernels:\n");
  for (uint64_t k = 0; k < count(HODU_BUNDLE_SECTION_KERNELS); ++k)
    std::printf("  %llu: %s on device %u, block %ux%ux%u, %u argument(s)%s\n",
                (unsigned long long)k, text(kernels[k].name),
                unsigned(kernels[k].device), unsigned(kernels[k].block[0]),
                unsigned(kernels[k].block[1]), unsigned(kernels[k].block[2]),
                unsigned(kernels[k].num_args),
                kernels[k].shared_bytes
                    ? (", " + std::to_string(kernels[k].shared_bytes) +
                       " bytes of dynamic shared memory")
                          .c_str()
                    : "");
  auto steps =
      static_cast<const hodu_bundle_step *>(table(HODU_BUNDLE_SECTION_STEPS));
  auto args =
      static_cast<const hodu_bundle_arg *>(table(HODU_BUNDLE_SECTION_ARGS));
  auto printStep = [&](const char *indent, uint64_t i,
                       const hodu_bundle_step &step) {
    std::string line =
        indent + std::to_string(i) + ": " + (step.op < 5 ? ops[step.op] : "?");
    if (step.op == HODU_STEP_LAUNCH || step.op == HODU_STEP_HOST_CALL)
      line += std::string(" ") + text(kernels[step.kernel].name);
    if (step.op == HODU_STEP_LAUNCH)
      line += " grid " + std::to_string(step.grid[0]) + "x" +
              std::to_string(step.grid[1]) + "x" +
              std::to_string(step.grid[2]);
    line += " on device " + std::to_string(step.device) + " (";
    for (uint32_t a = 0; a < step.num_args; ++a) {
      const hodu_bundle_arg &arg = args[step.first_arg + a];
      line += std::string(a ? ", " : "") +
              (arg.space < 6 ? spaces[arg.space] : "?") + " " +
              std::to_string(arg.index);
      if (arg.space == HODU_SPACE_ARENA || arg.space == HODU_SPACE_WEIGHTS)
        line += " [" + std::to_string(arg.offset) + ", +" +
                std::to_string(arg.size) + ")";
    }
    std::printf("%s)\n", line.c_str());
  };
  std::printf("steps:\n");
  for (uint64_t i = 0; i < count(HODU_BUNDLE_SECTION_STEPS); ++i)
    printStep("  ", i, steps[i]);
  // Format 1.6: the plan at smaller sizes of the padded symbols.
  auto variants = static_cast<const hodu_bundle_variant *>(
      table(HODU_BUNDLE_SECTION_VARIANTS));
  auto variantSteps = static_cast<const hodu_bundle_step *>(
      table(HODU_BUNDLE_SECTION_VARIANT_STEPS));
  auto dims = static_cast<const int64_t *>(table(HODU_BUNDLE_SECTION_DIMS));
  if (count(HODU_BUNDLE_SECTION_VARIANTS))
    std::printf("variants (a run takes the smallest plan that holds its "
                "values):\n");
  for (uint64_t v = 0; v < count(HODU_BUNDLE_SECTION_VARIANTS); ++v) {
    const hodu_bundle_variant &variant = variants[v];
    std::string sizes;
    for (int32_t k = 0; k < hodu_model_num_symbols(model); ++k) {
      const hodu_symbol_desc *symbol = hodu_model_symbol(model, k);
      sizes += std::string(sizes.empty() ? "" : ", ") + symbol->name + "=" +
               std::to_string(dims[variant.first_size + k]);
    }
    std::printf("  %llu: %s, %u steps\n", (unsigned long long)v, sizes.c_str(),
                unsigned(variant.num_steps));
    for (uint32_t i = 0; i < variant.num_steps; ++i)
      printStep("    ", i, variantSteps[variant.first_step + i]);
  }
}

} // namespace

/// `noDevice`: why the bundle was loaded for inspection only ("" when its
/// device opened).
void printInfo(const hodu_model *model, const std::string &noDevice) {
  if (hodu_model_is_bundle(model) && !noDevice.empty())
    std::printf("model '%s' (bundle for %s; not opened on a device: %s)\n",
                hodu_model_name(model), hodu_model_target(model),
                noDevice.c_str());
  else if (hodu_model_is_bundle(model))
    std::printf("model '%s' (bundle for %s, running on %s %d: %s)\n",
                hodu_model_name(model), hodu_model_target(model),
                hodu_device_kind_name(hodu_model_device_kind(model)),
                int(hodu_model_device_ordinal(model)),
                hodu_model_device_name(model));
  else if (const char *engine = hodu_model_engine(model))
    std::printf("model '%s' (engine %s, on the CPU)\n", hodu_model_name(model),
                engine);
  else
    std::printf("model '%s' (target %s, ABI %u)\n", hodu_model_name(model),
                hodu_model_target(model),
                hodu_model_descriptor(model)->abi_version);
  if (const char *source = hodu_model_source(model))
    std::printf("source: %s\n", source);
  std::printf("inputs:\n");
  for (int32_t i = 0; i < hodu_model_num_inputs(model); ++i)
    std::printf("  %s\n", inputSignature(model, i).c_str());
  std::printf("outputs:\n");
  for (int32_t i = 0; i < hodu_model_num_outputs(model); ++i)
    std::printf("  %s\n", outputSignature(model, i).c_str());
  if (int32_t n = hodu_model_num_symbols(model)) {
    std::printf("symbols:\n");
    for (int32_t k = 0; k < n; ++k)
      std::printf("  %s%s\n", symbolLine(*hodu_model_symbol(model, k)).c_str(),
                  variantSizes(model, k).c_str());
  }
  if (hodu_model_num_state_tensors(model)) {
    std::printf("state tensors:\n");
    for (int32_t i = 0; i < hodu_model_num_state_tensors(model); ++i)
      std::printf("  %s: %s%s\n", hodu_model_state_tensor_name(model, i),
                  hodu_dtype_name(hodu_model_state_tensor_dtype(model, i)),
                  formatShape(hodu_model_state_tensor_rank(model, i),
                              hodu_model_state_tensor_shape(model, i))
                      .c_str());
  }
  if (hodu_model_num_meta_slots(model)) {
    std::printf("meta slots:\n");
    for (int32_t i = 0; i < hodu_model_num_meta_slots(model); ++i)
      std::printf("  %s\n", metaSignature(model, i).c_str());
  }
  if (uint64_t bytes = hodu_model_workspace_size(model))
    std::printf("workspace: %llu bytes per concurrent run\n",
                (unsigned long long)bytes);
  if (int32_t n = hodu_model_num_checks(model)) {
    std::printf("run-time checks (what the model assumes of its data):\n");
    for (int32_t i = 0; i < n; ++i) {
      const char *m = hodu_model_check_message(model, i);
      std::printf("  %s\n", m ? m : "(no message)");
    }
  }
  if (hodu_model_is_bundle(model))
    printPlan(model);
}

} // namespace hodu_run
