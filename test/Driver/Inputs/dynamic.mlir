module {
  func.func @main(%a: tensor<?x4xf32> {hodu.name = "a"}) -> tensor<?x4xf32> {
    return %a : tensor<?x4xf32>
  }
}
