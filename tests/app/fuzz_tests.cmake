# Input fuzzing (tests/app/fuzz_inputs.sh): mutated TeaLeaf and miniMD decks and miniFE command lines from
# fixed seeds; every case must end in a clean result or a clean refusal (CTest label `fuzz`).
# CI runs them in the release build and again in the ASan/UBSan build (scripts/test), with
# different seeds, so that the two stages try different cases.
set(PORTA_FUZZ_CASES 300 CACHE STRING "cases per fuzz test")
set(PORTA_FUZZ_SEED 1 CACHE STRING "seed of the fuzz tests' cases (another seed: other cases)")
set(_fuzz "${PORTA_APP_TEST_DIR}/fuzz_inputs.sh")
set(_cases ${PORTA_FUZZ_SEED} ${PORTA_FUZZ_CASES}) # the seed, then how many cases
set(_fuzz_env ${PORTA_APP_MPI_ENV} "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
porta_app_require_targets(tealeaf minife minimd)
set(_d "${PROJECT_SOURCE_DIR}/inputs/tealeaf")
add_test(NAME fuzz.tealeaf
         COMMAND sh "${_fuzz}" tealeaf $<TARGET_FILE:tealeaf> ${_cases}
                 "${_d}/tea_bm_1.in" "${_d}/tea.in" "${_d}/tea_bm_2.in" "${_d}/tea_bm_6.in"
         WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
set_tests_properties(fuzz.tealeaf PROPERTIES LABELS "app;fuzz" TIMEOUT 1500
                     ENVIRONMENT "${_fuzz_env}")
add_test(NAME fuzz.minife
         COMMAND sh "${_fuzz}" minife $<TARGET_FILE:minife> ${_cases}
                 "nx=6 ny=5 nz=4" "nx=3 load_imbalance=10 mv_overlap_comm_comp=1"
                 "-nx 4 -ny 3 --nz=5 verify_solution=1" "nx=5 source_free=1 --reproducible"
         WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
set_tests_properties(fuzz.minife PROPERTIES LABELS "app;fuzz" TIMEOUT 1500
                     ENVIRONMENT "${_fuzz_env}")
set(_d "${PROJECT_SOURCE_DIR}/inputs/minimd")
add_test(NAME fuzz.minimd
         COMMAND sh "${_fuzz}" minimd $<TARGET_FILE:minimd> ${_cases}
                 "${_d}/in.lj.miniMD" "${_d}/in.eam.miniMD" "${_d}/in.lj.t10.miniMD"
         WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
set_tests_properties(fuzz.minimd PROPERTIES LABELS "app;fuzz" TIMEOUT 1500
                     ENVIRONMENT "${_fuzz_env}")
# the LAMMPS data file and the EAM potential mutated; a sweep of bin counts, sizes and boxes
add_test(NAME fuzz.minimd_data
         COMMAND sh "${_fuzz}" minimd-data $<TARGET_FILE:minimd> ${_cases}
                 "${_d}/in.lj-data.miniMD" "${_d}/lj4.data"
         WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
add_test(NAME fuzz.minimd_eam
         COMMAND sh "${_fuzz}" minimd-eam $<TARGET_FILE:minimd> ${_cases}
                 "${_d}/in.eam.miniMD"
         WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
add_test(NAME fuzz.minimd_bins
         COMMAND sh "${_fuzz}" minimd-bins $<TARGET_FILE:minimd> 1 31 "${_d}/in.lj.miniMD"
                 "${_d}/lj4.data"
         WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
set_tests_properties(fuzz.minimd_data fuzz.minimd_eam fuzz.minimd_bins PROPERTIES
                     LABELS "app;fuzz" TIMEOUT 1500 ENVIRONMENT "${_fuzz_env}")
