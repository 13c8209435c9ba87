#include "hodu/Registry/Registry.h"
#include "hodu/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"

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

namespace {
/// The least a target can be: a name, kinds, and refusals for the rest.
class FakeTarget final : public TargetBackend {
public:
  FakeTarget(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::vector<ArtifactKind> artifactKinds() const override {
    return {{"o", {"obj"}, ".o", "", false, "object"},
            {"txt", {}, ".txt", "", true, "text"}};
  }
  std::string defaultArtifactKind() const override { return "o"; }
  llvm::LogicalResult validate(const TargetOptions &,
                               mlir::Location) const override {
    return llvm::success();
  }
  std::vector<std::string> phases() const override { return {"fake"}; }
  llvm::LogicalResult buildPhase(llvm::StringRef, mlir::OpPassManager &,
                                 const PipelineRequest &) const override {
    return llvm::failure();
  }
  std::vector<hodu::OpSupport> opSupport() const override { return {}; }
  llvm::LogicalResult serialize(mlir::ModuleOp, const SerializeRequest &,
                                const TargetOptions &) const override {
    return llvm::failure();
  }

private:
  std::string name_, description_;
};
} // namespace

TEST(ComponentRegistry, DuplicateNamesAreRefused) {
  auto &registry = ComponentRegistry::get();
  EXPECT_TRUE(registry.addTarget(
      std::make_unique<FakeTarget>("unit-test-target", "for the test")));
  EXPECT_FALSE(registry.addTarget(
      std::make_unique<FakeTarget>("unit-test-target", "again")));
  EXPECT_FALSE(registry.addTarget(std::make_unique<FakeTarget>("", "nameless")));
  EXPECT_FALSE(registry.addTarget(nullptr));
  ASSERT_NE(registry.findTarget("unit-test-target"), nullptr);
  EXPECT_EQ(registry.findTarget("unit-test-target")->description(),
            "for the test");
}

TEST(TargetBackend, ArtifactKindsByNameAliasAndExtension) {
  FakeTarget target("kinds", "");
  ASSERT_TRUE(target.findArtifactKind("obj").has_value());
  EXPECT_EQ(target.findArtifactKind("obj")->name, "o");
  EXPECT_FALSE(target.findArtifactKind("so").has_value());
  ASSERT_TRUE(target.artifactKindForPath("dir/Model.TXT").has_value());
  EXPECT_EQ(target.artifactKindForPath("dir/Model.TXT")->name, "txt");
  EXPECT_FALSE(target.artifactKindForPath("model").has_value());
}
