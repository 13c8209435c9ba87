// Elementwise tiles hold vector-registers / 8 vectors: 64 floats on
// AVX-512 (the default), 16 on NEON and AVX2.
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics=approximate-math=false --canonicalize | FileCheck %s --check-prefix=AVX512
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics="approximate-math=false vector-bits=128 vector-registers=32" --canonicalize | FileCheck %s --check-prefix=SMALL
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics="approximate-math=false vector-bits=256 vector-registers=16" --canonicalize | FileCheck %s --check-prefix=SMALL
// Explicit vector-elements wins.
// RUN: hodu-opt %s --hodu-cpu-vectorize-generics="approximate-math=false vector-bits=128 vector-elements=64" --canonicalize | FileCheck %s --check-prefix=AVX512

#id = affine_map<(d0, d1) -> (d0, d1)>
// AVX512-LABEL: func.func @exp
// AVX512: math.exp %{{.*}} : vector<64xf32>
// SMALL-LABEL: func.func @exp
// SMALL: math.exp %{{.*}} : vector<16xf32>
func.func @exp(%x: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
  %e = tensor.empty() : tensor<128x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
       ins(%x : tensor<128x1024xf32>) outs(%e : tensor<128x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %g = math.exp %a : f32
    linalg.yield %g : f32
  } -> tensor<128x1024xf32>
  return %r : tensor<128x1024xf32>
}
