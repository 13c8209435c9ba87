//===- hdss_fuzz.cpp - libFuzzer target for the .hdss reader and importer -===//
//
// Snapshot bytes -> hdss::Snapshot -> hodu module, verified. The postcard
// reader must refuse what it cannot decode with a message, never read out of
// bounds or allocate more than the input describes; a snapshot it accepts
// must import to a module that verifies, or to a diagnostic. Seeds:
// test/fuzz/corpus/hdss (the snapshots of test/Import/Hdss).
//
//===----------------------------------------------------------------------===//
#include "hodu/Import/Hdss.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hodu::hdss::Snapshot snapshot;
  std::string error;
  if (!hodu::hdss::readSnapshot(data, size, snapshot, error)) {
    if (error.empty()) {
      fprintf(stderr, "readSnapshot failed without a message\n");
      abort();
    }
    return 0;
  }
  // What was read writes back to bytes that read and write back to the
  // same bytes (compared as bytes: a NaN attribute is not equal to itself).
  std::vector<uint8_t> bytes = hodu::hdss::writeSnapshot(snapshot);
  hodu::hdss::Snapshot again;
  if (!hodu::hdss::readSnapshot(bytes.data(), bytes.size(), again, error) ||
      hodu::hdss::writeSnapshot(again) != bytes) {
    fprintf(stderr, "snapshot does not survive a write and read: %s\n",
            error.c_str());
    abort();
  }
  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      hodu::importHdssSnapshot(snapshot, context, "fuzz");
  if (module && mlir::failed(mlir::verify(*module))) {
    fprintf(stderr, "imported module does not verify\n");
    abort();
  }
  return 0;
}
