/* A run's outputs from its recording (docs/cli.md): report.json, trace.json and passes.csv by
 * the sinks' replay of the recording (pp_attr_replay), then report.html from that report.json. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "passprobe_cli.h"
#include "pp_sink.h"
#include "pp_sink_replay.h"

#define RECORDING_NAME "recording.ppr"

int passprobe_outputs_make(const char *dir, long long start_sec, bool *finished)
{
	char path[PATH_MAX], html[PATH_MAX];
	struct stat st;
	if (finished)
		*finished = true;
	if (snprintf(path, sizeof(path), "%s/" RECORDING_NAME, dir) >= (int)sizeof(path) ||
	    snprintf(html, sizeof(html), "%s/report.html", dir) >= (int)sizeof(html))
		return 0;
	/* Two seconds of slack for file systems with coarse timestamps, as the output list. */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtim.tv_sec + 2 < start_sec)
		return 0;
	struct pp_sink_replay_result res;
	char err[PATH_MAX + 256];
	if (pp_attr_replay(path, dir, &res, err, sizeof(err)) != 0) {
		fprintf(stderr, "passprobe: %s; the outputs in %s were not made\n", err, dir);
		return -1;
	}
	if (finished)
		*finished = res.ended;
	if (!res.ended)
		fprintf(stderr, "passprobe: %s: %s\n", path, res.notes);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	struct cli_report rep;
	if (passprobe_load_report(path, &rep) != 0) {
		fprintf(stderr, "passprobe: report.html not written\n");
		return -1;
	}
	int rc = passprobe_html_write(&rep, html);
	passprobe_load_report_free(&rep);
	return rc ? -1 : 1;
}
