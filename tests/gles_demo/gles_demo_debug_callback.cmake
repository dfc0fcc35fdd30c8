# gles_demo_debug_callback: --debug-callback registers a KHR_debug callback (on a context
# that is not a debug context) and prints every performance message it gets: the one the
# demo inserts itself with --debug-insert reaches it; the default mode gets none; without
# the callback nothing is printed.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

foreach(binary "${DEMO}" "${DEMO_DLOPEN}")
  gles_demo_run(run "${binary}" --frames 2 --debug-callback --debug-insert)
  gles_demo_ok(run)
  gles_demo_lines(messages "${run_out}" "^debug-message ")
  if(NOT messages STREQUAL "debug-message 28784 pp_gles_demo inserted this message")
    message(FATAL_ERROR "the inserted message did not reach the callback once:\n${run_out}")
  endif()
endforeach()

gles_demo_run(quiet "${DEMO}" --frames 3 --debug-callback)
gles_demo_ok(quiet)
if(quiet_out MATCHES "debug-message")
  message(FATAL_ERROR "performance messages in the default mode:\n${quiet_out}")
endif()

gles_demo_run(nocb "${DEMO}" --frames 2 --debug-insert)
gles_demo_ok(nocb)
if(nocb_out MATCHES "debug-message")
  message(FATAL_ERROR "messages printed without --debug-callback:\n${nocb_out}")
endif()
