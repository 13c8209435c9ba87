// hodu-cpu-fuse-attention: the second product of attention (P V) is tiled
// over its batch and blocks of query rows, and the chain that computes P --
// the scores' product Q K^T, the scale, the mask and the softmax -- is fused
// into each tile, so that no [heads, queries, keys] tensor is left: only
// rows x keys blocks inside the loop. Chains that are not attention stay as
// they are: products of a weight (a feed-forward), no reduction between the
// products, a softmax across the queries (which no block of rows can
// compute), scores that something else reads, and query counts with no
// divisor from 4 to 32.
// RUN: hodu-opt %s --pass-pipeline='builtin.module(convert-hodu-to-linalg,canonicalize,func.func(hodu-cpu-fuse-attention))' | FileCheck %s
// RUN: hodu-opt %s --pass-pipeline='builtin.module(convert-hodu-to-linalg,canonicalize,func.func(hodu-cpu-fuse-attention))' | FileCheck %s --check-prefix=NOSQUARE
// RUN: hodu-opt %s --pass-pipeline='builtin.module(convert-hodu-to-linalg,canonicalize,func.func(hodu-cpu-fuse-attention{max-scores=256}))' | FileCheck %s --check-prefix=SMALL
// RUN: hodu-opt %s --pass-pipeline='builtin.module(convert-hodu-to-linalg,canonicalize,func.func(hodu-cpu-fuse-attention{max-scores=64}))' | FileCheck %s --check-prefix=LONG
// RUN: hodu-opt %s --pass-pipeline='builtin.module(convert-hodu-to-linalg,canonicalize,func.func(hodu-cpu-fuse-attention{max-scores=32}))' | FileCheck %s --check-prefix=LONGER

// Two heads, 64 queries and keys, head dim 8: tiles of 32 rows (the most),
// 2 x 2 of them; every op of the chain works on a 32 x 64 block.
// CHECK-LABEL: func.func @attention
// CHECK: %[[O:.*]] = scf.forall (%[[H:[a-z0-9_]+]], %[[I:[a-z0-9_]+]]) = (0, 0) to (2, 64) step (1, 32)
// CHECK: tensor.extract_slice {{.*}}[0, %[[H]], %[[I]], 0] [1, 1, 32, 8]
// CHECK: linalg.batch_matmul ins({{.*}} : tensor<1x32x8xf32>, tensor<1x8x64xf32>) {{.*}} -> tensor<1x32x64xf32>
// CHECK: linalg.generic
// CHECK: } -> tensor<1x1x32x64xf32>
// CHECK: linalg.batch_matmul ins({{.*}} : tensor<1x32x64xf32>, tensor<1x64x8xf32>) {{.*}} -> tensor<1x32x8xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice {{.*}} into {{.*}}[%[[H]], %[[I]], 0] [1, 32, 8]
// The scores as a whole exist nowhere in the fused function.
// NOSQUARE-LABEL: func.func @attention
// NOSQUARE-NOT: 64x64xf32
// NOSQUARE: return
// At most 256 scores per block: 4 rows of 64 keys.
// SMALL-LABEL: func.func @attention
// SMALL: scf.forall ({{.*}}) = (0, 0) to (2, 64) step (1, 4)
// At most 64 (one row of 64 keys, too thin): as a long sequence, the
// smallest block of 4 rows or more within 4 x 64 scores.
// LONG-LABEL: func.func @attention
// LONG: scf.forall ({{.*}}) = (0, 0) to (2, 64) step (1, 4)
// At most 32: no block of 4 rows fits 128 scores; a longer sequence still
// takes the smallest block of 4 rows or more (its scratch is rows x keys,
// where the unfused scores are queries x keys per head).
// LONGER-LABEL: func.func @attention
// LONGER: scf.forall ({{.*}}) = (0, 0) to (2, 64) step (1, 4)
// LONGER-NOT: 64x64xf32
// LONGER: return
func.func @attention(%q: tensor<1x2x64x8xf32>, %kt: tensor<1x2x8x64xf32>,
                     %v: tensor<1x2x64x8xf32>, %mask: tensor<1x1x1x64xf32>)
    -> tensor<1x2x64x8xf32> {
  %s = hodu.matmul %q, %kt : (tensor<1x2x64x8xf32>, tensor<1x2x8x64xf32>) -> tensor<1x2x64x64xf32>
  %scaled = hodu.mul_scalar %s, 0.353553385 : f32 : (tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32>
  %masked = hodu.add %scaled, %mask : (tensor<1x2x64x64xf32>, tensor<1x1x1x64xf32>) -> tensor<1x2x64x64xf32>
  %max = hodu.reduce_max %masked {dims = array<i64: 3>, keep_dim = true} : (tensor<1x2x64x64xf32>) -> tensor<1x2x64x1xf32>
  %sh = hodu.sub %masked, %max : (tensor<1x2x64x64xf32>, tensor<1x2x64x1xf32>) -> tensor<1x2x64x64xf32>
  %e = hodu.exp %sh : (tensor<1x2x64x64xf32>) -> tensor<1x2x64x64xf32>
  %sum = hodu.reduce_sum %e {dims = array<i64: 3>, keep_dim = true} : (tensor<1x2x64x64xf32>) -> tensor<1x2x64x1xf32>
  %p = hodu.div %e, %sum : (tensor<1x2x64x64xf32>, tensor<1x2x64x1xf32>) -> tensor<1x2x64x64xf32>
  %o = hodu.matmul %p, %v : (tensor<1x2x64x64xf32>, tensor<1x2x64x8xf32>) -> tensor<1x2x64x8xf32>
  return %o : tensor<1x2x64x8xf32>
}

// One head without a batch: plain matmuls, tiles of rows only.
// CHECK-LABEL: func.func @single_head
// CHECK: scf.forall (%{{.*}}) = (0) to (48) step (24)
// CHECK: linalg.matmul ins({{.*}} : tensor<24x16xf32>, tensor<16x48xf32>)
// CHECK: linalg.matmul ins({{.*}} : tensor<24x48xf32>, tensor<48x16xf32>)
func.func @single_head(%q: tensor<48x16xf32>, %kt: tensor<16x48xf32>,
                       %v: tensor<48x16xf32>) -> tensor<48x16xf32> {
  %s = hodu.matmul %q, %kt : (tensor<48x16xf32>, tensor<16x48xf32>) -> tensor<48x48xf32>
  %max = hodu.reduce_max %s {dims = array<i64: 1>, keep_dim = true} : (tensor<48x48xf32>) -> tensor<48x1xf32>
  %sh = hodu.sub %s, %max : (tensor<48x48xf32>, tensor<48x1xf32>) -> tensor<48x48xf32>
  %e = hodu.exp %sh : (tensor<48x48xf32>) -> tensor<48x48xf32>
  %sum = hodu.reduce_sum %e {dims = array<i64: 1>, keep_dim = true} : (tensor<48x48xf32>) -> tensor<48x1xf32>
  %p = hodu.div %e, %sum : (tensor<48x48xf32>, tensor<48x1xf32>) -> tensor<48x48xf32>
  %o = hodu.matmul %p, %v : (tensor<48x48xf32>, tensor<48x16xf32>) -> tensor<48x16xf32>
  return %o : tensor<48x16xf32>
}

// A feed-forward with a softmax between its layers multiplies weights.
// CHECK-LABEL: func.func @weights
// CHECK-NOT: scf.forall
// CHECK: return
func.func @weights(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %w1 = hodu.constant dense<0.5> : tensor<16x32xf32>
  %w2 = hodu.constant dense<0.25> : tensor<32x16xf32>
  %s = hodu.matmul %x, %w1 : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %max = hodu.reduce_max %s {dims = array<i64: 1>, keep_dim = true} : (tensor<64x32xf32>) -> tensor<64x1xf32>
  %sh = hodu.sub %s, %max : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  %o = hodu.matmul %sh, %w2 : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// No reduction between the products: not attention.
// CHECK-LABEL: func.func @no_softmax
// CHECK-NOT: scf.forall
// CHECK: return
func.func @no_softmax(%q: tensor<64x16xf32>, %kt: tensor<16x32xf32>,
                      %v: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %s = hodu.matmul %q, %kt : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %r = hodu.relu %s : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %o = hodu.matmul %r, %v : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// A softmax over the queries (axis -2): a block of rows needs every row of
// the scores, so the fused form would compute them once per tile (two
// tiles of 32 rows here).
// CHECK-LABEL: func.func @across_rows
// CHECK-NOT: scf.forall
// CHECK: return
func.func @across_rows(%q: tensor<64x16xf32>, %kt: tensor<16x32xf32>,
                       %v: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %s = hodu.matmul %q, %kt : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %max = hodu.reduce_max %s {dims = array<i64: 0>, keep_dim = true} : (tensor<64x32xf32>) -> tensor<1x32xf32>
  %sh = hodu.sub %s, %max : (tensor<64x32xf32>, tensor<1x32xf32>) -> tensor<64x32xf32>
  %o = hodu.matmul %sh, %v : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// The probabilities are also a result (attention weights returned): the
// whole tensor is needed anyway.
// CHECK-LABEL: func.func @probs_returned
// CHECK-NOT: scf.forall
// CHECK: return
func.func @probs_returned(%q: tensor<64x16xf32>, %kt: tensor<16x32xf32>,
                          %v: tensor<32x16xf32>) -> (tensor<64x16xf32>, tensor<64x32xf32>) {
  %s = hodu.matmul %q, %kt : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %max = hodu.reduce_max %s {dims = array<i64: 1>, keep_dim = true} : (tensor<64x32xf32>) -> tensor<64x1xf32>
  %sh = hodu.sub %s, %max : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  %o = hodu.matmul %sh, %v : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  return %o, %sh : tensor<64x16xf32>, tensor<64x32xf32>
}

// 67 queries (a prime): no block of 4 to 32 rows divides them.
// CHECK-LABEL: func.func @prime_rows
// CHECK-NOT: scf.forall
// CHECK: return
func.func @prime_rows(%q: tensor<67x16xf32>, %kt: tensor<16x32xf32>,
                      %v: tensor<32x16xf32>) -> tensor<67x16xf32> {
  %s = hodu.matmul %q, %kt : (tensor<67x16xf32>, tensor<16x32xf32>) -> tensor<67x32xf32>
  %max = hodu.reduce_max %s {dims = array<i64: 1>, keep_dim = true} : (tensor<67x32xf32>) -> tensor<67x1xf32>
  %sh = hodu.sub %s, %max : (tensor<67x32xf32>, tensor<67x1xf32>) -> tensor<67x32xf32>
  %o = hodu.matmul %sh, %v : (tensor<67x32xf32>, tensor<32x16xf32>) -> tensor<67x16xf32>
  return %o : tensor<67x16xf32>
}
