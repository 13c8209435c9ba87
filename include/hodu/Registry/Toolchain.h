//===- Toolchain.h - the toolchain string of C++ plugins ---------*- C++
//-*-===//
//
// Toolchain-tier plugins (importers and targets, hodu/plugin.h) are C++
// libraries that hoduc loads into itself: they use Hodu's and MLIR's C++
// classes, so they must be built with the Hodu, the LLVM and the ABI
// options hoduc was built with. Both sides compile this string in; hoduc
// refuses a plugin whose string differs byte for byte, naming both.
//
//===----------------------------------------------------------------------===//
#ifndef HODU_REGISTRY_TOOLCHAIN_H
#define HODU_REGISTRY_TOOLCHAIN_H

#include "hodu/runtime.h" // HODU_RUNTIME_VERSION: Hodu's version

#include "llvm/Config/abi-breaking.h"
#include "llvm/Config/llvm-config.h"

#define HODU_TOOLCHAIN_STR_(x) #x
#define HODU_TOOLCHAIN_STR(x) HODU_TOOLCHAIN_STR_(x)

/// "hodu 0.1.0; LLVM 22.1.8; abi-breaking-checks 0; C++ ABI 1".
#define HODU_TOOLCHAIN                                                         \
  "hodu " HODU_RUNTIME_VERSION "; LLVM " LLVM_VERSION_STRING                   \
  "; abi-breaking-checks " HODU_TOOLCHAIN_STR(                                 \
      LLVM_ENABLE_ABI_BREAKING_CHECKS) "; C++ ABI " HODU_TOOLCHAIN_STR(_GLIBCXX_USE_CXX11_ABI)

#endif // HODU_REGISTRY_TOOLCHAIN_H
