/* A stand-in for one of passprobe's two libraries (the Vulkan layer, the GLES shim): its own
 * copy of the capture triggers (pp_core, linked in statically as the real libraries do, with
 * their entry point for the other library) and three entry points for test_capture_two_libs.c. Built twice, as libpassprobe_capture_a.so and
 * libpassprobe_capture_b.so: a passprobe library is known by its file name. */
#include <stdint.h>

#include "pp_capture.h"

__attribute__((visibility("default"))) int capture_lib_install(void)
{
	return pp_capture_signal_install();
}

__attribute__((visibility("default"))) uint64_t capture_lib_signals(void)
{
	return pp_capture_signal_count();
}

__attribute__((visibility("default"))) uint64_t capture_lib_triggers(const char *path)
{
	return pp_capture_trigger_count(path);
}
