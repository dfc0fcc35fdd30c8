/* Process-wide set-up: settings and CPU counter events once, outputs flushed at process exit.
 * The layer's entry, with layer_dispatch.c: it wires the parts together, so it may reach up
 * (tests/layering/check_layering.py lists what it reaches). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "layer_internal.h"
#include "pp_capture.h"
#include "pp_gpu_counters.h"
#include "pp_log.h"
#include "pp_sink.h"

struct pp_settings pp_layer_settings;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void layer_init(void)
{
	pp_settings_load(&pp_layer_settings, NULL);
	pp_log_set_level(pp_layer_settings.log_level);
	/* Before any thread takes a snapshot: configuring closes every thread's counters. */
	pp_sink_cpu_counters_configure(pp_layer_settings.cpu_counters);
	if (pp_layer_settings.capture_signal) {
		int err = pp_capture_signal_install();
		if (err == -EBUSY)
			pp_log(PP_LOG_INFO, "capture_signal: the application handles SIGUSR2 itself; passprobe "
			       "leaves it alone (use trigger_file to start capture windows)");
		else if (err)
			pp_log(PP_LOG_WARN, "capture_signal: cannot install the SIGUSR2 handler: %s", strerror(-err));
	}
	char err[600];
	if (pp_gpu_counters_setting_check(pp_layer_settings.gpu_counters, err, sizeof(err)) < 0) {
		pp_log(PP_LOG_WARN, "%s; using none (no GPU hardware counters)", err);
		snprintf(pp_layer_settings.gpu_counters, sizeof(pp_layer_settings.gpu_counters), "none");
	}
}

void pp_layer_init_once(void)
{
	pthread_once(&g_once, layer_init);
}

/* The library is linked with -z nodelete, so this runs at process exit, not when the loader
 * unloads layers at vkDestroyInstance: one set of outputs per process. */
__attribute__((destructor)) static void layer_fini(void)
{
	pp_sink_shutdown();
}
