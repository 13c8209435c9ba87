//===- Output.cpp - writing artifacts safely, running tools ---------------===//
#include "hodu/Support/Output.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace hodu;

OutputFile::OutputFile(std::string destination)
    : destination(std::move(destination)) {}

OutputFile::~OutputFile() {
  if (tmp)
    llvm::consumeError(tmp->discard());
}

LogicalResult OutputFile::open(Location loc) {
  // A symlink is written through, as clang does: the file it points to is
  // replaced, not the link.
  if (llvm::sys::fs::is_symlink_file(destination)) {
    SmallString<256> target;
    if (auto ec = llvm::sys::fs::real_path(destination, target))
      return emitError(loc, "cannot write '")
             << destination << "': the symlink does not resolve ("
             << ec.message() << ")";
    destination = std::string(target);
  }
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(destination, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return emitError(loc, "cannot write '")
           << destination << "': it exists and is not a regular file";
  // Beside the destination, so that the final rename stays on one file
  // system; the random part makes the name unpredictable and O_EXCL makes
  // an existing file (or symlink) at that name an error, not a target.
  auto file = llvm::sys::fs::TempFile::create(destination + ".tmp-%%%%%%%%");
  if (!file)
    return emitError(loc, "cannot write '")
           << destination << "': " << llvm::toString(file.takeError());
  tmp = std::make_unique<llvm::sys::fs::TempFile>(std::move(*file));
  tmpPath = tmp->TmpName;
  return success();
}

LogicalResult OutputFile::write(StringRef contents, Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(tmpPath, ec);
  if (!ec) {
    os << contents;
    os.close();
    if (os.has_error())
      ec = os.error();
  }
  if (ec)
    return emitError(loc, "cannot write '")
           << destination << "': " << ec.message();
  return success();
}

LogicalResult OutputFile::commit(Location loc) {
  if (!tmp)
    return emitError(loc, "internal error: '") << destination << "' not open";
  llvm::Error err = tmp->keep(destination);
  tmp.reset();
  if (err)
    return emitError(loc, "cannot write '")
           << destination << "': " << llvm::toString(std::move(err));
  return success();
}

std::optional<std::string> hodu::findTool(ArrayRef<StringRef> names) {
  SmallVector<StringRef> dirs = {"/usr/lib/llvm-22/bin", "/usr/bin"};
  for (StringRef n : names) {
    if (auto p = llvm::sys::findProgramByName(n))
      return *p;
    if (auto p = llvm::sys::findProgramByName(n, dirs))
      return *p;
  }
  return std::nullopt;
}

LogicalResult hodu::runTool(StringRef tool, ArrayRef<std::string> argv,
                            Location loc) {
  SmallVector<StringRef> args(argv.begin(), argv.end());
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(tool, args, std::nullopt, {}, 0, 0, &err);
  if (rc != 0)
    return emitError(loc, "'") << tool << "' failed (exit " << rc << ")"
                               << (err.empty() ? "" : ": ") << err;
  return success();
}

LogicalResult hodu::writeText(StringRef path, StringRef text, Location loc) {
  if (path == "-") {
    llvm::outs() << text;
    llvm::outs().flush();
    return success();
  }
  OutputFile out(path.str());
  if (failed(out.open(loc)) || failed(out.write(text, loc)))
    return failure();
  return out.commit(loc);
}
