# cmake -DMODE=install|buildtree -DHODU_BUILD=... -DSOURCE=... -DWORK=...
#       [-DGENERATOR=...] [-DC_COMPILER=...] -P plugin.cmake
#
# Builds the sample engine plugin (SOURCE, python-free-samples/engine-plugin)
# out of tree and runs models with it through hodu-run.
# install:   cmake --install HODU_BUILD --prefix WORK/prefix, builds SOURCE
#            with CMAKE_PREFIX_PATH=WORK/prefix, installs the plugin into
#            WORK/plugins-prefix and runs WORK/prefix/bin/hodu-run with
#            HODU_PLUGIN_PATH=WORK/plugins-prefix/lib/hodu/plugins.
# buildtree: builds SOURCE with Hodu_DIR=HODU_BUILD and runs
#            HODU_BUILD/bin/hodu-run --plugin WORK/build/plugins.
# Each run sees no plugin of the user's (HOME=WORK/home, no XDG_DATA_HOME).
# Checks: the plugin exports hodu_plugin_query only and links nothing of
# Hodu; it is listed, accepted, runs the example at two batch sizes with the
# values computed by hand, reads its option, and a malformed model fails
# with exit status 2 and the engine's message naming the line. WORK is
# removed on success.
cmake_minimum_required(VERSION 3.20)
foreach(var MODE HODU_BUILD SOURCE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "plugin.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "command failed (${rc}): ${cmd}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/home")
set(config_args -S "${SOURCE}" -B "${WORK}/build"
    # The plugin directory is then WORK/plugins-prefix/lib/hodu/plugins on
    # every system (lib64 and multiarch libdirs included).
    -DCMAKE_INSTALL_LIBDIR=lib)
if(GENERATOR)
  list(APPEND config_args -G "${GENERATOR}")
endif()
if(C_COMPILER)
  list(APPEND config_args "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()

# Nothing of the user's environment may add, remove or change a plugin:
# every run is `cmake -E env ${env} [more settings] ${hodu_run}`.
set(env --unset=HODU_NO_PLUGINS --unset=XDG_DATA_HOME --unset=HODU_LOG_LEVEL
    --unset=HODU_PLUGIN_LINEAR_CLAMP "HOME=${WORK}/home")

if(MODE STREQUAL "install")
  set(prefix "${WORK}/prefix")
  run(${CMAKE_COMMAND} --install "${HODU_BUILD}" --prefix "${prefix}")
  foreach(f include/hodu/plugin.h include/hodu/runtime.h include/hodu/abi.h
            include/hodu/runtime_plugins.h
            bin/hodu-run lib/cmake/Hodu/HoduConfig.cmake)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
  list(APPEND config_args "-DCMAKE_PREFIX_PATH=${prefix}")
  set(plugin_dir "${WORK}/plugins-prefix/lib/hodu/plugins")
  list(APPEND env "HODU_PLUGIN_PATH=${plugin_dir}")
  set(hodu_run "${prefix}/bin/hodu-run")
  set(source_name "HODU_PLUGIN_PATH")
elseif(MODE STREQUAL "buildtree")
  list(APPEND config_args "-DHodu_DIR=${HODU_BUILD}")
  set(plugin_dir "${WORK}/build/plugins")
  list(APPEND env --unset=HODU_PLUGIN_PATH)
  set(hodu_run "${HODU_BUILD}/bin/hodu-run" --plugin "${plugin_dir}")
  set(source_name "--plugin")
else()
  message(FATAL_ERROR "plugin.cmake: MODE must be install or buildtree")
endif()

run(${CMAKE_COMMAND} ${config_args})
run(${CMAKE_COMMAND} --build "${WORK}/build")
if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} --install "${WORK}/build"
      --prefix "${WORK}/plugins-prefix")
endif()
set(library "${plugin_dir}/linear/hodu-engine-linear.so")
foreach(f "${library}" "${plugin_dir}/linear/manifest.json")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "the plugin's build or install made no ${f}")
  endif()
endforeach()

# One exported symbol; no libhodurt (the host's is the one in the process).
find_program(NM NAMES llvm-nm-22 llvm-nm nm)
if(NM)
  run(${NM} -D --defined-only "${library}")
  string(REGEX REPLACE "[^\n]* [A-Za-z] ([^\n]+)" "\\1" symbols
         "${last_output}")
  string(STRIP "${symbols}" symbols)
  if(NOT symbols STREQUAL "hodu_plugin_query")
    message(FATAL_ERROR "the plugin exports more than hodu_plugin_query:\n"
                        "${last_output}")
  endif()
endif()
find_program(READELF NAMES readelf llvm-readelf-22 llvm-readelf)
if(READELF)
  run(${READELF} -d "${library}")
  if(last_output MATCHES "libhodurt")
    message(FATAL_ERROR "the plugin links libhodurt:\n${last_output}")
  endif()
endif()

# Listing reads the manifest only; --plugin-info loads and checks it.
run(${CMAKE_COMMAND} -E env ${env} ${hodu_run} --list-plugins)
if(NOT last_output MATCHES
   "\nlinear +1\\.0\\.0 +engine +available +${source_name} +[^\n]*/linear\n")
  message(FATAL_ERROR "--list-plugins does not list 'linear' as available "
                      "(${source_name}):\n${last_output}")
endif()
run(${CMAKE_COMMAND} -E env ${env} ${hodu_run} --plugin-info linear)
if(NOT last_output MATCHES "\nstate: +loaded and accepted\n")
  message(FATAL_ERROR "--plugin-info linear:\n${last_output}")
endif()
run(${CMAKE_COMMAND} -E env ${env} ${hodu_run} --plugin-check linear)
if(NOT last_output MATCHES "plugin 'linear': loaded and accepted")
  message(FATAL_ERROR "--plugin-check linear:\n${last_output}")
endif()

# `hodu-run MODEL -i x=X`, with the environment settings in ARGN, prints
# exactly `expected` (%.6g numbers).
function(expect_run model x expected)
  run(${CMAKE_COMMAND} -E env ${env} ${ARGN} ${hodu_run} "${model}"
      -i "x=${x}")
  if(NOT last_output STREQUAL "${expected}\n")
    message(FATAL_ERROR "${model} on ${x} ${ARGN}: expected\n${expected}\n"
                        "got\n${last_output}")
  endif()
endfunction()

# example.linear, by hand: W = [[0.5, -1, 0.25, 2], [-0.5, 0.75, 1, -1],
# [1, 1, -1, 0.25]], b = [0.5, 2, -0.5]; every product is exact in f32.
#   x0 = [1, 2, 3, 4]:     0.5-2+0.75+8+0.5 = 7.75, -0.5+1.5+3-4+2 = 2,
#                          1+2-3+1-0.5 = 0.5
#   x1 = [-1, 0.5, -2, 1]: -0.5-0.5-0.5+2+0.5 = 1,
#                          0.5+0.375-2-1+2 = -0.125 (relu: 0),
#                          -1+0.5+2+0.25-0.5 = 1.25
set(example "${SOURCE}/example.linear")
expect_run("${example}" "${SOURCE}/x.json"
           "y: f32[2,3] = [7.75, 2, 0.5, 1, 0, 1.25]")
# Another batch size with the same model: x = [2, 0, 0, -1]:
#   1-2+0.5 = -0.5 (relu: 0), -1+1+2 = 2, 2-0.25-0.5 = 1.25
file(WRITE "${WORK}/x1.json"
     "{\"shape\":[1,4],\"dtype\":\"f32\",\"data\":[2,0,0,-1]}\n")
expect_run("${example}" "${WORK}/x1.json" "y: f32[1,3] = [0, 2, 1.25]")
# activation none keeps the -0.125.
file(READ "${example}" text)
string(REPLACE "activation relu" "activation none" text "${text}")
file(WRITE "${WORK}/none.linear" "${text}")
expect_run("${WORK}/none.linear" "${SOURCE}/x.json"
           "y: f32[2,3] = [7.75, 2, 0.5, 1, -0.125, 1.25]")
# The option "clamp" from the environment: [-1, 1].
expect_run("${example}" "${SOURCE}/x.json"
           "y: f32[2,3] = [1, 1, 0.5, 1, 0, 1]" HODU_PLUGIN_LINEAR_CLAMP=1)

# A malformed model `name` (its text `content`) fails with exit status 2 and
# the engine's message `message` about line `line`.
function(expect_malformed name content line message)
  file(WRITE "${WORK}/${name}" "${content}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${hodu_run}
                          "${WORK}/${name}" -i "x=${SOURCE}/x.json"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(CONCAT want "hodu-run: error: linear engine: ${WORK}/${name}:"
         "${line}: ${message}\n")
  if(NOT rc EQUAL 2 OR NOT out STREQUAL want)
    message(FATAL_ERROR "${name}: expected exit status 2 and\n${want}"
                        "got ${rc} and\n${out}")
  endif()
endfunction()

set(head "linear 1\ninputs 4\noutputs 3\nactivation relu\n")
expect_malformed(count.linear
  "${head}weights 1 2 3 4 5 6 7 8 9 10 11\nbias 1 2 3\n" 5
  "'weights' has 11 values; outputs 3 x inputs 4 needs 12")
expect_malformed(number.linear
  "${head}weights 1 2 3 4\n 5 6 7 8\n 9 10 11 1.5x\nbias 1 2 3\n" 7
  "'1.5x' is not a finite number (in 'weights')")
expect_malformed(key.linear
  "${head}weights 1 2 3 4 5 6 7 8 9 10 11 12\nbias 1 2 3\nscale 2\n" 7
  "unknown key 'scale' (the keys are inputs, outputs, activation, weights \
and bias)")
expect_malformed(trailing.linear
  "linear 1\ninputs 4\noutputs 3 # ok\nactivation relu x\n" 4
  "unexpected 'x' after 'activation relu'")
expect_malformed(version.linear "linear 2\n" 1
  "format version '2' is not supported (this engine reads version 1)")

file(REMOVE_RECURSE "${WORK}")
