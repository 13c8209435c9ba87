// hodu-cpu-pad-in-place: a tensor.pad by a constant becomes a fill of an
// empty tensor of the padded shape and an insert_slice of the source into
// its interior, so that eliminate-empty-tensors lets the source's producer
// write the interior and bufferization copies nothing. Reshapes between
// the producer and the pad move after it; a source with other users keeps
// its pad.
// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-cpu-pad-in-place))' | FileCheck %s
// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-cpu-pad-in-place),eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize)' | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @depthwise_view
// The fill comes before the producer, then the producer, the interior and
// the view with the unit dim.
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x18x18xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x18x18xf32>)
// CHECK: %[[R:.*]] = scf.forall
// CHECK: %[[I:.*]] = tensor.insert_slice %[[R]] into %[[F]][0, 1, 1] [4, 16, 16] [1, 1, 1]
// CHECK: tensor.expand_shape %[[I]] {{\[\[}}0, 1], [2], [3]] output_shape [4, 1, 18, 18]
// CHECK-NOT: tensor.pad
// BUF-LABEL: func.func @depthwise_view
// BUF: %[[A:.*]] = memref.alloc() {{.*}} : memref<4x18x18xf32>
// The whole buffer is filled, then the producer writes the interior.
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<4x18x18xf32>)
// BUF: scf.forall
// BUF: linalg.exp {{.*}} outs(%{{.*}} : memref<1x16x16xf32, strided<[324, 18, 1], offset: ?>>)
// BUF-NOT: memref.copy
// BUF-NOT: linalg.copy
// BUF: return
func.func @depthwise_view(%x: tensor<4x16x16xf32>, %out: tensor<4x1x18x18xf32>) -> tensor<4x1x18x18xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16x16xf32>
  %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> (tensor<4x16x16xf32>) {
    %s = tensor.extract_slice %x[%i, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<4x16x16xf32> to tensor<1x16x16xf32>
    %d = tensor.extract_slice %o[%i, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<4x16x16xf32> to tensor<1x16x16xf32>
    %m = linalg.exp ins(%s : tensor<1x16x16xf32>) outs(%d : tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %m into %o[%i, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<1x16x16xf32> into tensor<4x16x16xf32>
    }
  }
  %v = tensor.expand_shape %r [[0, 1], [2], [3]] output_shape [4, 1, 16, 16] : tensor<4x16x16xf32> into tensor<4x1x16x16xf32>
  %p = tensor.pad %v low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<4x1x16x16xf32> to tensor<4x1x18x18xf32>
  %y = linalg.exp ins(%p : tensor<4x1x18x18xf32>) outs(%out : tensor<4x1x18x18xf32>) -> tensor<4x1x18x18xf32>
  return %y : tensor<4x1x18x18xf32>
}

// -----

// Unequal sides, a collapse before the pad (the padded dim goes to the
// group's dim of size other than 1), and -inf.
// CHECK-LABEL: func.func @collapse_one_side
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x9x12xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x2x9x12xf32>)
// CHECK: %[[R:.*]] = linalg.exp
// CHECK: %[[I:.*]] = tensor.insert_slice %[[R]] into %[[F]][0, 0, 0, 2] [1, 2, 9, 10] [1, 1, 1, 1]
// CHECK: tensor.collapse_shape %[[I]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x9x12xf32> into tensor<2x9x12xf32>
// BUF-LABEL: func.func @collapse_one_side
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x2x9x12xf32>)
// BUF-NOT: memref.copy
// BUF-NOT: linalg.copy
// BUF: return
func.func @collapse_one_side(%x: tensor<1x2x9x10xf32>, %out: tensor<2x9x12xf32>) -> tensor<2x9x12xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x2x9x10xf32>
  %r = linalg.exp ins(%x : tensor<1x2x9x10xf32>) outs(%e : tensor<1x2x9x10xf32>) -> tensor<1x2x9x10xf32>
  %v = tensor.collapse_shape %r [[0, 1], [2], [3]] : tensor<1x2x9x10xf32> into tensor<2x9x10xf32>
  %p = tensor.pad %v low[0, 0, 2] high[0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %ninf : f32
  } : tensor<2x9x10xf32> to tensor<2x9x12xf32>
  %y = linalg.exp ins(%p : tensor<2x9x12xf32>) outs(%out : tensor<2x9x12xf32>) -> tensor<2x9x12xf32>
  return %y : tensor<2x9x12xf32>
}

// -----

// A reshape that spreads a padded dim over two non-unit dims stays before
// the pad, whose source is then the reshape's result.
// CHECK-LABEL: func.func @flattened
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [4, 8, 8]
// CHECK: tensor.insert_slice %{{.*}}[0, 1, 1] [4, 8, 8] [1, 1, 1] : tensor<4x8x8xf32> into tensor<4x10x10xf32>
// CHECK-NOT: tensor.pad
// BUF-LABEL: func.func @flattened
// BUF: linalg.fill
// BUF: memref.copy %{{.*}}, %{{.*}} : memref<4x8x8xf32> to memref<4x8x8xf32, strided<[100, 10, 1], offset: 11>>
func.func @flattened(%x: tensor<4x64xf32>, %out: tensor<4x10x10xf32>) -> tensor<4x10x10xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.exp ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %v = tensor.expand_shape %r [[0], [1, 2]] output_shape [4, 8, 8] : tensor<4x64xf32> into tensor<4x8x8xf32>
  %p = tensor.pad %v low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %cst : f32
  } : tensor<4x8x8xf32> to tensor<4x10x10xf32>
  %y = linalg.exp ins(%p : tensor<4x10x10xf32>) outs(%out : tensor<4x10x10xf32>) -> tensor<4x10x10xf32>
  return %y : tensor<4x10x10xf32>
}

// -----

// A source that another op also reads keeps its pad (that reader may take
// it as dense, flat offsets and all); so do pads with dynamic sides.
// CHECK-LABEL: func.func @kept
// CHECK: tensor.pad %[[R:.*]] low[0, 1] high[0, 1]
// CHECK: tensor.pad %{{.*}} low[0, %{{.*}}] high[0, 0]
// BUF-LABEL: func.func @kept
// BUF: linalg.map
// BUF: memref.copy
func.func @kept(%x: tensor<4x8xf32>, %n: index, %o1: tensor<4x10xf32>, %o2: tensor<4x8xf32>)
    -> (tensor<4x10xf32>, tensor<4x8xf32>, tensor<4x?xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = tensor.pad %r low[0, 1] high[0, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<4x8xf32> to tensor<4x10xf32>
  %y = linalg.exp ins(%p : tensor<4x10xf32>) outs(%o1 : tensor<4x10xf32>) -> tensor<4x10xf32>
  %z = linalg.exp ins(%r : tensor<4x8xf32>) outs(%o2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = tensor.pad %x low[0, %n] high[0, 0] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<4x8xf32> to tensor<4x?xf32>
  return %y, %z, %q : tensor<4x10xf32>, tensor<4x8xf32>, tensor<4x?xf32>
}

