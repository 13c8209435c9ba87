//===- Names.cpp - C identifiers and input-shape pins ---------------------===//
#include "hodu/Support/Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

using namespace hodu;

std::string hodu::cIdentifier(const std::string &text) {
  std::string id;
  id.reserve(text.size());
  for (char c : text)
    id += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (id.empty() || llvm::isDigit(id[0]))
    id = "m_" + id;
  return id;
}

bool hodu::isCIdentifier(const std::string &text) {
  return !text.empty() && cIdentifier(text) == text;
}

std::string hodu::defaultModelName(const std::string &path) {
  return cIdentifier(llvm::sys::path::stem(path).str());
}

bool hodu::parseInputShape(const std::string &spec, InputShape &out,
                           std::string &error) {
  llvm::StringRef text(spec);
  size_t colon = text.rfind(':');
  if (colon == llvm::StringRef::npos || colon == 0) {
    error = "--input-shape expects NAME:DIMS (e.g. input:1x3x224x224), got '" +
            spec + "'";
    return false;
  }
  out.first = text.take_front(colon).str();
  out.second.clear();
  llvm::StringRef dims = text.drop_front(colon + 1);
  if (dims.empty())
    return true; // a scalar
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  for (llvm::StringRef p : parts) {
    int64_t v;
    if (p.getAsInteger(10, v) || v < 0) {
      error = "--input-shape '" + spec + "': '" + p.str() +
              "' is not a non-negative dimension";
      return false;
    }
    out.second.push_back(v);
  }
  return true;
}

std::string hodu::dimsString(llvm::ArrayRef<int64_t> dims) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

bool hodu::parseSequenceLength(const std::string &spec,
                               std::pair<std::string, int64_t> &out,
                               std::string &error) {
  llvm::StringRef text(spec);
  size_t colon = text.rfind(':');
  int64_t n;
  if (colon == llvm::StringRef::npos || colon == 0 ||
      text.drop_front(colon + 1).getAsInteger(10, n) || n < 0) {
    error = "--sequence-length expects NAME:N with N a non-negative count "
            "(e.g. frames:3), got '" +
            spec + "'";
    return false;
  }
  out = {text.take_front(colon).str(), n};
  return true;
}
