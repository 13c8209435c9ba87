//===- HoduAbiOps.td - the artifact ABI in the IR ------------*- tablegen -*-===//
//
// Not an upstream family: the entry point a compiled model exports
// (runtime/include/hodu/abi.h), kept in the IR from the linalg phase on so
// that every step to the artifact is a pass that `--compile-to` shows and
// `hodu-opt` replays.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_ABI_OPS_TD
#define HODU_ABI_OPS_TD

include "mlir/IR/SymbolInterfaces.td"

def Hodu_EntryPointOp : Hodu_Op<"entry_point",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The model's exported entry point and its descriptor";
  let description = [{
    Names the function that runs the model and records what its artifact
    exports: the symbol prefix, the model name, the target, and each input
    and output as `{name, type}` with the ranked tensor type it had in the
    hodu dialect (so dtypes such as `ui8` survive lowering to signless
    integers). `hodu-record-entry-point` creates it at the start of the
    linalg phase; a target's lowering turns it into the artifact's entry
    points (on the CPU: `<prefix>_entry`, the `hodu_model_desc`
    `<prefix>_hodu_descriptor` and, in shared libraries and executables, its
    alias `hodu_model_descriptor`, by `hodu-lower-entry-point`).

    ```mlir
    hodu.entry_point @main {prefix = "mlp", model_name = "mlp",
        inputs = [{name = "x", type = tensor<1x784xf32>} ],
        outputs = [{name = "probs", type = tensor<1x10xf32>} ]}
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$function, StrAttr:$prefix,
                       StrAttr:$model_name, DictArrayAttr:$inputs,
                       DictArrayAttr:$outputs);
  let assemblyFormat = "$function attr-dict";
  let hasVerifier = 1;
}

#endif // HODU_ABI_OPS_TD
