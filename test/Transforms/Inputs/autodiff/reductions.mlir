// Softmax as the importer writes it (max, sub, exp, sum, div), log-softmax,
// min, L2 norm, log-sum-exp, variance, standard deviation, and matmuls with
// 1-D operands.
func.func @main(%x: tensor<3x4xf64>, %v: tensor<4xf64>, %u: tensor<3xf64>, %w: tensor<3x4xf64>) -> tensor<f64> {
  %mx = hodu.reduce_max %x {dims = array<i64: 1>, keep_dim = true} : (tensor<3x4xf64>) -> tensor<3x1xf64>
  %sh = hodu.sub %x, %mx : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %e = hodu.exp %sh : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %s = hodu.reduce_sum %e {dims = array<i64: 1>, keep_dim = true} : (tensor<3x4xf64>) -> tensor<3x1xf64>
  %sm = hodu.div %e, %s : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %ls = hodu.ln %s : (tensor<3x1xf64>) -> tensor<3x1xf64>
  %lsm = hodu.sub %sh, %ls : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %t1 = hodu.add %sm, %lsm : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %t2 = hodu.mul %t1, %w : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %a = hodu.reduce_sum %t2 {dims = array<i64: 0, 1>} : (tensor<3x4xf64>) -> tensor<f64>
  %mn = hodu.reduce_min %x {dims = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<4xf64>
  %nm = hodu.reduce_norm %x {dims = array<i64: 1>} : (tensor<3x4xf64>) -> tensor<3xf64>
  %lse = hodu.reduce_logsumexp %x {dims = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<4xf64>
  %var = hodu.reduce_var %x {dims = array<i64: 1>} : (tensor<3x4xf64>) -> tensor<3xf64>
  %std = hodu.reduce_std %x {dims = array<i64: 0>} : (tensor<3x4xf64>) -> tensor<4xf64>
  %xv = hodu.matmul %x, %v : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64>
  %ux = hodu.matmul %u, %x : (tensor<3xf64>, tensor<3x4xf64>) -> tensor<4xf64>
  %dot = hodu.matmul %ux, %v : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
  %c4a = hodu.mul %mn, %lse : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %c4 = hodu.add %c4a, %std : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %c3a = hodu.add %nm, %var : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %c3 = hodu.mul %c3a, %xv : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r4 = hodu.reduce_sum %c4 {dims = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  %r3 = hodu.reduce_sum %c3 {dims = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  %l1 = hodu.add %a, %r4 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %l2 = hodu.add %l1, %r3 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %loss = hodu.add %l2, %dot : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %loss : tensor<f64>
}
