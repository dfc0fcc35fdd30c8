# gles_demo_unavailable: where EGL has no usable vendor (glvnd pointed at a vendor file that
# does not exist), both builds exit 77, the code the other GLES tests skip on, and say why.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

foreach(binary "${DEMO}" "${DEMO_DLOPEN}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env
                          "__EGL_VENDOR_LIBRARY_FILENAMES=${WORK_DIR}/no-such-vendor.json"
                          "${binary}" --frames 1
                  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc STREQUAL "77")
    message(FATAL_ERROR "${binary} without an EGL vendor exited '${rc}', not 77:\n${out}${err}")
  endif()
  if(NOT err MATCHES "^pp_gles_demo: [^\n]+\n$" OR NOT out STREQUAL "")
    message(FATAL_ERROR "${binary} without an EGL vendor: want one line on stderr saying why:\n${out}${err}")
  endif()
endforeach()
