// hodu-gpu-lower-precision (hoduc --precision=f16|bf16 on GPU targets):
// f32 contractions and convolutions take narrowed operands and keep f32
// sums; constant weights are converted at compile time; everything else
// stays f32.
// RUN: hodu-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hodu-gpu-lower-precision{precision=f16},canonicalize))" | FileCheck %s
// RUN: hodu-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hodu-gpu-lower-precision{precision=bf16},canonicalize))" | FileCheck %s --check-prefix=BF16
// RUN: hodu-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hodu-gpu-lower-precision{precision=f16 only-free},canonicalize))" | FileCheck %s --check-prefix=FREE
// RUN: hodu-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hodu-gpu-lower-precision{precision=f32}))" | FileCheck %s --check-prefix=F32
// RUN: not hodu-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(hodu-gpu-lower-precision{precision=f8}))" 2>&1 | FileCheck %s --check-prefix=BAD

// A matmul by a constant weight: the weight becomes an f16 constant
// (rounded to nearest even: 1.0009765625 is 1 + 2^-10, exact in f16;
// 1.00048828125 is halfway and rounds to even 1.0; 70000 is past f16's
// range in another test), the activation is rounded by an elementwise op,
// and the product widens each operand and sums in f32.
// CHECK-LABEL: func.func @matmul_const
// CHECK-DAG: %[[W:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000980e+00], [1.000000e+00, -2.000000e+00]]> : tensor<2x2xf16>
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[A]], %[[W]] : tensor<4x2xf16>, tensor<2x2xf16>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// BF16-LABEL: func.func @matmul_const
// BF16: arith.constant dense<{{.*}}> : tensor<2x2xbf16>
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: ins(%{{.*}}, %{{.*}} : tensor<4x2xbf16>, tensor<2x2xbf16>) outs(%{{.*}} : tensor<4x2xf32>)
// F32-LABEL: func.func @matmul_const
// F32-NOT: f16
// F32: linalg.matmul
func.func @matmul_const(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense<[[1.0, 1.0009765625], [1.00048828125, -2.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %c = linalg.matmul ins(%a, %w : tensor<4x2xf32>, tensor<2x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

// A convolution whose input is padded: the pad moves after the rounding
// (padded in f16, with the pad value rounded), the filter behind a reshape
// is converted as a constant. With only-free the input is a function
// argument, whose rounding would be a kernel of its own: it stays f32 and
// only the weight is narrowed.
// CHECK-LABEL: func.func @conv_padded
// CHECK: %[[W:.+]] = arith.constant dense<5.000000e-01> : tensor<3x2x3x3xf16>
// CHECK: %[[X:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x2x4x4xf32>) outs(%{{.*}} : tensor<1x2x4x4xf16>)
// CHECK: %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %{{.*}} : f16
// CHECK: } : tensor<1x2x4x4xf16> to tensor<1x2x6x6xf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %[[W]] : tensor<1x2x6x6xf16>, tensor<3x2x3x3xf16>) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// FREE-LABEL: func.func @conv_padded
// FREE-NOT: arith.truncf
// FREE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf16>) outs(%{{.*}} : tensor<1x3x4x4xf32>)
// FREE: arith.extf %{{.*}} : f16 to f32
// FREE: arith.mulf
func.func @conv_padded(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %wflat = arith.constant dense<0.5> : tensor<3x2x9xf32>
  %w = tensor.expand_shape %wflat [[0], [1], [2, 3]] output_shape [3, 2, 3, 3] : tensor<3x2x9xf32> into tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  %e = tensor.empty() : tensor<1x3x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %c : tensor<1x3x4x4xf32>
}

// -----

// only-free: an operand computed by an elementwise op (a GELU-like erf)
// with no other use is rounded (hodu-gpu-fuse-elementwise puts the
// rounding into that op's kernel); one computed by a contraction's
// epilogue (bias added to a matmul) stays f32, so that the epilogue stays
// in the matmul's kernel. Both are rounded without only-free (tensor
// cores need both operands narrow).
// FREE-LABEL: func.func @free_or_epilogue
// FREE: %[[MM:.+]] = linalg.matmul ins(%arg0, %arg2 : tensor<4x4xf32>, tensor<4x4xf32>)
// FREE: %[[BIAS:.+]] = linalg.generic {{.*}} ins(%[[MM]]
// FREE: %[[G:.+]] = linalg.generic {{.*}} ins(%arg1
// FREE: math.erf
// FREE: %[[G16:.+]] = linalg.generic {{.*}} ins(%[[G]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf16>)
// FREE: linalg.generic {{.*}} ins(%[[BIAS]], %[[G16]] : tensor<4x4xf32>, tensor<4x4xf16>)
// FREE: arith.extf %{{.*}} : f16 to f32
// FREE-NOT: arith.extf
// FREE: arith.mulf
// CHECK-LABEL: func.func @free_or_epilogue
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK: arith.addf %{{.*}}, %cst : f32
// CHECK: %[[B16:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x4xf16>)
// CHECK: math.erf
// CHECK: %[[G16:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x4xf16>)
// CHECK: linalg.generic {{.*}} ins(%[[B16]], %[[G16]] : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
#id = affine_map<(i, j) -> (i, j)>
func.func @free_or_epilogue(%a: tensor<4x4xf32>, %h: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %bias = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%mm : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %y = arith.addf %x, %one : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%h : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.erf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %c = linalg.matmul ins(%bias, %g : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

// Left in f32: a weight past f16's range (70000 would be infinity), an
// integer matmul, f64, a reduction of one operand (a row sum), and an
// elementwise product (no reduction loop).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: f16
// CHECK: return
// BF16-LABEL: func.func @kept
// BF16: tensor<2x2xbf16>
#rows = affine_map<(i, j) -> (i)>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @kept(%a: tensor<4x2xf32>, %ia: tensor<4x2xi32>, %ib: tensor<2x2xi32>,
                %da: tensor<4x2xf64>, %db: tensor<2x2xf64>)
    -> (tensor<4x2xf32>, tensor<4x2xi32>, tensor<4x2xf64>, tensor<4xf32>, tensor<4x2xf32>) {
  %w = arith.constant dense<[[70000.0, 1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %c = linalg.matmul ins(%a, %w : tensor<4x2xf32>, tensor<2x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  %izero = arith.constant 0 : i32
  %ie = tensor.empty() : tensor<4x2xi32>
  %iinit = linalg.fill ins(%izero : i32) outs(%ie : tensor<4x2xi32>) -> tensor<4x2xi32>
  %ic = linalg.matmul ins(%ia, %ib : tensor<4x2xi32>, tensor<2x2xi32>) outs(%iinit : tensor<4x2xi32>) -> tensor<4x2xi32>
  %dzero = arith.constant 0.0 : f64
  %de = tensor.empty() : tensor<4x2xf64>
  %dinit = linalg.fill ins(%dzero : f64) outs(%de : tensor<4x2xf64>) -> tensor<4x2xf64>
  %dc = linalg.matmul ins(%da, %db : tensor<4x2xf64>, tensor<2x2xf64>) outs(%dinit : tensor<4x2xf64>) -> tensor<4x2xf64>
  %re = tensor.empty() : tensor<4xf32>
  %rinit = linalg.fill ins(%zero : f32) outs(%re : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #rows], iterator_types = ["parallel", "reduction"]}
       ins(%a : tensor<4x2xf32>) outs(%rinit : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %o, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
       ins(%a, %a : tensor<4x2xf32>, tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<4x2xf32>
  return %c, %ic, %dc, %r, %m : tensor<4x2xf32>, tensor<4x2xi32>, tensor<4x2xf64>, tensor<4xf32>, tensor<4x2xf32>
}

// BAD: precision 'f8' is not f16, bf16 or f32
