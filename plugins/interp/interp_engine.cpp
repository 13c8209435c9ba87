//===- interp_engine.cpp - the interpreter engine's C ABI ------------------===//
//
// hodu-engine-interp.so: seed 000's runtime-interp. It loads a .onnx, .mlir
// or .hdss file with the compiler's importers and runs the hodu IR op by op
// on the evaluator (interp_model.cpp): the slow reference that compiled
// code is checked against, used with `--engine interp`.
//
// Outside, the plain C ABI of hodu/plugin.h: `hodu_plugin_query` is the one
// exported symbol, every entry point is noexcept and catches everything, and
// every failure becomes a host->make_status status whose message starts
// with "interp engine: ".
//
// Options (manifest.json, or HODU_PLUGIN_INTERP_<KEY>):
//   dims           "NAME=N,NAME=N": sizes of an ONNX model's dynamic dims
//                  (its dim_params, or INPUT_dimD), for models that have
//                  them; the interpreter needs static shapes.
//   rebuild_after  the model's MLIRContext is rebuilt (its module written
//                  as bytecode and read into a fresh context) after this
//                  many computed tensors, which bounds what runs leave in
//                  it (interp_model.cpp); 0 never; auto (the default): from
//                  what the last build of the context cost.
//
//===----------------------------------------------------------------------===//

#include "interp_model.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <strings.h>

#define INTERP_ID "interp"
#define INTERP_EXPORT extern "C" __attribute__((visibility("default")))

using hodu::interp::InterpError;
using hodu::interp::Model;

namespace {

const hodu_host_api *host;

hodu_status fail(hodu_status_code code, const std::string &message) noexcept {
  try {
    std::string text = "interp engine: " + message;
    return host->make_status(code, text.c_str());
  } catch (...) {
    return host->make_status(code, "interp engine: out of memory");
  }
}

/// The status of the exception being handled (call from a catch block).
hodu_status failCurrent(hodu_status_code fallback) noexcept {
  try {
    throw;
  } catch (const InterpError &e) {
    return fail(e.code, e.what());
  } catch (const std::bad_alloc &) {
    return fail(HODU_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return fail(fallback, e.what());
  } catch (...) {
    return fail(fallback, "an unknown C++ exception");
  }
}

/// The options of load: "dims" and "rebuild_after" (see the top).
hodu::interp::LoadOptions readOptions() {
  hodu::interp::LoadOptions options;
  options.host = host;
  if (const char *dims = host->get_option(INTERP_ID, "dims")) {
    std::string text = dims;
    size_t at = 0;
    while (at < text.size()) {
      size_t comma = text.find(',', at);
      if (comma == std::string::npos)
        comma = text.size();
      std::string item = text.substr(at, comma - at);
      at = comma + 1;
      if (item.empty())
        continue;
      size_t eq = item.rfind('=');
      char *end = nullptr;
      long long size =
          eq == std::string::npos ? -1 : std::strtoll(item.c_str() + eq + 1, &end, 10);
      if (eq == std::string::npos || eq == 0 || !end || *end || size < 0)
        throw InterpError(HODU_INVALID_ARGUMENT,
                          "the option dims has '" + item +
                              "'; expected NAME=N[,NAME=N...]");
      options.dims[item.substr(0, eq)] = size;
    }
  }
  const char *rebuild = host->get_option(INTERP_ID, "rebuild_after");
  if (rebuild && std::strcmp(rebuild, "auto") != 0) {
    char *end = nullptr;
    long long n = std::strtoll(rebuild, &end, 10);
    if (!*rebuild || *end || n < 0)
      throw InterpError(HODU_INVALID_ARGUMENT,
                        std::string("the option rebuild_after is '") + rebuild +
                            "'; expected auto or a count (0: never)");
    options.rebuildAfter = n;
  }
  return options;
}

} // namespace

/// A loaded model, and its signature as plugin.h's records.
struct hodu_engine_model {
  std::unique_ptr<Model> model;
};

namespace {

const char *const kExtensions[] = {".onnx", ".mlir", ".hdss", nullptr};

/// By extension only (cheap). Low, so that a file another engine also
/// claims goes there unless `--engine interp` names this one (ONNX
/// Runtime's engine scores a .onnx 60).
int32_t interpProbe(const char *path, const uint8_t *, size_t) noexcept {
  if (!path)
    return 0;
  size_t n = std::strlen(path);
  for (const char *const *ext = kExtensions; *ext; ++ext) {
    size_t e = std::strlen(*ext);
    if (n > e && strcasecmp(path + n - e, *ext) == 0)
      return 10;
  }
  return 0;
}

hodu_status interpLoad(const char *path, const hodu_engine_load_options *,
                       hodu_engine_model **out) noexcept {
  if (!out)
    return fail(HODU_INVALID_ARGUMENT, "load without a place for the model");
  *out = nullptr;
  if (!path)
    return fail(HODU_INVALID_ARGUMENT, "load without a path");
  try {
    auto m = std::make_unique<hodu_engine_model>();
    m->model = Model::load(path, readOptions());
    *out = m.release();
    return nullptr;
  } catch (...) {
    return failCurrent(HODU_INVALID_ARTIFACT);
  }
}

void interpUnload(hodu_engine_model *model) noexcept {
  try {
    delete model;
  } catch (...) {
  }
}

int32_t interpNumValues(const hodu_engine_model *m, int32_t isOutput) noexcept {
  if (!m || !m->model)
    return -1;
  const auto &values = isOutput ? m->model->outputs() : m->model->inputs();
  return static_cast<int32_t>(values.size());
}

hodu_status interpValue(const hodu_engine_model *m, int32_t isOutput,
                        int32_t index, hodu_engine_value *out) noexcept {
  if (!m || !m->model || !out)
    return fail(HODU_INVALID_ARGUMENT, "value without a model");
  const auto &values = isOutput ? m->model->outputs() : m->model->inputs();
  if (index < 0 || static_cast<size_t>(index) >= values.size())
    return fail(HODU_INVALID_ARGUMENT, "value index out of range");
  const hodu::interp::ValueInfo &v = values[static_cast<size_t>(index)];
  *out = hodu_engine_value{v.name.c_str(), v.dtype,
                           static_cast<int32_t>(v.shape.size()),
                           v.shape.data(), nullptr};
  return nullptr;
}

hodu_status interpRun(hodu_engine_model *m, const hodu_engine_tensor *inputs,
                      int32_t numInputs, hodu_engine_tensor *outputs,
                      int32_t numOutputs, int32_t) noexcept {
  if (!m || !m->model)
    return fail(HODU_INVALID_ARGUMENT, "run without a model");
  try {
    m->model->run(inputs, numInputs, outputs, numOutputs, host);
    return nullptr;
  } catch (...) {
    return failCurrent(HODU_RUN_FAILED);
  }
}

hodu_status interpMemoryBytes(const hodu_engine_model *m,
                              uint64_t *bytes) noexcept {
  if (!m || !m->model || !bytes)
    return fail(HODU_INVALID_ARGUMENT, "memory_bytes without a model");
  *bytes = m->model->constantBytes();
  return nullptr;
}

const hodu_engine_plugin_v1 kEngine = {
    sizeof(hodu_engine_plugin_v1),
    INTERP_ID,
    kExtensions,
    interpProbe,
    interpLoad,
    interpUnload,
    interpNumValues,
    interpValue,
    interpRun,
    interpMemoryBytes};

const void *getInterface(uint32_t kind, uint32_t version) noexcept {
  return kind == HODU_PLUGIN_ENGINE && version == 1 ? &kEngine : nullptr;
}

const hodu_plugin_header kHeader = {
    sizeof(hodu_plugin_header),
    HODU_PLUGIN_ABI_VERSION,
    INTERP_ID,
    "1.0.0",
    "the hodu IR run op by op on the evaluator (a slow reference)",
    HODU_PLUGIN_ENGINE,
    0,
    nullptr,
    getInterface,
    nullptr};

} // namespace

INTERP_EXPORT const hodu_plugin_header *
hodu_plugin_query(uint32_t maxAbiVersion, const hodu_host_api *api) noexcept {
  if (maxAbiVersion < 1 || !api ||
      api->struct_size < offsetof(hodu_host_api, plugin_dir) ||
      !api->make_status || !api->alloc || !api->get_option)
    return nullptr;
  host = api;
  return &kHeader;
}
