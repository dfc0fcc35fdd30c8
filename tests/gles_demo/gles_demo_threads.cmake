# gles_demo_threads: --threads N starts N threads with contexts of their own (odd ones
# sharing objects with the main context), each rendering and swapping its own pbuffer every
# frame; all of them finish, in both builds, with and without eglSwapBuffers.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

foreach(binary "${DEMO}" "${DEMO_DLOPEN}")
  gles_demo_run(run "${binary}" --frames 8 --threads 4 --expect)
  gles_demo_ok(run)
  foreach(t 0 1 2 3)
    math(EXPR shared "${t} % 2")
    if(NOT run_out MATCHES "\nexpect thread ${t} passes=2 draws=5 frames=8 shared=${shared}\n")
      message(FATAL_ERROR "no expect line for thread ${t}:\n${run_out}")
    endif()
    if(NOT run_out MATCHES "\nissued thread ${t} passes=16 draws=40 swaps=8\n")
      message(FATAL_ERROR "thread ${t} did not render its 8 frames:\n${run_out}")
    endif()
  endforeach()
  if(NOT run_out MATCHES "rendered 8 frames \\(5 passes, [a-z]+ build, 4 threads\\)")
    message(FATAL_ERROR "summary:\n${run_out}")
  endif()
endforeach()

gles_demo_run(noswap "${DEMO}" --frames 4 --threads 3 --no-swap --expect)
gles_demo_ok(noswap)
if(NOT noswap_out MATCHES "\nissued thread 2 passes=8 draws=20 swaps=0\n")
  message(FATAL_ERROR "--no-swap threads:\n${noswap_out}")
endif()
