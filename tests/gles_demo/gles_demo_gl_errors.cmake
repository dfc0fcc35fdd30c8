# gles_demo_gl_errors: --gl-errors makes the same invalid calls at the same points each
# frame and writes the same glGetError sequence every run and in both builds, with the
# codes GL defines for those calls.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

set(frames 3)
gles_demo_run(a "${DEMO}" --frames ${frames} --gl-errors a.txt)
gles_demo_ok(a)
gles_demo_run(b "${DEMO}" --frames ${frames} --gl-errors b.txt)
gles_demo_ok(b)
gles_demo_run(dl "${DEMO_DLOPEN}" --frames ${frames} --gl-errors dl.txt)
gles_demo_ok(dl)
gles_demo_same_file("${WORK_DIR}/a.txt" "${WORK_DIR}/b.txt" "two runs")
gles_demo_same_file("${WORK_DIR}/a.txt" "${WORK_DIR}/dl.txt" "the linked and the dlopen build")

file(READ "${WORK_DIR}/a.txt" text)
set(want_points
  "frame-start 0x0000" "bind-framebuffer-bad-target 0x0500" "enable-bad-cap 0x0500"
  "viewport-negative 0x0501" "two-errors-first 0x0500" "two-errors-second 0x0000"
  "after-shadow 0x0000" "after-gbuffer 0x0000" "lighting-mid-pass 0x0500"
  "after-lighting 0x0000" "after-bloom 0x0000" "after-composite 0x0000"
  "end-query-inactive 0x0502")
set(want "")
math(EXPR last "${frames} - 1")
foreach(f RANGE ${last})
  foreach(point IN LISTS want_points)
    string(APPEND want "frame ${f} ${point}\n")
  endforeach()
endforeach()
if(NOT text STREQUAL want)
  message(FATAL_ERROR "the glGetError sequence is\n${text}\nwanted\n${want}")
endif()
