# gles_demo_timings: --timings prints a GPU time for each pass from the demo's own
# GL_EXT_disjoint_timer_query timestamps, or says why there are none. Times are printed,
# never judged: how they compare with --load is the profiler tests' business.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

gles_demo_run(run "${DEMO_DLOPEN}" --frames 8 --timings)
gles_demo_ok(run)
if(run_out MATCHES "timings unavailable: ")
  message(STATUS "no timer queries here: ${run_out}")
  return()
endif()
foreach(pass shadow gbuffer lighting bloom composite)
  if(NOT run_out MATCHES "(^|\n)timing pass [0-4] ${pass} gpu_ms=[0-9]+\\.[0-9]+ median_ms=[0-9]+\\.[0-9]+\n")
    message(FATAL_ERROR "no time for ${pass}:\n${run_out}")
  endif()
endforeach()
if(NOT run_out MATCHES "\ntiming frames=[1-9][0-9]* disjoint=[0-9]+ unavailable=[0-9]+\n")
  message(FATAL_ERROR "no frame was timed:\n${run_out}")
endif()
