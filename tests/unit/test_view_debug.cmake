# Companion of test_view_debug.c (included by porta_add_unit_test, see tests/CMakeLists.txt).
# Release builds have no view checks: the program exits with 77, reported as skipped.
list(APPEND PORTA_TEST_PROPERTIES SKIP_RETURN_CODE 77)
# The checks abort a forked host process and the test reads its stderr. On the GPU a failed
# check traps the kernel and the launch returns PORTA_ERROR_BOUNDS; test_view_debug_device
# covers that (debug CUDA builds). This test runs on the host back ends only.
set(PORTA_TEST_BACKENDS serial openmp1 openmp2)
