# One training ctest: compiles a train step (hoduc FLAGS -o ARTIFACT), then
# runs hodu-train-contracts and hodu-sample-train on it; fails on the first
# that fails, printing its output.
foreach(step "${HODUC};${FLAGS};-o;${ARTIFACT}" "${CONTRACTS};${ARTIFACT}"
             "${SAMPLE};${ARTIFACT}")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    list(GET step 0 program)
    message(FATAL_ERROR "${program} failed (${rc}):\n${err}")
  endif()
endforeach()
