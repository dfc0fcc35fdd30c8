/* Process-wide set-up of the GLES shim: settings (the one reader, layer/common/pp_settings.c),
 * CPU counter events, the capture signal (pp_process.c, shared with the Vulkan layer) and the
 * outputs, once, at the first context made current, so a program that never makes a GL
 * context current is not touched. Outputs finished at exit.
 *
 * Where the outputs go: the GLES shim is a library of its own with its own writer, so a
 * program that uses both APIs would have two writers of one output_dir. The shim writes into
 * the `gles` folder inside output_dir (output_dir/gles/report.json ...), the Vulkan layer into
 * output_dir itself (docs/gles.md). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gles_internal.h"
#include "pp_log.h"
#include "pp_process.h"
#include "pp_sink.h"

struct pp_settings pp_gles_init_settings;
bool pp_gles_init_exiting;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void gles_init(void)
{
	/* Settings, log level, CPU counter events, the capture signal: as the Vulkan layer does. */
	pp_process_setup(&pp_gles_init_settings);
	pp_gles_renderdoc_setup();
	struct pp_settings out = pp_gles_init_settings;
	if (out.output_dir[0]) {
		size_t len = strlen(out.output_dir);
		if (len + 6 < sizeof(out.output_dir))
			snprintf(out.output_dir + len, sizeof(out.output_dir) - len, "%sgles",
				 out.output_dir[len - 1] == '/' ? "" : "/");
	}
	if (pp_attr_sink_init(&out) < 0)
		pp_log_once(PP_LOG_WARN, "GLES: outputs could not be started; measuring without them");
}

void pp_gles_init_once(void)
{
	pthread_once(&g_once, gles_init);
}

static pid_t g_load_pid;

__attribute__((constructor)) static void gles_load(void)
{
	g_load_pid = getpid();
}

__attribute__((destructor)) static void gles_fini(void)
{
	/* A forked child that exits: the context records, their devices and the outputs are the
	 * parent's, and their locks may have been held by a parent thread at fork(). */
	if (getpid() != g_load_pid)
		return;
	pp_gles_init_exiting = true;
	pp_gles_context_shutdown();
	pp_attr_sink_shutdown();
}
