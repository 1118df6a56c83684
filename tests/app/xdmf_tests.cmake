# Each app's result as ParaView shows it (label xdmf): the app runs small on 1 and 2 ranks and
# xdmf_read.py opens NAME.xmf with ParaView's three XDMF readers (pvpython, no display needed)
# and checks data set type, dims, bounds, points and cells, times, every array against the HDF5
# dataset, and probes at known places. Skipped, saying so, where pvpython is missing.
find_program(PORTA_PVPYTHON NAMES pvpython DOC "ParaView's Python (Debian: python3-paraview)")
if(NOT PORTA_PVPYTHON)
  message(STATUS "  tests/app: pvpython not found, the xdmf.* tests will report themselves "
                 "skipped (scripts/install-deps installs paraview and python3-paraview)")
endif()
set(_xdmf "${PORTA_APP_TEST_DIR}/xdmf_read.sh" "${PORTA_PVPYTHON}" "${MPIEXEC_EXECUTABLE}")

# xdmf_test(NAME NP APP -- APP_ARGS... -- CHECK_ARGS...)
function(xdmf_test name np app)
  add_test(NAME xdmf.${name}.np${np} COMMAND ${_xdmf} ${np} $<TARGET_FILE:${app}> ${app} ${ARGN}
           WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
  set_tests_properties(xdmf.${name}.np${np} PROPERTIES LABELS "app;mpi;xdmf" TIMEOUT 180
                       PROCESSORS ${np} SKIP_RETURN_CODE 77 ENVIRONMENT "${PORTA_APP_MPI_ENV}")
endfunction()

foreach(np 1 2)
  # TeaLeaf: decks/visit.in (13 x 8 cells on [0,10]^2: dx = 10/13 is not exact, the bounds must
  # be), snapshots at steps 0, 3, 6, 7 of dt 0.004; density 100 outside the states, 0.1 in state 4
  xdmf_test(tealeaf.series ${np} tealeaf -- "${PORTA_APP_TEST_DIR}/decks/visit.in" --
            --cells 13x8 --box 0,10,0,10 --steps 0,3,6,7 --dt 0.004
            --probe 2.7,5.6,0,density=100 --probe 5.7,4.4,0,density=0.1 --probe 9.9,9.9,0)
  # miniFE: 5 x 4 x 6 elements (spacing 0.2 and 1/6 are not floats: read as such, the bounds
  # would not be 1); u = 1 on the face x = 1, 0 on x = 0; a point inside against the file's nodes
  xdmf_test(minife ${np} minife -- -nx 5 -ny 4 -nz 6 -- --cells 5x4x6 --box 0,1,0,1,0,1
            --probe 1,0.5,0.5,u=1 --probe 0,0.5,0.5,u=0 --probe 0.5,0.375,0.625)
  # miniMD: --dump-every 10 of 20 steps (the last one is /final), times step x dt 0.005
  xdmf_test(minimd ${np} minimd -- -i "${PROJECT_SOURCE_DIR}/inputs/minimd/in.lj.miniMD" -s 4
            -n 20 --dump-every 10 -- --atoms 256 --steps 0,10,20 --dt 0.005)
endforeach()
# miniMD -n 0 --dump-every 1: step 0 once, as /final (a snapshot of it as well had put two grids
# at time 0 in the series, and the readers showed no points)
xdmf_test(minimd.n0 1 minimd -- -i "${PROJECT_SOURCE_DIR}/inputs/minimd/in.lj.miniMD" -s 4 -n 0
          --dump-every 1 -- --atoms 256 --steps 0 --dt 0.005)
# TeaLeaf without snapshots: the single grid of /fields (tea_bm_1: 10 x 10, state 2 at x < 1)
xdmf_test(tealeaf.final 2 tealeaf -- "${PROJECT_SOURCE_DIR}/inputs/tealeaf/tea_bm_1.in" --
          --cells 10x10 --box 0,10,0,10 --probe 0.5,1.5,0,density=0.1 --probe 2.5,5.5,0,density=100)
