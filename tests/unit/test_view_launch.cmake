# Companion of test_view_launch.c (included by porta_add_unit_test, see tests/CMakeLists.txt).
# The test_view_*.c host tests (create, layout, lifetime, copy, launch) check host-side
# expectations (host memory space, Right layout by default, raw pointers wrapped on the host),
# so they run on the host back ends. The CUDA variant of these checks belongs to the CUDA
# back-end issue; test_view_device.c covers what every back end shares.
set(PORTA_TEST_BACKENDS serial openmp1 openmp2)
