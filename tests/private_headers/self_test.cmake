# cmake -DCHECK=check.cmake -DWORK_DIR=DIR -P self_test.cmake
# The check of private headers (check.cmake) on a small tree in WORK_DIR: a library whose own
# files include its private header passes (a copy in a build folder is ignored); a file outside
# it that includes the header, by name or by a relative path, fails and is named.
cmake_minimum_required(VERSION 3.20)
if(NOT CHECK OR NOT WORK_DIR)
  message(FATAL_ERROR "self_test.cmake: give -DCHECK=... -DWORK_DIR=...")
endif()
set(tree "${WORK_DIR}/tree")
file(REMOVE_RECURSE "${tree}")
file(WRITE "${tree}/lib/src/lib_private.h" "int lib_internal(void);\n")
file(WRITE "${tree}/lib/src/lib.c" "#include \"lib_private.h\"\nint lib_internal(void) { return 1; }\n")
file(WRITE "${tree}/lib/src/sub/part.c" "#include \"../lib_private.h\"\n")
file(WRITE "${tree}/lib/include/lib.h" "int lib_public(void);\n")
file(WRITE "${tree}/app/app.c" "#include \"lib.h\"\n")
# a build folder's copy of a source is no source: ignored
file(WRITE "${tree}/app/build/lib/copy.c" "#include \"lib_private.h\"\n")

function(run_check expect_ok expect_text)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${tree} -P "${CHECK}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " said "${out}${err}")
  if(expect_ok AND NOT rc EQUAL 0)
    message(SEND_ERROR "the check should pass (exit ${rc}):\n${out}${err}")
  elseif(NOT expect_ok AND (rc EQUAL 0 OR NOT said MATCHES "${expect_text}"))
    message(SEND_ERROR "the check should fail saying '${expect_text}' (exit ${rc}):\n${out}${err}")
  else()
    message(STATUS "as expected: ${said}")
  endif()
endfunction()

run_check(1 "")
# an app including the library's private header by name (its include path reaches src/)
file(WRITE "${tree}/app/app.c" "#include \"lib.h\"\n  #  include \"lib_private.h\"\n")
run_check(0 "app/app.c includes lib/src/lib_private.h, a private header of another library")
# the same through a relative path
file(WRITE "${tree}/app/app.c" "#include \"../lib/src/lib_private.h\"\n")
run_check(0 "app/app.c includes lib/src/lib_private.h")
# two private headers of one name: whose is it?
file(WRITE "${tree}/app/app.c" "#include \"lib.h\"\n")
file(WRITE "${tree}/other/src/lib_private.h" "\n")
file(WRITE "${tree}/other/src/other.c" "#include \"lib_private.h\"\n")
file(WRITE "${tree}/third/third.c" "#include \"lib_private.h\"\n")
run_check(0 "third/third.c includes lib_private.h: 2 private headers of that name")
