// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-strided-reads),canonicalize)' --split-input-file | FileCheck %s

// Eight lanes two elements apart (row %i of the odd columns) become one
// masked load of the 15 elements they span, from the first lane on
// (16 * %i + 1), and the even half of a deinterleave.
// CHECK: #[[MAP:.*]] = affine_map<()[s0] -> (s0 * 16 + 1)>
// CHECK-LABEL: func.func @stride2
// CHECK: %[[START:.*]] = affine.apply #[[MAP]]()[%arg1]
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%[[START]]], sizes: [15], strides: [1]
// CHECK: %[[MASK:.*]] = vector.constant_mask [15] : vector<16xi1>
// CHECK: %[[WIDE:.*]] = vector.maskedload %[[FLAT]][%c0], %[[MASK]], %{{.*}} : memref<15xf32, strided<[1], offset: ?>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: %[[EVEN:.*]], %{{.*}} = vector.deinterleave %[[WIDE]] : vector<16xf32> -> vector<8xf32>
// CHECK: return %[[EVEN]]
// CHECK-NOT: vector.transfer_read
func.func @stride2(%m: memref<4x16xf32>, %i: index) -> vector<8xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %s = memref.subview %m[0, 1] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2], offset: 1>>
  %v = vector.transfer_read %s[%i, %c0], %pad {in_bounds = [true]} : memref<4x8xf32, strided<[16, 2], offset: 1>>, vector<8xf32>
  return %v : vector<8xf32>
}

// -----

// A read of two rows at once (the vectoriser's shape for a 2x2 pooling over
// a small plane) is one load and deinterleave per row: row 0 from
// 16 * %i + 1, row 1 one memref row (16 elements) further on.
// CHECK-DAG: #[[ROW0:.*]] = affine_map<()[s0] -> (s0 * 16 + 1)>
// CHECK-DAG: #[[ROW1:.*]] = affine_map<()[s0] -> (s0 * 16 + 17)>
// CHECK-LABEL: func.func @two_rows
// CHECK: affine.apply #[[ROW0]]()[%arg1]
// CHECK: vector.maskedload
// CHECK: %[[EVEN0:.*]], %{{.*}} = vector.deinterleave
// CHECK: affine.apply #[[ROW1]]()[%arg1]
// CHECK: vector.maskedload
// CHECK: %[[EVEN1:.*]], %{{.*}} = vector.deinterleave
// CHECK: %[[E0:.*]]:8 = vector.to_elements %[[EVEN0]]
// CHECK: %[[E1:.*]]:8 = vector.to_elements %[[EVEN1]]
// CHECK: %[[ROWS:.*]] = vector.from_elements %[[E0]]#0, {{.*}}, %[[E0]]#7, %[[E1]]#0, {{.*}}, %[[E1]]#7 : vector<2x8xf32>
// CHECK: return %[[ROWS]]
// CHECK-NOT: vector.transfer_read
func.func @two_rows(%m: memref<4x16xf32>, %i: index) -> vector<2x8xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %s = memref.subview %m[0, 1] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2], offset: 1>>
  %v = vector.transfer_read %s[%i, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32, strided<[16, 2], offset: 1>>, vector<2x8xf32>
  return %v : vector<2x8xf32>
}

// -----

// Left alone: stride 3 (no deinterleave of three), a read that may run out
// of bounds, and a unit-stride read.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.deinterleave
// CHECK-COUNT-3: vector.transfer_read
// CHECK-NOT: vector.maskedload
func.func @left_alone(%m: memref<4x24xf32>, %j: index) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %s3 = memref.subview %m[0, 0] [4, 8] [1, 3] : memref<4x24xf32> to memref<4x8xf32, strided<[24, 3]>>
  %a = vector.transfer_read %s3[%c0, %c0], %pad {in_bounds = [true]} : memref<4x8xf32, strided<[24, 3]>>, vector<8xf32>
  %s2 = memref.subview %m[0, 0] [4, 12] [1, 2] : memref<4x24xf32> to memref<4x12xf32, strided<[24, 2]>>
  %b = vector.transfer_read %s2[%c0, %j], %pad : memref<4x12xf32, strided<[24, 2]>>, vector<8xf32>
  %c = vector.transfer_read %m[%c0, %j], %pad {in_bounds = [true]} : memref<4x24xf32>, vector<8xf32>
  return %a, %b, %c : vector<8xf32>, vector<8xf32>, vector<8xf32>
}
