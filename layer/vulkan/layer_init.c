/* Process-wide set-up: the front ends' shared one (pp_process.c), then the GPU counters
 * setting; outputs flushed at process exit.
 * The layer's entry, with layer_dispatch.c: it wires the parts together, so it may reach up
 * (tests/layering/check_layering.py lists what it reaches). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "layer_internal.h"
#include "pp_gpu_counters.h"
#include "pp_log.h"
#include "pp_process.h"
#include "pp_sink.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void layer_init(void)
{
	/* Settings, log level, CPU counter events, the capture signal: as the GLES shim does. */
	pp_process_setup(&pp_layer_registry_settings);
	char err[600];
	if (pp_gpu_counters_setting_check(pp_layer_registry_settings.gpu_counters, err, sizeof(err)) < 0) {
		pp_log(PP_LOG_WARN, "%s; using none (no GPU hardware counters)", err);
		snprintf(pp_layer_registry_settings.gpu_counters, sizeof(pp_layer_registry_settings.gpu_counters), "none");
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
	pp_attr_sink_shutdown();
}
