# lit configuration for Hodu. Tools come from the build (hodu-opt, hoduc,
# hodu-run) and from LLVM 22 (FileCheck, not, count).
import os
import shutil
import sys

import lit.formats

config.name = "Hodu"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.hodu_test_obj_root

path = [config.hodu_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
config.environment["PATH"] = os.pathsep.join(path)

# A -DHODU_SANITIZE=address build: LLVM's BumpPtrAllocator, inlined from its
# header into Hodu's instrumented code, poisons the slabs it allocates, and
# the uninstrumented libMLIR.so allocates from the same slabs without
# unpoisoning them, so ASan reports use-after-poison on MLIR's own storage.
# Manual poisoning is turned off; Hodu's own memory is still checked.
if "address" in getattr(config, "hodu_sanitize", ""):
    options = config.environment.get("ASAN_OPTIONS", os.environ.get("ASAN_OPTIONS", ""))
    config.environment["ASAN_OPTIONS"] = ":".join(
        o for o in (options, "allow_user_poisoning=0") if o)

config.substitutions.append(("%hodu_src", config.hodu_src_root))
config.substitutions.append(("%python", sys.executable))
# Where hoduc, hodu-run and libhodurt's tools are (test/device/stage.py --bin).
config.substitutions.append(("%hodu_bin_dir", config.hodu_tools_dir))
config.substitutions.append(("%hodu_obj", config.hodu_obj_root))
config.substitutions.append(("%hodu_test_plugins", os.path.join(config.hodu_obj_root, "test", "Plugins", "plugins")))
config.substitutions.append(("%hodu_plugins", os.path.join(config.hodu_obj_root, "runtime", "lib", "hodu", "plugins")))
# ONNX Runtime's library, where scripts/setup.sh --with-tests fetches it and
# the onnxruntime engine plugin looks for it.
if os.path.exists(os.path.join(config.hodu_obj_root, "_deps", "onnxruntime", "lib",
                               "libonnxruntime.so.1")):
    config.available_features.add("onnxruntime")
# Tests see only the plugins they name (--plugin, HODU_PLUGIN_PATH): not the
# user's, and not the ones built beside libhodurt.
config.environment["HODU_NO_PLUGINS"] = "1"
# Nor write caches outside the build tree: compiled-on-load artifacts and
# selection records go nowhere unless a test says where.
config.environment["HODU_COMPILE_CACHE"] = "off"
config.environment["HODU_SELECTION_DB"] = "off"
for name in ("HODU_ENGINE", "HODU_PLUGIN_PATH"):
    config.environment.pop(name, None)
config.substitutions.append(("%hodu_rt_models", os.path.join(config.hodu_obj_root, "test", "runtime-unit", "models")))

for tool in ["hodu-opt", "hoduc", "hodu-run"]:
    if os.path.exists(os.path.join(config.hodu_tools_dir, tool)):
        config.available_features.add(tool)

# The vulkan target's SPIR-V is checked by spirv-tools (spirv-val, spirv-dis).
if shutil.which("spirv-val") and shutil.which("spirv-dis"):
    config.available_features.add("spirv-val")

# The metal target's MSL is compared with the spirv-cross tool's.
if shutil.which("spirv-cross"):
    config.available_features.add("spirv-cross")

# The rocm target links the ROCm device libraries (rocm-device-libs) into
# kernels that call them.
if any(os.path.exists("/usr/lib/%s/amdgcn/bitcode/ocml.bc" % m)
       for m in ("x86_64-linux-gnu", "aarch64-linux-gnu")):
    config.available_features.add("rocm-device-libs")

# The ONNX backend test data (Debian's libonnx-testdata), whose node tests
# some GPU tests run.
onnx_node = "/usr/share/libonnx-testdata/data/node"
if os.path.isdir(onnx_node):
    config.available_features.add("onnx-testdata")
    config.substitutions.append(("%onnx_node", onnx_node))

# ONNX models written as protobuf text in a test, encoded with protoc.
if shutil.which("protoc") and os.path.exists("/usr/include/onnx/onnx.proto"):
    config.available_features.add("protoc")
config.substitutions.append(("%onnx_proto_dir", "/usr/include/onnx"))

# Tests of the CPU target's compile-time choices (register tiles, conv
# strategies, the memory plan that follows from them) compile for one
# AVX-512 CPU rather than the host, whose vector width and register count
# change those choices (an AVX2 host gets 256-bit vectors and 16 registers).
# Artifacts built this way are checked, not run: they run on the host only
# where it has AVX-512.
config.substitutions.append(("%avx512", "--mcpu=sapphirerapids"))

# The host CPU runs AVX-512 VNNI int8 dot products (the CPU target's int8
# convolutions: lib/Target/CPU/Transforms/Int8Dot.cpp).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((l.split(":", 1)[1].split() for l in cpuinfo
                      if l.startswith("flags")), [])
except OSError:
    flags = []
# And AVX2 (the int16 pair kernels of the same convolutions, which any
# AVX2 host runs).
if "avx2" in flags:
    config.available_features.add("cpu-avx2")
if "avx512_vnni" in flags and "avx512bw" in flags:
    config.available_features.add("cpu-avx512vnni")
    # And AMX-INT8 tiles (Int8Dot.cpp, AmxTiles.cpp), which the artifact
    # asks Linux for at run time.
    if "amx_int8" in flags and "amx_tile" in flags:
        config.available_features.add("cpu-amx")
# AVX512-BF16 dot products (hoduc --precision=bf16: Bf16Dot.cpp).
if "avx512_bf16" in flags and "avx512f" in flags:
    config.available_features.add("cpu-avx512bf16")

# The cuda target's artifacts are checked by the CUDA toolkit's assembler.
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", "/usr/local/cuda/bin/ptxas"))
