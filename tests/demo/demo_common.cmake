# Included by the demo test scripts: checks the arguments, prepares WORK_DIR and
# XDG_RUNTIME_DIR, and offers demo_run().
if(NOT DEMO OR NOT EXISTS "${DEMO}")
  message(FATAL_ERROR "DEMO must name the passprobe-demo binary (got '${DEMO}')")
endif()
if(NOT WORK_DIR)
  message(FATAL_ERROR "WORK_DIR is not set")
endif()
file(MAKE_DIRECTORY "${WORK_DIR}")

if("$ENV{XDG_RUNTIME_DIR}" STREQUAL "")
  set(ENV{XDG_RUNTIME_DIR} "${WORK_DIR}/xdg-runtime")
endif()
if(NOT EXISTS "$ENV{XDG_RUNTIME_DIR}")
  file(MAKE_DIRECTORY "$ENV{XDG_RUNTIME_DIR}")
  file(CHMOD "$ENV{XDG_RUNTIME_DIR}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endif()

# demo_run(<prefix> args...): runs the demo in WORK_DIR; sets <prefix>_rc, <prefix>_out
# (stdout), <prefix>_err (stderr) and <prefix>_all (both) in the caller's scope.
function(demo_run prefix)
  execute_process(COMMAND "${DEMO}" ${ARGN}
                  WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out
                  ERROR_VARIABLE err
                  TIMEOUT 300)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_all "${out}${err}" PARENT_SCOPE)
endfunction()

# demo_last_line(<var> <text>): the last non-empty line of text.
function(demo_last_line var text)
  string(STRIP "${text}" text)
  string(REGEX REPLACE "^.*\n" "" last "${text}")
  set(${var} "${last}" PARENT_SCOPE)
endfunction()

function(demo_expect_summary prefix frames draws)
  if(NOT "${${prefix}_rc}" STREQUAL "0")
    message(FATAL_ERROR "passprobe-demo exited with '${${prefix}_rc}':\n${${prefix}_all}")
  endif()
  demo_last_line(last "${${prefix}_out}")
  set(want "passprobe-demo: rendered ${frames} frames (5 passes, ${draws} draws per render pass)")
  if(NOT last STREQUAL want)
    message(FATAL_ERROR "last line is\n  '${last}'\nexpected\n  '${want}'\noutput:\n${${prefix}_all}")
  endif()
endfunction()
