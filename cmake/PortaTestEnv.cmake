# The environments Porta's tests run in, shared by tests/ (unit and app tests) and tutorial/
# (its solutions run as tests too). Included from the top-level CMakeLists.txt, so every
# directory below sees the same values.
#
#   PORTA_TEST_ALL_BACKENDS   the back ends of this build a test runs on: serial, openmp1,
#                             openmp2 (OpenMP builds), cuda and cuda-grid3 (CUDA builds), and
#                             any other back end of the list by its name (replica)
#   PORTA_TEST_ENV_<backend>  each one's environment (NAME=VALUE list)
#   PORTA_TEST_SANITIZER_ENV  sanitizer options in sanitized builds, else empty
#   PORTA_APP_MPI_ENV         MPI runs: Open MPI may run as root and oversubscribe (4 ranks on a
#                             2-core machine); every rank runs 1 thread unless a test says

set(PORTA_TEST_ALL_BACKENDS serial)
set(PORTA_TEST_ENV_serial "PORTA_BACKEND=serial")
if(PORTA_ENABLE_OPENMP)
  list(APPEND PORTA_TEST_ALL_BACKENDS openmp1 openmp2)
  # No pinning: with 2 threads on a small or shared machine binding only hurts.
  set(PORTA_TEST_ENV_openmp1 "PORTA_BACKEND=openmp;PORTA_NUM_THREADS=1;OMP_PROC_BIND=false")
  set(PORTA_TEST_ENV_openmp2 "PORTA_BACKEND=openmp;PORTA_NUM_THREADS=2;OMP_PROC_BIND=false")
endif()
if(PORTA_ENABLE_CUDA)
  list(APPEND PORTA_TEST_ALL_BACKENDS cuda)
  list(APPEND PORTA_TEST_ALL_BACKENDS cuda-grid3)
  set(PORTA_TEST_ENV_cuda "PORTA_BACKEND=cuda;CUDA_LAUNCH_BLOCKING=1")
  set(PORTA_TEST_ENV_cuda-grid3 "${PORTA_TEST_ENV_cuda};PORTA_CUDA_GRID_LIMIT=3")
endif()

# Any other back end of the list (cmake/PortaBackends.cmake): its unit tests run with only its
# name set, as a new back end's first tests should.
foreach(_b IN LISTS PORTA_BACKENDS_ENABLED)
  if(NOT _b MATCHES "^(serial|openmp|cuda)$")
    list(APPEND PORTA_TEST_ALL_BACKENDS ${_b})
    set(PORTA_TEST_ENV_${_b} "PORTA_BACKEND=${_b}")
  endif()
endforeach()

# Sanitized builds: stack traces for UBSan, any finding fails the test. Leaks are checked with
# full stacks (fast_unwind_on_malloc=0: the frame-pointer unwinder stops in MPI's libraries),
# and the one-time allocations of Open MPI and HDF5 are suppressed (tests/sanitizers/lsan.supp),
# so the app tests run under LeakSanitizer too and a leak of our own still fails.
set(PORTA_TEST_SANITIZER_ENV "")
if(PORTA_ENABLE_SANITIZERS)
  set(PORTA_TEST_SANITIZER_ENV
      "ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1:fast_unwind_on_malloc=0"
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp:print_suppressions=0"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

set(PORTA_APP_MPI_ENV
    "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    "OMPI_MCA_rmaps_base_oversubscribe=1" "PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe"
    "OMPI_MCA_btl_vader_single_copy_mechanism=none"
    "OMP_PROC_BIND=false" "OMP_NUM_THREADS=1" "PORTA_NUM_THREADS=1" ${PORTA_TEST_SANITIZER_ENV})
# Open MPI's start-up: on a build without CUDA the point-to-point layer is ob1 (shared memory
# and TCP, what one node uses), without probing for UCX and the OFI and PSM networks first: 0.2 s
# of the 0.39 s every run spends in MPI_Init here. A CUDA build keeps Open MPI's own choice (a
# GPU node's CUDA-aware MPI may come through UCX). Isolated singletons
# (OMPI_MCA_ess_singleton_isolated=1) would save 0.15 s more, but several started at once
# collide in MPI_Init ("ompi_rte_init failed"): the fuzzers run side by side.
if(NOT PORTA_ENABLE_CUDA)
  list(APPEND PORTA_APP_MPI_ENV "OMPI_MCA_pml=ob1")
else()
  # The device communicator by NCCL, not by the peer transport, unless a test asks for it: the
  # peer transport's kernels wait for each other on the GPUs, and where several jobs share
  # the GPUs (ctest -j12 on a 4-GPU node) each wait can last a time slice of the others'. On 4
  # H100s TeaLeaf's tea_bm_2 on 4 ranks took over 300 s so, against 10 s with NCCL. The tests
  # of the peer transport name it (PORTA_DEVICE_COMM=peer) and those of more than 2 GPUs run
  # alone (RUN_SERIAL).
  list(APPEND PORTA_APP_MPI_ENV "PORTA_DEVICE_COMM=nccl")
endif()
