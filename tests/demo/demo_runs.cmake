# demo_runs: the demo renders and reports what it rendered.
include(${CMAKE_CURRENT_LIST_DIR}/demo_common.cmake)

demo_run(run --frames 3)
demo_expect_summary(run 3 8)

demo_run(small --frames 2 --draws 3 --width 64 --height 48 --load gbuffer=2,postprocess=3)
demo_expect_summary(small 2 3)

# --timings reads the demo's own timestamp queries and names all five passes.
demo_run(timed --frames 2 --timings)
demo_expect_summary(timed 2 8)
foreach(pass shadow gbuffer lighting postprocess composite)
  if(NOT timed_out MATCHES "gpu time per frame[^\n]* ${pass} [0-9]+\\.[0-9]+ ms")
    message(FATAL_ERROR "--timings printed no time for ${pass}:\n${timed_all}")
  endif()
endforeach()
