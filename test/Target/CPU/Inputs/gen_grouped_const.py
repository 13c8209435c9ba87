"""Prints a module with grouped convolutions by constant filters, whose
values are multiples of 1/8 (exact sums with inputs_for.py's inputs):
  @main(x [2, 30, 9, 11], y [1, 24, 6, 6]) ->
    (conv(x, W [24, 10, 3, 3]) in 3 groups, pad 1: a dense constant and a
     batch of 2,
     conv(y, 0.25 everywhere [16, 12, 1, 1]) in 2 groups: a splat)"""
n = 24 * 10 * 9
w = ", ".join("%.4f" % ((((k * 37) % 17) - 8) / 8.0) for k in range(n))
print("""func.func @main(%%x: tensor<2x30x9x11xf32>, %%y: tensor<1x24x6x6xf32>)
    -> (tensor<2x24x9x11xf32>, tensor<1x16x6x6xf32>) {
  %%f = arith.constant dense<[%s]> : tensor<%dxf32>
  %%w = tensor.expand_shape %%f [[0, 1, 2, 3]] output_shape [24, 10, 3, 3] : tensor<%dxf32> into tensor<24x10x3x3xf32>
  %%0 = hodu.conv %%x, %%w {dilations = array<i64: 1, 1>, groups = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x30x9x11xf32>, tensor<24x10x3x3xf32>) -> tensor<2x24x9x11xf32>
  %%s = arith.constant dense<0.25> : tensor<16x12x1x1xf32>
  %%1 = hodu.conv %%y, %%s {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x24x6x6xf32>, tensor<16x12x1x1xf32>) -> tensor<1x16x6x6xf32>
  return %%0, %%1 : tensor<2x24x9x11xf32>, tensor<1x16x6x6xf32>
}""" % (w, n, n))
