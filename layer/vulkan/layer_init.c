/* Process-wide set-up: settings once, outputs flushed at process exit. */
#include <pthread.h>

#include "layer_internal.h"
#include "attr_cpu.h"
#include "pp_log.h"
#include "pp_sink.h"

struct pp_settings pp_layer_settings;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void layer_init(void)
{
	pp_settings_load(&pp_layer_settings, NULL);
	pp_log_set_level(pp_layer_settings.log_level);
	/* Before any thread takes a snapshot: configuring closes every thread's counters. */
	pp_cpu_counters_setup(pp_layer_settings.cpu_counters);
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
