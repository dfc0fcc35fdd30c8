# gles_demo_modes: every misuse and control switch runs and renders the very image of the
# default mode (the switches change how the frame is read back, synchronised or updated,
# never what is drawn), alone and all together; so do --no-swap, --no-surface (composite into
# a framebuffer object instead of the pbuffer), --no-groups, --threads, --timings,
# --debug-callback and --gl-errors.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

set(frames 5)
gles_demo_run(ref "${DEMO}" --frames ${frames} --output ref.ppm)
gles_demo_ok(ref)

set(all_misuse)
set(all_control)
set(n 0)
foreach(m IN LISTS gles_demo_misuses)
  foreach(kind misuse control)
    gles_demo_run(run "${DEMO}" --frames ${frames} --${kind} ${m} --output ${kind}-${m}.ppm)
    gles_demo_ok(run)
    gles_demo_same_file("${WORK_DIR}/ref.ppm" "${WORK_DIR}/${kind}-${m}.ppm" "--${kind} ${m}")
    math(EXPR n "${n} + 1")
  endforeach()
  list(APPEND all_misuse --misuse ${m})
  list(APPEND all_control --control ${m})
endforeach()
if(NOT n EQUAL 16)
  message(FATAL_ERROR "ran ${n} switches, not 16")
endif()

gles_demo_run(run "${DEMO_DLOPEN}" --frames ${frames} ${all_misuse} --output all-misuse.ppm)
gles_demo_ok(run)
gles_demo_same_file("${WORK_DIR}/ref.ppm" "${WORK_DIR}/all-misuse.ppm" "every misuse at once")
gles_demo_run(run "${DEMO_DLOPEN}" --frames ${frames} ${all_control} --output all-control.ppm)
gles_demo_ok(run)
gles_demo_same_file("${WORK_DIR}/ref.ppm" "${WORK_DIR}/all-control.ppm" "every control at once")

foreach(extra "--no-swap" "--no-surface" "--no-groups" "--threads|2" "--timings" "--debug-callback"
              "--gl-errors|errors.txt")
  string(REPLACE "|" ";" argv "${extra}")
  string(REGEX REPLACE "[^a-z]" "" tag "${extra}")
  gles_demo_run(run "${DEMO}" --frames ${frames} ${argv} --output extra-${tag}.ppm)
  gles_demo_ok(run)
  gles_demo_same_file("${WORK_DIR}/ref.ppm" "${WORK_DIR}/extra-${tag}.ppm" "${extra}")
endforeach()
