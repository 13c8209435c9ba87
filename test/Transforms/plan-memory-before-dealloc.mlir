// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-plan-memory{before-deallocation=1}))' | FileCheck %s
// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-plan-memory{before-deallocation=1}),buffer-deallocation-pipeline)' | FileCheck %s --check-prefix=DEALLOC

// hodu-plan-memory{before-deallocation=1}, as the CPU pipeline runs it:
// right after bufferization, when no buffer has a dealloc yet. The buffers
// share the arena as they do after deallocation (plan-memory.mlir), the
// arena gets no dealloc of its own, and buffer-deallocation-pipeline then
// frees the arena, the one buffer it sees, before the return.
// CHECK-LABEL: func.func @disjoint
// CHECK-SAME: hodu.memory_plan = {arena_bytes = 1024 : i64, buffer_bytes = 1280 : i64, buffers = 2 : i64, live_bytes = 1024 : i64}
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<1024xi8>
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<256xf32>
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<64xf32>
// CHECK-NOT: dealloc
// CHECK: return
// DEALLOC-LABEL: func.func @disjoint
// DEALLOC: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<1024xi8>
// DEALLOC-NOT: memref.alloc
// DEALLOC: memref.dealloc %[[ARENA]] : memref<1024xi8>
// DEALLOC-NEXT: return
func.func @disjoint(%out: memref<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %sa = memref.subview %a[0] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1]>>
  linalg.copy ins(%sa : memref<64xf32, strided<[1]>>) outs(%out : memref<64xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<64xf32>)
  linalg.add ins(%b, %out : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

// A buffer handed to a loop as its initial value may be replaced by
// another in each iteration (allow-return-allocs-from-loops): it is left to
// buffer deallocation, which frees whichever buffer the loop returns; the
// two others are planned (and share bytes: the first is last used in the
// loop, the second first written after it).
// CHECK-LABEL: func.func @loop_carried
// CHECK-SAME: buffers = 2 : i64
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<256xi8>
// CHECK: %[[INIT:.*]] = memref.alloc() : memref<16xf32>
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<64xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}} = %[[INIT]])
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<64xf32>
// CHECK-NOT: dealloc
// CHECK: return
// DEALLOC-LABEL: func.func @loop_carried
// DEALLOC: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<256xi8>
// DEALLOC: scf.for
// DEALLOC: memref.dealloc %[[ARENA]] : memref<256xi8>
// DEALLOC: return
func.func @loop_carried(%out: memref<16xf32>, %n: index) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%init : memref<16xf32>)
  %tmp = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%tmp : memref<64xf32>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<16xf32>) {
    %next = memref.alloc() : memref<16xf32>
    %s = memref.subview %tmp[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
    linalg.add ins(%acc, %s : memref<16xf32>, memref<16xf32, strided<[1]>>) outs(%next : memref<16xf32>)
    scf.yield %next : memref<16xf32>
  }
  %tmp2 = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%tmp2 : memref<64xf32>)
  %s2 = memref.subview %tmp2[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
  linalg.add ins(%r, %s2 : memref<16xf32>, memref<16xf32, strided<[1]>>) outs(%out : memref<16xf32>)
  return
}
