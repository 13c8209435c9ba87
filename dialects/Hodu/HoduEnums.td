//===- HoduEnums.td - hodu enum attributes ---------------------*- tablegen -*-===//

#ifndef HODU_ENUMS_TD
#define HODU_ENUMS_TD

include "Hodu/HoduBase.td"

def Hodu_PadModeEnum : I32EnumAttr<"PadMode", "padding mode", [
    I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>,
    I32EnumAttrCase<"replicate", 2>, I32EnumAttrCase<"circular", 3>]> {
  let cppNamespace = "::hodu";
  let genSpecializedAttr = 0;
}
def Hodu_PadModeAttr : EnumAttr<Hodu_Dialect, Hodu_PadModeEnum, "pad_mode">;

def Hodu_WindowKindEnum : I32EnumAttr<"WindowKind", "reduce-window reduction", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"sum", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::hodu";
  let genSpecializedAttr = 0;
}
def Hodu_WindowKindAttr : EnumAttr<Hodu_Dialect, Hodu_WindowKindEnum, "window_kind">;

def Hodu_ResizeModeEnum : I32EnumAttr<"ResizeMode", "resize interpolation", [
    I32EnumAttrCase<"nearest", 0>, I32EnumAttrCase<"linear", 1>,
    I32EnumAttrCase<"cubic", 2>]> {
  let cppNamespace = "::hodu";
  let genSpecializedAttr = 0;
}
def Hodu_ResizeModeAttr : EnumAttr<Hodu_Dialect, Hodu_ResizeModeEnum, "resize_mode">;

def Hodu_CoordTransformEnum : I32EnumAttr<"CoordTransform",
    "resize coordinate transformation", [
    I32EnumAttrCase<"half_pixel", 0>, I32EnumAttrCase<"asymmetric", 1>,
    I32EnumAttrCase<"align_corners", 2>, I32EnumAttrCase<"pytorch_half_pixel", 3>,
    I32EnumAttrCase<"tf_crop_and_resize", 4>, I32EnumAttrCase<"half_pixel_symmetric", 5>,
    I32EnumAttrCase<"tf_half_pixel_for_nn", 6>]> {
  let cppNamespace = "::hodu";
  let genSpecializedAttr = 0;
}
def Hodu_CoordTransformAttr
    : EnumAttr<Hodu_Dialect, Hodu_CoordTransformEnum, "coord_transform">;

def Hodu_NearestModeEnum : I32EnumAttr<"NearestMode", "resize nearest rounding", [
    I32EnumAttrCase<"floor", 0>, I32EnumAttrCase<"ceil", 1>,
    I32EnumAttrCase<"round_prefer_floor", 2>, I32EnumAttrCase<"round_prefer_ceil", 3>]> {
  let cppNamespace = "::hodu";
  let genSpecializedAttr = 0;
}
def Hodu_NearestModeAttr : EnumAttr<Hodu_Dialect, Hodu_NearestModeEnum, "nearest_mode">;

#endif // HODU_ENUMS_TD
