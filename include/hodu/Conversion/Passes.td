//===- Passes.td - hodu conversion passes ------------------*- tablegen -*-===//
//
// The conversions out of the hodu dialect. Declared apart from the hodu
// transforms (dialects/Hodu/Passes.td) so that each library defines exactly
// the passes its generated header declares.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_CONVERSION_PASSES_TD
#define HODU_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertHoduToLinalg : Pass<"convert-hodu-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower the hodu dialect to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites every hodu op into upstream dialects on tensors, ready for
    one-shot bufferization: elementwise ops, reductions, matmul, einsum and
    convolutions become `linalg.generic` (or named linalg ops), data movement
    becomes `tensor` ops or gathers inside `linalg.generic`, and sequential
    ops (scatter, topk, det, inv) become `scf.for` loops over tensors.
    Unsigned dtypes become signless integers everywhere, function signatures
    included; their unsigned meaning picks the arith op (`divui`, `cmpi ult`,
    `uitofp`, ...). Narrow floats (f8, bf16, f16) are computed in f32.

    Before:
    ```mlir
    func.func @main(%a: tensor<2x3xui8>, %b: tensor<3xui8>) -> tensor<2x3xui8> {
      %0 = hodu.div %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
      return %0 : tensor<2x3xui8>
    }
    ```
    After:
    ```mlir
    #map = affine_map<(d0, d1) -> (d0, d1)>
    #map1 = affine_map<(d0, d1) -> (d1)>
    func.func @main(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2x3xi8> {
      %e = tensor.empty() : tensor<2x3xi8>
      %0 = linalg.generic {indexing_maps = [#map, #map1, #map],
                           iterator_types = ["parallel", "parallel"]}
          ins(%a, %b : tensor<2x3xi8>, tensor<3xi8>) outs(%e : tensor<2x3xi8>) {
      ^bb0(%x: i8, %y: i8, %out: i8):
        %q = arith.divui %x, %y : i8
        linalg.yield %q : i8
      } -> tensor<2x3xi8>
      return %0 : tensor<2x3xi8>
    }
    ```

    Ops with data-dependent result shapes (`hodu.nonzero`, `hodu.unique`)
    and dynamically shaped tensors are not supported: the pass fails with a
    diagnostic at the op.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect"
  ];
}

#endif // HODU_CONVERSION_PASSES_TD
