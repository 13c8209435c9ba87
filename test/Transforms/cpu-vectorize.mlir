// RUN: hodu-opt %s --hodu-cpu-vectorize=pack-b=false --canonicalize --split-input-file | FileCheck %s
// RUN: hodu-opt %s --hodu-cpu-vectorize="parallel=false pack-b=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=SEQ
// RUN: hodu-opt %s --hodu-cpu-vectorize --canonicalize --split-input-file | FileCheck %s --check-prefix=PACK
// RUN: hodu-opt %s --hodu-cpu-vectorize=parallel=false --canonicalize --split-input-file | FileCheck %s --check-prefix=PACKSEQ

// A matmul gets cache tiles, 8x32 register tiles and a k loop that carries
// the accumulator as a vector (no memory round trip per k step). The two
// 64-row cache tiles are spread over threads (scf.forall), or, with
// parallel=false, visited by a plain loop.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: scf.for {{.*}} step %c8
// SEQ-LABEL: func.func @matmul
// SEQ-NOT: scf.forall
// SEQ: scf.for {{.*}} step %c64
// SEQ: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c32
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: scf.for {{.*}} step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: linalg.matmul
// With packing (the default), B is copied into [N/32, K, 32] column panels
// and A into [M/8, K, 8] row panels; one loop over the 8 panels (parallel)
// holds a loop over 8-row blocks, each one register kernel whose k loop
// reads both operands contiguously: an 8-wide column of A and a 32-wide row
// of B per step.
// PACK-LABEL: func.func @matmul
// PACK: tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [64, 8, 32]
// PACK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64x8x32xf32>) outs(%{{.*}} : tensor<8x64x32xf32>)
// PACK: tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [16, 8, 64]
// PACK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x8x64xf32>) outs(%{{.*}} : tensor<16x64x8xf32>)
// PACK: scf.forall (%{{.*}}) in (8)
// PACK: tensor.extract_slice %{{.*}} [1, 64, 32] [1, 1, 1] : tensor<8x64x32xf32> to tensor<64x32xf32>
// PACK: scf.for {{.*}} step %c8
// PACK: tensor.extract_slice %{{.*}} [1, 64, 8] [1, 1, 1] : tensor<16x64x8xf32> to tensor<64x8xf32>
// PACK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// PACK: scf.for {{.*}} step %c1 iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>)
// PACK: vector.transfer_read {{.*}} : tensor<1x8xf32>, vector<1x8xf32>
// PACK: vector.transfer_read {{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// PACK: tensor.parallel_insert_slice
// PACK-NOT: linalg.matmul
// PACK: return
// PACKSEQ-LABEL: func.func @matmul
// PACKSEQ-NOT: scf.forall
// PACKSEQ: scf.for {{.*}} = %c0 to %c256 step %c32
// PACKSEQ: scf.for {{.*}} step %c8
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

// Tile sizes divide the op's dims: 6 rows use a 6-row register tile (any
// divisor of M up to what the registers hold, not only powers of two), 20
// columns a 4-wide one.
// CHECK-LABEL: func.func @odd_sizes
// CHECK: vector<6x4xf32>
func.func @odd_sizes(%a: tensor<6x10xf32>, %b: tensor<10x20xf32>, %c: tensor<6x20xf32>) -> tensor<6x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<6x10xf32>, tensor<10x20xf32>) outs(%c : tensor<6x20xf32>) -> tensor<6x20xf32>
  return %0 : tensor<6x20xf32>
}

// -----

// Batched matmuls are tiled over the batch too; the batch is the parallel dim.
// CHECK-LABEL: func.func @batch
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<1x8x16xf32>)
// CHECK-NOT: linalg.batch_matmul
func.func @batch(%a: tensor<4x16x32xf32>, %b: tensor<4x32x16xf32>, %c: tensor<4x16x16xf32>) -> tensor<4x16x16xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x16x32xf32>, tensor<4x32x16xf32>) outs(%c : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %0 : tensor<4x16x16xf32>
}

// -----

// No vector width divides 7 columns, and integer matmuls are not handled:
// both stay for the scalar path, untouched and without the internal tag.
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x7xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xi32>, tensor<8x8xi32>)
// CHECK-NOT: hodu.vectorize_id
func.func @left_alone(%a: tensor<8x8xf32>, %b: tensor<8x7xf32>, %c: tensor<8x7xf32>,
                      %i: tensor<8x8xi32>, %j: tensor<8x8xi32>) -> (tensor<8x7xf32>, tensor<8x8xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x7xf32>) outs(%c : tensor<8x7xf32>) -> tensor<8x7xf32>
  %1 = linalg.matmul ins(%i, %j : tensor<8x8xi32>, tensor<8x8xi32>) outs(%j : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %0, %1 : tensor<8x7xf32>, tensor<8x8xi32>
}

// -----

// A batch-1 NCHW convolution becomes an im2col buffer filled by one strided
// slice copy per filter tap (9 for 3x3) and a vectorised matmul of the
// flattened filter with the columns.
// CHECK-LABEL: func.func @conv
// Each tap's window is a full-rank slice, collapsed to [C, OH, OW].
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x10x18xf32> to tensor<1x4x8x16xf32>
// CHECK: tensor.collapse_shape {{.*}} {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
// CHECK-COUNT-9: linalg.copy ins(%{{.*}} : tensor<4x8x16xf32>)
// CHECK: tensor.collapse_shape {{.*}} tensor<4x3x3x8x16xf32> into tensor<36x128xf32>
// CHECK: tensor.collapse_shape {{.*}} tensor<8x4x3x3xf32> into tensor<8x36xf32>
// CHECK: -> (vector<8x32xf32>)
// CHECK: tensor.expand_shape {{.*}} into tensor<1x8x8x16xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// With packing, the filter is the packed A operand and the matmul runs over
// the 8 one-vector panels (one per output row); each iteration first writes
// its own panel [C, kh, kw, 16]: per tap, one 16-wide vector per channel
// from its input row, then the register kernels read it.
// PACK-LABEL: func.func @conv
// PACK: ins(%{{.*}} : tensor<1x8x36xf32>) outs(%{{.*}} : tensor<1x36x8xf32>)
// PACK: scf.forall (%{{.*}}) in (8)
// PACK: tensor.empty() : tensor<4x3x3x16xf32>
// PACK-COUNT-9: vector.transfer_write %{{.*}} : vector<16xf32>, tensor<4x3x3x16xf32>
// PACK: tensor.collapse_shape {{.*}} tensor<4x3x3x16xf32> into tensor<36x16xf32>
// PACK: -> (vector<8x16xf32>)
// PACK-NOT: linalg.conv_2d_nchw_fchw
// PACK: return
func.func @conv(%x: tensor<1x4x10x18xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x10x18xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}

// -----

// hodu-cpu-parallelize: a large elementwise generic is cut into 16 pieces of
// an scf.forall along its outermost parallel dim; a small one is left alone.
// RUN: hodu-opt %s --split-input-file --hodu-cpu-parallelize | FileCheck %s --check-prefix=PAR
// PAR-LABEL: func.func @big_relu
// PAR: scf.forall (%{{.*}}) in (16)
// PAR: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x4096xf32>)
// PAR-LABEL: func.func @small_relu
// PAR-NOT: scf.forall
// The threshold is work (iteration points x body ops), not elements: a
// fused bias + LeakyReLU + clamp on 24x74x32 (56832 elements, 5 ops) is
// spread over threads, a plain copy of as many elements is not, and a 3x3
// max pool counts its window's taps (14208 results, 127872 points).
// PAR-LABEL: func.func @epilogue
// PAR: scf.forall (%{{.*}}) in (8)
// PAR: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x74x32xf32>, tensor<3xf32>)
// PAR-LABEL: func.func @copy
// PAR-NOT: scf.forall
// PAR-LABEL: func.func @pool
// PAR: scf.forall (%{{.*}}) in (8)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @big_relu(%x: tensor<256x4096xf32>, %e: tensor<256x4096xf32>) -> tensor<256x4096xf32> {
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<256x4096xf32>) outs(%e : tensor<256x4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<256x4096xf32>
  return %r : tensor<256x4096xf32>
}
func.func @small_relu(%x: tensor<16x16xf32>, %e: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#chan = affine_map<(d0, d1, d2) -> (d0)>
func.func @epilogue(%x: tensor<24x74x32xf32>, %b: tensor<24xf32>, %e: tensor<24x74x32xf32>) -> tensor<24x74x32xf32> {
  %z = arith.constant 0.0 : f32
  %s = arith.constant 0.2 : f32
  %r = linalg.generic {indexing_maps = [#id3, #chan, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
       ins(%x, %b : tensor<24x74x32xf32>, tensor<24xf32>) outs(%e : tensor<24x74x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.cmpf olt, %0, %z : f32
    %3 = arith.select %2, %1, %0 : f32
    %4 = arith.maximumf %3, %z : f32
    linalg.yield %4 : f32
  } -> tensor<24x74x32xf32>
  return %r : tensor<24x74x32xf32>
}
func.func @copy(%x: tensor<24x74x32xf32>, %e: tensor<24x74x32xf32>) -> tensor<24x74x32xf32> {
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
       ins(%x : tensor<24x74x32xf32>) outs(%e : tensor<24x74x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<24x74x32xf32>
  return %r : tensor<24x74x32xf32>
}
#win = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d3, d2 * 2 + d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
#tap = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>
func.func @pool(%x: tensor<24x75x33xf32>, %w: tensor<3x3xf32>, %e: tensor<24x37x16xf32>) -> tensor<24x37x16xf32> {
  %r = linalg.generic {indexing_maps = [#win, #tap, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
       ins(%x, %w : tensor<24x75x33xf32>, tensor<3x3xf32>) outs(%e : tensor<24x37x16xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<24x37x16xf32>
  return %r : tensor<24x37x16xf32>
}

// Reductions with nothing parallel (a DynamicQuantizeLinear's min and max
// of a whole tensor): the two siblings that read %x the same way become
// one op with two results, so %x is read once; its reduced channel dim
// (64, the best split; not the innermost, nor the unit batch) becomes
// parallel, a partial per channel, spread over 16 pieces with each partial's
// -inf/+inf fill inside the loop; two small ops combine the partials.
// PAR-LABEL: func.func @minmax
// PAR-NOT: linalg.generic
// PAR: scf.forall (%{{.*}}) in (16) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<64xf32>, tensor<64xf32>)
// PAR: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// PAR: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// PAR: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction"]{{.*}} ins(%{{.*}} : tensor<1x4x32x64xf32>) outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// PAR: arith.maximumf
// PAR: arith.minimumf
// PAR: scf.forall.in_parallel
// PAR: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
// PAR-NEXT: ^bb0
// PAR-NEXT: arith.maximumf
// PAR: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
// PAR-NEXT: ^bb0
// PAR-NEXT: arith.minimumf
// PAR-NOT: linalg.generic
// PAR: return
// A sibling whose result is used before the other reduction is not merged
// (the merged op would come after that use); each is still split.
// PAR-LABEL: func.func @used_between
// PAR: scf.forall (%{{.*}}) in (16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<64xf32>)
// PAR: scf.forall (%{{.*}}) in (16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<64xf32>)
// A row-wise reduction has its rows to spread: not split.
// PAR-LABEL: func.func @rows
// PAR: scf.forall (%{{.*}}) in (16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256xf32>)
// PAR: scf.forall.in_parallel
// PAR-NOT: linalg.generic
// PAR: return
#all = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#none = affine_map<(d0, d1, d2, d3) -> ()>
func.func @minmax(%x: tensor<1x64x32x64xf32>) -> (tensor<f32>, tensor<f32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<f32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %mx = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
       ins(%x : tensor<1x64x32x64xf32>) outs(%i0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %i1 = linalg.fill ins(%pinf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %mn = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
       ins(%x : tensor<1x64x32x64xf32>) outs(%i1 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %o, %a : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %mx, %mn : tensor<f32>, tensor<f32>
}
func.func @used_between(%x: tensor<1x64x32x64xf32>) -> (tensor<f32>, tensor<f32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %mx = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
       ins(%x : tensor<1x64x32x64xf32>) outs(%i0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction", "reduction", "reduction"]}
       ins(%x : tensor<1x64x32x64xf32>) outs(%mx : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %mx, %s : tensor<f32>, tensor<f32>
}
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<256x1024xf32>) -> tensor<256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
       ins(%x : tensor<256x1024xf32>) outs(%i : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  return %s : tensor<256xf32>
}

// -----

// A constant B (a weight) is packed at compile time, into a new constant:
// no copy is left for the run. B[r, c] = 12r + c; with 4-wide panels
// (12 columns), panel 0 starts 0 1 2 3 (row 0), 12 13 14 15 (row 1), and
// panel 1 starts 4 5 6 7 (blob bytes: little-endian f32).
// PACK-LABEL: func.func @const_weight
// A constant A is packed too (a splat here: it stays a splat, which folds
// into the kernel's reads), so no copy is left for the run.
// PACK-NOT: linalg.generic
// PACK: %[[W:.*]] = arith.constant dense_resource<hodu_packed> : tensor<3x16x4xf32>
// PACK-NOT: linalg.generic
// PACK: scf.forall (%{{.*}}) in (3)
// PACK: tensor.extract_slice %[[W]]
// PACK: hodu_packed: "0x08000000000000000000803F0000004000004040000040410000504100006041
func.func @const_weight(%c: tensor<16x12xf32>) -> tensor<16x12xf32> {
  %w = arith.constant dense<[
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0],
    [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0],
    [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0],
    [36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0],
    [48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0],
    [60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0],
    [72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0],
    [84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0],
    [96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0],
    [108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0],
    [120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0],
    [132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0, 140.0, 141.0, 142.0, 143.0],
    [144.0, 145.0, 146.0, 147.0, 148.0, 149.0, 150.0, 151.0, 152.0, 153.0, 154.0, 155.0],
    [156.0, 157.0, 158.0, 159.0, 160.0, 161.0, 162.0, 163.0, 164.0, 165.0, 166.0, 167.0],
    [168.0, 169.0, 170.0, 171.0, 172.0, 173.0, 174.0, 175.0, 176.0, 177.0, 178.0, 179.0],
    [180.0, 181.0, 182.0, 183.0, 184.0, 185.0, 186.0, 187.0, 188.0, 189.0, 190.0, 191.0]
  ]> : tensor<16x12xf32>
  %a2 = arith.constant dense<1.0> : tensor<16x16xf32>
  %0 = linalg.matmul ins(%a2, %w : tensor<16x16xf32>, tensor<16x12xf32>) outs(%c : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %0 : tensor<16x12xf32>
}
