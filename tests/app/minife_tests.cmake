# miniFE tests: included from tests/app/CMakeLists.txt at the end of the top-level
# configuration, once the `minife` target exists.
set(_mfref "${PROJECT_SOURCE_DIR}/inputs/minife/reference")
set(_mpi "${MPIEXEC_EXECUTABLE}")


#   minife_ref_test(NAME NP REF_YAML|- [--rows N --nnz Z --iters K] -- MINIFE_ARGS...)
function(minife_ref_test name np ref)
  porta_app_test(${name} ${np} COMMAND "${PORTA_APP_TEST_DIR}/minife_compare.sh" "${_mpi}" ${np}
              $<TARGET_FILE:minife> "${ref}" ${ARGN})
endfunction()

# The reference's own runs (inputs/minife/reference): Global Nrows and NNZ exact, iterations
# +-2 where CG converges, Final Resid Norm +-30 % where it stops at 200 iterations.
foreach(np 1 2 4)
  set(r "${_mfref}/miniFE.30x30x30.P2.yaml")
  if(np EQUAL 1)
    set(r "${_mfref}/miniFE.30x30x30.P1.yaml")
  endif()
  minife_ref_test(minife.ref.n30.np${np} ${np} "${r}" -- nx=30)
  minife_ref_test(minife.ref.20x30x40.np${np} ${np} "${_mfref}/miniFE.20x30x40.P2.yaml"
                  -- -nx 20 -ny 30 -nz 40)
endforeach()
minife_ref_test(minife.ref.n10.np1 1 "${_mfref}/miniFE.10x10x10.P1.yaml" -- --nx=10)
minife_ref_test(minife.ref.1x1x2.np1 1 "${_mfref}/miniFE.1x1x2.P1.yaml" -- nx=1 ny=1 nz=2)
# n = 100 stops at 200 iterations, far from convergence, where the residual depends on how the
# dot products round: the reference's sequential sums give 8.25e-8 (1 rank) and 7.21e-8
# (2 ranks); exact sums (--reproducible) give 3.02062e-8, and so do the GPU's tree reductions.
# The host back ends' ordinary sums (--sums ordinary; exact ones are the default here) keep 32
# independent accumulators (as fast as the deterministic mode) and land between the two (4.29e-8
# on 1 rank). So the window is +-30 % of the exact-sum value on the CUDA back end, and from 0.7
# times it to 1.3 times the reference's on the host.
foreach(np 1 2 4)
  set(r "${_mfref}/miniFE.100x100x100.P2.yaml")
  if(np EQUAL 1)
    set(r "${_mfref}/miniFE.100x100x100.P1.yaml")
  endif()
  minife_ref_test(minife.ref.n100.np${np} ${np} "${r}" --resid-exact-sum 3.02062e-08 -- nx=100
                  --sums ordinary)
endforeach()
# ... and with --reproducible the exact-sum value itself, to the printed digits, on any rank count.
minife_ref_test(minife.ref.n100.exact.np2 2 "${_mfref}/miniFE.100x100x100.P1.yaml"
                --resid-exact 3.02062e-08 -- nx=100 --reproducible)
# The same on the Serial back end and with two OpenMP threads per rank.
porta_app_test(minife.ref.n30.serial.np2 2 ENVIRONMENT "PORTA_BACKEND=serial"
            COMMAND "${PORTA_APP_TEST_DIR}/minife_compare.sh" "${_mpi}" 2 $<TARGET_FILE:minife>
                    "${_mfref}/miniFE.30x30x30.P2.yaml" -- nx=30)
if(PORTA_ENABLE_OPENMP)
  porta_app_test(minife.ref.20x30x40.openmp2.np2 2
              ENVIRONMENT "PORTA_BACKEND=openmp;PORTA_NUM_THREADS=2;OMP_NUM_THREADS=2"
              COMMAND "${PORTA_APP_TEST_DIR}/minife_compare.sh" "${_mpi}" 2 $<TARGET_FILE:minife>
                      "${_mfref}/miniFE.20x30x40.P2.yaml" -- nx=20 ny=30 nz=40)
endif()

# Other sizes, non-cubic ones: rows (nx+1)(ny+1)(nz+1), nonzeros (3nx+1)(3ny+1)(3nz+1), and
# the iteration counts the reference miniFE 2.0 (ref) gave on one rank for them on this kind of
# machine (17x3x5: 38, 7x11x4: 37, 25x12x8: 89, 32x20x12: 117, 36x18x9: 131). Sizes whose last
# iterations sit near machine epsilon for long depend more on the summation order: 40^3 takes
# 133 (ref, 1 rank), 134 (ref, 2 ranks), 131 with exact sums and 130 on a GPU, so it is not
# used here.
foreach(case "17;3;5;38" "7;11;4;37" "25;12;8;89" "32;20;12;117" "36;18;9;131")
  list(GET case 0 x)
  list(GET case 1 y)
  list(GET case 2 z)
  list(GET case 3 it)
  math(EXPR rows "(${x} + 1) * (${y} + 1) * (${z} + 1)")
  math(EXPR nnz "(3 * ${x} + 1) * (3 * ${y} + 1) * (3 * ${z} + 1)")
  foreach(np 1 2 4)
    minife_ref_test(minife.size.${x}x${y}x${z}.np${np} ${np} - --rows ${rows} --nnz ${nnz}
                    --iters ${it} -- nx=${x} ny=${y} nz=${z})
  endforeach()
endforeach()

# --reproducible: bitwise identical solution, residual history and iteration count on 1, 2, 3
# and 4 ranks, 1 and 2 threads, Serial, mv_overlap_comm_comp=1 and load_imbalance=20.
find_program(PORTA_H5DIFF_EXECUTABLE NAMES h5diff h5diff.openmpi DOC "HDF5's h5diff")
if(PORTA_H5DIFF_EXECUTABLE)
  set(_cross 1) # host and CUDA runs bitwise equal: not with FMA contraction on the device
  if(PORTA_ENABLE_CUDA AND NOT PORTA_ENABLE_REPRODUCIBLE)
    set(_cross 0)
  endif()
  porta_app_test(minife.reproducible 4 TIMEOUT 600
              COMMAND "${PORTA_APP_TEST_DIR}/minife_repro.sh" "${_mpi}" $<TARGET_FILE:minife>
                      "${PORTA_H5DIFF_EXECUTABLE}" ${_cross} nx=14 ny=11 nz=17)
  # --porta-deterministic without exact sums: CSR and slices of 32 (the GPU's storage, whose
  # matvec is then a kernel of its own and p.Ap a dot) give the same bits, 2 ranks x 2 threads
  porta_app_test(minife.slice.deterministic 2 TIMEOUT 300
              COMMAND sh -c "export OMP_NUM_THREADS=2 PORTA_NUM_THREADS=2 && \"$0\" -n 2 \"$1\" nx=14 ny=11 nz=17 --sums ordinary --porta-deterministic matvec_slice=1 --out mfdet1 > mfdet1.log 2>&1 && \"$0\" -n 2 \"$1\" nx=14 ny=11 nz=17 --sums ordinary --porta-deterministic matvec_slice=32 --out mfdet32 > mfdet32.log 2>&1 && \"$2\" mfdet1.h5 mfdet32.h5 /solution /solution && \"$2\" mfdet1.h5 mfdet32.h5 /cg/residual_history /cg/residual_history"
                      "${_mpi}" $<TARGET_FILE:minife> "${PORTA_H5DIFF_EXECUTABLE}")
  # CG's iterations as a recorded loop (on a GPU by default; MINIFE_DEVICE_LOOP=1 takes it on
  # the host back ends too) against the host's loop: the same bits. n=10 converges; n=30x30x30
  # too; 100 x 20 x 20 stops at the limit of 200 iterations; ordinary sums, and the exact sums
  # of --reproducible (their accumulators in the loop's memory, rounded there) both ways.
  foreach(cfg "n10;nx=10;--sums;ordinary" "n30;nx=30;--sums;ordinary"
              "limit;nx=100;ny=20;nz=20;--sums;ordinary" "n30.exact;nx=30;--reproducible"
              "limit.exact;nx=100;ny=20;nz=20;--reproducible")
    list(GET cfg 0 name)
    list(REMOVE_AT cfg 0)
    porta_app_test(minife.loop.${name} 1
                COMMAND "${PORTA_APP_TEST_DIR}/minife_loop.sh" "${_mpi}" $<TARGET_FILE:minife>
                        "${PORTA_H5DIFF_EXECUTABLE}" ${cfg})
    # on two GPUs (label gpu, skipped with fewer): 2 ranks, the loop's sums and exchange of p
    # queued through NCCL (porta/exchange_device.h; a CUDA build with NCCL)
    if(PORTA_ENABLE_CUDA AND PORTA_HAVE_NCCL)
      add_test(NAME minife.loop.${name}.np2.gpus
               COMMAND "${PROJECT_SOURCE_DIR}/tests/gpu-guard" "${PORTA_APP_TEST_DIR}/minife_loop.sh"
                       "${_mpi}" $<TARGET_FILE:minife> "${PORTA_H5DIFF_EXECUTABLE}" ${cfg}
               WORKING_DIRECTORY "${PORTA_APP_TEST_BIN}")
      set_tests_properties(minife.loop.${name}.np2.gpus PROPERTIES LABELS "app;mpi;gpu"
                           TIMEOUT 300 PROCESSORS 2 SKIP_RETURN_CODE 77
                           ENVIRONMENT "${PORTA_APP_MPI_ENV};PORTA_BACKEND=cuda;GPU_GUARD_MIN=2;MINIFE_LOOP_NP=2")
    endif()
  endforeach()
else()
  message(STATUS "  tests/app: h5diff not found, minife.reproducible and minife.loop.* are skipped")
endif()

# Source-free mode: second-order convergence of the nodal error (3.5 .. 4.5 per halving of h).
porta_app_test(minife.converge 2 TIMEOUT 600
            COMMAND "${PORTA_APP_TEST_DIR}/minife_converge.sh" "${_mpi}" 2 $<TARGET_FILE:minife>
                    16 32 64)

# The YAML report keeps the reference's keys, in order.
porta_app_test(minife.yaml_keys 1
            COMMAND "${PORTA_APP_TEST_DIR}/minife_yaml_keys.sh" "${_mpi}" $<TARGET_FILE:minife>
                    "${_mfref}/miniFE.30x30x30.P2.yaml" nx=6)
# The YAML report replaces no file and follows no link (tests/app/minife_yaml_safety.sh): a
# second run within the same second had replaced the first one's report.
porta_app_test(minife.yaml_safety 1 TIMEOUT 60
            COMMAND sh "${PORTA_APP_TEST_DIR}/minife_yaml_safety.sh" $<TARGET_FILE:minife>)

# The HDF5 result on 1, 2 and 4 ranks (and with load imbalance on 3): shape, boundary values,
# interior bounds, residual history, sizes; the .xmf beside it; no temporary file left.
add_executable(test_minife_h5 "${PORTA_APP_TEST_DIR}/test_minife_h5.c")
target_link_libraries(test_minife_h5 PRIVATE porta_apps_common)
set_target_properties(test_minife_h5 PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PORTA_APP_TEST_BIN}")
foreach(cfg "1;" "2;" "4;" "3;load_imbalance=15")
  list(GET cfg 0 np)
  list(GET cfg 1 extra)
  set(o mfh5_np${np})
  porta_app_test(minife.h5.np${np} ${np}
              COMMAND sh -c "rm -f ${o}.h5 ${o}.xmf && \"$0\" -n ${np} \"$1\" nx=9 ny=6 nz=11 --out ${o} ${extra} > ${o}.log 2>&1 && test ! -e ${o}.h5.tmp && grep -q 'Dimensions=\"12 7 10\"' ${o}.xmf && \"$2\" ${o}.h5 9 6 11 ${np}"
                      "${_mpi}" $<TARGET_FILE:minife> $<TARGET_FILE:test_minife_h5>)
endforeach()

# Bad input: refused with a message naming the problem, exit status 1 or 2, no crash.
set(_bad "${PORTA_APP_TEST_DIR}/minife_bad_input.sh")
foreach(case "zero_nx;1;nx;nx=0" "negative_nz;1;nz;nz=-4" "word_ny;1;ny;ny=ten"
             "missing_value;1;nx;--nx" "unknown_option;1;bogus;--bogus=1"
             "huge_extent;1;nx;nx=2000000" "nnz_overflow;1;32-bit;nx=1000"
             "nnz_huge;2;would hold 1.35[0-9]*e\\+19 nonzeros;nx=1000000"
             "bad_imbalance;1;load_imbalance;load_imbalance=-5"
             "hex_imbalance;1;'0x10' is not a percentage;load_imbalance=0x10"
             "bad_verify;1;verify_solution;verify_solution=2"
             "slice_other;1;matvec_slice: 4 is neither 1;matvec_slice=4"
             "slice_too_large;1;matvec_slice;matvec_slice=2048"
             "zero_equations;4;0 equations;nx=1 ny=1 nz=2"
             "stray_argument;1;foo;foo" "bad_out;2;nonexistent;--out=/nonexistent/dir/x nx=4"
             "verify_fails;1;verification failed;nx=3 source_free=1 --no-h5"
             "verify_fails_overlap;2;verification failed;nx=2 verify_solution=1 mv_overlap_comm_comp=1 --no-h5")
  list(GET case 0 n)
  list(GET case 1 np)
  list(GET case 2 re)
  list(GET case 3 args)
  separate_arguments(args)
  porta_app_test(minife.bad.${n} ${np} TIMEOUT 60
              COMMAND "${_bad}" "${_mpi}" ${np} $<TARGET_FILE:minife> "${re}" ${args})
endforeach()
# runs that start and fail (a failed verification, an output directory that does not exist):
# exit status 1, not bad input's 2
foreach(_t verify_fails verify_fails_overlap bad_out)
  set_property(TEST minife.bad.${_t} APPEND PROPERTY ENVIRONMENT "EXPECT_STATUS=1")
endforeach()

# Result files and the file system: the cases of TeaLeaf's tealeaf.h5_safety.* (see
# tests/app/app_h5_safety.sh), the same guarantees through the same writer.
foreach(case "longpath;2;nx=8" "badout;2;nx=8" "kill;2;nx=100" "links;2;nx=8" "twice;1;nx=20"
             "rename;2;nx=60" "summary;2;nx=8" "mpmd;2;nx=8" "full;2;nx=20")
  list(GET case 0 c)
  list(GET case 1 np)
  list(GET case 2 args)
  # the runs that must still be going when killed or renamed under run on the host: on a GPU
  # nx=100 is over in a second (these cases test the files, not the back end)
  set(be "")
  if(c STREQUAL "kill" OR c STREQUAL "rename")
    set(be "PORTA_BACKEND=serial")
  endif()
  porta_app_test(minife.h5_safety.${c}.np${np} ${np} TIMEOUT 180 ENVIRONMENT "${be}"
              COMMAND sh "${PORTA_APP_TEST_DIR}/app_h5_safety.sh" ${c} "${_mpi}" ${np}
                      $<TARGET_FILE:minife> $<TARGET_FILE:test_app_h5_safety> ${args})
endforeach()
# the full file system's case needs a private tmpfs (root): skipped (77) where there is none
set_property(TEST minife.h5_safety.full.np2 PROPERTY SKIP_RETURN_CODE 77)
# a file system that fills at the result's last writes (issue 68; see TeaLeaf's)
porta_app_test(minife.h5_safety.full_at_close.np2 2 TIMEOUT 600
               COMMAND sh "${PORTA_APP_TEST_DIR}/app_h5_safety.sh" full_at_close "${_mpi}" 2
                       $<TARGET_FILE:minife> $<TARGET_FILE:test_app_h5_safety> --nx 8)
set_property(TEST minife.h5_safety.full_at_close.np2 PROPERTY SKIP_RETURN_CODE 77)

# In a job limited to 1.5 GB (a memory cgroup, or ulimit -v where none can be made), nx=200 is
# refused naming the estimate and the limit (the OOM killer had ended it)
porta_app_test(minife.bad.job_memory_limit 1 TIMEOUT 180
               COMMAND "${PORTA_APP_TEST_DIR}/app_memory_limit.sh" "${_mpi}"
                       "nx=200 .* needs about .* times the (job's cgroup|address-space) limit"
                       $<TARGET_FILE:minife> nx=200 --no-h5)
set_tests_properties(minife.bad.job_memory_limit PROPERTIES SKIP_RETURN_CODE 77)
# APP_EXCHANGE_TRANSPORT set on one rank only is refused, naming the values
porta_app_test(minife.bad.env_ranks_differ 2 TIMEOUT 180
               COMMAND "${PORTA_APP_TEST_DIR}/app_env_ranks.sh" "${_mpi}" 2
                       $<TARGET_FILE:minife> APP_EXCHANGE_TRANSPORT pinned-host -
                       "APP_EXCHANGE_TRANSPORT differs between the ranks \\('pinned-host' on rank 0, unset on rank 1\\)"
                       nx=8 --no-h5)
# Porta's settings that change what a rank computes, set differently on the two ranks, are
# refused naming the variable and the values (apps/common/app_env.h: app_env_agree_porta)
porta_app_test(minife.bad.porta_backend_ranks_differ 2 TIMEOUT 180
               COMMAND "${PORTA_APP_TEST_DIR}/app_env_ranks.sh" "${_mpi}" 2
                       $<TARGET_FILE:minife> PORTA_BACKEND openmp serial
                       "PORTA_BACKEND differs between the ranks \\('openmp' on rank 0, 'serial' on rank 1\\)"
                       nx=8 --no-h5)
porta_app_test(minife.bad.porta_deterministic_ranks_differ 2 TIMEOUT 180
               COMMAND "${PORTA_APP_TEST_DIR}/app_env_ranks.sh" "${_mpi}" 2
                       $<TARGET_FILE:minife> PORTA_DETERMINISTIC 1 -
                       "PORTA_DETERMINISTIC differs between the ranks \\('1' on rank 0, '0' on rank 1\\)"
                       nx=8 --no-h5)
# 2 ranks x as many threads as CPUs start again with fewer OpenMP spins and say so first; the
# user's wait policy, one rank and Serial are left alone (tests/app/app_omp_wait.sh)
porta_app_test(minife.omp_wait.np2 2 TIMEOUT 300
               COMMAND "${PORTA_APP_TEST_DIR}/app_omp_wait.sh" "${_mpi}" $<TARGET_FILE:minife>
                       "YAML report: miniFE\\.8x8x8\\.P[12]" nx=8 --no-h5)
# --out names whose results fit NAME_MAX work, longer ones are refused at start; ranks in
# different working directories with a relative --out stop at once (issue 68, points 13 and 2)
porta_app_test(minife.out_name_max 1 TIMEOUT 120
               COMMAND sh "${PORTA_APP_TEST_DIR}/app_out_name_max.sh" "${_mpi}"
                       $<TARGET_FILE:minife> nx=8 ny=8 nz=8)
porta_app_test(minife.out_wdir.np2 2 TIMEOUT 180
               COMMAND sh "${PORTA_APP_TEST_DIR}/app_out_wdir.sh" "${_mpi}"
                       $<TARGET_FILE:minife> nx=8 ny=8 nz=8)
# The files after the result on a full file system (tests/app/app_out_full.sh; issue 68, point
# 12): NAME.xmf with no room left ("'res.xmf': ...: No space left on device", res.h5 complete
# and whole), --summary-json likewise; exit 1, no C expression first. Skipped (77) without a
# private tmpfs.
foreach(c xmf json)
  porta_app_test(minife.out_full.${c}.np2 2 TIMEOUT 120
                 COMMAND sh "${PORTA_APP_TEST_DIR}/app_out_full.sh" ${c} "${_mpi}" 2
                         $<TARGET_FILE:minife> nx=20)
  set_property(TEST minife.out_full.${c}.np2 PROPERTY SKIP_RETURN_CODE 77)
endforeach()
