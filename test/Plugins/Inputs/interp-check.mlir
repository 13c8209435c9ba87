// A run-time check (hodu.assert) on the input's value: it holds for n > 0,
// and the interp engine fails the run with its message otherwise
// (interp.test). An op whose result nothing uses is not computed, even one
// the evaluator could not do.
func.func @main(%n: tensor<i64> {hodu.name = "n"}) -> (tensor<i64> {hodu.name = "m"}) {
  %ok = hodu.gt_scalar %n, 0 : i64 : (tensor<i64>) -> tensor<i1>
  hodu.assert %ok : tensor<i1> {message = "node 'r' (Reshape): n must be positive"}
  %w = hodu.constant dense<1.0> : tensor<2x2xf32>
  %unused = hodu.matmul %w, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = hodu.sub_scalar %n, 1 : i64 : (tensor<i64>) -> tensor<i64>
  return %m : tensor<i64>
}
