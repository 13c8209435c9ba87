// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-distinct-results))' | FileCheck %s

// A buffer returned twice: the repeat is copied into a buffer of its own;
// an argument returned twice too; a buffer returned once stays as it is.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<2xf32>
// CHECK: %[[C1:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[A]], %[[C1]]
// CHECK-NEXT: %[[C2:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[ARG]], %[[C2]]
// CHECK-NEXT: return %[[A]], %[[C1]], %[[B]], %[[ARG]], %[[C2]]
func.func @twice(%arg: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<2xf32>, memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<2xf32>
  return %a, %a, %b, %arg, %arg : memref<4xf32>, memref<4xf32>, memref<2xf32>, memref<4xf32>, memref<4xf32>
}
