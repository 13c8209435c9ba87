//===- MetalTarget.h - the Metal back end -----------------------*- C++ -*-===//
//
// lib/Target/Metal: the shared GPU kernels through SPIR-V to Metal Shading
// Language (SPIRV-Cross), a .metallib where Apple's tools exist, or a bundle.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_METAL_METALTARGET_H
#define HODU_TARGET_METAL_METALTARGET_H

namespace hodu {

/// Adds the `metal` target to the ComponentRegistry and registers its named
/// pipelines (once).
void registerMetalTarget();

} // namespace hodu

#endif // HODU_TARGET_METAL_METALTARGET_H
