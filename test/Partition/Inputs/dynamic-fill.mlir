// A node the op support tables admit (ops of other dialects are legal) but
// the GPU kernels cannot build: a fill of a size read from an input.
func.func @main(%a: tensor<4xf32> {hodu.name = "a"}, %k: tensor<i64> {hodu.name = "k"}) -> tensor<4xf32> {
  %r0 = hodu.relu %a : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
  %v = tensor.extract %k[] : tensor<i64> loc("fill")
  %n = arith.index_cast %v : i64 to index loc("fill")
  %e = tensor.empty(%n) : tensor<?xf32> loc("fill")
  %one = arith.constant 1.0 : f32 loc("fill")
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32> loc("fill")
  %s = tensor.extract_slice %f[0] [4] [1] : tensor<?xf32> to tensor<4xf32> loc("fill")
  %r = hodu.add %r0, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("add")
  return %r : tensor<4xf32>
}
