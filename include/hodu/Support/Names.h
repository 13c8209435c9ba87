//===- Names.h - C identifiers and input-shape pins --------------*- C++ -*-===//
//
// The small text conventions every front end and back end shares: how a
// model or tensor name becomes a C identifier (symbol prefixes, header
// parameters), and how `--input-shape=NAME:DIMS` is spelled. One definition
// each, so hoduc, hodu-import, the importers and the capture API agree.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_SUPPORT_NAMES_H
#define HODU_SUPPORT_NAMES_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hodu {

/// `text` made a C identifier: every character that is not a letter, digit
/// or '_' becomes '_', and a name that is empty or starts with a digit gets
/// the prefix "m_" ("my-model" -> "my_model", "3d" -> "m_3d").
std::string cIdentifier(const std::string &text);

/// Whether `text` is already a C identifier.
bool isCIdentifier(const std::string &text);

/// The C identifier made from a file name's stem ("dir/my-model.onnx" ->
/// "my_model"): the default symbol prefix of a compiled model.
std::string defaultModelName(const std::string &path);

/// One `--input-shape` pin: the input's name and its dims.
using InputShape = std::pair<std::string, std::vector<int64_t>>;

/// Parses "NAME:1x3x224x224" (split at the last ':', so names may hold
/// ':'); "NAME:" pins a scalar. Returns false with a message in `error`.
bool parseInputShape(const std::string &spec, InputShape &out,
                     std::string &error);

/// Dims as `--input-shape` and messages spell them: "2x3x4" ("" for a
/// scalar).
std::string dimsString(llvm::ArrayRef<int64_t> dims);

/// One `--dim`: a symbol pinned to a size (NAME=N), or kept symbolic with
/// bounds (NAME=MIN..MAX, either side optional), values that are multiples
/// of `multiple` (%M), and the size its code is compiled for (@C; 0: the
/// multiple).
struct DimSpec {
  std::string name;
  std::optional<int64_t> size;
  int64_t min = 1, max = -1, multiple = 1, chunk = 0;
  /// @C1,C2,...: for a symbol that ops mix, the sizes its code is compiled
  /// at besides the bound (each run takes the smallest that holds it); a
  /// symbol that no op mixes takes one, its chunk (also in `chunk`).
  std::vector<int64_t> buckets;
  /// NAME=OTHER: NAME is the same symbol as OTHER (two unnamed dynamic
  /// dims, "input_dim0" and "state_dim1", that are one batch).
  std::string sameAs;
};

/// Parses a `--dim` (split at the last '='). False with `error` set.
bool parseDimSpec(const std::string &spec, DimSpec &out, std::string &error);

/// Parses a `--sequence-length` "NAME:N" (split at the last ':').
bool parseSequenceLength(const std::string &spec,
                         std::pair<std::string, int64_t> &out,
                         std::string &error);

} // namespace hodu

#endif // HODU_SUPPORT_NAMES_H
