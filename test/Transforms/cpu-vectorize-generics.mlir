// RUN: hodu-opt %s --hodu-cpu-vectorize-generics --canonicalize --split-input-file | FileCheck %s
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics=approximate-math=false --split-input-file | FileCheck %s --check-prefix=LIBM
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics=gathers=false --split-input-file | FileCheck %s --check-prefix=NOGATHER
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics=split-reductions=false --split-input-file | FileCheck %s --check-prefix=NOSPLIT

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// An elementwise op with a broadcast operand: 64-element tiles along the
// innermost dim, vector code, and erf as a polynomial (no math.erf left).
// CHECK-LABEL: func.func @gelu_like
// CHECK: scf.for {{.*}} step %c1
// CHECK: scf.for {{.*}} step %c64
// CHECK: vector.transfer_read {{.*}} vector<64xf32>
// CHECK-NOT: math.erf
// CHECK-NOT: linalg.generic
// LIBM-LABEL: func.func @gelu_like
// LIBM: math.erf {{.*}} : vector<64xf32>
func.func @gelu_like(%x: tensor<8x1024xf32>, %b: tensor<1024xf32>) -> tensor<8x1024xf32> {
  %e = tensor.empty() : tensor<8x1024xf32>
  %0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<8x1024xf32>, tensor<1024xf32>) outs(%e : tensor<8x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %g = math.erf %s : f32
    linalg.yield %g : f32
  } -> tensor<8x1024xf32>
  return %0 : tensor<8x1024xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row reduction (softmax's sum, layer norm's mean): each row's 64-element
// vector is reduced with one horizontal reduction, not a scalar loop.
// CHECK-LABEL: func.func @row_sum
// CHECK: vector.transfer_read {{.*}} vector<64xf32>
// CHECK: vector.reduction <add>
// CHECK-NOT: linalg.generic
func.func @row_sum(%x: tensor<16x64xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

#in = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0 + d4, d1 + d5, d2 * 2 + d6, d3 * 2 + d7)>
#win = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5, d6, d7)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3)>

// A 2x2 max pool with stride 2 (window maps, not projected permutations) is
// unrolled into four stride-2 slices of the input, combined elementwise.
// CHECK-LABEL: func.func @max_pool
// CHECK-COUNT-4: tensor.extract_slice %{{.*}}[0, 0, {{[01]}}, {{[01]}}] [1, 4, 8, 8] [1, 1, 2, 2]
// CHECK: arith.maximumf {{.*}} : vector<8x8xf32>
// CHECK-NOT: linalg.generic
func.func @max_pool(%x: tensor<1x4x16x16xf32>, %init: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = tensor.empty() : tensor<1x1x2x2xf32>
  %0 = linalg.generic {indexing_maps = [#in, #win, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x4x16x16xf32>, tensor<1x1x2x2xf32>) outs(%init : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %unused: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Booleans are one byte per element in memory but packed bits in vectors:
// ops on i1 tensors stay scalar.
// CHECK-LABEL: func.func @bool_not
// CHECK: linalg.generic
// CHECK-NOT: vector.transfer_read
func.func @bool_not(%x: tensor<64xi1>) -> tensor<64xi1> {
  %e = tensor.empty() : tensor<64xi1>
  %t = arith.constant true
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xi1>) outs(%e : tensor<64xi1>) {
  ^bb0(%a: i1, %o: i1):
    %n = arith.xori %a, %t : i1
    linalg.yield %n : i1
  } -> tensor<64xi1>
  return %0 : tensor<64xi1>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Too few elements for a vector (a prime-sized dim has no divisor tile):
// left for the scalar path.
// CHECK-LABEL: func.func @tiny
// CHECK: linalg.generic
func.func @tiny(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A read at computed indices (Resize's taps: a source column and its weight
// per output column, then x[i, col] * w): the 2-D tensor.extract becomes a
// vector.gather over 64 lanes, the index arithmetic vector ops. With
// gathers=false it stays a scalar linalg.generic.
// CHECK-LABEL: func.func @computed_index_read
// CHECK: vector.gather {{.*}} into vector<1x64xf32>
// CHECK-NOT: linalg.generic
// NOGATHER-LABEL: func.func @computed_index_read
// NOGATHER: linalg.generic
// NOGATHER: tensor.extract
// NOGATHER-NOT: vector.gather
func.func @computed_index_read(%x: tensor<8x128xf32>) -> tensor<8x256xf32> {
  %e = tensor.empty() : tensor<8x256xf32>
  %0 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x256xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %jf = arith.sitofp %j64 : i64 to f32
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %jf, %half : f32
    %c = arith.fptosi %s : f32 to i64
    %ci = arith.index_cast %c : i64 to index
    %v = tensor.extract %x[%i, %ci] : tensor<8x128xf32>
    %w = arith.subf %s, %jf : f32
    %r = arith.mulf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}

// -----

// A reduction of a long innermost dim (DynamicQuantizeLinear's max over a
// whole feature map): the dim is split into 8 x 64, a 64-wide partial
// starts at -inf and takes an elementwise maximumf per tile inside the
// loops, and one horizontal vector.reduction follows them, folding in the
// op's own init. With split-reductions=false every 64-element tile ends in
// a horizontal reduction inside the loop.
// CHECK-LABEL: func.func @long_max
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x8x64xf32>
// CHECK: scf.for
// CHECK: arith.maximumf {{.*}} : vector<64xf32>
// CHECK-NOT: vector.reduction
// CHECK: scf.yield
// CHECK: vector.reduction <maximumf>, {{.*}} : vector<64xf32> into f32
// CHECK-NOT: vector.reduction
// CHECK: return
// NOSPLIT-LABEL: func.func @long_max
// NOSPLIT-NOT: tensor.expand_shape
// NOSPLIT: scf.for
// NOSPLIT: vector.reduction <maximumf>
// NOSPLIT: scf.yield
func.func @long_max(%x: tensor<2x3x512xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %0 = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> ()>],
                       iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x : tensor<2x3x512xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Per-row sums of 1024-element rows (softmax, layer norm): a [16, 64]
// partial of adds, then one horizontal add per row.
// CHECK-LABEL: func.func @long_row_sum
// NOSPLIT-LABEL: func.func @long_row_sum
// CHECK: tensor.expand_shape {{.*}} into tensor<16x16x64xf32>
// CHECK: arith.addf {{.*}} : vector<64xf32>
// CHECK: vector.reduction <add>, {{.*}} : vector<64xf32> into f32
func.func @long_row_sum(%x: tensor<16x1024xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x1024xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

#in4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#w4 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>

// An op whose innermost loop has one iteration (a slot of size 1 of a
// concat, written by a fused producer) has its unit dims dropped first: a
// vector dim of 1 innermost would make every vector op one scalar op per
// element (a DFT into such a slot gave LLVM 20,000-line kernels). The op
// runs on 15x9 and its vectors are rows of the 9 columns.
// CHECK-LABEL: func.func @trailing_unit_dim
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x15x9x1xf32> into tensor<15x9xf32>
// CHECK: vector.transfer_read {{.*}} vector<{{[0-9]+}}x9xf32>
// CHECK-NOT: x1xf32>
// CHECK: tensor.expand_shape {{.*}} : tensor<15x9xf32> into tensor<1x15x9x1xf32>
func.func @trailing_unit_dim(%x: tensor<1x15x9x1xf32>, %w: tensor<1x1x9x1xf32>) -> tensor<1x15x9x1xf32> {
  %e = tensor.empty() : tensor<1x15x9x1xf32>
  %0 = linalg.generic {indexing_maps = [#in4, #w4, #in4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %w : tensor<1x15x9x1xf32>, tensor<1x1x9x1xf32>) outs(%e : tensor<1x15x9x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x15x9x1xf32>
  return %0 : tensor<1x15x9x1xf32>
}
