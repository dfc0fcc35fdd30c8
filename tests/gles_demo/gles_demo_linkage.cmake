# gles_demo_linkage: pp_gles_demo needs libEGL and libGLESv2 at load time (DT_NEEDED);
# pp_gles_demo_dlopen needs neither and really opens them at run time.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

find_program(READELF readelf)
if(NOT READELF)
  message(STATUS "GLES_DEMO_SKIP: readelf not found (Debian binutils)")
  return()
endif()
function(needed_of var binary)
  execute_process(COMMAND "${READELF}" -d "${binary}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${binary} failed")
  endif()
  string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" needed "${out}")
  set(${var} "${needed}" PARENT_SCOPE)
endfunction()

needed_of(dl "${DEMO_DLOPEN}")
if(dl MATCHES "libEGL|libGLES")
  message(FATAL_ERROR "pp_gles_demo_dlopen links EGL/GLES: ${dl}")
endif()
if(NOT "${DEMO}" STREQUAL "${DEMO_DLOPEN}")
  needed_of(direct "${DEMO}")
  if(NOT direct MATCHES "libEGL\\.so\\.1" OR NOT direct MATCHES "libGLESv2\\.so\\.2")
    message(FATAL_ERROR "pp_gles_demo does not link libEGL.so.1 and libGLESv2.so.2: ${direct}")
  endif()
endif()

# The dlopen build opens the libraries itself: LD_DEBUG=files shows the dlopen calls.
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_DEBUG=files "${DEMO_DLOPEN}" --frames 1
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(rc EQUAL 77)
  message(STATUS "GLES_DEMO_SKIP: EGL/OpenGL ES 3.2 unavailable: ${err}")
  return()
endif()
if(NOT rc EQUAL 0 OR NOT err MATCHES "file=libEGL\\.so\\.1 \\[0\\];  dynamically loaded by"
   OR NOT err MATCHES "file=libGLESv2\\.so\\.2 \\[0\\];  dynamically loaded by")
  message(FATAL_ERROR "pp_gles_demo_dlopen did not dlopen libEGL.so.1 and libGLESv2.so.2 (rc ${rc})")
endif()
