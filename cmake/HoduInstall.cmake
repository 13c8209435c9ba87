# Install rules and the CMake package of Hodu.
#
# Included once from the top-level CMakeLists.txt, after every target exists.
# Produces, under the install prefix:
#   bin/{hoduc,hodu-opt,hodu-run}
#   lib/libhodurt.so, lib/libhodurt.a, lib/hodu/hodu_exe_main.o
#   include/hodu/{abi.h,bundle.h,plugin.h,runtime.h,runtime_plugins.h}
#   lib/cmake/Hodu/{HoduConfig,HoduConfigVersion,HoduTargets,AddHoduModel}.cmake
#   lib/cmake/Hodu/hodu_benchmark.c.in
# and, in the build tree, a HoduConfig.cmake of its own so that
# `find_package(Hodu CONFIG)` works with Hodu_DIR=<build dir> before
# installing. Imported targets: Hodu::hodurt, Hodu::hodurt_static,
# Hodu::hoduc, Hodu::hodu-run, Hodu::hodu-opt. See docs/cmake.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(HODU_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Hodu)

# Installed tools find libhodurt next to them and libMLIR/libLLVM where the
# compiler was built against; never in the build tree (CMake drops the build
# RPATH on install and uses INSTALL_RPATH instead).
set_target_properties(hoduc hodu-opt PROPERTIES
  INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")

# The runtime and hodu-run already have plain install rules of their own
# (runtime/CMakeLists.txt, tools/hodu-run); these add them to the export set.
# Installing a file twice to the same place is harmless.
install(TARGETS hodurt hodurt_static hoduc hodu-opt hodu-run
  EXPORT HoduTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT HoduTargets
  NAMESPACE Hodu::
  DESTINATION ${HODU_INSTALL_CMAKEDIR})

# In-tree users of add_hodu_model see the same names as downstream ones.
if(NOT TARGET Hodu::hoduc)
  add_executable(Hodu::hoduc ALIAS hoduc)
  add_executable(Hodu::hodu-run ALIAS hodu-run)
endif()

write_basic_package_version_file(
  ${HODU_BINARY_DIR}/HoduConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

# Installed package.
set(HODU_CONFIG_TARGETS_FILE "\${CMAKE_CURRENT_LIST_DIR}/HoduTargets.cmake")
set(HODU_CONFIG_MODULE_DIR "\${CMAKE_CURRENT_LIST_DIR}")
# libomp: compiled models that use several threads link it.
find_library(HODU_OPENMP_LIBRARY NAMES omp libomp.so.5 HINTS ${LLVM_LIBRARY_DIR})
if(NOT HODU_OPENMP_LIBRARY)
  message(WARNING "libomp (LLVM's OpenMP runtime) not found: multi-threaded "
                  "models will not link (apt-get install libomp-22-dev)")
endif()
configure_file(${HODU_SOURCE_DIR}/cmake/HoduConfig.cmake.in
  ${HODU_BINARY_DIR}/cmake/install/HoduConfig.cmake @ONLY)
install(FILES
  ${HODU_BINARY_DIR}/cmake/install/HoduConfig.cmake
  ${HODU_BINARY_DIR}/HoduConfigVersion.cmake
  ${HODU_SOURCE_DIR}/cmake/AddHoduModel.cmake
  ${HODU_SOURCE_DIR}/cmake/hodu_benchmark.c.in
  DESTINATION ${HODU_INSTALL_CMAKEDIR})

# Build-tree package: Hodu_DIR=<build dir>. The module files are read from
# the source tree, so edits to them take effect without re-configuring Hodu.
export(EXPORT HoduTargets NAMESPACE Hodu::
  FILE ${HODU_BINARY_DIR}/HoduTargets.cmake)
set(HODU_CONFIG_TARGETS_FILE "${HODU_BINARY_DIR}/HoduTargets.cmake")
set(HODU_CONFIG_MODULE_DIR "${HODU_SOURCE_DIR}/cmake")
configure_file(${HODU_SOURCE_DIR}/cmake/HoduConfig.cmake.in
  ${HODU_BINARY_DIR}/HoduConfig.cmake @ONLY)
