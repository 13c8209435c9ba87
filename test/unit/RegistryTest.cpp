#include "hodu/Registry/Registry.h"

#include <gtest/gtest.h>

using namespace hodu;

TEST(ComponentRegistry, BuiltinMlirImporterIsFoundByExtension) {
  registerBuiltinComponents();
  auto &registry = ComponentRegistry::get();
  const Importer *byPath = registry.findImporterForPath("/tmp/Model.MLIR");
  ASSERT_NE(byPath, nullptr);
  EXPECT_EQ(byPath->name, "mlir");
  EXPECT_EQ(registry.findImporterForPath("model.unknownext"), nullptr);
  // A path that merely ends in the extension's letters without the dot.
  EXPECT_EQ(registry.findImporterForPath("notmlir"), nullptr);
}

TEST(ComponentRegistry, DuplicateNamesAreRefused) {
  auto &registry = ComponentRegistry::get();
  Target t{"unit-test-target", "for the test", {"o"}};
  EXPECT_TRUE(registry.addTarget(t));
  EXPECT_FALSE(registry.addTarget(t));
  EXPECT_FALSE(registry.addTarget(Target{"", "nameless", {}}));
  ASSERT_NE(registry.findTarget("unit-test-target"), nullptr);
  EXPECT_EQ(registry.findTarget("unit-test-target")->description, "for the test");
}
