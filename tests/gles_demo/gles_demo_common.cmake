# Included by the GLES demo test scripts: checks the arguments, prepares WORK_DIR and
# XDG_RUNTIME_DIR, and offers gles_demo_run() and the checks shared by the scripts.
foreach(var DEMO DEMO_DLOPEN)
  if(NOT ${var} OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "${var} must name a GLES demo binary (got '${${var}}')")
  endif()
endforeach()
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

# gles_demo_run(<prefix> <binary> args...): runs a build in WORK_DIR; sets <prefix>_rc,
# <prefix>_out (stdout), <prefix>_err (stderr) and <prefix>_all in the caller's scope.
function(gles_demo_run prefix binary)
  execute_process(COMMAND "${binary}" ${ARGN}
                  WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out
                  ERROR_VARIABLE err
                  TIMEOUT 240)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
  set(${prefix}_all "${out}${err}" PARENT_SCOPE)
endfunction()

# gles_demo_ok(<prefix>): the run rendered; exit 77 (no EGL/GLES 3.2 here) skips the test.
# A macro, so that return() ends the calling script.
macro(gles_demo_ok prefix)
  if("${${prefix}_rc}" STREQUAL "77")
    message(STATUS "GLES_DEMO_SKIP: EGL/OpenGL ES 3.2 unavailable: ${${prefix}_err}")
    return()
  endif()
  if(NOT "${${prefix}_rc}" STREQUAL "0")
    message(FATAL_ERROR "the demo exited with '${${prefix}_rc}':\n${${prefix}_all}")
  endif()
  if(NOT "${${prefix}_out}" MATCHES "pp_gles_demo: rendered [0-9]+ frames \\(5 passes, (direct|dlopen) build, [0-9]+ threads\\)\n$")
    message(FATAL_ERROR "no summary line at the end:\n${${prefix}_all}")
  endif()
endmacro()

# gles_demo_lines(<var> <text> <regex>): the lines of text matching regex, as a list.
function(gles_demo_lines var text regex)
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(found)
  foreach(line IN LISTS lines)
    if(line MATCHES "${regex}")
      list(APPEND found "${line}")
    endif()
  endforeach()
  set(${var} "${found}" PARENT_SCOPE)
endfunction()

# gles_demo_same_file(<a> <b> <what>): fails unless the two files are byte-identical.
function(gles_demo_same_file a b what)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${a}" "${b}" RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "${what}: ${a} and ${b} differ")
  endif()
endfunction()

set(gles_demo_misuses readpixels finish query-result clientwaitsync map-sync texsubimage
    bufsubdata-static tile-load-store)
