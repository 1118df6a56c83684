# Companion of test_profiling.c (included by porta_add_unit_test, see tests/CMakeLists.txt).
# The test loads tests/tools/event_tool.c, a Kokkos Tools library of our own, through
# KOKKOS_TOOLS_LIBS and reads back the events it recorded.
if(NOT TARGET porta_event_tool)
  add_library(porta_event_tool MODULE "${PROJECT_SOURCE_DIR}/tests/tools/event_tool.c")
  set_target_properties(porta_event_tool PROPERTIES
    C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/tools")
endif()
add_dependencies(${PORTA_TEST_TARGET} porta_event_tool)
# dlopen / dlsym in the test itself.
target_link_libraries(${PORTA_TEST_TARGET} PRIVATE ${CMAKE_DL_LIBS})
list(APPEND PORTA_TEST_ENVIRONMENT "KOKKOS_TOOLS_LIBS=$<TARGET_FILE:porta_event_tool>")
