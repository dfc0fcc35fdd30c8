# demo_validation_clean: every mode, the misuse modes included, runs without a single message
# from the Khronos validation layer's core checks and its synchronization validation.
include(${CMAKE_CURRENT_LIST_DIR}/demo_common.cmake)

set(ENV{VK_INSTANCE_LAYERS} "VK_LAYER_KHRONOS_validation")
# The loader's layer log proves the layer really ran: a silent run without it proves nothing.
set(ENV{VK_LOADER_DEBUG} "layer")

# mode_check(<description> args...)
function(mode_check what)
  demo_run(run ${ARGN})
  if(NOT run_all MATCHES "Inserted device layer \"VK_LAYER_KHRONOS_validation\"")
    # The loader's log names every manifest it found; without this one the layer is absent.
    if(NOT run_all MATCHES "VkLayer_khronos_validation\\.json")
      # CMake 3.22 scripts cannot choose their exit code: the test's
      # SKIP_REGULAR_EXPRESSION turns this marker into "skipped".
      message(FATAL_ERROR "DEMO_SKIP: VK_LAYER_KHRONOS_validation is not installed")
    endif()
    message(FATAL_ERROR "${what}: the validation layer was not loaded:\n${run_all}")
  endif()
  if(NOT run_rc STREQUAL "0")
    message(FATAL_ERROR "${what}: passprobe-demo exited with '${run_rc}':\n${run_all}")
  endif()
  string(REGEX MATCHALL "[^\n]*(Validation Error|VUID|SYNC-HAZARD)[^\n]*" found "${run_all}")
  if(found)
    list(LENGTH found n)
    string(REPLACE ";" "\n" found "${found}")
    message(FATAL_ERROR "${what}: ${n} validation message(s):\n${found}")
  endif()
  message(STATUS "${what}: clean")
endfunction()

mode_check("core checks, default mode" --frames 3)

# Synchronization validation is added to, not substituted for, the core checks.
set(ENV{VK_LAYER_ENABLES} "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
mode_check("sync, default mode" --frames 3)
mode_check("sync, --misuse-barriers" --frames 3 --misuse-barriers)
mode_check("sync, --misuse-barriers --barrier2" --frames 3 --misuse-barriers --barrier2)
mode_check("sync, --misuse-query-wait" --frames 3 --misuse-query-wait)
mode_check("sync, --misuse-wait-idle" --frames 3 --misuse-wait-idle)
mode_check("sync, --dynamic-only" --frames 3 --dynamic-only)
mode_check("sync, --renderpass-only" --frames 3 --renderpass-only)
mode_check("sync, --no-labels" --frames 3 --no-labels)
mode_check("sync, --submit2 --barrier2" --frames 3 --submit2 --barrier2)
mode_check("sync, --frames-in-flight 1 --timings" --frames 3 --frames-in-flight 1 --timings)
mode_check("sync, --frames-in-flight 3 --output" --frames 5 --frames-in-flight 3
           --output validation.ppm)
mode_check("sync, odd size, 1 draw, loads" --frames 2 --draws 1 --width 37 --height 19
           --load shadow=2,gbuffer=2,lighting=2,postprocess=2,composite=2)
