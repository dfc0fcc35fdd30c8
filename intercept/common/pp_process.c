/* The front ends' shared process set-up (pp_process.h). */
#include "pp_process.h"

#include <errno.h>
#include <string.h>

#include "pp_capture.h"
#include "pp_log.h"
#include "pp_renderdoc.h"
#include "pp_renderdoc_frames.h"
#include "pp_settings.h"
#include "pp_sink.h"

void pp_process_setup(struct pp_settings *settings)
{
	pp_settings_load(settings, NULL);
	pp_log_set_level(settings->log_level);
	pp_attr_sink_cpu_counters_configure(settings->cpu_counters);
	if (settings->capture_signal) {
		int err = pp_capture_signal_install();
		if (err == -EBUSY)
			pp_log(PP_LOG_INFO, "capture_signal: the application handles SIGUSR2 itself; passprobe "
			       "leaves it alone (use trigger_file to start capture windows)");
		else if (err)
			pp_log(PP_LOG_WARN, "capture_signal: cannot install the SIGUSR2 handler: %s", strerror(-err));
	}
	/* RenderDoc is loaded before the first instance or context: its Vulkan layer sits above
	 * passprobe's, its OpenGL hooks are preloaded. */
	pp_renderdoc_find();
	pp_renderdoc_frames_setup(&settings->renderdoc_frames);
}
