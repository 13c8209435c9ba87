// A dynamic dim, which the interp engine refuses (interp.test).
func.func @main(%x: tensor<?x3xf32> {hodu.name = "x"}) -> (tensor<?x3xf32> {hodu.name = "y"}) {
  %y = hodu.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
