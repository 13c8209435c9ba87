// Elementwise rules, with broadcasting operands ([2,3] with [3] and [2,1]).
func.func @main(%a: tensor<2x3xf64>, %b: tensor<3xf64>, %c: tensor<2x1xf64>, %w: tensor<2x3xf64>) -> tensor<f64> {
  %m = hodu.mul %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %d = hodu.div %m, %c : (tensor<2x3xf64>, tensor<2x1xf64>) -> tensor<2x3xf64>
  %e = hodu.exp %d : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %sq = hodu.square %a : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %p = hodu.add_scalar %sq, 1.0 : f64 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %l = hodu.ln %p : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = hodu.sqrt %p : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %r = hodu.recip %s : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %sg = hodu.sigmoid %m : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %re = hodu.relu %d : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %ab = hodu.abs %m : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %lr = hodu.leaky_relu %d, 0.1 : f64 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %mx = hodu.maximum %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %mn = hodu.minimum %a, %c : (tensor<2x3xf64>, tensor<2x1xf64>) -> tensor<2x3xf64>
  %ng = hodu.neg %mn : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %ms = hodu.mul_scalar %mx, 3.0 : f64 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %ds = hodu.div_scalar %re, 2.0 : f64 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %ss = hodu.sub_scalar %lr, 0.5 : f64 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %t1 = hodu.add %e, %l : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t2 = hodu.sub %t1, %r : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t3 = hodu.add %t2, %sg : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t4 = hodu.add %t3, %ab : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t5 = hodu.add %t4, %ng : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t6 = hodu.add %t5, %ms : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t7 = hodu.add %t6, %ds : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %t8 = hodu.add %t7, %ss : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %th = hodu.tanh %t8 : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %wt = hodu.mul %th, %w : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %loss = hodu.reduce_sum %wt {dims = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %loss : tensor<f64>
}
