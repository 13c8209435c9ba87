// Activations whose derivative takes several ops, clips, powers, sin/cos.
func.func @main(%x: tensor<2x4xf64>, %y: tensor<4xf64>, %w: tensor<2x4xf64>) -> tensor<f64> {
  %a = hodu.erf %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %b = hodu.gelu %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %c = hodu.silu %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %d = hodu.softplus %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %e = hodu.elu %x, 0.7 : f64 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %f = hodu.hardsigmoid %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %g = hodu.sin %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %h = hodu.cos %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %i = hodu.maximum_scalar %x, 0.3005 : f64 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %j = hodu.minimum_scalar %x, -0.2505 : f64 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %ex = hodu.exp %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %k = hodu.pow_scalar %ex, 2.5 : f64 : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %l = hodu.pow %ex, %y : (tensor<2x4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  %s1 = hodu.add %a, %b : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s2 = hodu.add %s1, %c : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s3 = hodu.add %s2, %d : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s4 = hodu.add %s3, %e : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s5 = hodu.add %s4, %f : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s6 = hodu.add %s5, %g : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s7 = hodu.add %s6, %h : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s8 = hodu.add %s7, %i : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s9 = hodu.add %s8, %j : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s10 = hodu.add %s9, %k : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %s11 = hodu.add %s10, %l : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %wt = hodu.mul %s11, %w : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %loss = hodu.reduce_sum %wt {dims = array<i64: 0, 1>} : (tensor<2x4xf64>) -> tensor<f64>
  return %loss : tensor<f64>
}
