// hodu-pad-symbols: a symbol that ops mix, compiled at its bound (8 here),
// runs on inputs padded to it; before every op that reads across a padded
// dim the operand's padding becomes that op's neutral value, selected by
// the run's value of the symbol (the entry's new last argument).
// RUN: hodu-opt %s --split-input-file --hodu-pad-symbols --verify-diagnostics | FileCheck %s

// Attention over a sequence. A value is masked once, for all its users:
// the input (which the matmul that contracts the keys reads) with 0 past
// seq, the scores (which the softmax's max reads) with -inf. What a mask
// makes known carries through the softmax -- -inf minus the max, its exp
// 0, over the sum still 0 -- so the sum and the second matmul need no mask
// of their own. The indices compare as f32, the data's width.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32> {hodu.dims = ["seq", ""]}
// CHECK-SAME: %[[N:.*]]: tensor<i64> {hodu.name = "seq", hodu.symbol_value = "seq"}
// CHECK: %[[I0:.*]] = hodu.constant dense<{{\[\[}}0.000000e+00], [1.000000e+00], {{.*}} [7.000000e+00]]> : tensor<8x1xf32>
// CHECK: %[[NF:.*]] = hodu.cast %[[N]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[K0:.*]] = hodu.lt %[[I0]], %[[NF]] {hodu.mask = {{[0-9]+}} : i64} : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xi1>
// CHECK: %[[XM:.*]] = hodu.select %[[K0]], %[[X]], %{{.*}} : (tensor<8x1xi1>, tensor<8x4xf32>, tensor<f32>)
// CHECK: %[[XT:.*]] = hodu.transpose %[[XM]]
// CHECK: %[[S:.*]] = hodu.matmul %[[XM]], %[[XT]] : (tensor<8x4xf32>, tensor<4x8xf32>)
// CHECK: %[[K1:.*]] = hodu.lt %{{.*}}, %{{.*}} {hodu.mask = {{[0-9]+}} : i64} : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xi1>
// CHECK: %[[NEGINF:.*]] = hodu.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[SM:.*]] = hodu.select %[[K1]], %[[S]], %[[NEGINF]]
// CHECK: hodu.reduce_max %[[SM]]
// CHECK: hodu.sub %[[SM]]
// CHECK: %[[E:.*]] = hodu.exp
// CHECK-NEXT: hodu.reduce_sum %[[E]]
// CHECK-NEXT: %[[P:.*]] = hodu.div %[[E]]
// CHECK-NEXT: %[[O:.*]] = hodu.matmul %[[P]], %[[XM]]
// A mean over the sequence: the masked mean times 8 / seq.
// CHECK: %[[OM:.*]] = hodu.select %{{.*}}, %[[O]], %{{.*}} : (tensor<8x1xi1>, tensor<8x4xf32>, tensor<f32>)
// CHECK: %[[MEAN:.*]] = hodu.reduce_mean %[[OM]]
// CHECK: %[[REAL:.*]] = hodu.cast %[[N]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[EIGHT:.*]] = hodu.cast %{{.*}} : (tensor<i64>) -> tensor<f32>
// CHECK: %[[F:.*]] = hodu.div %[[EIGHT]], %[[REAL]]
// CHECK: %[[SCALED:.*]] = hodu.mul %[[MEAN]], %[[F]]
// CHECK: return %[[P]], %[[SCALED]]
module attributes {hodu.symbols = [{name = "seq", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<8x4xf32> {hodu.dims = ["seq", ""]}) -> (tensor<8x8xf32>, tensor<4xf32>) {
  %xt = hodu.transpose %x {perm = array<i64: 1, 0>, hodu.extents = [["", "seq"]]} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %s = hodu.matmul %x, %xt {hodu.extents = [["seq", "seq"]]} : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %m = hodu.reduce_max %s {dims = array<i64: 1>, keep_dim = true, hodu.extents = [["seq", ""]]} : (tensor<8x8xf32>) -> tensor<8x1xf32>
  %d = hodu.sub %s, %m {hodu.extents = [["seq", "seq"]]} : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  %e = hodu.exp %d {hodu.extents = [["seq", "seq"]]} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %z = hodu.reduce_sum %e {dims = array<i64: 1>, keep_dim = true, hodu.extents = [["seq", ""]]} : (tensor<8x8xf32>) -> tensor<8x1xf32>
  %p = hodu.div %e, %z {hodu.extents = [["seq", "seq"]]} : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  %o = hodu.matmul %p, %x {hodu.extents = [["seq", ""]]} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %mean = hodu.reduce_mean %o {dims = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<4xf32>
  return %p, %mean : tensor<8x8xf32>, tensor<4xf32>
}
}

// -----

// A decoder's cache: the new key joins the past at position `past`, not at
// the bound, and a pad at the end of the past starts after its real part.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[PAST:.*]]: tensor<1x8x2xf32> {hodu.dims = ["", "past", ""]}, %[[NEW:.*]]: tensor<1x1x2xf32>
// CHECK-SAME: %[[N:.*]]: tensor<i64> {hodu.name = "past", hodu.symbol_value = "past"}
// CHECK: %[[POS:.*]] = hodu.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8]> : tensor<9xi64>
// CHECK: %[[POSB:.*]] = hodu.constant dense<{{\[\[}}[0], [1], [2], [3], [4], [5], [6], [7], [8]]]> : tensor<1x9x1xi64>
// CHECK: %[[START0:.*]] = hodu.constant dense<0> : tensor<i64>
// CHECK: %[[A:.*]] = hodu.index_select %[[PAST]], %{{.*}} {dim = 1 : i64} : (tensor<1x8x2xf32>, tensor<9xi64>) -> tensor<1x9x2xf32>
// CHECK: %[[START1:.*]] = hodu.add %[[START0]], %[[N]]
// CHECK: %[[IDX:.*]] = hodu.sub %[[POS]], %[[START1]]
// CHECK: %[[B:.*]] = hodu.index_select %[[NEW]], %{{.*}} {dim = 1 : i64} : (tensor<1x1x2xf32>, tensor<9xi64>) -> tensor<1x9x2xf32>
// CHECK: %[[BEFORE:.*]] = hodu.lt %[[POSB]], %[[START1]] : (tensor<1x9x1xi64>, tensor<i64>) -> tensor<1x9x1xi1>
// CHECK: %[[CAT:.*]] = hodu.select %[[BEFORE]], %[[A]], %[[B]]
// CHECK-NOT: hodu.concat
// CHECK: %[[PADDED:.*]] = hodu.pad %[[PAST]]
// CHECK: %[[FILL:.*]] = hodu.constant dense<-1.000000e+00> : tensor<f32>
// CHECK: %[[END:.*]] = hodu.add %[[N]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[ENDF:.*]] = hodu.cast %[[END]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[IN:.*]] = hodu.lt %{{.*}}, %[[ENDF]] {hodu.mask = {{[0-9]+}} : i64} : (tensor<1x11x1xf32>, tensor<f32>) -> tensor<1x11x1xi1>
// CHECK: %[[P:.*]] = hodu.select %[[IN]], %[[PADDED]], %[[FILL]]
// CHECK: return %[[CAT]], %[[P]]
module attributes {hodu.symbols = [{name = "past", min = 0 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%past: tensor<1x8x2xf32> {hodu.dims = ["", "past", ""]}, %new: tensor<1x1x2xf32>) -> (tensor<1x9x2xf32>, tensor<1x11x2xf32>) {
  %c = hodu.concat %past, %new {dim = 1 : i64, hodu.extents = [["", "past+1", ""]]} : (tensor<1x8x2xf32>, tensor<1x1x2xf32>) -> tensor<1x9x2xf32>
  %p = hodu.pad %past {mode = #hodu<pad_mode constant>, pads = array<i64: 0, 1, 0, 0, 2, 0>, value = -1.0 : f32, hodu.extents = [["", "past+3", ""]]} : (tensor<1x8x2xf32>) -> tensor<1x11x2xf32>
  return %c, %p : tensor<1x9x2xf32>, tensor<1x11x2xf32>
}
}

// -----

// The other families: a value masked with 0 once (the convolution's zero
// padding) serves every user that wants 0 -- the reverse cumsum, and the
// forward one that needs nothing -- and the users that want -inf, +inf or
// 1 mask their own use of it. Integers compare as i64.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x8xf32> {hodu.dims = ["", "", "t"]}
// CHECK-SAME: %[[E:[a-z0-9]+]]: tensor<8x3xf32> {hodu.dims = ["t", ""]}, %[[I:[a-z0-9]+]]: tensor<8xi32> {hodu.dims = ["t"]}, %[[N:[a-z0-9]+]]: tensor<i64>
// CHECK: %[[KI:.*]] = hodu.lt %{{.*}}, %[[N]] {hodu.mask = {{[0-9]+}} : i64} : (tensor<8xi64>, tensor<i64>) -> tensor<8xi1>
// CHECK: %[[IM:.*]] = hodu.select %[[KI]], %[[I]], %{{.*}} : (tensor<8xi1>, tensor<8xi32>, tensor<i32>)
// CHECK: %[[EM:.*]] = hodu.select %{{.*}}, %[[E]], %{{.*}} : (tensor<8x1xi1>, tensor<8x3xf32>, tensor<f32>)
// CHECK: %[[XM:.*]] = hodu.select %{{.*}}, %[[X]], %{{.*}} : (tensor<1x1x8xi1>, tensor<1x2x8xf32>, tensor<f32>)
// CHECK: hodu.conv %[[XM]], %{{.*}}
// CHECK: %[[NEG:.*]] = hodu.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[XW:.*]] = hodu.select %{{.*}}, %[[XM]], %[[NEG]]
// CHECK: hodu.reduce_window %[[XW]]
// CHECK: hodu.cumsum %[[XM]] {dim = 2 : i64, reverse}
// CHECK: %[[FWD:.*]] = hodu.cumsum %[[XM]] {dim = 2 : i64}
// CHECK: %[[POS:.*]] = hodu.constant dense<0x7F800000> : tensor<f32>
// CHECK: %[[XT:.*]] = hodu.select %{{.*}}, %[[XM]], %[[POS]]
// CHECK: hodu.topk %[[XT]]
// CHECK: %[[XA:.*]] = hodu.select %{{.*}}, %[[XM]], %{{.*}}
// CHECK: hodu.argmax %[[XA]]
// CHECK: hodu.einsum %[[EM]], %[[EM]] {equation = "tc,td->c"}
// CHECK: %[[COL:.*]] = hodu.reshape
// CHECK: %[[CM:.*]] = hodu.select %{{.*}}, %[[COL]], %{{.*}} : (tensor<8xi1>, tensor<8xf32>, tensor<f32>)
// CHECK: hodu.dot %[[CM]], %[[CM]]
// CHECK: hodu.reduce_sum %[[IM]]
// CHECK: %[[ONE:.*]] = hodu.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[XP:.*]] = hodu.select %{{.*}}, %[[XM]], %[[ONE]]
// CHECK: hodu.reduce_prod %[[XP]]
// CHECK: return {{.*}}, %[[FWD]]
module attributes {hodu.symbols = [{name = "t", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<1x2x8xf32> {hodu.dims = ["", "", "t"]}, %w: tensor<3x2x3xf32>, %e: tensor<8x3xf32> {hodu.dims = ["t", ""]}, %i: tensor<8xi32> {hodu.dims = ["t"]})
    -> (tensor<1x3x8xf32>, tensor<1x2x4xf32>, tensor<1x2x8xf32>, tensor<1x2x2xf32>, tensor<1x2xi64>, tensor<3xf32>, tensor<f32>, tensor<i32>, tensor<1x2xf32>, tensor<1x2x8xf32>) {
  // A 1-D convolution along t, 'same' padding: the input's padding is 0.
  %c = hodu.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1>, hodu.extents = [["", "", "t"]]} : (tensor<1x2x8xf32>, tensor<3x2x3xf32>) -> tensor<1x3x8xf32>
  // A max window of 2, stride 1, no padding: t - 1 windows, -inf padding.
  %m = hodu.reduce_window %x {kind = #hodu<window_kind max>, window_dims = array<i64: 1, 1, 5>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, hodu.extents = [["", "", "t-4"]]} : (tensor<1x2x8xf32>) -> tensor<1x2x4xf32>
  // A reverse cumsum sums what comes after: 0 padding; a forward one needs none.
  %r = hodu.cumsum %x {dim = 2 : i64, reverse, hodu.extents = [["", "", "t"]]} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %f = hodu.cumsum %x {dim = 2 : i64, hodu.extents = [["", "", "t"]]} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  // The two smallest along t: +inf padding.
  %v, %vi = hodu.topk %x {k = 2 : i64, dim = 2 : i64, largest = false} : (tensor<1x2x8xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xi64>)
  %a = hodu.argmax %x {dims = array<i64: 2>} : (tensor<1x2x8xf32>) -> tensor<1x2xi64>
  // einsum and dot that contract t; an integer sum over t.
  %s = hodu.einsum %e, %e {equation = "tc,td->c"} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<3xf32>
  %col = hodu.slice %e {starts = array<i64: 0, 0>, ends = array<i64: 8, 1>, steps = array<i64: 1, 1>, hodu.extents = [["t", ""]]} : (tensor<8x3xf32>) -> tensor<8x1xf32>
  %col1 = hodu.reshape %col {hodu.extents = [["t"]]} : (tensor<8x1xf32>) -> tensor<8xf32>
  %d = hodu.dot %col1, %col1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %is = hodu.reduce_sum %i {dims = array<i64: 0>} : (tensor<8xi32>) -> tensor<i32>
  // A product over t: 1 padding.
  %p = hodu.reduce_prod %x {dims = array<i64: 2>} : (tensor<1x2x8xf32>) -> tensor<1x2xf32>
  return %c, %m, %r, %v, %a, %s, %d, %is, %p, %f : tensor<1x3x8xf32>, tensor<1x2x4xf32>, tensor<1x2x8xf32>, tensor<1x2x2xf32>, tensor<1x2xi64>, tensor<3xf32>, tensor<f32>, tensor<i32>, tensor<1x2xf32>, tensor<1x2x8xf32>
}
}

// -----

module attributes {hodu.symbols = [{name = "seq", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<8x4xf32> {hodu.dims = ["seq", ""]}) -> tensor<4xf32> {
  // expected-error @+1 {{symbolic dim 'seq' cannot vary: a variance over it; pin it (hoduc --dim=seq=<size>)}}
  %v = hodu.reduce_var %x {dims = array<i64: 0>} : (tensor<8x4xf32>) -> tensor<4xf32>
  return %v : tensor<4xf32>
}
}

// -----

module attributes {hodu.symbols = [{name = "seq", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<8x4xf32> {hodu.dims = ["seq", ""]}) -> tensor<8x4xf32> {
  // expected-error @+1 {{symbolic dim 'seq' cannot vary: the op reverses along it}}
  %f = hodu.flip %x {dims = array<i64: 0>, hodu.extents = [["seq", ""]]} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %f : tensor<8x4xf32>
}
}

// -----

module attributes {hodu.symbols = [{name = "seq", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
// expected-error @+1 {{hodu.extents: dim 0 of 'tensor<8x4xf32>' is not seq+1 at seq = 8}}
func.func @main(%x: tensor<8x4xf32> {hodu.dims = ["seq+1", ""]}) -> tensor<8x4xf32> {
  return %x : tensor<8x4xf32>
}
}

// -----

module attributes {hodu.symbols = [{name = "seq", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<8x4xf32> {hodu.dims = ["seq", ""]}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  // expected-error @+1 {{symbolic dim 'seq' cannot vary: the split cuts along it}}
  %a, %b = hodu.split %x {dim = 0 : i64, sizes = array<i64: 4, 4>} : (tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}
}

// -----

module attributes {hodu.symbols = [{name = "seq", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<8x4xf32> {hodu.dims = ["seq", ""]}) -> tensor<4x4xf32> {
  // expected-error @+1 {{symbolic dim 'seq' cannot vary: the slice steps along it}}
  %s = hodu.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 8, 4>, steps = array<i64: 2, 1>, hodu.extents = [["", ""]]} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
}

// -----

// Two padded symbols, an image's height h and width w (bounds 8): each dim
// follows one symbol, and the entry gets both values, in hodu.symbols'
// order. A convolution with end padding reads past the real extent, so its
// input's padding becomes 0 along both dims (one compare per dim, and'ed);
// one without end padding (a valid, strided window) reads no padding and
// needs no mask. Each mask's compares are its own (hodu.mask), to be
// computed in the select's fusion group. A mean over both is scaled by
// 64 / (h * w). The nearest, floor, asymmetric resize by 2 reads real
// positions only; a linear one reads one past the edge, where the padding
// holds the last real row and column (index_select of min(i, extent - 1)).
// The depth-to-space reshape [1,2,h,2,w,2] -> [1,2,2h,2w] keeps both
// paddings suffixes.
module attributes {hodu.symbols = [{name = "h", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}, {name = "w", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<1x2x8x8xf32> {hodu.dims = ["", "", "h", "w"]}, %k: tensor<2x2x3x3xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>) {
  %c = hodu.conv %x, %k {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, hodu.extents = [["", "", "h", "w"]]} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %v = hodu.conv %c, %k {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, hodu.extents = [["", "", "", ""]]} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %m = hodu.reduce_mean %c {dims = array<i64: 2, 3>, keep_dim = true} : (tensor<1x2x8x8xf32>) -> tensor<1x2x1x1xf32>
  %n = hodu.resize %c {mode = #hodu<resize_mode nearest>, coord_transform = #hodu<coord_transform asymmetric>, nearest_mode = #hodu<nearest_mode floor>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, hodu.extents = [["", "", "2*h", "2*w"]]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x16x16xf32>
  %l = hodu.resize %c {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform half_pixel>, hodu.extents = [["", "", "2*h", "2*w"]]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x16x16xf32>
  %e = hodu.reshape %c {hodu.extents = [["", "", "h", "", "w", ""]]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x1x8x1xf32>
  %d = hodu.concat %e, %e {dim = 5 : i64, hodu.extents = [["", "", "h", "", "w", ""]]} : (tensor<1x2x8x1x8x1xf32>, tensor<1x2x8x1x8x1xf32>) -> tensor<1x2x8x1x8x2xf32>
  %d2 = hodu.concat %d, %d {dim = 3 : i64, hodu.extents = [["", "", "h", "", "w", ""]]} : (tensor<1x2x8x1x8x2xf32>, tensor<1x2x8x1x8x2xf32>) -> tensor<1x2x8x2x8x2xf32>
  %s = hodu.reshape %d2 {hodu.extents = [["", "", "2*h", "2*w"]]} : (tensor<1x2x8x2x8x2xf32>) -> tensor<1x2x16x16xf32>
  return %c, %v, %m, %n, %l, %s : tensor<1x2x8x8xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>
}
}
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x8x8xf32> {hodu.dims = ["", "", "h", "w"]}
// CHECK-SAME: %[[H:[a-z0-9]+]]: tensor<i64> {hodu.name = "h", hodu.symbol_value = "h"}
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<i64> {hodu.name = "w", hodu.symbol_value = "w"}
// CHECK: %[[HF:.*]] = hodu.cast %[[H]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[KH:.*]] = hodu.lt %{{.*}}, %[[HF]] {hodu.mask = {{[0-9]+}} : i64} : (tensor<1x1x8x1xf32>, tensor<f32>) -> tensor<1x1x8x1xi1>
// CHECK: %[[WF:.*]] = hodu.cast %[[W]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[KW:.*]] = hodu.lt %{{.*}}, %[[WF]] {hodu.mask = {{[0-9]+}} : i64} : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<1x1x1x8xi1>
// CHECK: %[[K:.*]] = hodu.logical_and %[[KH]], %[[KW]] {hodu.mask = {{[0-9]+}} : i64} : (tensor<1x1x8x1xi1>, tensor<1x1x1x8xi1>) -> tensor<1x1x8x8xi1>
// CHECK: %[[XM:.*]] = hodu.select %[[K]], %[[X]], %{{.*}} : (tensor<1x1x8x8xi1>, tensor<1x2x8x8xf32>, tensor<f32>)
// CHECK: %[[C:.*]] = hodu.conv %[[XM]], %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>
// CHECK: %[[CM:.*]] = hodu.select %{{.*}}, %[[C]], %{{.*}} : (tensor<1x1x8x8xi1>, tensor<1x2x8x8xf32>, tensor<f32>)
// CHECK-NOT: hodu.select
// CHECK: hodu.conv %[[CM]], %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>
// CHECK: %[[MEAN:.*]] = hodu.reduce_mean %[[CM]]
// CHECK: %[[HW:.*]] = hodu.mul %[[H]], %[[W]]
// CHECK: %[[REAL:.*]] = hodu.cast %[[HW]] : (tensor<i64>) -> tensor<f32>
// CHECK: %[[SIXTYFOUR:.*]] = hodu.cast %{{.*}} : (tensor<i64>) -> tensor<f32>
// CHECK: %[[F:.*]] = hodu.div %[[SIXTYFOUR]], %[[REAL]]
// CHECK: %[[SCALED:.*]] = hodu.mul %[[MEAN]], %[[F]]
// CHECK: %[[NEAREST:.*]] = hodu.resize %[[CM]] {coord_transform = #hodu<coord_transform asymmetric>
// CHECK: %[[LASTH:.*]] = hodu.sub %[[H]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[IH:.*]] = hodu.minimum %{{.*}}, %[[LASTH]] : (tensor<8xi64>, tensor<i64>) -> tensor<8xi64>
// CHECK: %[[EH:.*]] = hodu.index_select %[[CM]], %[[IH]] {dim = 2 : i64}
// CHECK: %[[LASTW:.*]] = hodu.sub %[[W]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i64>
// CHECK: %[[IW:.*]] = hodu.minimum %{{.*}}, %[[LASTW]] : (tensor<8xi64>, tensor<i64>) -> tensor<8xi64>
// CHECK: %[[EW:.*]] = hodu.index_select %[[EH]], %[[IW]] {dim = 3 : i64}
// CHECK: %[[LINEAR:.*]] = hodu.resize %[[EW]] {coord_transform = #hodu<coord_transform half_pixel>
// CHECK: %[[S:.*]] = hodu.reshape %{{.*}} : (tensor<1x2x8x2x8x2xf32>) -> tensor<1x2x16x16xf32>
// CHECK: return %[[CM]], %{{.*}}, %[[SCALED]], %[[NEAREST]], %[[LINEAR]], %[[S]]

// -----

// A reshape that merges the two padded dims would put one's padding
// between real positions of the other.
module attributes {hodu.symbols = [{name = "h", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}, {name = "w", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<1x8x8xf32> {hodu.dims = ["", "h", "w"]}) -> tensor<1x8x8xf32> {
  // expected-error @+1 {{symbolic dim 'h' cannot vary: the reshape merges it with the dims before it}}
  %r = hodu.reshape %x {hodu.extents = [["", "w", "h"]]} : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  return %r : tensor<1x8x8xf32>
}
}

// -----

// align_corners maps positions by the sizes, which padding changes.
module attributes {hodu.symbols = [{name = "h", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<1x1x8x4xf32> {hodu.dims = ["", "", "h", ""]}) -> tensor<1x1x16x4xf32> {
  // expected-error @+1 {{symbolic dim 'h' cannot vary: the resize's coordinates depend on the sizes (coordinate transform align_corners)}}
  %r = hodu.resize %x {mode = #hodu<resize_mode linear>, coord_transform = #hodu<coord_transform align_corners>, hodu.extents = [["", "", "2*h", ""]]} : (tensor<1x1x8x4xf32>) -> tensor<1x1x16x4xf32>
  return %r : tensor<1x1x16x4xf32>
}
}

// -----

// Attention scores [1, heads, s, s] flattened to [heads * s, s] rows for a
// 2-D softmax (as ppocr-v4-rec's neck does): the rows interleave real and
// padded queries, row p being real when p mod 8 < s. The softmax over the
// keys (dim 1) masks the keys only; a sum over the rows masks them with
// the indices modulo the period; the reshape back makes the queries a
// prefix again.
module attributes {hodu.symbols = [{name = "s", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<1x2x8x8xf32> {hodu.dims = ["", "", "s", "s"]}) -> (tensor<1x2x8x8xf32>, tensor<1x8xf32>) {
  %r = hodu.reshape %x {hodu.extents = [["2*s", "s"]]} : (tensor<1x2x8x8xf32>) -> tensor<16x8xf32>
  %m = hodu.reduce_max %r {dims = array<i64: 1>, keep_dim = true, hodu.extents = [["2*s", ""]]} : (tensor<16x8xf32>) -> tensor<16x1xf32>
  %d = hodu.sub %r, %m {hodu.extents = [["2*s", "s"]]} : (tensor<16x8xf32>, tensor<16x1xf32>) -> tensor<16x8xf32>
  %e = hodu.exp %d {hodu.extents = [["2*s", "s"]]} : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %t = hodu.reduce_sum %e {dims = array<i64: 0>, keep_dim = true, hodu.extents = [["", "s"]]} : (tensor<16x8xf32>) -> tensor<1x8xf32>
  %b = hodu.reshape %e {hodu.extents = [["", "", "s", "s"]]} : (tensor<16x8xf32>) -> tensor<1x2x8x8xf32>
  return %b, %t : tensor<1x2x8x8xf32>, tensor<1x8xf32>
}
}
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]] = hodu.reshape %{{.*}} : (tensor<1x2x8x8xf32>) -> tensor<16x8xf32>
// CHECK: %[[KEYS:.*]] = hodu.lt %{{.*}}, %{{.*}} {hodu.mask = {{[0-9]+}} : i64} : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xi1>
// CHECK: %[[SM:.*]] = hodu.select %[[KEYS]], %[[R]], %{{.*}} : (tensor<1x8xi1>, tensor<16x8xf32>, tensor<f32>)
// CHECK: hodu.reduce_max %[[SM]]
// CHECK: %[[E:.*]] = hodu.exp
// CHECK: %[[ROWS:.*]] = hodu.constant dense<{{\[\[}}0.000000e+00], [1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00], [5.000000e+00], [6.000000e+00], [7.000000e+00], [0.000000e+00], [1.000000e+00], {{.*}}]> : tensor<16x1xf32>
// CHECK: %[[KROWS:.*]] = hodu.lt %[[ROWS]], %{{.*}} {hodu.mask = {{[0-9]+}} : i64} : (tensor<16x1xf32>, tensor<f32>) -> tensor<16x1xi1>
// CHECK: %[[EM:.*]] = hodu.select %[[KROWS]], %[[E]], %{{.*}} : (tensor<16x1xi1>, tensor<16x8xf32>, tensor<f32>)
// CHECK: %[[T:.*]] = hodu.reduce_sum %[[EM]] {dims = array<i64: 0>
// CHECK: %[[B:.*]] = hodu.reshape %[[E]] : (tensor<16x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK: return %[[B]], %[[T]]

// -----

// Interleaved rows reach an output: the entry copies out a prefix.
module attributes {hodu.symbols = [{name = "s", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<2x8x4xf32> {hodu.dims = ["", "s", ""]}) -> tensor<16x4xf32> {
  %r = hodu.reshape %x {hodu.extents = [["2*s", ""]]} : (tensor<2x8x4xf32>) -> tensor<16x4xf32>
  // expected-error @+1 {{symbolic dim 's' cannot vary: 'func.return' reads it interleaved (a reshape merged it with the dims before it)}}
  return %r : tensor<16x4xf32>
}
}

// -----

// A window sliding along interleaved rows would read the next period's
// real rows where the unpadded model reads them too.
module attributes {hodu.symbols = [{name = "s", min = 1 : i64, max = 8 : i64, multiple = 1 : i64, chunk = 8 : i64, padded}]} {
func.func @main(%x: tensor<2x8xf32> {hodu.dims = ["", "s"]}) -> tensor<16xf32> {
  %r = hodu.reshape %x {hodu.extents = [["2*s"]]} : (tensor<2x8xf32>) -> tensor<16xf32>
  // expected-error @+1 {{symbolic dim 's' cannot vary: 'hodu.cumsum' reads it interleaved}}
  %c = hodu.cumsum %r {dim = 0 : i64, hodu.extents = [["2*s"]]} : (tensor<16xf32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
}
}
