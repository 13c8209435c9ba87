// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-plan-memory))' | FileCheck %s
// RUN: hodu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hodu-plan-memory{alignment=16}))' | FileCheck %s --check-prefix=ALIGN16

// Two buffers that are never live at once share offset 0; their deallocs
// (at the end, where buffer-deallocation-pipeline puts them) are replaced
// by one dealloc of the arena.
// CHECK-LABEL: func.func @disjoint
// CHECK-SAME: hodu.memory_plan = {arena_bytes = 1024 : i64, buffer_bytes = 1280 : i64, buffers = 2 : i64, live_bytes = 1024 : i64}
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<1024xi8>
// CHECK: %[[OFF_A:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[ARENA]][%[[OFF_A]]][] : memref<1024xi8> to memref<256xf32>
// CHECK: linalg.fill {{.*}} outs(%[[A]] : memref<256xf32>)
// CHECK: %[[OFF_B:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[ARENA]][%[[OFF_B]]][] : memref<1024xi8> to memref<64xf32>
// CHECK: linalg.fill {{.*}} outs(%[[B]] : memref<64xf32>)
// CHECK-NOT: memref.dealloc
// CHECK: memref.dealloc %[[ARENA]] : memref<1024xi8>
// CHECK-NEXT: return
func.func @disjoint(%out: memref<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %sa = memref.subview %a[0] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1]>>
  linalg.copy ins(%sa : memref<64xf32, strided<[1]>>) outs(%out : memref<64xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<64xf32>)
  linalg.add ins(%b, %out : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// Two buffers live at once get disjoint bytes, the larger one first; an i1
// buffer counts one byte per element.
// CHECK-LABEL: func.func @overlapping
// CHECK-SAME: arena_bytes = 1380 : i64, buffer_bytes = 1380 : i64, buffers = 3 : i64, live_bytes = 1380 : i64
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<1380xi8>
// CHECK: arith.constant 0 : index
// CHECK-NEXT: memref.view %[[ARENA]]{{.*}} to memref<256xf32>
// CHECK: arith.constant 1024 : index
// CHECK-NEXT: memref.view %[[ARENA]]{{.*}} to memref<64xf32>
// CHECK: arith.constant 1280 : index
// CHECK-NEXT: memref.view %[[ARENA]]{{.*}} to memref<100xi1>
func.func @overlapping(%out: memref<64xf32>, %mask: memref<100xi1>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<64xf32>)
  %m = memref.alloc() : memref<100xi1>
  memref.copy %mask, %m : memref<100xi1> to memref<100xi1>
  %sa = memref.subview %a[0] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1]>>
  linalg.add ins(%sa, %b : memref<64xf32, strided<[1]>>, memref<64xf32>) outs(%out : memref<64xf32>)
  memref.copy %m, %mask : memref<100xi1> to memref<100xi1>
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %m : memref<100xi1>
  return
}

// -----

// Offsets are multiples of the alignment option, or of a buffer's own larger
// alignment, which the arena then gets too.
// CHECK-LABEL: func.func @alignment
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 256 : i64, hodu.arena} : memref<296xi8>
// CHECK: arith.constant 0 : index
// CHECK-NEXT: memref.view %[[ARENA]]{{.*}} to memref<25xf32>
// CHECK: arith.constant 256 : index
// CHECK-NEXT: memref.view %[[ARENA]]{{.*}} to memref<10xf32>
// CHECK: arith.constant 128 : index
// CHECK-NEXT: memref.view %[[ARENA]]{{.*}} to memref<3xf32>
// ALIGN16-LABEL: func.func @alignment
// ALIGN16: %[[ARENA:.*]] = memref.alloc() {alignment = 256 : i64, hodu.arena} : memref<296xi8>
// ALIGN16: arith.constant 0 : index
// ALIGN16-NEXT: memref.view %[[ARENA]]{{.*}} to memref<25xf32>
// ALIGN16: arith.constant 256 : index
// ALIGN16-NEXT: memref.view %[[ARENA]]{{.*}} to memref<10xf32>
// ALIGN16: arith.constant 112 : index
// ALIGN16-NEXT: memref.view %[[ARENA]]{{.*}} to memref<3xf32>
func.func @alignment(%out: memref<3xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<25xf32>
  %b = memref.alloc() {alignment = 256 : i64} : memref<10xf32>
  %c = memref.alloc() : memref<3xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<25xf32>)
  linalg.fill ins(%cst : f32) outs(%b : memref<10xf32>)
  linalg.fill ins(%cst : f32) outs(%c : memref<3xf32>)
  %sa = memref.subview %a[0] [3] [1] : memref<25xf32> to memref<3xf32, strided<[1]>>
  %sb = memref.subview %b[0] [3] [1] : memref<10xf32> to memref<3xf32, strided<[1]>>
  linalg.add ins(%sa, %sb : memref<3xf32, strided<[1]>>, memref<3xf32, strided<[1]>>) outs(%out : memref<3xf32>)
  linalg.add ins(%c, %out : memref<3xf32>, memref<3xf32>) outs(%out : memref<3xf32>)
  memref.dealloc %a : memref<25xf32>
  memref.dealloc %b : memref<10xf32>
  memref.dealloc %c : memref<3xf32>
  return
}

// -----

// A use inside a loop counts at the loop: %a, read in the loop that writes
// %b, is live as long as %b is, so they do not share bytes.
// CHECK-LABEL: func.func @use_in_loop
// CHECK: memref<512xi8>
// CHECK: arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} to memref<64xf32>
// CHECK: arith.constant 256 : index
// CHECK-NEXT: memref.view {{.*}} to memref<64xf32>
// CHECK: scf.for
func.func @use_in_loop(%out: memref<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<64xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %b = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %x = memref.load %a[%i] : memref<64xf32>
    memref.store %x, %b[%i] : memref<64xf32>
  }
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// An alloc inside a loop, a buffer passed to a call, one returned, one
// stored as a value and one freed under a condition are left alone; the
// two plain buffers are still planned.
// CHECK-LABEL: func.func @left_alone
// CHECK-SAME: buffers = 2 : i64
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<96xi8>
// CHECK: %[[CALLED:.*]] = memref.alloc() : memref<8xf32>
// CHECK: call @consume(%[[CALLED]])
// CHECK: %[[RETURNED:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[STORED:.*]] = memref.alloc() : memref<8xf32>
// CHECK: memref.store %[[STORED]]
// CHECK: %[[MAYBE:.*]] = memref.alloc() : memref<8xf32>
// CHECK: scf.for
// CHECK-NEXT: %[[INNER:.*]] = memref.alloc() : memref<16xf32>
// CHECK: memref.dealloc %[[INNER]]
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc %[[MAYBE]]
// CHECK: memref.dealloc %[[CALLED]]
// CHECK: memref.dealloc %[[STORED]]
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return %[[RETURNED]]
func.func private @consume(memref<8xf32>)
func.func @left_alone(%box: memref<memref<8xf32>>, %flag: i1) -> memref<8xf32> {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%p : memref<8xf32>)
  %q = memref.alloc() : memref<8xf32>
  linalg.copy ins(%p : memref<8xf32>) outs(%q : memref<8xf32>)
  %called = memref.alloc() : memref<8xf32>
  linalg.copy ins(%q : memref<8xf32>) outs(%called : memref<8xf32>)
  func.call @consume(%called) : (memref<8xf32>) -> ()
  %returned = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%returned : memref<8xf32>)
  %stored = memref.alloc() : memref<8xf32>
  memref.store %stored, %box[] : memref<memref<8xf32>>
  %maybe = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%maybe : memref<8xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %inner = memref.alloc() : memref<16xf32>
    linalg.fill ins(%cst : f32) outs(%inner : memref<16xf32>)
    memref.dealloc %inner : memref<16xf32>
  }
  scf.if %flag {
    memref.dealloc %maybe : memref<8xf32>
  }
  memref.dealloc %p : memref<8xf32>
  memref.dealloc %q : memref<8xf32>
  memref.dealloc %called : memref<8xf32>
  memref.dealloc %stored : memref<8xf32>
  return %returned : memref<8xf32>
}

// -----

// Fewer than two buffers qualify (the other has a dynamic shape): nothing
// changes.
// CHECK-LABEL: func.func @one_buffer
// CHECK-NOT: hodu.memory_plan
// CHECK-NOT: memref.view
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT: memref.view
func.func @one_buffer(%n: index, %out: memref<8xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<8xf32>)
  %d = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%d : memref<?xf32>)
  linalg.copy ins(%a : memref<8xf32>) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %d : memref<?xf32>
  return
}

// -----

// A buffer yielded by the branches of an scf.if (the CPU's int8 kernels
// choose AMX tiles or VNNI at run time, both writing one buffer) is the
// if's result too: planned, live until the if's result's last use (so the
// buffer after it does not share its bytes).
// CHECK-LABEL: func.func @if_yield
// CHECK-SAME: arena_bytes = 512 : i64, buffer_bytes = 512 : i64, buffers = 2 : i64
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, hodu.arena} : memref<512xi8>
// CHECK: %[[A:.*]] = memref.view %[[ARENA]]
// CHECK: scf.if
// CHECK: scf.yield %[[A]]
// CHECK: memref.view %[[ARENA]]
// CHECK: linalg.add
// CHECK: memref.dealloc %[[ARENA]]
func.func @if_yield(%c: i1, %out: memref<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %r = scf.if %c -> (memref<64xf32>) {
    linalg.fill ins(%cst : f32) outs(%a : memref<64xf32>)
    scf.yield %a : memref<64xf32>
  } else {
    linalg.fill ins(%two : f32) outs(%a : memref<64xf32>)
    scf.yield %a : memref<64xf32>
  }
  %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.add ins(%r, %r : memref<64xf32>, memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}
