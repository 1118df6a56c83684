# The suite's tools on small inputs over the host back ends (label `tools`, tests/scripts/
# test_tools.py): scripts/compare-backends (its CSV checked value by value for each app, and a
# real disagreement, --exact on a default-mode run, must fail it), scripts/scaling (a weak
# series' sizes and efficiencies), scripts/slurm/cpu.sbatch run outside Slurm, and the bad
# arguments the tools refuse at once (bad_args: --out naming a file or /proc, --weak --strong, a
# relative BUILD_DIR of the GPU benches).
# Needs the system Python, h5diff, porta-bench and every app; where that Python has no
# matplotlib the tools must say so and draw no plot (checked instead of the plots).
find_program(PORTA_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(PORTA_TOOLS_H5DIFF NAMES h5diff h5diff.openmpi)
# The performance model (scripts/lib/porta_model.py) and `scripts/scaling --model-only`: hand-
# computed times, NCCL's latency model across nodes, the apps' decompositions, the printed table
# (tests/scripts/test_model.py). Only Python: no app runs, about a second.
if(PORTA_SYSTEM_PYTHON)
  add_test(NAME tools.model
           COMMAND "${PORTA_SYSTEM_PYTHON}" "${PROJECT_SOURCE_DIR}/tests/scripts/test_model.py"
                   "${PROJECT_SOURCE_DIR}/scripts")
  set_tests_properties(tools.model PROPERTIES LABELS "tools" TIMEOUT 60)
  # What scripts/scaling reads from the user (--params, --size, --replot's CSV): refused with a
  # message and exit 2, never a traceback, a hang (a FIFO) or a file read whole (/dev/zero)
  # (tests/scripts/test_scaling_input.py). Only Python: no app runs, a few seconds.
  add_test(NAME tools.scaling_input
           COMMAND "${PORTA_SYSTEM_PYTHON}" "${PROJECT_SOURCE_DIR}/tests/scripts/test_scaling_input.py"
                   "${PROJECT_SOURCE_DIR}/scripts")
  set_tests_properties(tools.scaling_input PROPERTIES LABELS "tools" TIMEOUT 120)
endif()
if(NOT PORTA_SYSTEM_PYTHON OR NOT PORTA_TOOLS_H5DIFF OR NOT TARGET porta-bench)
  message(STATUS "  tests/scripts: /usr/bin/python3, h5diff or porta-bench missing: "
                 "the tools.* tests are skipped")
  return()
endif()
foreach(case tealeaf minife minimd disagree scaling slurm bad_args)
  set(_name tools.compare_backends.${case})
  if(case STREQUAL "scaling" OR case STREQUAL "slurm" OR case STREQUAL "bad_args")
    set(_name tools.${case})
  endif()
  add_test(NAME ${_name}
           COMMAND "${PORTA_SYSTEM_PYTHON}" "${PROJECT_SOURCE_DIR}/tests/scripts/test_tools.py"
                   "${PROJECT_SOURCE_DIR}/scripts" "${PROJECT_BINARY_DIR}" ${case})
  set_tests_properties(${_name} PROPERTIES LABELS "tools;mpi" TIMEOUT 600 RUN_SERIAL TRUE
                       ENVIRONMENT "${PORTA_APP_MPI_ENV}")
endforeach()

# scripts/bench-compare on the host: the tree against two commits made from it (-O0; other
# bits), each built once outside the tree (tests/scripts/test_bench_compare.py). Alone: it times.
add_test(NAME tools.bench_compare
         COMMAND "${PORTA_SYSTEM_PYTHON}" "${PROJECT_SOURCE_DIR}/tests/scripts/test_bench_compare.py"
                 "${PROJECT_SOURCE_DIR}/scripts" "${PROJECT_BINARY_DIR}")
set_tests_properties(tools.bench_compare PROPERTIES LABELS "tools;mpi" TIMEOUT 900 RUN_SERIAL TRUE
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${PORTA_APP_MPI_ENV}")

# scripts/show: a picture of a small result of each app (size, not blank), and the files it
# must refuse (missing, not HDF5, not a Porta result, an unknown app). Skipped, saying so, where
# h5py or matplotlib is missing.
add_test(NAME tools.show
         COMMAND "${PORTA_SYSTEM_PYTHON}" "${PROJECT_SOURCE_DIR}/tests/scripts/test_show.py"
                 "${PROJECT_SOURCE_DIR}/scripts" "${PROJECT_BINARY_DIR}")
set_tests_properties(tools.show PROPERTIES LABELS "tools" TIMEOUT 300 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${PORTA_APP_MPI_ENV}")
