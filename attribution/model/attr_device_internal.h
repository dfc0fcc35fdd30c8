/* What attr_device.c shares with attr_harvest.c: a submission as the device keeps it until its
 * frame is handed on, and reading its query results into its passes' results. */
#ifndef PP_ATTR_DEVICE_INTERNAL_H
#define PP_ATTR_DEVICE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attr_device.h"
#include "attr_record.h"
#include "pp_model.h"

struct pp_submission {
	struct pp_submission *next; /* within its frame, in submission order */
	struct pp_submission_result res;
	uint32_t npasses;
	struct pp_pass_result *passes;
	/* The tables below live in the submission's own allocation, after it. */
	uint32_t *ts_slots;    /* 2 per pass: begin, end (PP_NO_SLOT when none) */
	uint32_t *stats_slots; /* 1 per pass */
	uint32_t *perf_slots;  /* 1 per pass: the hardware counter backend's scopes */
	const char **perf_reasons; /* 1 per pass: why a pass has no scope */
	uint32_t ndraw_slots;  /* pairs, in pass order */
	uint32_t *draw_slots;
	uint32_t nrecs;
	struct pp_recording **recs; /* those whose last_submission is this one */
	bool slotted;       /* some pass or draw has a query slot: the harvest reads */
	bool harvested;
	bool timed;         /* harvested, some pass with a GPU interval */
};

/* Reads a submission's results into its passes' results (attr_harvest.c), under the device's
 * lock. Not forced: only when all are available, returns whether it harvested. Forced: takes
 * what is there and marks the rest unavailable. */
bool pp_attr_harvest_submission(const struct pp_attr_gpu_ops *ops, struct pp_submission *s, bool forced);

#endif
