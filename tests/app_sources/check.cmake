# cmake -DPORTA_SOURCE_DIR=... -DWORK_DIR=... -P check.cmake
# The apps' source lists (cmake/PortaAppSources.cmake) stop the configuration, naming the file,
# where a listed source is missing (deleted or renamed) or a .c file is in no list; a folder
# whose files are all listed configures. Each case is a small project in WORK_DIR that
# includes the module and lists one folder's files.
if(NOT PORTA_SOURCE_DIR OR NOT WORK_DIR)
  message(FATAL_ERROR "check.cmake: give -DPORTA_SOURCE_DIR=... -DWORK_DIR=...")
endif()

set(failures 0)
#   check_case(NAME FILES "a.c;b.c" SOURCES "a.c" KERNEL_SOURCES "b.c" [EXPECT regex])
# FILES exist in the folder; EXPECT: the configuration must fail and say this (else succeed).
function(check_case name)
  cmake_parse_arguments(C "" "EXPECT" "FILES;SOURCES;KERNEL_SOURCES" ${ARGN})
  set(src "${WORK_DIR}/${name}/src")
  file(REMOVE_RECURSE "${WORK_DIR}/${name}")
  file(MAKE_DIRECTORY "${src}/app")
  foreach(f IN LISTS C_FILES)
    file(WRITE "${src}/app/${f}" "int x_${name};\n")
  endforeach()
  file(WRITE "${src}/CMakeLists.txt"
       "cmake_minimum_required(VERSION 3.20)\nproject(app_sources_${name} NONE)\n"
       "function(porta_kernel_sources)\nendfunction()\n"
       "include(\"${PORTA_SOURCE_DIR}/cmake/PortaAppSources.cmake\")\n"
       "porta_apps_sources(srcs DIR \"\${CMAKE_CURRENT_SOURCE_DIR}/app\" SOURCES ${C_SOURCES} "
       "KERNEL_SOURCES ${C_KERNEL_SOURCES})\nmessage(STATUS \"sources: \${srcs}\")\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${src}" -B "${WORK_DIR}/${name}/build"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " said "${out}${err}") # message() wraps long lines
  if(C_EXPECT)
    if(rc EQUAL 0 OR NOT said MATCHES "${C_EXPECT}")
      message(SEND_ERROR "${name}: the configuration should fail saying '${C_EXPECT}' "
                         "(exit ${rc}):\n${out}${err}")
    else()
      message(STATUS "${name}: refused as expected")
    endif()
  elseif(NOT rc EQUAL 0)
    message(SEND_ERROR "${name}: the configuration should succeed (exit ${rc}):\n${out}${err}")
  else()
    message(STATUS "${name}: configured")
  endif()
endfunction()

check_case(complete FILES "a.c;k.c" SOURCES "a.c" KERNEL_SOURCES "k.c")
check_case(missing FILES "a.c" SOURCES "a.c" KERNEL_SOURCES "k.c"
           EXPECT "app/k.c is listed in apps/CMakeLists.txt but does not exist")
check_case(renamed FILES "a_new.c;k.c" SOURCES "a.c" KERNEL_SOURCES "k.c"
           EXPECT "app/a.c is listed in apps/CMakeLists.txt but does not exist")
check_case(unlisted FILES "a.c;k.c;extra.c" SOURCES "a.c" KERNEL_SOURCES "k.c"
           EXPECT "app/extra.c is in neither SOURCES nor KERNEL_SOURCES")
