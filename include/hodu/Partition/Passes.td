//===- Passes.td - accelerator/CPU partitioning -------------*- tablegen -*-===//
#ifndef HODU_PARTITION_PASSES_TD
#define HODU_PARTITION_PASSES_TD

include "mlir/Pass/PassBase.td"

def Partition : Pass<"hodu-partition", "mlir::ModuleOp"> {
  let summary = "Split the entry function into accelerator and CPU partitions joined by transfers";
  let description = [{
    Runs on the hodu dialect, for an accelerator target (`target`). Every
    node (the ops an ONNX node became, found by the node name in their
    location) gets a device: the one `placement` pins it to; else the CPU
    when its op type is in `force-cpu-ops` (ONNX op types such as
    `Softmax`, or hodu op names; `*` is every op); else the target when the target's op
    support table holds all its ops; else the CPU with `fallback=cpu`, and
    otherwise an error that names the op, the node and the target.

    When every node is on the target, nothing changes: the model is one
    partition. Otherwise the ops are grouped, as seed 004 does, into
    partitions of consecutive ops on one device, and then, better than
    the seed, partitions of the same device are merged when no other
    partition lies on a dependency path between them (a CPU op between
    two accelerator runs that does not feed the second joins neither,
    and the two runs become one), so that fewer values cross devices.
    Each partition becomes a private function with `hodu.device` and the
    entry function calls them in order, with a `hodu.transfer` wherever a
    value crosses to another device: model inputs arrive in host memory
    ("cpu"), outputs are returned from there, each value crosses to each
    device once.

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
      %a = hodu.relu %x : (tensor<4xf32>) -> tensor<4xf32>      // vulkan
      %b = hodu.concat ... %a, %a ... -> tensor<8xf32>          // cpu
      %c = hodu.softmax %b ...                                  // vulkan
      return %c : tensor<8xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
      %0 = hodu.transfer %x to "vulkan" : tensor<4xf32>
      %1 = call @vulkan_0(%0) : (tensor<4xf32>) -> tensor<4xf32>
      %2 = hodu.transfer %1 to "cpu" : tensor<4xf32>
      %3 = call @cpu_1(%2) : (tensor<4xf32>) -> tensor<8xf32>
      %4 = hodu.transfer %3 to "vulkan" : tensor<8xf32>
      %5 = call @vulkan_2(%4) : (tensor<8xf32>) -> tensor<8xf32>
      %6 = hodu.transfer %5 to "cpu" : tensor<8xf32>
      return %6 : tensor<8xf32>
    }
    func.func private @vulkan_0(...) attributes {hodu.device = "vulkan"}
    ```

    `dump-placement` writes each node's device as JSON (`{"node": "cpu",
    ...}`), the format `placement` reads, so a placement can be edited and
    fed back. A placement that names an unknown node or device, or pins a
    node to a target that cannot run it, is an error naming the entry. The
    entry function gets `hodu.partitions = {partitions, transfers,
    transfer_bytes, before_merge: {...}}`; `hoduc --print-stats` reports it.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "The accelerator target (a registered target's name)">,
    Option<"fallback", "fallback", "std::string", "\"\"",
           "Where the ops the target cannot run go: \"cpu\", or \"\" (an error)">,
    ListOption<"forceCpuOps", "force-cpu-ops", "std::string",
               "Op types (ONNX or hodu) that run on the CPU">,
    ListOption<"cpuNodes", "cpu-nodes", "std::string",
               "Nodes (by name) that run on the CPU (hoduc retries nodes "
               "whose kernels the target could not build with this)">,
    Option<"placement", "placement", "std::string", "\"\"",
           "A JSON file pinning nodes to devices ({\"node\": \"cpu\"})">,
    Option<"dumpPlacement", "dump-placement", "std::string", "\"\"",
           "Write the chosen placement to this JSON file">,
    Option<"merge", "merge", "bool", "true",
           "Merge non-adjacent partitions of a device when dependencies allow">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect", "::hodu::HoduDialect"];
}

#endif // HODU_PARTITION_PASSES_TD
