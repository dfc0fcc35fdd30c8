# gles_demo_image: --output writes the last frame's image as a binary PPM, byte-identical
# across runs and between the linked and the dlopen build; another frame count gives
# another image (the sun moves each frame).
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

gles_demo_run(a "${DEMO}" --frames 5 --output a.ppm)
gles_demo_ok(a)
gles_demo_run(b "${DEMO}" --frames 5 --output b.ppm)
gles_demo_ok(b)
gles_demo_run(dl "${DEMO_DLOPEN}" --frames 5 --output dl.ppm)
gles_demo_ok(dl)
gles_demo_same_file("${WORK_DIR}/a.ppm" "${WORK_DIR}/b.ppm" "two runs of the linked build")
gles_demo_same_file("${WORK_DIR}/a.ppm" "${WORK_DIR}/dl.ppm" "the linked and the dlopen build")
gles_demo_run(dev "${DEMO}" --frames 5 --output dev.ppm --egl-platform device)
gles_demo_ok(dev)
gles_demo_same_file("${WORK_DIR}/a.ppm" "${WORK_DIR}/dev.ppm" "the surfaceless platform and an EGL device")

set(header "P6\n160 120\n255\n")
string(LENGTH "${header}" header_len)
file(SIZE "${WORK_DIR}/a.ppm" size)
math(EXPR want "${header_len} + 160 * 120 * 3")
file(READ "${WORK_DIR}/a.ppm" head LIMIT ${header_len})
if(NOT head STREQUAL header OR NOT size EQUAL want)
  message(FATAL_ERROR "a.ppm: header '${head}', ${size} bytes; want '${header}', ${want} bytes")
endif()
# Not a blank image: a row near the top (behind the city) differs from one in the middle.
math(EXPR top "${header_len} + 10 * 160 * 3")
math(EXPR middle "${header_len} + 70 * 160 * 3")
file(READ "${WORK_DIR}/a.ppm" row_top OFFSET ${top} LIMIT 480 HEX)
file(READ "${WORK_DIR}/a.ppm" row_middle OFFSET ${middle} LIMIT 480 HEX)
if(row_top STREQUAL row_middle OR row_middle MATCHES "^(000000)+$")
  message(FATAL_ERROR "a.ppm looks blank")
endif()

gles_demo_run(c "${DEMO}" --frames 6 --output c.ppm)
gles_demo_ok(c)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/a.ppm" "${WORK_DIR}/c.ppm"
                RESULT_VARIABLE differ)
if(differ EQUAL 0)
  message(FATAL_ERROR "frames 5 and 6 give the same image: --output is not the last frame")
endif()

gles_demo_run(small "${DEMO_DLOPEN}" --frames 2 --size 64x48 --output small.ppm)
gles_demo_ok(small)
file(READ "${WORK_DIR}/small.ppm" head LIMIT 12)
if(NOT head STREQUAL "P6\n64 48\n255\n")
  message(FATAL_ERROR "--size 64x48 wrote header '${head}'")
endif()
