// hodu-cpu-kernel-loop-hints marks the k loop of a register kernel one
// vector wide (vector accumulators carried, no loop inside, FMAs that all
// multiply one B vector) so that LLVM does not unroll it: unrolled twice,
// an 8x8 tile on AVX2's 16 registers loaded the broadcasts of both k steps
// first and spilled accumulators. Other loops, two-vector tiles included,
// stay LLVM's to unroll.
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-kernel-loop-hints))' | FileCheck %s
// With 128-bit registers (NEON, SSE) the 8-lane row is two registers: no
// hints.
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-kernel-loop-hints{vector-bits=128}))' | FileCheck %s --check-prefix=WIDE
// WIDE-NOT: loop_annotation
//
// The annotation reaches the LLVM IR as the latch branch's llvm.loop
// metadata (scf-to-cf moves it to the loop's branch; cf-to-llvm keeps it).
// RUN: hodu-opt %s --pass-pipeline='builtin.module(func.func(hodu-cpu-kernel-loop-hints),convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)' | mlir-translate-22 --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// LLVM: br label %{{[0-9]+}}, !llvm.loop ![[LOOP:[0-9]+]]
// LLVM: ![[LOOP]] = distinct !{![[LOOP]], ![[DISABLE:[0-9]+]]}
// LLVM: ![[DISABLE]] = !{!"llvm.loop.unroll.disable"}

// CHECK: #[[UNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[HINT:.+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>

// Two rows of one 8-lane vector: both FMAs multiply the row of B.
// CHECK-LABEL: func.func @kernel
// CHECK: scf.for
// CHECK: vector.fma
// CHECK: vector.fma
// CHECK: } {loop_annotation = #[[HINT]]}
func.func @kernel(%a: memref<128x2xf32>, %b: memref<128x8xf32>, %init0: vector<8xf32>, %init1: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %r:2 = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc0 = %init0, %acc1 = %init1) -> (vector<8xf32>, vector<8xf32>) {
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<128x8xf32>, vector<8xf32>
    %a0 = memref.load %a[%k, %c0] : memref<128x2xf32>
    %a1 = memref.load %a[%k, %c1] : memref<128x2xf32>
    %x0 = vector.broadcast %a0 : f32 to vector<8xf32>
    %x1 = vector.broadcast %a1 : f32 to vector<8xf32>
    %s0 = vector.fma %x0, %y, %acc0 : vector<8xf32>
    %s1 = vector.fma %x1, %y, %acc1 : vector<8xf32>
    scf.yield %s0, %s1 : vector<8xf32>, vector<8xf32>
  }
  return %r#0, %r#1 : vector<8xf32>, vector<8xf32>
}

// One row of two vectors (two B vectors): left to LLVM.
// CHECK-LABEL: func.func @two_vectors
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @two_vectors(%a: memref<128xf32>, %b: memref<128x16xf32>, %init0: vector<8xf32>, %init1: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %r:2 = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc0 = %init0, %acc1 = %init1) -> (vector<8xf32>, vector<8xf32>) {
    %y0 = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<128x16xf32>, vector<8xf32>
    %y1 = vector.transfer_read %b[%k, %c8], %pad {in_bounds = [true]} : memref<128x16xf32>, vector<8xf32>
    %a0 = memref.load %a[%k] : memref<128xf32>
    %x = vector.broadcast %a0 : f32 to vector<8xf32>
    %s0 = vector.fma %x, %y0, %acc0 : vector<8xf32>
    %s1 = vector.fma %x, %y1, %acc1 : vector<8xf32>
    scf.yield %s0, %s1 : vector<8xf32>, vector<8xf32>
  }
  return %r#0, %r#1 : vector<8xf32>, vector<8xf32>
}

// Vector values carried without an FMA (a running maximum): left alone.
// CHECK-LABEL: func.func @maximum
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @maximum(%a: memref<128x8xf32>, %init: vector<8xf32>) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %init) -> (vector<8xf32>) {
    %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true]} : memref<128x8xf32>, vector<8xf32>
    %m = arith.maximumf %x, %acc : vector<8xf32>
    scf.yield %m : vector<8xf32>
  }
  return %r : vector<8xf32>
}

// A loop around another (the row blocks around a k loop): only the inner
// one is the kernel's.
// CHECK-LABEL: func.func @nest
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.fma
// CHECK: } {loop_annotation = #[[HINT]]}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @nest(%a: memref<128x8xf32>, %init: vector<8xf32>) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %two = arith.constant dense<2.0> : vector<8xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%outer = %init) -> (vector<8xf32>) {
    %s = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %outer) -> (vector<8xf32>) {
      %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true]} : memref<128x8xf32>, vector<8xf32>
      %f = vector.fma %x, %two, %acc : vector<8xf32>
      %g = vector.fma %f, %two, %x : vector<8xf32>
      scf.yield %g : vector<8xf32>
    }
    scf.yield %s : vector<8xf32>
  }
  return %r : vector<8xf32>
}
