#pragma once
/* Every output made from a recording (attr_replay.c; library pp_attribution_replay, linked by
 * the passprobe tool and never by the layer or the shim). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes report.json, trace.json and passes.csv (as the recorded settings ask for them) in
 * out_dir from the recording at path, through the same outputs a process feeds (docs/cli.md,
 * `passprobe report`). A recording cut short (a killed process), or from a newer passprobe
 * with records this one does not know, gives outputs of what it holds, and the report's
 * summary notes say what was left out. 0, or -errno with one message in err (not a recording,
 * a newer format, cannot write out_dir; -EBUSY while this process's own sink runs). Not
 * thread-safe. */
struct pp_sink_replay_result {
	uint64_t frames; /* frames read */
	bool ended;      /* the process finished its recording */
	char notes[512]; /* what reading found: cut short, unknown records, ... */
};
int pp_attr_replay(const char *path, const char *out_dir, struct pp_sink_replay_result *res, char *err,
		   size_t err_len);
