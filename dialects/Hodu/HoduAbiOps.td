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

    **Meta slots** are inputs marked `meta` (and optionally `init`, their
    initial value; zeros without it), always the last inputs: small
    tensors at fixed device addresses that the host writes between runs
    and replays (a learning rate, a step count), which libhodurt keeps in
    each session instead of taking them from the caller. A model declares
    them with the argument attribute `hodu.meta_slot` on its entry function
    (a unit attribute, or the initial value), which `hoduc --meta-slots=NAMES`
    sets on the named inputs of any model format;
    `hodu-record-entry-point` moves those arguments after the others.

    ```mlir
    func.func @main(%x: tensor<4xf32> {hodu.name = "x"},
                    %lr: tensor<1xf32> {hodu.name = "lr",
                                        hodu.meta_slot = dense<0.01> : tensor<1xf32>})
    hodu.entry_point @main {prefix = "m", model_name = "m",
        inputs = [{name = "x", type = tensor<4xf32>},
                  {name = "lr", type = tensor<1xf32>, meta,
                   init = dense<0.01> : tensor<1xf32>} ],
        outputs = [...]}
    ```

    **State tensors** (a train step's weights, optimizer moments and step
    counter; docs/training.md) are inputs marked `state` (optionally with
    `init`, their initial value), just before the meta slots, and the same
    number of outputs marked `state`, the last ones, pairwise the new value
    of each. The entry stays a pure function; libhodurt keeps each state
    tensor in its sessions and makes the output the input of the next run.
    An entry function marks them with `hodu.state` on the argument (a unit
    attribute, or the initial value) and on the result of the same
    `hodu.name`; `hodu-train-step{stateful=true}` does, and
    `hodu-record-entry-point` puts both in this order.

    ```mlir
    hodu.entry_point @main {prefix = "step", model_name = "step",
        inputs = [{name = "x", type = tensor<4xf32>},
                  {name = "w", type = tensor<4xf32>, state,
                   init = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>},
                  {name = "lr", type = tensor<f32>, meta,
                   init = dense<0.01> : tensor<f32>} ],
        outputs = [{name = "loss", type = tensor<f32>},
                   {name = "w", type = tensor<4xf32>, state} ]}
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$function, StrAttr:$prefix,
                       StrAttr:$model_name, DictArrayAttr:$inputs,
                       DictArrayAttr:$outputs);
  let assemblyFormat = "$function attr-dict";
  let hasVerifier = 1;
}

#endif // HODU_ABI_OPS_TD
