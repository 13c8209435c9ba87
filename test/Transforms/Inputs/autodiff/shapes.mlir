// Shape rules, a batched matmul whose rhs broadcasts over the batch, select,
// and a mean over one dim. (Casts through f32 would hide a 1e-6 step.)
func.func @main(%x: tensor<2x2x3xf64>, %y: tensor<3x4xf64>, %v: tensor<6xf64>, %k: tensor<4x2xf64>) -> tensor<f64> {
  %mm = hodu.matmul %x, %y : (tensor<2x2x3xf64>, tensor<3x4xf64>) -> tensor<2x2x4xf64>
  %t = hodu.transpose %mm {perm = array<i64: 2, 0, 1>} : (tensor<2x2x4xf64>) -> tensor<4x2x2xf64>
  %r = hodu.reshape %t : (tensor<4x2x2xf64>) -> tensor<4x4xf64>
  %vv = hodu.reshape %v : (tensor<6xf64>) -> tensor<2x3xf64>
  %u = hodu.unsqueeze %vv {dims = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<1x2x3xf64>
  %bx = hodu.broadcast %u : (tensor<1x2x3xf64>) -> tensor<2x2x3xf64>
  %xs = hodu.add %x, %bx : (tensor<2x2x3xf64>, tensor<2x2x3xf64>) -> tensor<2x2x3xf64>
  %red = hodu.reduce_mean %xs {dims = array<i64: 2>} : (tensor<2x2x3xf64>) -> tensor<2x2xf64>
  %fl = hodu.reshape %red : (tensor<2x2xf64>) -> tensor<4xf64>
  %rk = hodu.matmul %r, %k : (tensor<4x4xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
  %pos = hodu.gt_scalar %rk, 0.0 : f64 : (tensor<4x2xf64>) -> tensor<4x2xi1>
  %neg = hodu.neg %rk : (tensor<4x2xf64>) -> tensor<4x2xf64>
  %sel = hodu.select %pos, %rk, %neg : (tensor<4x2xi1>, tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
  %s1 = hodu.reduce_sum %sel {dims = array<i64: 1>} : (tensor<4x2xf64>) -> tensor<4xf64>
  %prod = hodu.mul %s1, %fl : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %loss = hodu.reduce_sum %prod {dims = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  return %loss : tensor<f64>
}
