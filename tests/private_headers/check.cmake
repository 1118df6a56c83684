# cmake -DROOT=DIR [-DSKIP=PATH;...] -P check.cmake
# A library's private headers (*_private.h) are its own: a file may include one only from the
# header's folder or below it (core/src/backend_private.h from core/src/**, the exchange
# library's src/exchange_private.h from core/exchange/src/**, apps/common's from apps/common).
# Fails naming every file that includes another library's private header. The include is
# resolved as the compiler would first try it (beside the including file); else by the
# header's file name, which is then unique in the tree (any other name fails too).
#
# Scanned: every .c, .h, .cu, .cc, .cpp and .in file under ROOT except those in folders named
# build* (build outputs, at any depth), hidden folders (.git/, a tool's .gpu/ or .cache/ copies,
# at any depth) and the SKIP paths (a build directory inside the tree).
cmake_minimum_required(VERSION 3.20)
if(NOT ROOT OR NOT IS_DIRECTORY "${ROOT}")
  message(FATAL_ERROR "check.cmake: give -DROOT=<source folder>")
endif()
get_filename_component(ROOT "${ROOT}" REALPATH)

file(GLOB tops LIST_DIRECTORIES true "${ROOT}/*")
set(files "")
foreach(top IN LISTS tops)
  get_filename_component(name "${top}" NAME)
  if(name MATCHES "^(build.*|\\..*)$" OR top IN_LIST SKIP)
    continue()
  endif()
  if(IS_DIRECTORY "${top}")
    file(GLOB_RECURSE found "${top}/*.c" "${top}/*.h" "${top}/*.cu" "${top}/*.cc" "${top}/*.cpp"
         "${top}/*.in")
    foreach(f IN LISTS found)
      file(RELATIVE_PATH r "${ROOT}" "${f}")
      set(skipped 0)
      if(r MATCHES "(^|/)(build[^/]*|\\.[^/]*)/")
        set(skipped 1) # build outputs (python/build: setuptools' copies of the sources), hidden
      endif()
      foreach(s IN LISTS SKIP)
        string(FIND "${f}" "${s}/" at)
        if(at EQUAL 0)
          set(skipped 1)
        endif()
      endforeach()
      if(NOT skipped)
        list(APPEND files "${f}")
      endif()
    endforeach()
  elseif(name MATCHES "\\.(c|h|cu|cc|cpp|in)$")
    list(APPEND files "${top}")
  endif()
endforeach()

# every private header, by file name
set(privates "")
foreach(f IN LISTS files)
  get_filename_component(name "${f}" NAME)
  if(name MATCHES "_private\\.h$")
    list(APPEND privates "${f}")
  endif()
endforeach()

set(bad 0)
set(scanned 0)
foreach(f IN LISTS files)
  file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][^\">]*_private\\.h[\">]")
  get_filename_component(dir "${f}" DIRECTORY)
  file(RELATIVE_PATH rel "${ROOT}" "${f}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]*)[\">].*$" "\\1" inc "${line}")
    math(EXPR scanned "${scanned} + 1")
    set(header "")
    if(EXISTS "${dir}/${inc}")
      get_filename_component(header "${dir}/${inc}" REALPATH)
    else()
      get_filename_component(inc_name "${inc}" NAME)
      set(matches "")
      foreach(p IN LISTS privates)
        get_filename_component(p_name "${p}" NAME)
        if(p_name STREQUAL inc_name)
          list(APPEND matches "${p}")
        endif()
      endforeach()
      list(LENGTH matches n)
      if(n EQUAL 1)
        set(header "${matches}")
      else()
        message(SEND_ERROR "${rel} includes ${inc}: ${n} private headers of that name in the "
                           "tree, so whose it is cannot be told (give each a name of its own)")
        set(bad 1)
        continue()
      endif()
    endif()
    get_filename_component(home "${header}" DIRECTORY)
    string(FIND "${dir}/" "${home}/" at)
    if(NOT at EQUAL 0)
      file(RELATIVE_PATH header_rel "${ROOT}" "${header}")
      message(SEND_ERROR "${rel} includes ${header_rel}, a private header of another library: "
                         "use that library's public header (or move the code into it)")
      set(bad 1)
    endif()
  endforeach()
endforeach()

list(LENGTH files nfiles)
list(LENGTH privates nprivates)
if(bad)
  message(FATAL_ERROR "private headers included from outside their library (see above)")
endif()
message(STATUS "private headers: ${nprivates} headers, ${scanned} includes in ${nfiles} files, "
               "each from its own library")
