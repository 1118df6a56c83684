# miniMD tests: included from tests/app/CMakeLists.txt at the end of the top-level
# configuration, once the `minimd` target exists.
set(_mdin "${PROJECT_SOURCE_DIR}/inputs/minimd")
set(_mdref "${_mdin}/reference")
set(_mpi "${MPIEXEC_EXECUTABLE}")


#   minimd_ref_test(NAME NP REF [--conserve TOL] -- MINIMD_ARGS...): thermo lines against the
#   reference's (inputs/minimd/reference), 7 printed digits, one unit of the last
function(minimd_ref_test name np ref)
  porta_app_test(${name} ${np} COMMAND "${PORTA_APP_TEST_DIR}/minimd_compare.sh" "${_mpi}" ${np}
              $<TARGET_FILE:minimd> "${_mdref}/${ref}.txt" ${ARGN})
endfunction()
#   minimd_env_test(NAME NP REF ENV [--expect TEXT] -- MINIMD_ARGS...): the same with the
#   environment ENV (a list)
function(minimd_env_test name np ref env)
  porta_app_test(${name} ${np} COMMAND "${PORTA_APP_TEST_DIR}/minimd_compare.sh" "${_mpi}" ${np}
              $<TARGET_FILE:minimd> "${_mdref}/${ref}.txt" ${ARGN} ENVIRONMENT "${env}")
endfunction()

# LJ and EAM, 500 steps, on 1, 2, 4 and 8 ranks, half lists (Newton across ghosts for LJ) and
# full lists (Porta's default): the reference's printed thermo lines (the reference agrees with itself across
# rank counts and list kinds to step 500).
set(_lj -i "${_mdin}/in.lj.miniMD")
set(_eam -i "${_mdin}/in.eam.miniMD")
foreach(np 1 2 4 8)
  minimd_ref_test(minimd.ref.lj.s8.half.np${np} ${np} lj_s8_n500_np1_half
                  -- ${_lj} -s 8 -n 500 --half_neigh 1)
  minimd_ref_test(minimd.ref.eam.s8.half.np${np} ${np} eam_s8_n500_np1_half
                  -- ${_eam} -s 8 -n 500 --half_neigh 1)
endforeach()
foreach(np 1 2 4)
  minimd_ref_test(minimd.ref.lj.s8.full.np${np} ${np} lj_s8_n500_np1_full
                  -- ${_lj} -s 8 -n 500 --half_neigh 0)
  minimd_ref_test(minimd.ref.eam.s8.full.np${np} ${np} eam_s8_n500_np1_full
                  -- ${_eam} -s 8 -n 500 --half_neigh 0)
endforeach()
# the reference's shipped logs (16 ranks, 10,000 steps): their first 500 steps
minimd_ref_test(minimd.ref.shipped.lj4k.np4 4 shipped_4k_lj_n500 -- ${_lj} -s 10 -n 500)
minimd_ref_test(minimd.ref.shipped.eam16k.np2 2 shipped_16k_eam_n500 -- ${_eam} -s 16 -n 500)
# thermo every 10 steps, other sizes and shapes, a last line off the thermo interval, the
# reference's options (one type, 4 bins, no sorting), 2 threads
minimd_ref_test(minimd.ref.lj.t10.half.np1 1 lj_t10_s8_n100_np1_half
                -- -i "${_mdin}/in.lj.t10.miniMD" -s 8 -n 100 --half_neigh 1)
minimd_ref_test(minimd.ref.lj.half_gn0.np2 2 lj_s8_n500_np1_half
                -- ${_lj} -s 8 -n 500 --half_neigh 1 -gn 0)
minimd_ref_test(minimd.ref.lj.t10.full.np2 2 lj_t10_s8_n100_np1_full
                -- -i "${_mdin}/in.lj.t10.miniMD" -s 8 -n 100 --half_neigh 0)
minimd_ref_test(minimd.ref.eam.t10.np2 2 eam_t10_s8_n100_np1_half
                -- -i "${_mdin}/in.eam.t10.miniMD" -s 8 -n 100 --half_neigh 1)
minimd_ref_test(minimd.ref.lj.n150.np1 1 lj_s8_n150_np1 -- ${_lj} -s 8 -n 150)
minimd_ref_test(minimd.ref.lj.6x8x10.np1 1 lj_nx6ny8nz10_n200_np1
                -- ${_lj} -nx 6 -ny 8 -nz 10 -n 200)
minimd_ref_test(minimd.ref.lj.6x8x10.np3 3 lj_nx6ny8nz10_n200_np1
                -- ${_lj} -nx 6 -ny 8 -nz 10 -n 200)
minimd_ref_test(minimd.ref.lj.s16.np4 4 lj_s16_n500_np1_half -- ${_lj} -s 16 -n 500)
minimd_ref_test(minimd.ref.eam.s16.np2 2 eam_s16_n200_np1_half -- ${_eam} -s 16 -n 200)
minimd_ref_test(minimd.ref.lj.ntypes1.np1 1 lj_ntypes1_s8_n200_np1
                -- ${_lj} -s 8 -n 200 --ntypes 1)
minimd_ref_test(minimd.ref.lj.b4.np2 2 lj_b4_s8_n200_np1 -- ${_lj} -s 8 -n 200 -b 4)
minimd_ref_test(minimd.ref.lj.sort0.np1 1 lj_sort0_s8_n200_np1 -- ${_lj} -s 8 -n 200 --sort 0)
minimd_ref_test(minimd.ref.lj.sort7.np2 2 lj_sort0_s8_n200_np1 -- ${_lj} -s 8 -n 200 --sort 7)
minimd_ref_test(minimd.ref.lj.threads2.np1 1 lj_s8_n500_np1_half -- ${_lj} -s 8 -n 500 -t 2)
minimd_ref_test(minimd.ref.eam.threads2.np1 1 eam_s8_n500_np1_half -- ${_eam} -s 8 -n 500 -t 2)
# atoms from a LAMMPS data file (256 displaced atoms with their own velocities)
foreach(np 1 2 4)
  minimd_ref_test(minimd.ref.lj.data.np${np} ${np} lj_data_n300_np1
                  -- -i "${_mdin}/in.lj-data.miniMD" -n 300)
endforeach()
# On 2 GPUs of their own (skipped elsewhere): the swaps queued on the GPUs by each transport of
# the device communicator, beside the first forces (LJ, full list) and with a half list (forces
# back, added), against the reference's thermo lines
if(PORTA_ENABLE_CUDA)
  foreach(via nccl peer)
    set(_name "gpu-peer")
    if(via STREQUAL "nccl")
      set(_name "nccl")
    endif()
    foreach(kind full half)
      set(t minimd.ref.lj.s8.${kind}.${via}.np2.gpus)
      porta_app_test(${t} 2 COMMAND "${PROJECT_SOURCE_DIR}/tests/gpu-guard"
                     "${PORTA_APP_TEST_DIR}/minimd_compare.sh" "${_mpi}" 2 $<TARGET_FILE:minimd>
                     "${_mdref}/lj_s8_n500_np1_${kind}.txt"
                     --expect "# Ghost swaps: queued on the GPUs (${_name})"
                     -- ${_lj} -s 8 -n 500 --half_neigh $<IF:$<STREQUAL:${kind},half>,1,0>
                     ENVIRONMENT "PORTA_BACKEND=cuda;GPU_GUARD_MIN=2;PORTA_DEVICE_COMM=${via}")
      set_tests_properties(${t} PROPERTIES LABELS "app;mpi;gpu" SKIP_RETURN_CODE 77)
    endforeach()
  endforeach()
endif()
# re-neighbouring on the execution space (the GPU's path; forced here on the host): one rank,
# migration to one neighbour (2 ranks) and to two (3 along x), forces back across ghosts (half
# list, Newton), EAM's F' forward, a data file, 8 ranks over 2 x 2 x 2
function(minimd_device_test name np ref)
  minimd_env_test(minimd.ref.${name}.device_reneighbor.np${np} ${np} ${ref}
                  "MINIMD_DEVICE_RENEIGHBOR=1" -- ${ARGN})
endfunction()
minimd_device_test(lj 1 lj_s8_n500_np1_full ${_lj} -s 8 -n 500)
minimd_device_test(eam 1 eam_s8_n500_np1_full ${_eam} -s 8 -n 500 --half_neigh 0)
minimd_device_test(lj 2 lj_s8_n500_np1_full ${_lj} -s 8 -n 500 --half_neigh 0)
minimd_device_test(lj.half 4 lj_s8_n500_np1_half ${_lj} -s 8 -n 500 --half_neigh 1)
minimd_device_test(eam.half 2 eam_s8_n500_np1_half ${_eam} -s 8 -n 500 --half_neigh 1)
minimd_device_test(lj.6x8x10 3 lj_nx6ny8nz10_n200_np1 ${_lj} -nx 6 -ny 8 -nz 10 -n 200)
minimd_device_test(lj.data 4 lj_data_n300_np1 -i "${_mdin}/in.lj-data.miniMD" -n 300)
minimd_device_test(lj 8 lj_s8_n500_np1_full ${_lj} -s 8 -n 500 --half_neigh 0)
# the atoms sorted by bin at every re-neighbouring is the default, each sort checking that the
# atoms' bins do not decrease; never, and every 40 steps
minimd_env_test(minimd.ref.lj.sort_checked.device_reneighbor.np3 3 lj_s8_n500_np1_full
                "MINIMD_DEVICE_RENEIGHBOR=1;MINIMD_CHECK_SORT=1" -- ${_lj} -s 8 -n 500 --half_neigh 0)
minimd_device_test(lj.sort0 2 lj_s8_n500_np1_full ${_lj} -s 8 -n 500 --half_neigh 0 --sort 0)
minimd_device_test(lj.sort40 3 lj_s8_n500_np1_full ${_lj} -s 8 -n 500 --half_neigh 0 --sort 40)
# the forces of the atoms without ghost neighbours while the ghosts' messages travel (a GPU's
# path with other ranks; forced here): one rank (self swaps only, all made before the forces:
# no border atom), two and four (x's own ghosts ready first, the other ranks' make the border
# atoms), with either re-neighbouring path
set(_overlap_on --expect "Forces overlap ghost messages: 1")
function(minimd_overlap_test name np ref)
  minimd_env_test(minimd.ref.${name}.overlap.np${np} ${np} ${ref} "MINIMD_OVERLAP=1"
                  ${_overlap_on} -- ${ARGN})
endfunction()
minimd_overlap_test(lj 1 lj_s8_n500_np1_full ${_lj} -s 8 -n 500 --half_neigh 0)
minimd_overlap_test(lj 2 lj_s8_n500_np1_full ${_lj} -s 8 -n 500 --half_neigh 0)
minimd_overlap_test(lj.6x8x10 4 lj_nx6ny8nz10_n200_np1 ${_lj} -nx 6 -ny 8 -nz 10 -n 200)
# thermo every 10 steps: energies and virials from the split forces between re-neighbourings
minimd_overlap_test(lj.t10 2 lj_t10_s8_n100_np1_full -i "${_mdin}/in.lj.t10.miniMD" -s 8 -n 100
                    --half_neigh 0)
minimd_env_test(minimd.ref.lj.overlap.device_reneighbor.np3 3 lj_s8_n500_np1_full
                "MINIMD_OVERLAP=1;MINIMD_DEVICE_RENEIGHBOR=1" ${_overlap_on}
                -- ${_lj} -s 8 -n 500 --half_neigh 0)
# a half list is not split (its partners' forces are added in atom order)
minimd_env_test(minimd.ref.lj.half.overlap_refused.np2 2 lj_s8_n500_np1_half "MINIMD_OVERLAP=1"
                --expect "Forces overlap ghost messages: 0" -- ${_lj} -s 8 -n 500 --half_neigh 1)
# and the host path where the device one is the default (a GPU)
minimd_env_test(minimd.ref.lj.host_reneighbor.np2 2 lj_s8_n500_np1_half
                "MINIMD_DEVICE_RENEIGHBOR=0" -- ${_lj} -s 8 -n 500 --half_neigh 1)
# energy conservation over 1,000 steps: 1.5 T + U within 0.3 % of its start, and the
# reference's thermo lines all the way
minimd_ref_test(minimd.energy.lj.np2 2 lj_s8_n1000_np1_energy --conserve 3e-3
                -- ${_lj} -s 8 -n 1000)

# --reproducible: thermo table and final atoms bitwise identical (h5diff) on 1-4 ranks, 1 and 2
# threads, Serial and OpenMP, LJ and EAM
find_program(PORTA_H5DIFF_EXECUTABLE NAMES h5diff h5diff.openmpi DOC "HDF5's h5diff")
if(PORTA_H5DIFF_EXECUTABLE)
  set(_cross 1) # host and CUDA runs bitwise equal: not with FMA contraction on the device
  if(PORTA_ENABLE_CUDA AND NOT PORTA_ENABLE_REPRODUCIBLE)
    set(_cross 0)
  endif()
  foreach(pot lj eam)
    porta_app_test(minimd.reproducible.${pot} 4 TIMEOUT 600
                COMMAND "${PORTA_APP_TEST_DIR}/minimd_repro.sh" "${_mpi}" $<TARGET_FILE:minimd>
                        "${PORTA_H5DIFF_EXECUTABLE}" ${_cross} -i "${_mdin}/in.${pot}.miniMD" -s 5
                        -n 60)
  endforeach()
  # the same with re-neighbouring on the execution space (atoms reordered by migration: the
  # final atoms must still be written by global id)
  porta_app_test(minimd.reproducible.lj.device_reneighbor 4 TIMEOUT 600
              COMMAND "${PORTA_APP_TEST_DIR}/minimd_repro.sh" "${_mpi}" $<TARGET_FILE:minimd>
                      "${PORTA_H5DIFF_EXECUTABLE}" ${_cross} -i "${_mdin}/in.lj.miniMD" -s 5 -n 60
              ENVIRONMENT "MINIMD_DEVICE_RENEIGHBOR=1")
  # and with the forces split around the ghosts' messages
  porta_app_test(minimd.reproducible.lj.overlap 4 TIMEOUT 600
              COMMAND "${PORTA_APP_TEST_DIR}/minimd_repro.sh" "${_mpi}" $<TARGET_FILE:minimd>
                      "${PORTA_H5DIFF_EXECUTABLE}" ${_cross} -i "${_mdin}/in.lj.miniMD" -s 5 -n 60
              ENVIRONMENT "MINIMD_OVERLAP=1")
  # ... in a box split along x first (2 and 3 ranks: 2 x 1 x 1, 3 x 1 x 1; 4: 2 x 1 x 2), where
  # no swap with the rank itself comes before the first with another: every ghost makes a
  # border atom (with a cube, x's own ghosts come first and are ready before the first forces)
  porta_app_test(minimd.reproducible.lj.overlap_x_split 4 TIMEOUT 600
              COMMAND "${PORTA_APP_TEST_DIR}/minimd_repro.sh" "${_mpi}" $<TARGET_FILE:minimd>
                      "${PORTA_H5DIFF_EXECUTABLE}" ${_cross} -i "${_mdin}/in.lj.miniMD"
                      -nx 12 -ny 6 -nz 6 -n 60
              ENVIRONMENT "MINIMD_OVERLAP=1")
  # the default mode (LJ): the same bits with 1 and 3 threads and on every run (the bins in
  # atom order before the lists are built)
  porta_app_test(minimd.default.lj.threads 3 TIMEOUT 300
              COMMAND "${PORTA_APP_TEST_DIR}/minimd_threads.sh" "${_mpi}" $<TARGET_FILE:minimd>
                      "${PORTA_H5DIFF_EXECUTABLE}" -i "${_mdin}/in.lj.miniMD" -s 5 -n 40
              ENVIRONMENT "PORTA_BACKEND=openmp")
else()
  message(STATUS "  tests/app: h5diff not found, minimd.reproducible is skipped")
endif()

# Bad input: the message names the problem (and the file and line), exit 1 or 2, no crash
#   minimd_bad(NAME NP REGEX EDIT ARGS...) - see minimd_bad_input.sh
function(minimd_bad name np regex edit)
  porta_app_test(minimd.bad.${name} ${np} TIMEOUT 120
              COMMAND "${PORTA_APP_TEST_DIR}/minimd_bad_input.sh" "${_mpi}" ${np}
                      $<TARGET_FILE:minimd> "${_mdin}" "${regex}" "${edit}" ${ARGN})
endfunction()
minimd_bad(units 2 "in.lj.miniMD:3: units 'foo'" "line:in.lj.miniMD:3:foo   units" -s 4 -n 10)
# a summary file that cannot be written is refused before the run (apps/common/app_begin.c)
minimd_bad(summary_json_path 2 "--summary-json\\('/nonexistent/s.json'\\): cannot write it" -
           -s 4 -n 10 --summary-json /nonexistent/s.json)
minimd_bad(force_style 1 "in.lj.miniMD:5: force style 'morse'" "line:in.lj.miniMD:5:morse"
           -s 4 -n 10)
minimd_bad(size_word 1 "in.lj.miniMD:7: .*'abc'" "line:in.lj.miniMD:7:32 abc 32" -n 10)
minimd_bad(size_missing 1 "in.lj.miniMD:7: expected the problem size" "line:in.lj.miniMD:7:32 32"
           -n 10)
minimd_bad(density_zero 1 "in.lj.miniMD:11: the density must be positive"
           "line:in.lj.miniMD:11:0.0 density" -s 4 -n 10)
minimd_bad(cutoff_negative 1 "in.lj.miniMD:13: the force cut-off must be positive"
           "line:in.lj.miniMD:13:-2.5 0.3" -s 4 -n 10)
minimd_bad(dt_nan 1 "in.lj.miniMD:9: .*nan" "line:in.lj.miniMD:9:nan" -s 4 -n 10)
minimd_bad(short_deck 1 "in.lj.miniMD:14: expected the thermo interval" "head:in.lj.miniMD:13"
           -s 4 -n 10)
minimd_bad(no_deck 2 "missing.miniMD.*No such file" "-" -i missing.miniMD)
minimd_bad(no_potential 2 "cannot open the EAM potential file 'Cu_u6.eam'" "drop:Cu_u6.eam"
           -i in.eam.miniMD -s 4 -n 10)
minimd_bad(potential_truncated 2 "Cu_u6.eam:150: the file ends after .* of the 500 values of"
           "head:Cu_u6.eam:150" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(potential_header 1 "Cu_u6.eam:3: expected 'nrho drho nr dr cut'"
           "line:Cu_u6.eam:3:500 abc" -i in.eam.miniMD -s 4 -n 10)
# a header count too small: the tables took each other's values, silently (U changed sign)
minimd_bad(potential_count 1 "Cu_u6.eam:[0-9]+: more values than the header announced \\(nrho 400"
           "line:Cu_u6.eam:3:400 5.01e-04 500 1.0e-02 4.95" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(potential_word 1 "Cu_u6.eam:20: 'x1' is not a number" "line:Cu_u6.eam:20:x1 2 3"
           -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_lj_units 1 "EAM needs metal units" "-" -i in.eam.miniMD -s 4 -n 10 -u lj)
minimd_bad(unknown_option 1 "unknown option" "-" -s 4 --bogus 3)
minimd_bad(sse 1 "SSE" "-" -s 4 -sse 1)
minimd_bad(half_neigh 1 "half_neigh: '2' is not a whole number in -1..1" "-" -s 4 --half_neigh 2)
minimd_bad(too_many_atoms 1 "atoms, more than" "-" -s 100000)
# -t takes --porta-threads' limit (64 per processor, at most 4096): -t 4096 had started 4096
# threads on 2 cores
if(PORTA_ENABLE_OPENMP)
  minimd_bad(threads_limit 1 "5000 threads is more than the limit" "-" -s 4 -n 10 -t 5000)
endif()
# 64 threads whose stacks do not fit under the address-space limit (63 x 64 MB > 4 GB, as 64
# threads' stacks and malloc arenas on a 64-core node): refused by name at start-up, where libgomp
# had ended the run at the first kernel ("Thread creation failed", exit 1)
# (not in sanitized builds: ASan reserves terabytes of shadow memory, so no ulimit -v applies
# there, tests/app/minimd_bad_input.sh)
if(PORTA_ENABLE_OPENMP AND NOT PORTA_ENABLE_CUDA AND NOT PORTA_ENABLE_SANITIZERS)
  minimd_bad(thread_stacks 1 "64 threads need [0-9]+ MB of address space for the stacks .* address-space limit" "-"
             -s 4 -n 10)
  set_property(TEST minimd.bad.thread_stacks APPEND PROPERTY ENVIRONMENT "VMEM_KB=4000000"
               "PORTA_BACKEND=openmp" "PORTA_NUM_THREADS=64" "OMP_STACKSIZE=64M")
endif()
# an environment switch outside its values (MINIMD_OVERLAP=2 had been ignored without a word)
minimd_bad(env_overlap 2 "MINIMD_OVERLAP='2' is none of the values it takes" "-" -s 4 -n 10)
set_property(TEST minimd.bad.env_overlap APPEND PROPERTY ENVIRONMENT "MINIMD_OVERLAP=2")
# 3.2e10 atoms: under that limit, but far more than a node's memory (the system had killed it);
# with PORTA_BACKEND=cuda on a GPU too, where the arrays are more than the device's memory and
# the atoms' host copies more than the node's (it had run for minutes creating them)
minimd_bad(too_much_memory 1 "32000000000 atoms at density .* need at least .* times (this node's memory|the address-space limit|the memory of device)" "-"
           -s 2000 -n 5)
set_property(TEST minimd.bad.too_much_memory APPEND PROPERTY ENVIRONMENT "VMEM_KB=4000000")
minimd_bad(huge_cutoff 1 "neighbour cut-off (of 1000.3 need at least|.* makes no sense)" "line:in.lj.miniMD:13:1000 0.3"
           -s 4 -n 10)
minimd_bad(blow_up 2 "step 20: .*(box length|sub-domain|non-finite|not finite)"
           "line:in.lj.miniMD:9:0.5" -s 6 -n 100)
# a run that ends before its next re-neighbouring (every 20 steps) is checked too: it had
# exited 0 with U = 0, the atoms 13 box lengths away
minimd_bad(blow_up_late 2 "step 19: atom [0-9]+ moved more than a box length"
           "line:in.lj.miniMD:10:1e6 temperature" -s 4 -n 19)
minimd_bad(blow_up.np4 4 "step 20: .*(sub-domain|box length|not finite)"
           "line:in.lj.miniMD:9:0.2" -s 6 -n 40)
minimd_bad(blow_up.device_reneighbor.np4 4 "step 20: .*(sub-domain|not finite)"
           "line:in.lj.miniMD:9:0.2" -s 6 -n 40)
set_property(TEST minimd.bad.blow_up.device_reneighbor.np4 APPEND PROPERTY ENVIRONMENT
             "MINIMD_DEVICE_RENEIGHBOR=1")
# a run that blows up starts, then fails: exit status 1, not bad input's 2
foreach(_t blow_up blow_up_late blow_up.np4 blow_up.device_reneighbor.np4)
  set_property(TEST minimd.bad.${_t} APPEND PROPERTY ENVIRONMENT "EXPECT_STATUS=1")
endforeach()
minimd_bad(data_missing 1 "cannot open the data file '1m.data'" "line:in.lj.miniMD:4:1m.data"
           -s 4 -n 10)
minimd_bad(data_short 2 "lj4.data: the file ends in section Atoms after 100 of 256 lines"
           "head:lj4.data:115" -i in.lj-data.miniMD -n 10)
minimd_bad(data_bad_atom 2 "lj4.data:20: expected 'id type x y z'" "line:lj4.data:20:3 1 0.5 x 2"
           -i in.lj-data.miniMD -n 10)
# read as a silently different system before: a row without its type column (sscanf took
# the type from the x coordinate's first digit), a header with fewer atoms than rows (the rest
# skipped as an unknown section), a misspelt section name (its rows skipped)
minimd_bad(data_no_type 1 "lj4.data:17: expected 'id type x y z'"
           "line:lj4.data:17:2 1.6653316834 6.6938960925 0.0007409281" -i in.lj-data.miniMD -n 10)
minimd_bad(data_few_atoms 1 "lj4.data:216: a line of numbers where a section name was expected"
           "line:lj4.data:3:200 atoms" -i in.lj-data.miniMD -n 10)
# the other sections LAMMPS defines are skipped, rows and all (write_data writes Pair Coeffs)
minimd_bad(data_pair_coeffs 1 "ok:^20 [-0-9.e+]+ " "insert:lj4.data:13:Pair Coeffs # lj/cut||1 1 1|"
           -i in.lj-data.miniMD -n 20)
# the YAML report on a full file system: a message, no partial report, the results written
# first (it had been written before them, and its failure stopped the run without them)
porta_app_test(minimd.yaml_full 1 TIMEOUT 60
            COMMAND sh "${PORTA_APP_TEST_DIR}/minimd_yaml_full.sh" $<TARGET_FILE:minimd> "${_mdin}")
set_property(TEST minimd.yaml_full PROPERTY SKIP_RETURN_CODE 77)
# The HDF5 result on a full file system (tests/app/app_h5_safety.sh, case full, as TeaLeaf's
# and miniFE's): exit 1, "No space left on device while writing the result 'res.h5'" first,
# no temporary left, an earlier res.h5 unchanged. Skipped (77) without a private tmpfs.
porta_app_test(minimd.h5_safety.full.np2 2 TIMEOUT 120
            COMMAND sh "${PORTA_APP_TEST_DIR}/app_h5_safety.sh" full "${_mpi}" 2
                    $<TARGET_FILE:minimd> $<TARGET_FILE:test_app_h5_safety>
                    -i "${_mdin}/in.lj.miniMD" -s 4 -n 10)
set_property(TEST minimd.h5_safety.full.np2 PROPERTY SKIP_RETURN_CODE 77)
# The same with snapshots (--dump-every 1): the first snapshot fills the file system, and its
# message says the cause once, first, with the result's name (APP_H5_CHECK in minimd_steps.c).
porta_app_test(minimd.h5_safety.full_dump.np2 2 TIMEOUT 120
            COMMAND sh "${PORTA_APP_TEST_DIR}/app_h5_safety.sh" full "${_mpi}" 2
                    $<TARGET_FILE:minimd> $<TARGET_FILE:test_app_h5_safety>
                    -i "${_mdin}/in.lj.miniMD" -s 4 -n 10 --dump-every 1)
set_property(TEST minimd.h5_safety.full_dump.np2 PROPERTY SKIP_RETURN_CODE 77)
# A file system that fills at the result's last writes (issue 68; see TeaLeaf's
# tealeaf.h5_safety.full_at_close): none hangs, exit 0 with the result or 1 naming the cause.
porta_app_test(minimd.h5_safety.full_at_close.np2 2 TIMEOUT 600
            COMMAND sh "${PORTA_APP_TEST_DIR}/app_h5_safety.sh" full_at_close "${_mpi}" 2
                    $<TARGET_FILE:minimd> $<TARGET_FILE:test_app_h5_safety>
                    -i "${_mdin}/in.lj.miniMD" -s 3)
set_property(TEST minimd.h5_safety.full_at_close.np2 PROPERTY SKIP_RETURN_CODE 77)
# the summary would have been renamed over the potential the deck names
minimd_bad(summary_over_potential 2 "--summary-json: the result Cu_u6.eam would replace 'Cu_u6.eam', the EAM potential" "-"
           -i in.eam.miniMD -s 4 -n 10 --summary-json Cu_u6.eam)
minimd_bad(data_section_name 1 "lj4.data:273: unknown section 'Velocity'"
           "line:lj4.data:273:Velocity" -i in.lj-data.miniMD -n 10)
# where the reference crashes (thermo every 0: integer division by zero) or misreads (a blank
# line in the potential: a segmentation fault), Porta runs: the start and the end only; the
# blank line ignored
minimd_bad(thermo0 1 "ok:^60 [-0-9.e+]+ " "line:in.lj.miniMD:14:0 thermo" -s 4 -n 60)
minimd_bad(potential_blank 1 "ok:^0 6.000000e\\+02 " "blank:Cu_u6.eam:40" -i in.eam.miniMD -s 4
           -n 10)

# Reliability sweep 2 (binning, sizes, blow-ups, reports). Bins in 64-bit arithmetic, fewer
# where -b or a data file's box asks for absurdly many (each case gives the default bins'
# thermo line): UBSan had reported signed overflows and the runs had asked for terabytes.
minimd_bad(bins_5000_s1 1 "ok:^10 9.757417e-01 -6.257000e\\+00 -2.995444e\\+00 " - -s 1 -n 10
           -b 5000)
minimd_bad(bins_20000 1 "ok:^10 1.029734e\\+00 -6.158103e\\+00 -1.866004e\\+00 " - -s 4 -n 10
           -b 20000)
minimd_bad(bins_100000 2 "ok:^10 1.029734e\\+00 -6.158103e\\+00 -1.866004e\\+00 " - -s 4 -n 10
           -b 100000)
minimd_bad(bins_eam_20000 1 "ok:^10 5.671758e\\+02 -3.550095e\\+06 -1.619468e\\+05 " -
           -i in.eam.miniMD -s 4 -n 10 -b 20000)
minimd_bad(bins_1000_s16 1 "ok:reduced to 50 50 50" - -s 16 -n 1 -b 1000)
# two atoms in a box of side 5000, and a box whose corner is at 1e9: the same run
minimd_bad(data_big_box 1 "ok:^10 2.251688e-03 -1.618570e-01 " - -i in.lj-data.miniMD
           -f "${PORTA_APP_TEST_DIR}/decks/big_box.data" -n 10)
minimd_bad(data_far_box 1 "ok:^10 2.251688e-03 -1.618570e-01 " - -i in.lj-data.miniMD
           -f "${PORTA_APP_TEST_DIR}/decks/far_box.data" -n 10)
# the neighbour lists' memory from the density and the cut-off, before any list is built
# (density 1e5 had crashed; a cut-off of 100 had run for minutes)
minimd_bad(density_1e5 1 "density 100000 with a neighbour cut-off of 2.8 need at least"
           "line:in.lj.miniMD:11:1e5 density" -n 10)
minimd_bad(cutoff_100 1 "with a neighbour cut-off of 100.3 need at least"
           "line:in.lj.miniMD:13:100 0.3" -n 10)
# a box less than half the neighbour cut-off wide, refused at set-up naming the density, the
# box and the cut-off (density 1e5 at -s 4: a box of 0.14 against 2.8 had built ghosts for 84 s
# before its atoms left the box at step 2); -s 1 (0.6 cut-offs) runs (bins_5000_s1)
minimd_bad(box_under_cutoff 1
           "box 0.136798 x 0.136798 x 0.136798 \\(density 100000, 256 atoms\\) is less than half the neighbour cut-off 2.8 \\(force cut-off 2.5 \\+ skin 0.3\\)"
           "line:in.lj.miniMD:11:1e5 density" -s 4 -n 10)
set_tests_properties(minimd.bad.box_under_cutoff PROPERTIES TIMEOUT 60)
set_property(TEST minimd.bad.box_under_cutoff APPEND PROPERTY ENVIRONMENT "RUN_TIMEOUT=30")
# a data file's box, narrow in x alone: 2 atoms in 1 x 10 x 10
minimd_bad(data_box_under_cutoff 1 "box 1 x 10 x 10 .* less than half the neighbour cut-off 2.8 .* wide in x"
           - -i in.lj-data.miniMD -f "${PORTA_APP_TEST_DIR}/decks/thin_box.data" -n 10)
set_tests_properties(minimd.bad.data_box_under_cutoff PROPERTIES TIMEOUT 60)
set_property(TEST minimd.bad.data_box_under_cutoff APPEND PROPERTY ENVIRONMENT "RUN_TIMEOUT=30")
# temperature and density swapped in the EAM deck: stopped when its energy explodes
minimd_bad(eam_swapped 1 "step 10: the energy per atom .* has blown up.*density \\(1.44\\)" -
           -i "${PORTA_APP_TEST_DIR}/decks/eam_swapped.miniMD" -s 4 -n 30)
set_property(TEST minimd.bad.eam_swapped APPEND PROPERTY ENVIRONMENT "EXPECT_STATUS=1")
# the Performance Summary's times add up, and its thread count is what ran
porta_app_test(minimd.perf_summary.serial 1 TIMEOUT 120
               COMMAND "${PORTA_APP_TEST_DIR}/minimd_perf_summary.sh" "${_mpi}" $<TARGET_FILE:minimd>
                       "${_mdin}/in.lj.miniMD" serial 1 -s 8 -n 10 -t 2)
porta_app_test(minimd.perf_summary.openmp 1 TIMEOUT 120
               COMMAND "${PORTA_APP_TEST_DIR}/minimd_perf_summary.sh" "${_mpi}" $<TARGET_FILE:minimd>
                       "${_mdin}/in.lj.miniMD" openmp 2 -s 8 -n 10 -t 2)

# Input files (reliability sweep 2): the data file and the EAM potential read with the deck's
# protections (apps/minimd/minimd_input.c): only regular files (/dev/zero and a FIFO without a
# writer had hung), lines of any length (a 4 KiB buffer had refused long comments and tables on
# one line), every number wholly of its kind ("1.5 1.0" had been read as mass .5), and table
# steps whose spans are finite (1e308 had overflowed an allocation's count).
minimd_bad(data_dev_zero 1 "data file '/dev/zero' is a character device: it must be a regular file"
           - -i in.lj-data.miniMD -f /dev/zero -n 10)
minimd_bad(data_fifo 1 "data file '.*lj4.data' is a FIFO" "fifo:lj4.data" -i in.lj-data.miniMD
           -n 10)
minimd_bad(eam_dev_zero 1 "EAM potential file '.*Cu_u6.eam' is a character device"
           "link:Cu_u6.eam:/dev/zero" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_fifo 2 "EAM potential file '.*Cu_u6.eam' is a FIFO" "fifo:Cu_u6.eam"
           -i in.eam.miniMD -s 4 -n 10)
# the same with the deck named by a path with a folder (absolute, or ./): the files beside it
# had been tried with a blocking open before the check, and the run waited for ever on the FIFO;
# the deck itself as a FIFO without a writer reads as empty, either way it is named
minimd_bad(data_fifo_abs 1 "data file '/.*/lj4.data' is a FIFO" "fifo:lj4.data"
           -i @DIR@/in.lj-data.miniMD -n 10)
minimd_bad(data_fifo_dot 1 "data file './lj4.data' is a FIFO" "fifo:lj4.data"
           -i ./in.lj-data.miniMD -n 10)
minimd_bad(eam_fifo_abs 1 "EAM potential file '/.*/Cu_u6.eam' is a FIFO" "fifo:Cu_u6.eam"
           -i @DIR@/in.eam.miniMD -s 4 -n 10)
minimd_bad(deck_fifo 1 "in.lj.miniMD: the input deck is empty" "fifo:in.lj.miniMD"
           -i in.lj.miniMD -n 10)
minimd_bad(deck_fifo_abs 1 "/.*/in.lj.miniMD: the input deck is empty" "fifo:in.lj.miniMD"
           -i @DIR@/in.lj.miniMD -n 10)
foreach(_t data_fifo eam_fifo data_fifo_abs data_fifo_dot eam_fifo_abs deck_fifo deck_fifo_abs)
  set_tests_properties(minimd.bad.${_t} PROPERTIES TIMEOUT 60)
  set_property(TEST minimd.bad.${_t} APPEND PROPERTY ENVIRONMENT "RUN_TIMEOUT=30")
endforeach()
minimd_bad(eam_drho_huge 1 "Cu_u6.eam:3: tables of .* span .*inf"
           "line:Cu_u6.eam:3:500 1e308 500 1.0e-02 4.95" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_dr_huge 1 "Cu_u6.eam:3: tables of .* span"
           "line:Cu_u6.eam:3:500 5.0e-04 500 1e308 4.95" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_drho_nan 1 "Cu_u6.eam:3: .*'nan' is not one"
           "line:Cu_u6.eam:3:500 nan 500 1.0e-02 4.95" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_nrho_huge 1 "Cu_u6.eam:3: .*'2000000000' is not one"
           "line:Cu_u6.eam:3:2000000000 5.0e-04 500 1.0e-02 4.95" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_z_fraction 1 "Cu_u6.eam:2: .*'29.5' is not a whole number"
           "line:Cu_u6.eam:2:29.5 63.550" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(data_mass_fraction 1 "lj4.data:12: expected .type mass.: a whole number" "line:lj4.data:12:1.5 1.0"
           -i in.lj-data.miniMD -n 10)
minimd_bad(data_natoms_fraction 1 "lj4.data:3: expected the number of atoms, a whole number"
           "line:lj4.data:3:256.5 atoms" -i in.lj-data.miniMD -n 10)
# 2e9 atoms declared: refused from the header, before the arrays are allocated
minimd_bad(data_too_many_atoms 1 "lj4.data:.*2000000000 atoms: their positions and velocities"
           "line:lj4.data:3:2000000000 atoms" -i in.lj-data.miniMD -n 10)
# (on the Serial back end in every build: the refusal is the data file's, and a GPU build's
# CUDA would keep the address-space limit off, leaving a node of 128 GB room for the atoms)
set_property(TEST minimd.bad.data_too_many_atoms APPEND PROPERTY ENVIRONMENT "VMEM_KB=4000000"
             "PORTA_BACKEND=serial")
# long lines are read whole: the same thermo line as the unchanged files
string(REPEAT "x" 5000 _long)
minimd_bad(data_long_title 1 "ok:^10 2.882608e-01 -6.672203e\\+00 " "line:lj4.data:1:${_long}"
           -i in.lj-data.miniMD -n 10)
minimd_bad(eam_long_comment 1 "ok:^10 5.671758e\\+02 -3.550095e\\+06 "
           "line:Cu_u6.eam:1:${_long}" -i in.eam.miniMD -s 4 -n 10)
minimd_bad(eam_table_one_line 1 "ok:^10 5.671758e\\+02 -3.550095e\\+06 " "join:Cu_u6.eam:4:103"
           -i in.eam.miniMD -s 4 -n 10)

# In a job limited to 1.5 GB (a memory cgroup, or ulimit -v where none can be made), -s 150 is
# refused naming the estimate and the limit (the OOM killer had ended it)
porta_app_test(minimd.bad.job_memory_limit 1 TIMEOUT 180
               COMMAND "${PORTA_APP_TEST_DIR}/app_memory_limit.sh" "${_mpi}"
                       "13500000 atoms .* need at least .* times the (job's cgroup|address-space) limit"
                       $<TARGET_FILE:minimd> -i "${_mdin}/in.lj.miniMD" -s 150 -n 1 --no-h5)
set_tests_properties(minimd.bad.job_memory_limit PROPERTIES SKIP_RETURN_CODE 77)
# -s and -nx as the reference takes them: ny and nz follow -nx only without -s (4 x 3 x 2 x 2 =
# 48 atoms in either order; -s 2 -nx 3 had run 3 x 3 x 3)
minimd_bad(size_then_nx 1 "ok:# Atoms: 48$" - -s 2 -nx 3 -n 1)
minimd_bad(nx_then_size 1 "ok:# Atoms: 48$" - -nx 3 -s 2 -n 1)
minimd_bad(nx_alone 1 "ok:# Atoms: 108$" - -nx 3 -n 1)
# an environment switch set differently on different ranks is refused, naming the values (the
# job had hung)
foreach(np 2 3)
  porta_app_test(minimd.bad.env_ranks_differ.np${np} ${np} TIMEOUT 180
                 COMMAND "${PORTA_APP_TEST_DIR}/app_env_ranks.sh" "${_mpi}" ${np}
                         $<TARGET_FILE:minimd> MINIMD_DEVICE_RENEIGHBOR 1 0
                         "MINIMD_DEVICE_RENEIGHBOR differs between the ranks \\('1' on rank 0, '0' on rank 1"
                         -i "${_mdin}/in.lj.miniMD" -s 4 -n 10 --no-h5)
endforeach()
# results never written over the run's inputs (by inode): the deck as run.xmf or r.h5, the data
# file as atoms.h5 (each had been replaced by a result)
set(_over "${PORTA_APP_TEST_DIR}/app_out_over_input.sh" "${_mpi}")
porta_app_test(minimd.bad.out_over_deck_xmf 2 COMMAND ${_over} 2 $<TARGET_FILE:minimd>
               "${_mdin}/in.lj.miniMD" run.xmf "the result run.xmf would replace 'run.xmf', the deck"
               -i run.xmf --out=run -s 4 -n 5)
porta_app_test(minimd.bad.out_over_deck_h5 1 COMMAND ${_over} 1 $<TARGET_FILE:minimd>
               "${_mdin}/in.lj.miniMD" r.h5 "the result r.h5 would replace 'r.h5', the deck"
               -i r.h5 --out=r -s 4 -n 5)
porta_app_test(minimd.bad.out_over_data 2 COMMAND ${_over} 2 $<TARGET_FILE:minimd>
               "${_mdin}/lj4.data" atoms.h5 "the result atoms.h5 would replace '.*atoms.h5', the data file"
               -i "${_mdin}/in.lj-data.miniMD" -f atoms.h5 --out=atoms -n 5)
# --dump-every's series, one frame per time: -n 0 is step 0 alone (it had been written twice, a
# snapshot and /final at time 0, and ParaView showed no points); -n 2 every step is 0, 1, 2
find_program(PORTA_H5LS_EXECUTABLE NAMES h5ls h5ls.openmpi DOC "HDF5's h5ls")
set(_h5ls "-")
if(PORTA_H5LS_EXECUTABLE)
  set(_h5ls "${PORTA_H5LS_EXECUTABLE}")
endif()
porta_app_test(minimd.dump_frames.n0 1 TIMEOUT 60
               COMMAND "${PORTA_APP_TEST_DIR}/minimd_dump_frames.sh" "${_mpi}" $<TARGET_FILE:minimd>
                       "${_h5ls}" "0" -i "${_mdin}/in.lj.miniMD" -s 4 -n 0 --dump-every 1)
porta_app_test(minimd.dump_frames.n2 1 TIMEOUT 60
               COMMAND "${PORTA_APP_TEST_DIR}/minimd_dump_frames.sh" "${_mpi}" $<TARGET_FILE:minimd>
                       "${_h5ls}" "0,0.0050000000000000001,0.01" -i "${_mdin}/in.lj.miniMD" -s 4
                       -n 2 --dump-every 1)
# a summary whose paths are not UTF-8 is still UTF-8 JSON
porta_app_test(minimd.summary_utf8 1 COMMAND "${PORTA_APP_TEST_DIR}/app_summary_utf8.sh" "${_mpi}"
               $<TARGET_FILE:minimd> "${_mdin}/in.lj.miniMD" -s 4 -n 5)
set_tests_properties(minimd.summary_utf8 PROPERTIES SKIP_RETURN_CODE 77)
# --out paths of 2,000 characters kept whole; long paths' errors keep their reason
porta_app_test(minimd.long_out 1 COMMAND "${PORTA_APP_TEST_DIR}/app_long_out.sh" "${_mpi}"
               $<TARGET_FILE:minimd> -i "${_mdin}/in.lj.miniMD" -s 4 -n 5)
# 2 ranks x as many threads as CPUs start again with fewer OpenMP spins and say so first; the
# user's wait policy, one rank and Serial are left alone (tests/app/app_omp_wait.sh)
porta_app_test(minimd.omp_wait.np2 2 TIMEOUT 300
               COMMAND "${PORTA_APP_TEST_DIR}/app_omp_wait.sh" "${_mpi}" $<TARGET_FILE:minimd>
                       "^[12] [0-9]+ 10 256 .*PERF_SUMMARY" ${_lj} -s 4 -n 10 --no-h5)
# --summary-json into streams (issue 68, point 5); --out names whose results fit NAME_MAX work,
# longer ones are refused at start (point 13)
porta_app_test(minimd.summary_stream 1 TIMEOUT 120
               COMMAND sh "${PORTA_APP_TEST_DIR}/app_summary_stream.sh" "${_mpi}"
                       $<TARGET_FILE:minimd> ${_lj} -s 4 -n 5)
porta_app_test(minimd.out_name_max 1 TIMEOUT 120
               COMMAND sh "${PORTA_APP_TEST_DIR}/app_out_name_max.sh" "${_mpi}"
                       $<TARGET_FILE:minimd> ${_lj} -s 4 -n 5)
# The files after the result on a full file system (tests/app/app_out_full.sh, as miniFE's;
# issue 68, point 12). Skipped (77) without a private tmpfs.
foreach(c xmf json)
  porta_app_test(minimd.out_full.${c}.np2 2 TIMEOUT 120
                 COMMAND sh "${PORTA_APP_TEST_DIR}/app_out_full.sh" ${c} "${_mpi}" 2
                         $<TARGET_FILE:minimd> -i "${_mdin}/in.lj.miniMD" -s 4 -n 10)
  set_property(TEST minimd.out_full.${c}.np2 PROPERTY SKIP_RETURN_CODE 77)
endforeach()
