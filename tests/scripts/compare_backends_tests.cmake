# scripts/compare-backends on small inputs over the host back ends (label `tools`): its CSV
# checked value by value, and a real disagreement (--exact on a default-mode run) must fail it.
# Needs the system Python (its matplotlib draws the plot), h5diff and every app.
find_program(PORTA_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(PORTA_TOOLS_H5DIFF NAMES h5diff h5diff.openmpi)
if(NOT PORTA_SYSTEM_PYTHON OR NOT PORTA_TOOLS_H5DIFF OR NOT TARGET porta-bench)
  message(STATUS "  tests/scripts: /usr/bin/python3, h5diff or porta-bench missing: "
                 "tools.compare_backends.* skipped")
  return()
endif()
foreach(case tealeaf minife minimd disagree)
  add_test(NAME tools.compare_backends.${case}
           COMMAND "${PORTA_SYSTEM_PYTHON}" "${PROJECT_SOURCE_DIR}/tests/scripts/test_compare_backends.py"
                   "${PROJECT_SOURCE_DIR}/scripts/compare-backends" "${PROJECT_BINARY_DIR}" ${case})
  set_tests_properties(tools.compare_backends.${case} PROPERTIES LABELS "tools;mpi" TIMEOUT 600
                       RUN_SERIAL TRUE ENVIRONMENT "${PORTA_APP_MPI_ENV}")
endforeach()
