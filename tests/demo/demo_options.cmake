# demo_options: --help succeeds; a bad command line fails with exit code 2, one message
# naming the problem, and the usage.
include(${CMAKE_CURRENT_LIST_DIR}/demo_common.cmake)

demo_run(help --help)
if(NOT help_rc STREQUAL "0" OR NOT help_out MATCHES "^usage: passprobe-demo")
  message(FATAL_ERROR "--help: exit '${help_rc}', output:\n${help_all}")
endif()
foreach(opt --frames --width --height --draws --load --dynamic-only --renderpass-only --no-labels
            --frames-in-flight --output --submit2 --barrier2 --timings --misuse-barriers
            --misuse-query-wait --misuse-wait-idle)
  string(FIND "${help_out}" "${opt}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "--help does not mention ${opt}")
  endif()
endforeach()

# Each case: the arguments (separated by ^), then |, then a regex the message must match.
set(cases
  "--bogus|unknown option '--bogus'"
  "--frames|option '--frames' needs a value"
  "--frames^0|--frames wants"
  "--draws^x|--draws wants"
  "--load^lighting=0|--load wants"
  "--load^nopass=2|--load wants"
  "--load^gbuffer=1001|--load wants"
  "--frames-in-flight^17|--frames-in-flight wants"
  "--dynamic-only^--renderpass-only|exclude each other"
  "stray|unexpected argument 'stray'")
foreach(case ${cases})
  string(REGEX REPLACE "\\|.*$" "" args "${case}")
  string(REGEX REPLACE "^[^|]*\\|" "" pattern "${case}")
  string(REPLACE "^" ";" parts "${args}")
  demo_run(bad ${parts})
  if(NOT bad_rc STREQUAL "2")
    message(FATAL_ERROR "'${parts}': exit '${bad_rc}', expected 2:\n${bad_all}")
  endif()
  if(NOT bad_err MATCHES "^passprobe-demo: [^\n]*${pattern}" OR NOT bad_err MATCHES "\nusage: ")
    message(FATAL_ERROR "'${parts}': expected '${pattern}' and the usage on stderr:\n${bad_err}")
  endif()
endforeach()
