//===- ConvPanels.h - the panels of direct dot-product convs ----*- C++ -*-===//
//
// Internal to hodu-cpu-vectorize: what the int8 (Int8DotConv.cpp) and bf16
// (Bf16DotConv.cpp) convolution kernels share: where each panel of output
// columns is, where each filter tap of it reads the padded input, the
// padding that keeps the last panel's reads inside, and the output plane
// cut from the panels' sums. Defined in ConvPanels.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_LIB_TARGET_CPU_TRANSFORMS_CONVPANELS_H
#define HODU_LIB_TARGET_CPU_TRANSFORMS_CONVPANELS_H

#include "mlir/IR/Builders.h"

#include <optional>
#include <utility>

namespace hodu::cpu {

/// A convolution input that is a zero padding of the spatial dims (an
/// f32 or f64 0, static and non-negative): its source and the padding.
struct SpatialZeroPad {
  mlir::Value source;
  llvm::SmallVector<int64_t> low, high; // [N, C, H, W]; N and C are 0
};

/// `input` as a spatial zero padding of its source: itself, unpadded, when
/// it is no tensor.pad; none when it is a pad of another kind.
std::optional<SpatialZeroPad> spatialZeroPad(mlir::Value input);

/// The panels of a batch-1 NCHW convolution whose kernels compute `pw`
/// output columns at a time: along each output row, or (`flat`, stride 1)
/// along the flattened padded input plane, output column p being (p /
/// Wpad, p % Wpad), the Wpad - OW last of each row computed and dropped.
struct ConvPanels {
  int64_t pw;
  bool flat;
  int64_t oh, ow, kh, kw, sh, sw, dh, dw;
  int64_t hpad, wpad; // the padded input's rows and columns
  // Output rows and columns the sums are computed for ([F, outRows,
  // outCols]), and panels per output row.
  int64_t outRows, outCols, q;
  // Input padding past hpad (flat) or wpad so that the last panel reads
  // inside.
  int64_t extraH = 0, extraW = 0;

  ConvPanels(int64_t pw, bool flat, int64_t oh, int64_t ow, int64_t kh,
             int64_t kw, llvm::ArrayRef<int64_t> strides,
             llvm::ArrayRef<int64_t> dilations, int64_t hpad, int64_t wpad);

  /// Columns computed per output plane in the flattened form.
  static int64_t flatColumns(int64_t oh, int64_t wpad, int64_t pw);

  /// `x` [1, C, H, W] padded with `value`: spatially by `pad`, channels up
  /// to `channels`, and by extraH/extraW; flattened to [1, channels, 1,
  /// rows * Wpad] when `flat`.
  mlir::Value padInput(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       const SpatialZeroPad &pad, int64_t channels,
                       mlir::Value value) const;

  /// Panel `t`'s output row and first column (t in [0, outRows * q)).
  std::pair<mlir::Value, mlir::Value>
  origin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t) const;

  /// Where filter tap `tap` (row-major over kh x kw) of the panel at (`row`,
  /// `col0`) reads the padded input: its row and its first column.
  std::pair<mlir::Value, mlir::Value>
  tapOrigin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row,
            mlir::Value col0, mlir::Value tap) const;

  /// The panel at (`row`, `col0`) of the padded input `xp` (padInput's),
  /// as a `panelType` tensor [rows >= taps * groups, W]: row tap * groups +
  /// g holds combine(builder, channels), `channels` being the `per` rows of
  /// pw columns (every sw-th input column) that channels g * per .. g * per
  /// + per - 1 read at tap `tap` (row-major over kh x kw). Rows past taps *
  /// groups are left as they are (the kernels give them zero weights).
  mlir::Value
  buildPanel(mlir::OpBuilder &b, mlir::Location loc, mlir::Value xp,
             mlir::Value row, mlir::Value col0, int64_t per, int64_t groups,
             mlir::RankedTensorType panelType,
             llvm::function_ref<mlir::Value(mlir::OpBuilder &,
                                            llvm::ArrayRef<mlir::Value>)>
                 combine) const;

  /// Rows [first, first + count) of the sums [R, outRows, outCols] as the
  /// output plane [count, OH, OW].
  mlir::Value plane(mlir::OpBuilder &b, mlir::Location loc, mlir::Value sums,
                    int64_t first, int64_t count) const;
};

} // namespace hodu::cpu

#endif // HODU_LIB_TARGET_CPU_TRANSFORMS_CONVPANELS_H
