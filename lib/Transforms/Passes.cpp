//===- Passes.cpp - Hodu pass registration ---------------------------------===//
#include "hodu/Transforms/Passes.h"
