//===- HoduPartitionOps.td - heterogeneous execution -----------*- tablegen -*-===//
//
// Not an upstream family: the data movement between the partitions of a
// model that runs on an accelerator and the CPU (hodu-partition).
//
//===----------------------------------------------------------------------===//

#ifndef HODU_PARTITION_OPS_TD
#define HODU_PARTITION_OPS_TD

def Hodu_TransferOp : Hodu_Op<"transfer", [SameOperandsAndResultType]> {
  let summary = "A tensor copied to another device's memory";
  let description = [{
    The value of `input`, made available on device `to` ("cpu" for host
    memory, or a target's name: "vulkan", "cuda", "rocm", "metal").
    `hodu-partition` puts one wherever a partition reads a value that
    another device produced (or a model input, which arrives in host
    memory), and before the entry function returns a value that lives on
    an accelerator; each value crosses to each device once. A bundle's
    plan runs it as a TRANSFER step. Dtypes travel exactly (bf16 and f16 as
    their bits).

    ```mlir
    %0 = call @vulkan_0(%x_on_vulkan) : (tensor<1x64xf32>) -> tensor<1x64xf32>
    %1 = hodu.transfer %0 to "cpu" : tensor<1x64xf32>
    %2 = call @cpu_1(%1) : (tensor<1x64xf32>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Hodu_Tensor:$input, StrAttr:$to);
  let results = (outs Hodu_Tensor:$result);
  let assemblyFormat = "$input `to` $to attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // HODU_PARTITION_OPS_TD
