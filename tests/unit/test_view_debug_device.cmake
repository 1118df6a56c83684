# Companion of test_view_debug_device.c (included by porta_add_unit_test, see tests/CMakeLists.txt).
# Device-side view checks exist only in debug builds (PORTA_ENABLE_DEBUG) with the CUDA back end:
# the test is registered there, on the cuda back end (label gpu), and nowhere else. The program
# exits with 77 (skipped) if it runs anywhere the checks cannot fire.
if(PORTA_ENABLE_CUDA AND PORTA_ENABLE_DEBUG)
  set(PORTA_TEST_BACKENDS cuda)
else()
  set(PORTA_TEST_BACKENDS "")
endif()
list(APPEND PORTA_TEST_PROPERTIES SKIP_RETURN_CODE 77)
# Each bad launch runs in a child process that sets up the GPU afresh.
set(PORTA_TEST_TIMEOUT 300)
