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
    if (p == "?") {
      out.second.push_back(-1); // kept symbolic
      continue;
    }
    if (p.getAsInteger(10, v) || v < 0) {
      error = "--input-shape '" + spec + "': '" + p.str() +
              "' is not a non-negative dimension or '?'";
      return false;
    }
    out.second.push_back(v);
  }
  return true;
}

std::string hodu::dimsString(llvm::ArrayRef<int64_t> dims) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(dims))
    s += (i ? "x" : "") + (d < 0 ? std::string("?") : std::to_string(d));
  return s;
}

bool hodu::parseDimSpec(const std::string &spec, DimSpec &out,
                        std::string &error) {
  auto bad = [&](const std::string &why) {
    error = "--dim '" + spec + "': " + why +
            " (expected NAME=N, NAME=MIN..MAX with an optional %MULTIPLE "
            "and @CHUNK (or @SIZE,SIZE,... for a symbol that ops mix), e.g. "
            "batch=1..64, seq=8..512%8 or seq=1..512@64,128,256, or "
            "NAME=OTHER for the same symbol as OTHER)";
    return false;
  };
  llvm::StringRef text(spec);
  size_t eq = text.rfind('=');
  if (eq == llvm::StringRef::npos || eq == 0)
    return bad("no NAME=");
  out = DimSpec();
  out.name = text.take_front(eq).str();
  llvm::StringRef rest = text.drop_front(eq + 1);
  auto number = [](llvm::StringRef t, int64_t &v) {
    return !t.empty() && !t.getAsInteger(10, v) && v >= 0;
  };
  auto [body, chunk] = rest.split('@');
  // @C1,C2,...: the sizes a symbol that ops mix is compiled at (buckets).
  if (!chunk.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    chunk.split(parts, ',');
    for (llvm::StringRef part : parts) {
      int64_t v;
      if (!number(part, v) || v < 1 ||
          (!out.buckets.empty() && v <= out.buckets.back()))
        return bad("the sizes after @ must be positive and ascending");
      out.buckets.push_back(v);
    }
    chunk = parts.front();
  }
  if (!chunk.empty() && (!number(chunk, out.chunk) || out.chunk < 1))
    return bad("the chunk must be a positive count");
  auto [range, multiple] = body.split('%');
  if (body.contains('%') && (!number(multiple, out.multiple) || out.multiple < 1))
    return bad("the multiple must be a positive count");
  if (!range.contains("..")) {
    int64_t v;
    if (!range.empty() && !body.contains('%') && chunk.empty() &&
        (llvm::isAlpha(range.front()) || range.front() == '_')) {
      out.sameAs = range.str(); // another symbol's name
      return true;
    }
    if (!number(range, v))
      return bad("'" + range.str() + "' is not a size");
    if (body.contains('%') || !chunk.empty())
      return bad("a pinned size takes no multiple or chunk");
    out.size = v;
    return true;
  }
  auto [lo, hi] = range.split("..");
  if (!lo.empty() && !number(lo, out.min))
    return bad("'" + lo.str() + "' is not a size");
  if (!hi.empty() && !number(hi, out.max))
    return bad("'" + hi.str() + "' is not a size");
  if (out.max >= 0 && out.max < out.min)
    return bad("the bound is empty");
  return true;
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
