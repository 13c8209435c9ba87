#!/bin/sh
# Builds the reference tensor-core kernels (shared/reference/tensor-core-gemm)
# at 1024^3 and 4096^3 into cubins for the device probe.
set -e
cd "$(dirname "$0")"
OUT=${1:-out}; mkdir -p $OUT
MLIR_OPT=${MLIR_OPT:-mlir-opt-22}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
KP='convert-nvgpu-to-nvvm,convert-vector-to-llvm,convert-scf-to-cf,expand-strided-metadata,lower-affine,arith-expand,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},convert-nvvm-to-llvm,canonicalize,cse,reconcile-unrealized-casts'
for s in 1024 4096; do
  for d in f16 bf16 tf32 tf32x3; do
    GEMM_SIZE=$s python3 gen_sm80.py $d > $OUT/sm80_${d}_$s.mlir
    $MLIR_OPT $OUT/sm80_${d}_$s.mlir -pass-pipeline="builtin.module(nvvm-attach-target{chip=sm_90 features=+ptx80 O=3},gpu.module($KP),gpu-module-to-binary{format=isa})" -o $OUT/t.bin.mlir
    python3 extract_ptx.py $OUT/t.bin.mlir $OUT/sm80_${d}_$s.ptx
    $PTXAS -arch=sm_90 -O3 -v $OUT/sm80_${d}_$s.ptx -o $OUT/sm80_${d}_$s.cubin 2>&1 | grep -E 'Used|spill' | tr -s ' ' | tr '\n' ' '; echo " sm80_${d}_$s"
  done
  for d in f16 bf16; do
    sed -e "s/1024/$s/g" -e "s/%cKT = arith.constant 16 : index/%cKT = arith.constant $((s/64)) : index/" gemm_${d}_sm90a.mlir > $OUT/sm90a_${d}_$s.mlir
    $MLIR_OPT $OUT/sm90a_${d}_$s.mlir -pass-pipeline="builtin.module(nvvm-attach-target{chip=sm_90a features=+ptx80 O=3},gpu.module($KP))" -o $OUT/l.mlir
    GC='{llvm.align = 64 : i64, llvm.byval = !llvm.struct<(array<16 x i64>)>, nvvm.grid_constant}'
    sed -e 's/llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64}/llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}/' \
        -e "s/llvm.func @gemm_${d}_sm90a(%arg0: !llvm.ptr, %arg1: !llvm.ptr,/llvm.func @gemm_${d}_sm90a(%arg0: !llvm.ptr $GC, %arg1: !llvm.ptr $GC,/" $OUT/l.mlir > $OUT/lf.mlir
    grep -q 'alignment = 1024' $OUT/lf.mlir && grep -q grid_constant $OUT/lf.mlir
    $MLIR_OPT $OUT/lf.mlir -gpu-module-to-binary=format=isa -o $OUT/t.bin.mlir
    python3 extract_ptx.py $OUT/t.bin.mlir $OUT/sm90a_${d}_$s.ptx
    $PTXAS -arch=sm_90a -O3 -v $OUT/sm90a_${d}_$s.ptx -o $OUT/sm90a_${d}_$s.cubin 2>&1 | grep -E 'Used|spill' | tr -s ' ' | tr '\n' ' '; echo " sm90a_${d}_$s"
  done
done
rm -f $OUT/*.mlir
