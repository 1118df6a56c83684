# The apps' source lists (apps/CMakeLists.txt), checked at configuration: an app is never
# skipped or built from fewer files than it lists. tests/app_sources/check.cmake runs it on
# folders with a missing and with an unlisted file (test build.app_sources).

#   porta_apps_sources(VAR DIR dir SOURCES a.c ... KERNEL_SOURCES k.c ...)
# The sources of one folder, listed by hand: KERNEL_SOURCES are the files that define Porta
# kernels (nvcc compiles them on CUDA builds; a kernel in a file not listed there stops a CUDA
# build naming the kernel), SOURCES the others. A listed file that is missing (or renamed), or
# a .c file in the folder that is in neither list, is a configuration error naming it. VAR gets
# every path. Needs porta_kernel_sources (the top-level CMakeLists.txt).
function(porta_apps_sources var)
  cmake_parse_arguments(A "" "DIR" "SOURCES;KERNEL_SOURCES" ${ARGN})
  set(all "")
  foreach(f IN LISTS A_SOURCES A_KERNEL_SOURCES)
    if(NOT EXISTS "${A_DIR}/${f}")
      message(FATAL_ERROR "apps: ${A_DIR}/${f} is listed in apps/CMakeLists.txt but does not exist")
    endif()
    list(APPEND all "${A_DIR}/${f}")
  endforeach()
  file(GLOB present CONFIGURE_DEPENDS "${A_DIR}/*.c")
  foreach(f IN LISTS present)
    if(NOT f IN_LIST all)
      message(FATAL_ERROR "apps: ${f} is in neither SOURCES nor KERNEL_SOURCES of its folder in "
                          "apps/CMakeLists.txt (KERNEL_SOURCES if it defines Porta kernels)")
    endif()
  endforeach()
  list(TRANSFORM A_KERNEL_SOURCES PREPEND "${A_DIR}/")
  porta_kernel_sources(${A_KERNEL_SOURCES})
  set(${var} ${all} PARENT_SCOPE)
endfunction()
