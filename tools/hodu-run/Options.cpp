//===- Options.cpp - hodu-run's command line ------------------------------===//
//
// The usage text and the parsing of hodu-run's options into Options, with
// the checks of each value and of the combinations that cannot go together.
//
//===----------------------------------------------------------------------===//
#include "HoduRun.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hodu_run {
namespace {

const char *const usageText = R"(usage: hodu-run ARTIFACT [options]
       hodu-run --list-plugins | --plugin-info ID | --plugin-check ID

Runs a model compiled by hoduc: a shared library on the CPU, or a bundle
(hoduc --device=vulkan|cuda|rocm) on its GPU; or a model file an engine
plugin runs (a .onnx on ONNX Runtime).

Inputs and outputs:
  -i, --input [NAME=]FILE   an input tensor; NAME may be left out, then files
                            fill the model's inputs in order. Repeatable.
                            FILE is .pb (ONNX TensorProto), .npy, .json
                            ({"shape":[2,3],"dtype":"f32","data":[...]}) or .hdt
  -o, --output-dir DIR      write every output to DIR/<name>.<format>
  -f, --output-format FMT   npy (default), pb, json or hdt
  -n, --print-limit N       values printed per output (default 8; 0 = all)
  -q, --quiet               do not print output values

Checking against reference data:
  --test-data DIR           feed DIR/input_<N>.pb, compare the outputs with
                            DIR/output_<N>.pb (or each DIR/test_data_set_*)
  --rtol X                  relative tolerance (default 1e-3)
  --atol X                  absolute tolerance (default 1e-5)
                            floats match when |got - expected| <= atol +
                            rtol * |expected| (NaN matches NaN); integers
                            and booleans must be equal

Performance:
  --benchmark N             time N runs after warm-up; print median, min and
                            p90 latency in microseconds
  --warmup N                warm-up runs before timing (default 3)
  --threads N               threads a run may use (default: all CPUs)
  --thread-report           with --benchmark on a CPU artifact: each
                            parallel region's time, its work units
                            (iterations), how busy each thread was, and
                            the share of the units the busiest thread gets
                            at 1, 2, 4, 8, 16 and 64 threads
  --replay N                capture the model once (after the warm-up runs)
                            and replay it N times: host microseconds and
                            device submissions per run, eager and replayed
  --steps N                 run N times, each output named like an input
                            (a train step's weights and optimizer state, a
                            recurrent state) fed to the next run; prints
                            the first output of each run when it is one
                            value (a train step's loss); the outputs
                            written are the last run's. A model with state
                            tensors (hoduc --train) keeps them in a session
                            instead: its weights train from step to step

Training (models with state tensors or meta slots, docs/training.md):
  --meta NAME=VALUE         set one-element meta slot NAME (lr,
                            weight_decay ...) before the first run.
                            Repeatable
  --load-state FILE         start from the state tensors in FILE
                            (safetensors) instead of the initial ones
  --save-state FILE         write the state tensors after the last run

Symbolic dims (models compiled with symbols, such as batch or seq):
  --dim NAME=VALUE          the value of symbol NAME where no input file
                            gives it (the zeros of an empty optional input);
                            where files give it, it must agree. Repeatable.
                            Input files give the shapes; outputs are written
                            at the shapes those give.

Devices:
  --device KIND[:N]         cpu, vulkan, cuda or hip (rocm), and which device
                            of that kind (default: the artifact's own, 0)

Plugins (docs/plugins.md):
  --engine NAME             run ARTIFACT with engine or compiler plugin NAME
                            (onnxruntime, hoduc); by default a Hodu artifact
                            runs as it is, and another file is compiled by
                            the compiler plugin that claims its extension,
                            else run by the engine plugin that does
  --compile-flag FLAG       a model file that is no artifact (.onnx ...) is
                            compiled on load by the hoduc compiler plugin and
                            cached; FLAG goes to it (-O3, -mcpu=...,
                            --input-shape=...). Repeatable
  --plugin DIR              also search DIR for plugins (a plugin directory
                            or a directory of them), first. Repeatable
  --no-plugins              search no plugin directory (HODU_NO_PLUGINS=1)
  --list-plugins            list the plugins found and exit
  --plugin-info ID          print plugin ID's manifest facts, load it and
                            say whether it is accepted, and exit
  --plugin-check ID         load plugin ID in a child process (a crash is
                            reported, not fatal) and exit

Selection (seed 003; each candidate measured in a child process):
  --select                  every ARTIFACT given is a candidate: PATH,
                            PATH@ENGINE or PATH@KIND[:N]; measure them (or
                            take their records from the selection database),
                            print the table, then run the chosen one
  --register                with --select: measure and record, run nothing
  --objective OBJ           latency (default: the lowest median) or memory
  --bench-db PATH           the selection database (default
                            $HODU_SELECTION_DB, else ~/.cache/hodu/
                            selection.jsonl); off: none
  --no-benchmark            use only recorded figures (else the static rule)
  --memory-limit BYTES      exclude candidates whose peak memory is above it
                            (default: 90% of this machine's memory)
  --select-timeout S        per candidate (default 120)
  (--benchmark N sets the timed runs per candidate, default 20; --warmup too)

Other:
  --info                    print the model's inputs, outputs and meta slots
                            (and a bundle's launch plan) and exit
  -h, --help                print this help
  --version                 print versions

Exit status: 0 success, 1 --test-data mismatch, 2 error.
)";

int usageError(const std::string &message) {
  std::fprintf(stderr,
               "hodu-run: error: %s\nTry 'hodu-run --help' for usage.\n",
               message.c_str());
  return ExitError;
}

bool parseLong(const std::string &text, long minimum, long &value) {
  char *end = nullptr;
  errno = 0;
  long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || parsed < minimum)
    return false;
  value = parsed;
  return true;
}

bool parseDouble(const std::string &text, double &value) {
  char *end = nullptr;
  double parsed = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(parsed) || parsed < 0)
    return false;
  value = parsed;
  return true;
}

} // namespace

/// Parses the command line; returns -1 to go on, else an exit status.
int parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(usageText, stdout);
      return ExitOk;
    }
    if (arg == "--version") {
      std::printf("hodu-run %s (libhodurt %s, artifact ABI %u)\n",
                  HODU_RUNTIME_VERSION, hodu_runtime_version(),
                  hodu_runtime_abi_version());
      return ExitOk;
    }
    if (arg == "-q" || arg == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (arg == "--info") {
      options.info = true;
      continue;
    }
    if (arg == "--thread-report") {
      options.threadReport = true;
      continue;
    }
    if (arg == "--no-plugins") {
      options.noPlugins = true;
      continue;
    }
    if (arg == "--list-plugins") {
      options.listPlugins = true;
      continue;
    }
    if (arg == "--select" || arg == "--register" || arg == "--no-benchmark") {
      options.select = true;
      options.registerOnly |= arg == "--register";
      options.noBenchmark |= arg == "--no-benchmark";
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      // Options with a value: "--name value" or "--name=value".
      std::string name = arg, value;
      size_t eq = arg.find('=');
      bool inlineValue = arg.rfind("--", 0) == 0 && eq != std::string::npos;
      if (inlineValue) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      }
      static const char *const valued[] = {"-i",
                                           "--input",
                                           "-o",
                                           "--output-dir",
                                           "-f",
                                           "--output-format",
                                           "-n",
                                           "--print-limit",
                                           "--test-data",
                                           "--rtol",
                                           "--atol",
                                           "--benchmark",
                                           "--warmup",
                                           "--threads",
                                           "--replay",
                                           "--device",
                                           "--steps",
                                           "--dim",
                                           "--engine",
                                           "--plugin",
                                           "--plugin-info",
                                           "--plugin-check",
                                           "--objective",
                                           "--bench-db",
                                           "--memory-limit",
                                           "--select-timeout",
                                           "--compile-flag",
                                           "--meta",
                                           "--load-state",
                                           "--save-state"};
      bool known = false;
      for (const char *candidate : valued)
        known |= name == candidate;
      if (!known)
        return usageError("unknown option '" + arg + "'");
      if (!inlineValue) {
        if (i + 1 >= argc)
          return usageError("option '" + name + "' needs a value");
        value = argv[++i];
      }
      if (name == "-i" || name == "--input") {
        options.inputs.push_back(value);
      } else if (name == "-o" || name == "--output-dir") {
        options.outputDir = value;
      } else if (name == "-f" || name == "--output-format") {
        if (!parseTensorFormat(value, options.outputFormat))
          return usageError("unknown output format '" + value +
                            "' (expected npy, pb, json or hdt)");
      } else if (name == "-n" || name == "--print-limit") {
        if (!parseLong(value, 0, options.printLimit))
          return usageError("--print-limit needs a count >= 0, got '" +
                            value + "'");
      } else if (name == "--test-data") {
        options.testData = value;
      } else if (name == "--rtol" || name == "--atol") {
        if (!parseDouble(value, name == "--rtol" ? options.rtol
                                                 : options.atol))
          return usageError(name + " needs a number >= 0, got '" + value +
                            "'");
      } else if (name == "--benchmark") {
        if (!parseLong(value, 1, options.benchmark))
          return usageError("--benchmark needs a run count >= 1, got '" +
                            value + "'");
      } else if (name == "--warmup") {
        if (!parseLong(value, 0, options.warmup))
          return usageError("--warmup needs a count >= 0, got '" + value +
                            "'");
      } else if (name == "--steps") {
        if (!parseLong(value, 1, options.steps))
          return usageError("--steps needs a run count >= 1, got '" + value +
                            "'");
      } else if (name == "--replay") {
        if (!parseLong(value, 1, options.replay))
          return usageError("--replay needs a run count >= 1, got '" +
                            value + "'");
      } else if (name == "--device") {
        std::string kind = value.substr(0, value.find(':'));
        hodu_device_kind parsed;
        if (!hodu_device_kind_from_name(kind.c_str(), &parsed))
          return usageError("unknown device '" + kind +
                            "' (expected cpu, vulkan, cuda or hip)");
        options.deviceKind = int32_t(parsed);
        if (kind.size() < value.size() &&
            !parseLong(value.substr(kind.size() + 1), 0,
                       options.deviceOrdinal))
          return usageError("--device " + kind +
                            ":N needs a device number >= 0, got '" + value +
                            "'");
      } else if (name == "--dim") {
        size_t at = value.find('=');
        long parsed = 0;
        if (at == 0 || at == std::string::npos ||
            !parseLong(value.substr(at + 1), 0, parsed))
          return usageError("--dim needs NAME=VALUE with a value >= 0, got '" +
                            value + "'");
        options.dims.emplace_back(value.substr(0, at), int64_t(parsed));
      } else if (name == "--meta") {
        size_t at = value.find('=');
        if (at == 0 || at == std::string::npos || at + 1 == value.size())
          return usageError("--meta needs NAME=VALUE, got '" + value + "'");
        options.meta.emplace_back(value.substr(0, at), value.substr(at + 1));
      } else if (name == "--load-state") {
        options.loadState = value;
      } else if (name == "--save-state") {
        options.saveState = value;
      } else if (name == "--objective") {
        if (value != "latency" && value != "memory")
          return usageError("--objective needs latency or memory, got '" +
                            value + "'");
        options.objective = value;
      } else if (name == "--bench-db") {
        options.benchDb = value;
      } else if (name == "--memory-limit") {
        if (!parseLong(value, 1, options.memoryLimit))
          return usageError("--memory-limit needs a byte count >= 1, got '" +
                            value + "'");
      } else if (name == "--select-timeout") {
        if (!parseLong(value, 1, options.selectTimeout))
          return usageError("--select-timeout needs seconds >= 1, got '" +
                            value + "'");
      } else if (name == "--compile-flag") {
        options.compileFlags.push_back(value);
      } else if (name == "--engine") {
        if (value.empty())
          return usageError("--engine needs an engine name");
        options.engine = value;
      } else if (name == "--plugin") {
        options.pluginPaths.push_back(value);
      } else if (name == "--plugin-info") {
        options.pluginInfo = value;
      } else if (name == "--plugin-check") {
        options.pluginCheck = value;
      } else if (name == "--threads") {
        if (!parseLong(value, 1, options.threads))
          return usageError("--threads needs a count >= 1, got '" + value +
                            "'");
      }
      continue;
    }
    options.candidates.push_back(arg);
    if (!options.artifact.empty())
      continue; // more than one: only --select takes several (checked below)
    options.artifact = arg;
  }
  bool pluginCommand = options.listPlugins || !options.pluginInfo.empty() ||
                       !options.pluginCheck.empty();
  if (pluginCommand && !options.artifact.empty())
    return usageError("--list-plugins, --plugin-info and --plugin-check take "
                      "no artifact");
  if (pluginCommand)
    return -1;
  if (options.candidates.size() > 1 && !options.select)
    return usageError("more than one artifact ('" + options.candidates[0] +
                      "' and '" + options.candidates[1] +
                      "'); pass inputs with --input, or compare them with "
                      "--select");
  if (options.steps > 0 &&
      (options.benchmark > 0 || options.replay > 0 || options.select ||
       !options.testData.empty()))
    return usageError("--steps cannot be combined with --benchmark, "
                      "--replay, --select or --test-data");
  if (options.select && (!options.testData.empty() || options.info ||
                         options.replay > 0))
    return usageError("--select cannot be combined with --test-data, --info "
                      "or --replay");
  if (options.threadReport && options.benchmark <= 0)
    return usageError("--thread-report needs --benchmark N");
  if (options.artifact.empty())
    return usageError("no artifact given");
  if (!options.testData.empty() && !options.inputs.empty())
    return usageError("--test-data and --input cannot be combined");
  if (!options.testData.empty() && !options.outputDir.empty())
    return usageError("--test-data and --output-dir cannot be combined");
  return -1;
}

} // namespace hodu_run
