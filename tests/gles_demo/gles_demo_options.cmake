# gles_demo_options: a bad option gets one message naming it and what is allowed, exit 2;
# --help prints the usage and exits 0.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

gles_demo_run(help "${DEMO}" --help)
if(NOT help_rc STREQUAL "0" OR NOT help_out MATCHES "--misuse NAME" OR NOT help_out MATCHES "tile-load-store")
  message(FATAL_ERROR "--help: rc '${help_rc}':\n${help_all}")
endif()

# Each case: the arguments (separated by '|'), then a regex the message must match.
set(cases
  "--frames|0" "--frames wants a whole number >= 1, not '0'"
  "--frames|x" "--frames wants"
  "--size|64" "--size wants WxH with W and H in 1..4096, not '64'"
  "--size|0x10" "--size wants"
  "--size|10x5000" "--size wants"
  "--load|1,2,3" "--load wants 5 whole numbers in 1..1000"
  "--load|1,2,3,4,5,6" "--load wants 5"
  "--load|1,2,0,4,5" "--load wants 5"
  "--threads|17" "--threads wants a whole number in 0..16, not '17'"
  "--misuse|bogus" "--misuse wants one of readpixels, finish, query-result, clientwaitsync, map-sync, texsubimage, bufsubdata-static, tile-load-store, not 'bogus'"
  "--control|none" "--control wants one of readpixels"
  "--misuse|finish|--control|finish" "--misuse finish and --control finish exclude each other"
  "--output=" "--output wants a file name"
  "--gl-errors=" "--gl-errors wants a file name"
  "--egl-platform|x11" "--egl-platform wants surfaceless, device or auto, not 'x11'"
  "--bogus" "unknown option '--bogus'"
  "--frames" "option '--frames' needs a value"
  "extra" "unexpected argument 'extra'")
list(LENGTH cases n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET cases ${i} args)
  list(GET cases ${j} want)
  string(REPLACE "|" ";" argv "${args}")
  foreach(binary "${DEMO}" "${DEMO_DLOPEN}")
    gles_demo_run(bad "${binary}" ${argv})
    if(NOT bad_rc STREQUAL "2")
      message(FATAL_ERROR "'${args}' exited '${bad_rc}', not 2:\n${bad_all}")
    endif()
    string(REGEX REPLACE "([][.*+?()^$|\\\\])" "\\\\\\1" want_re "${want}")
    if(NOT bad_err MATCHES "^pp_gles_demo: ${want_re}")
      message(FATAL_ERROR "'${args}': the message does not say\n  ${want}\nit says:\n${bad_err}")
    endif()
    if(NOT bad_out STREQUAL "")
      message(FATAL_ERROR "'${args}' printed to stdout:\n${bad_out}")
    endif()
  endforeach()
endforeach()
