# test_view checks host-side expectations (host memory space, Right layout by default, raw
# pointers wrapped on the host), so it runs on the host back ends. The CUDA variant of these
# checks belongs to the CUDA back-end issue.
set(PORTA_TEST_BACKENDS serial openmp1 openmp2)
