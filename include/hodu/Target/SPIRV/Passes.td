//===- Passes.td - SPIR-V code-generation passes ------------*- tablegen -*-===//
//
// What the SPIR-V targets (vulkan, and metal through SPIRV-Cross) run on the
// shared GPU kernels before upstream's convert-gpu-to-spirv.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_SPIRV_PASSES_TD
#define HODU_TARGET_SPIRV_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpirvPrepareKernels
    : Pass<"hodu-spirv-prepare-kernels", "mlir::ModuleOp"> {
  let summary = "Make the shared GPU kernels convertible to SPIR-V (Vulkan)";
  let description = [{
    Runs on the module after the shared `gpu` phase. Upstream's
    `convert-gpu-to-spirv` needs what the other GPU back ends do not:

    - a `spirv.target_env` on the module: SPIR-V 1.3 (Vulkan 1.1) with the
      `Shader` capability and the 8-, 16- and 64-bit integer and float
      capabilities and storage extensions the models' element types need
      (`spirv-update-vce` later keeps only what each module uses, and the
      runtime checks the device's features against that);
    - a `spirv.entry_point_abi` on every kernel, from its
      `known_block_size`: the workgroup size is baked into the shader;
    - workgroup memory as `memref.alloc`s in the `Workgroup` storage class
      inside the kernel (SPIR-V has no symbol to take the address of):
      each `memref.get_global` of a workgroup global becomes one allocation
      per kernel and global, and `#gpu.address_space<workgroup>` becomes
      `#spirv.storage_class<Workgroup>` everywhere in the kernel module;
    - the math functions GLSL's extended instruction set lacks (`erf`,
      `erfc`, and the ones `math-expand-ops` rewrites) as polynomials or
      expansions; and on f64, where GLSL's transcendental instructions
      (`exp`, `log`, `pow`, the trigonometric and hyperbolic functions)
      take only 16- and 32-bit floats, those functions computed in f32;
      `math.powf` of a negative base as C's `pow` (GLSL's Pow is undefined
      there): the sign of the base for odd integral exponents, NaN for
      non-integral ones;
    - sign extension to 64 bits (`arith.extsi` to i64) as
      `(zext(x) ^ 2^(w-1)) - 2^(w-1)`: Mesa's lavapipe zero-extends an
      `OpSConvert` to a 64-bit integer of the unsigned types SPIR-V gets
      here, which turned a negative i32 into 2^32 - 1.

    Before:
    ```mlir
    gpu.func @k(...) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
      %a = memref.get_global @__wg : memref<64x16xf32, #gpu.address_space<workgroup>>
    ```
    After:
    ```mlir
    gpu.func @k(...) kernel attributes {known_block_size = array<i32: 16, 16, 1>,
        spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 16, 1]>} {
      %a = memref.alloc() : memref<64x16xf32, #spirv.storage_class<Workgroup>>
    ```
  }];
  let options = [
    Option<"float64", "float64", "bool", "true",
           "Whether the device has 64-bit floats (Vulkan: shaderFloat64; "
           "Metal has none)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::spirv::SPIRVDialect",
  ];
}

#endif // HODU_TARGET_SPIRV_PASSES_TD
