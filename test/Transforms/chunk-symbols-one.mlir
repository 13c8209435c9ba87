// hodu-chunk-symbols with `symbol`: of a model's two symbols it follows
// the one named and ignores the other, so the driver can ask which of them
// no op mixes (docs/architecture.md, "Symbolic dims": two symbols).
// RUN: hodu-opt %s --hodu-chunk-symbols=symbol=batch | FileCheck %s
// RUN: not hodu-opt %s --hodu-chunk-symbols=symbol=seq 2>&1 | FileCheck %s --check-prefix=SEQ

// A softmax over seq: batch is kept apart (the result gets its mark); seq
// is mixed.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: -> (tensor<29x13xf32> {hodu.dims = ["batch", ""]})
// SEQ: error: symbolic dim 'seq' cannot vary: the op reduces over it; pin it (hoduc --dim=seq=<size>)
func.func @attention(%x: tensor<29x13xf32> {hodu.dims = ["batch", "seq"]}) -> tensor<29x13xf32> {
  %m = hodu.reduce_max %x {dims = array<i64: 1>, keep_dim = true} : (tensor<29x13xf32>) -> tensor<29x1xf32>
  %s = hodu.sub %x, %m : (tensor<29x13xf32>, tensor<29x1xf32>) -> tensor<29x13xf32>
  return %s : tensor<29x13xf32>
}
