# gles_demo_runs: both builds render and say which build they are; --no-swap renders too.
include(${CMAKE_CURRENT_LIST_DIR}/gles_demo_common.cmake)

gles_demo_run(direct "${DEMO}" --frames 3)
gles_demo_ok(direct)
gles_demo_run(dl "${DEMO_DLOPEN}" --frames 3)
gles_demo_ok(dl)
if(NOT dl_out MATCHES "rendered 3 frames \\(5 passes, dlopen build, 0 threads\\)")
  message(FATAL_ERROR "pp_gles_demo_dlopen does not say it is the dlopen build:\n${dl_all}")
endif()
if(NOT "${DEMO}" STREQUAL "${DEMO_DLOPEN}" AND NOT direct_out MATCHES "direct build")
  message(FATAL_ERROR "pp_gles_demo does not say it is the linked build:\n${direct_all}")
endif()

gles_demo_run(noswap "${DEMO_DLOPEN}" --frames 3 --no-swap --size 64x48)
gles_demo_ok(noswap)

# --egl-platform: the display from the surfaceless platform, from the first EGL device (how
# NVIDIA's EGL runs without a window system), or auto (surfaceless where EGL has it); --info
# says which. Mesa offers both.
foreach(platform surfaceless device auto)
  foreach(binary "${DEMO}" "${DEMO_DLOPEN}")
    gles_demo_run(p "${binary}" --frames 2 --size 64x48 --egl-platform ${platform} --info)
    gles_demo_ok(p)
    set(want ${platform})
    if(platform STREQUAL "auto")
      set(want surfaceless)
    endif()
    if(NOT p_out MATCHES "(^|\n)info egl-platform ${want}\n")
      message(FATAL_ERROR "--egl-platform ${platform}: --info does not say 'info egl-platform ${want}':\n${p_all}")
    endif()
  endforeach()
endforeach()
