// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-split-empty-tensors))' | FileCheck %s
// One-shot bufferization follows, with the allocations each chain now has:
// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-split-empty-tensors),one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops})' | FileCheck %s --check-prefix=BUF

// Two computations that do not read each other's results, sharing one
// tensor.empty (as CSE leaves them): each gets its own, right before it.
// CHECK-LABEL: func.func @unrelated
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[E0]] : tensor<f32>)
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[E1]] : tensor<f32>)
// CHECK-NOT:     tensor.empty
// CHECK:         return
// BUF-LABEL: func.func @unrelated
// BUF-COUNT-2:   memref.alloc() {{.*}} : memref<f32>
// BUF-NOT:       memref.copy
#scalar = affine_map<() -> ()>
func.func @unrelated(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<f32>
  %0 = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%a : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  %1 = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%b : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// -----

// A chain: the matmul writes into the fill's result, the bias add reads the
// matmul's: both keep the one tensor.empty, so the add may overwrite the
// matmul's buffer in place. The empty moves to its first use.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<2x4xf32>)
// CHECK-NEXT:    %[[M:.*]] = linalg.matmul {{.*}} outs(%[[F]] : tensor<2x4xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[M]], %{{.*}} : {{.*}}) outs(%[[E]] : tensor<2x4xf32>)
// CHECK-NOT:     tensor.empty
// BUF-LABEL: func.func @chain
// BUF-COUNT-1:   memref.alloc
// BUF-NOT:       memref.alloc
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain(%a: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = linalg.matmul ins(%a, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<2x4xf32>, tensor<4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// A use inside a loop (a tile loop's body reading the chain's value from
// above counts as reading it): the clone stays outside the loop, before it,
// with the original's dynamic size; a use that reads nothing of the chain
// starts a new one.
// CHECK-LABEL: func.func @loop
// CHECK:         %[[E0:.*]] = tensor.empty(%[[N:.*]]) : tensor<?xf32>
// CHECK-NEXT:    %[[G:.*]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<?xf32>)
// CHECK:         scf.forall {{.*}} shared_outs(%{{.*}} = %[[E0]])
// CHECK:         %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    scf.for {{.*}} {
// CHECK:           linalg.generic {{.*}} outs(%[[E1]] : tensor<?xf32>)
// CHECK-NOT:     tensor.empty
// BUF-LABEL: func.func @loop
#v = affine_map<(d0) -> (d0)>
func.func @loop(%a: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %g = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  %t = scf.forall (%i) in (%n) shared_outs(%out = %e) -> (tensor<?xf32>) {
    %s = tensor.extract_slice %g[%i] [1] [1] : tensor<?xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %out[%i] [1] [1] : tensor<1xf32> into tensor<?xf32>
    }
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %l = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<?xf32>) {
    %x = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%acc : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.exp %x : f32
      linalg.yield %y : f32
    } -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  }
  return %t, %l : tensor<?xf32>, tensor<?xf32>
}

// -----

// A use in another block of the function (a CFG region): its empty goes
// right after the original, which dominates that block.
// CHECK-LABEL: func.func @blocks
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[E0]] : tensor<4xf32>)
// CHECK:       ^bb1:
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[E1]] : tensor<4xf32>)
// CHECK-NOT:     tensor.empty
func.func @blocks(%x: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  cf.br ^bb1
^bb1:
  %b = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
