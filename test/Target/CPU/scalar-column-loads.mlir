// hodu-cpu-vector-to-llvm reads the elements a register kernel extracts
// from a read (its column of A, each broadcast against B) as scalar loads,
// which LLVM folds into broadcasts from memory. Left as one vector read,
// a column of 6 floats (the 6x16 tile of a 16-register target) was a
// 4-element and a 2-element load whose lanes each took a register to
// broadcast, and two of the kernel's 12 accumulators were spilled to the
// stack (PaddleOCR's recogniser: 22% of its run in one such kernel).
// RUN: hodu-opt %s --hodu-cpu-vector-to-llvm | FileCheck %s

// CHECK-LABEL: func.func @column
// CHECK-NOT: vector<6xf32>
// CHECK: memref.load %arg0[%{{.*}}] : memref<6xf32>
// CHECK-NOT: vector<6xf32>
// CHECK: memref.load %arg0[%{{.*}}] : memref<6xf32>
// CHECK-NOT: vector<6xf32>
// CHECK: return
func.func @column(%a: memref<6xf32>, %b: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %col = vector.transfer_read %a[%c0], %pad {in_bounds = [true]} : memref<6xf32>, vector<6xf32>
  %acc0 = arith.constant dense<0.0> : vector<16xf32>
  %e0 = vector.extract %col[0] : f32 from vector<6xf32>
  %v0 = vector.broadcast %e0 : f32 to vector<16xf32>
  %r0 = vector.fma %v0, %b, %acc0 : vector<16xf32>
  %e5 = vector.extract %col[5] : f32 from vector<6xf32>
  %v5 = vector.broadcast %e5 : f32 to vector<16xf32>
  %r5 = vector.fma %v5, %b, %r0 : vector<16xf32>
  return %r5 : vector<16xf32>
}
