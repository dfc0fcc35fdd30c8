# demo_image_deterministic: the same command line gives the same PPM bytes; neither the
# render-pass API style nor the synchronisation mode changes a pixel; and the image does
# depend on what was rendered (another frame count gives other bytes).
include(${CMAKE_CURRENT_LIST_DIR}/demo_common.cmake)

set(size --width 160 --height 90)
set(expected_bytes 43214) # "P6\n160 90\n255\n" (14 bytes) + 160 * 90 * 3

function(render name)
  file(REMOVE "${WORK_DIR}/${name}.ppm")
  demo_run(run ${size} --output ${name}.ppm ${ARGN})
  if(NOT run_rc STREQUAL "0")
    message(FATAL_ERROR "${name}: passprobe-demo exited with '${run_rc}':\n${run_all}")
  endif()
  file(SIZE "${WORK_DIR}/${name}.ppm" bytes)
  file(READ "${WORK_DIR}/${name}.ppm" header LIMIT 14)
  if(NOT bytes EQUAL expected_bytes OR NOT header STREQUAL "P6\n160 90\n255\n")
    message(FATAL_ERROR "${name}.ppm: ${bytes} bytes, header '${header}'")
  endif()
endfunction()

function(expect_same a b)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/${a}.ppm"
                          "${WORK_DIR}/${b}.ppm" RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${a}.ppm and ${b}.ppm differ")
  endif()
endfunction()

render(first --frames 3)
render(second --frames 3)
expect_same(first second)

render(other_apis --frames 3 --renderpass-only --frames-in-flight 1 --no-labels --submit2
       --barrier2 --misuse-barriers --misuse-query-wait --misuse-wait-idle)
expect_same(first other_apis)
render(dynamic --frames 3 --dynamic-only --frames-in-flight 3 --load lighting=3)
expect_same(first dynamic)

render(later --frames 4)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/first.ppm"
                        "${WORK_DIR}/later.ppm" RESULT_VARIABLE differ)
if(NOT differ)
  message(FATAL_ERROR "frames 3 and 4 rendered identical images: the image does not depend "
                      "on the frame, so it cannot show that rendering happened")
endif()
