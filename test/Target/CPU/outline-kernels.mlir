// RUN: hodu-opt %s --hodu-cpu-outline-kernels | FileCheck %s

// hodu-cpu-outline-kernels: each op with regions at the top level of a
// function (loops, linalg ops on buffers) becomes a private function of its
// own, never inlined, called in its place. The views and constants it reads
// are recomputed inside it; globals are passed (a constant one marked
// noalias and readonly for LLVM), as are buffers that cross a call under the
// bare-pointer convention (static, identity layout). The loop that writes a
// dynamically sized buffer stays inline, and so does what it reads.

// CHECK-LABEL: func.func private @main_kernel0(%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<512xi8>) attributes {hodu.kernel, passthrough = ["noinline"]}
// CHECK-NOT: memref.get_global
// CHECK: memref.view
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: return
// CHECK-LABEL: func.func private @main_kernel1(%{{.*}}: memref<512xi8>)
// CHECK: memref.view
// CHECK: memref.subview
// CHECK: linalg.copy
// CHECK-LABEL: func.func private @main_kernel2(%{{.*}}: memref<512xi8>, %{{.*}}: memref<64xf32>)
// CHECK: scf.for
// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[W:.*]] = memref.get_global @w
// CHECK-NEXT: call @main_kernel0(%arg0, %[[W]], %arg2)
// CHECK: %[[DYN:.*]] = memref.alloc
// CHECK: scf.for
// CHECK: memref.store {{.*}}, %[[DYN]]
// CHECK: call @main_kernel1(%arg2)
// CHECK-NEXT: call @main_kernel2(%arg2, %arg1)
// CHECK-NEXT: memref.dealloc %[[DYN]]
// CHECK-NOT: memref.subview
memref.global "private" constant @w : memref<64xf32> = dense<1.0>

func.func @main(%in: memref<64xf32>, %out: memref<64xf32>, %ws: memref<512xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %t = memref.view %ws[%c0][] : memref<512xi8> to memref<64xf32>
  %w = memref.get_global @w : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %in[%i] : memref<64xf32>
    %b = memref.load %w[%i] : memref<64xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %t[%i] : memref<64xf32>
  }
  %half = memref.subview %t[32] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: 32>>
  %dyn = memref.alloc(%c64) : memref<?xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %t[%i] : memref<64xf32>
    memref.store %a, %dyn[%i] : memref<?xf32>
  }
  linalg.copy ins(%half : memref<32xf32, strided<[1], offset: 32>>) outs(%half : memref<32xf32, strided<[1], offset: 32>>)
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %t[%i] : memref<64xf32>
    memref.store %a, %out[%i] : memref<64xf32>
  }
  memref.dealloc %dyn : memref<?xf32>
  return
}

// A function with one kernel is its kernel already: left alone.
// CHECK-LABEL: func.func @single(
// CHECK-NOT: call
// CHECK: scf.for
func.func @single(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %z, %out[%i] : memref<8xf32>
  }
  return
}

// An op that frees a buffer from outside it stays inline: a kernel would
// see only the buffer's aligned pointer, not the one malloc returned.
// CHECK-LABEL: func.func @frees(
// CHECK: call @frees_kernel0
// CHECK: call @frees_kernel1
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc
func.func @frees(%out: memref<8xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %z, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %a[%i] : memref<8xf32>
    memref.store %v, %out[%i] : memref<8xf32>
  }
  scf.if %cond {
    memref.dealloc %a : memref<8xf32>
  }
  return
}

// The loop nests in the branches of an scf.if with results (a model's If)
// are kernels too: the if stays, each branch calling its kernels, which
// recompute the views the function body made. Both branches' kernels are
// functions of their own.
// CHECK-LABEL: func.func private @branches_kernel0(%{{.*}}: memref<64xf32>, %{{.*}}: memref<512xi8>)
// CHECK: memref.view
// CHECK: scf.for
// CHECK-LABEL: func.func private @branches_kernel1(%{{.*}}: memref<512xi8>, %{{.*}}: memref<64xf32>)
// CHECK: memref.view
// CHECK: scf.for
// CHECK-LABEL: func.func @branches(
// CHECK: %[[R:.*]] = scf.if
// CHECK-NEXT: call @branches_kernel0(
// CHECK: scf.yield
// CHECK: else
// CHECK-NEXT: call @branches_kernel1(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @branches(%p: i1, %in: memref<64xf32>, %out: memref<64xf32>, %ws: memref<512xi8>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.view %ws[%c0][] : memref<512xi8> to memref<64xf32>
  %r = scf.if %p -> f32 {
    scf.for %i = %c0 to %c64 step %c1 {
      %a = memref.load %in[%i] : memref<64xf32>
      memref.store %a, %t[%i] : memref<64xf32>
    }
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    scf.for %i = %c0 to %c64 step %c1 {
      %a = memref.load %t[%i] : memref<64xf32>
      memref.store %a, %out[%i] : memref<64xf32>
    }
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  return %r : f32
}

// Straight-line vector code between kernels (a small op vectorised whole,
// no loop) is a kernel too when it writes and moves at least 16 elements:
// LLVM would otherwise see every such run inside @main. The view it reads
// is recomputed. A scalar read whose value @main uses later stays inline
// and splits the run: the writes before it and after it keep their order.
// CHECK-LABEL: func.func private @straight_kernel1(%{{.*}}: memref<512xi8>)
// CHECK: memref.view
// CHECK: vector.transfer_read
// CHECK: arith.addf
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @straight_kernel2(%{{.*}}: memref<512xi8>)
// CHECK: vector.transfer_write {{.*}} : vector<32xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @straight(
// CHECK: call @straight_kernel0(
// CHECK-NEXT: call @straight_kernel1(%arg1)
// CHECK-NEXT: %[[S:.*]] = memref.load
// CHECK-NEXT: call @straight_kernel2(%arg1)
// CHECK-NEXT: call @straight_kernel3(
// CHECK-NEXT: return %[[S]]
func.func @straight(%out: memref<64xf32>, %ws: memref<512xi8>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %t = memref.view %ws[%c0][] : memref<512xi8> to memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %pad, %t[%i] : memref<64xf32>
  }
  %v = vector.transfer_read %t[%c0], %pad {in_bounds = [true]} : memref<64xf32>, vector<32xf32>
  %w = arith.addf %v, %v : vector<32xf32>
  vector.transfer_write %w, %t[%c0] {in_bounds = [true]} : vector<32xf32>, memref<64xf32>
  %small = arith.constant dense<1.0> : vector<4xf32>
  vector.transfer_write %small, %t[%c0] {in_bounds = [true]} : vector<4xf32>, memref<64xf32>
  %s = memref.load %t[%c1] : memref<64xf32>
  %big = arith.constant dense<2.0> : vector<32xf32>
  vector.transfer_write %big, %t[%c0] {in_bounds = [true]} : vector<32xf32>, memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %t[%i] : memref<64xf32>
    memref.store %a, %out[%i] : memref<64xf32>
  }
  return %s : f32
}

// Kernels that differ only in their arguments are one function: the first
// two loops read different weights (a mutable global is passed without
// noalias/readonly) into the same place, the third adds another constant,
// the fourth writes elsewhere in the arena (its view is recomputed, so the
// offset is its own).
// CHECK-LABEL: func.func private @dedupe_kernel0(%{{.*}}: memref<16xf32> {llvm.align = 64 : i64, llvm.noalias, llvm.readonly}, %{{.*}}: memref<256xi8>)
// CHECK-NOT: func.func private @dedupe_kernel1(
// CHECK-LABEL: func.func private @dedupe_kernel2(
// CHECK: arith.constant 2.0
// CHECK-LABEL: func.func private @dedupe_kernel3(
// CHECK: arith.constant 64 : index
// CHECK-LABEL: func.func private @dedupe_kernel4(%{{.*}}: memref<16xf32>, %{{.*}}: memref<256xi8>)
// CHECK-LABEL: func.func @dedupe(
// CHECK: %[[A:.*]] = memref.get_global @a
// CHECK-NEXT: call @dedupe_kernel0(%[[A]], %arg0)
// CHECK: %[[B:.*]] = memref.get_global @b
// CHECK-NEXT: call @dedupe_kernel0(%[[B]], %arg0)
// CHECK: call @dedupe_kernel2(
// CHECK: call @dedupe_kernel3(
// CHECK: %[[M:.*]] = memref.get_global @m
// CHECK-NEXT: call @dedupe_kernel4(%[[M]], %arg0)
memref.global "private" constant @a : memref<16xf32> = dense<1.0> {alignment = 64 : i64}
memref.global "private" constant @b : memref<16xf32> = dense<3.0> {alignment = 64 : i64}
memref.global "private" @m : memref<16xf32> = dense<3.0>

func.func @dedupe(%ws: memref<256xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.view %ws[%c0][] : memref<256xi8> to memref<16xf32>
  %u = memref.view %ws[%c64][] : memref<256xi8> to memref<16xf32>
  %a = memref.get_global @a : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %t[%i] : memref<16xf32>
  }
  %b = memref.get_global @b : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %b[%i] : memref<16xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %t[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %b[%i] : memref<16xf32>
    %y = arith.addf %x, %two : f32
    memref.store %y, %t[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %b[%i] : memref<16xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %u[%i] : memref<16xf32>
  }
  %m = memref.get_global @m : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %m[%i] : memref<16xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %t[%i] : memref<16xf32>
  }
  return
}
