/* The rules the GLES shim reports (attribution/diag, docs/diagnostics.md "OpenGL ES") on their
 * own: every rule has its own stable ID, and each GL rule a message and a suggestion; a
 * finding with nothing measured (cost_unavailable) is counted per site with its reason and no
 * cost, a measured one with its CPU time; a steady-state finding counts only once its site
 * recurs in a later frame. */
#include <stdio.h>
#include <string.h>

#include "attr_diag.h"
#include "pp_check.h"

static struct pp_diagnostic snap[64];

/* The site of this ID and site text; *nsites: how many entries have both. */
static const struct pp_diagnostic *find_at(const char *id, const char *site, size_t *nsites)
{
	size_t n = pp_diag_sites_snapshot(snap, 64, NULL);
	const struct pp_diagnostic *d = NULL;
	*nsites = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(snap[i].id, id) && (!site || !strcmp(snap[i].site, site))) {
			d = &snap[i];
			++*nsites;
		}
	return d;
}

static const struct pp_diagnostic *find(const char *id, size_t *nsites)
{
	return find_at(id, NULL, nsites);
}

static uint32_t messages; /* for the application's callback, returned by the submissions */

static void submit(struct pp_diag_device *dd, uint64_t frame)
{
	const struct pp_diag_submission s = { .queue = 1, .frame = frame, .ended = frame };
	struct pp_diag_submit_todo todo;
	CHECK(pp_diag_device_submitted(dd, &s, &todo) == 0);
	messages += todo.nmessages;
	pp_diag_device_submit_todo_free(&todo);
}

int main(void)
{
	for (int a = 0; a < PP_DIAG_RULE_COUNT; a++) {
		CHECK(strncmp(pp_diag_vocab_rule_id((enum pp_diag_rule)a), "PASSPROBE-", 10) == 0);
		CHECK(strcmp(pp_diag_vocab_rule_id((enum pp_diag_rule)a), "PASSPROBE-unknown") != 0);
		for (int b = 0; b < a; b++)
			CHECK(strcmp(pp_diag_vocab_rule_id((enum pp_diag_rule)a), pp_diag_vocab_rule_id((enum pp_diag_rule)b)) != 0);
	}

	struct pp_diag_config cfg = { .sink_device_id = 0, .frame_delimiter = 0 };
	struct pp_diag_device *dd = pp_diag_device_create(&cfg);
	CHECK(dd != NULL);
	if (!dd)
		return 1;
	/* Each GL rule, once at its own site, measured: a message, a suggestion, the cost. */
	for (int r = PP_DIAG_READBACK_DRAIN; r <= PP_DIAG_STATIC_BUFFER_UPDATE; r++) {
		submit(dd, 1);
		struct pp_diag_blocking b = { .rule = (enum pp_diag_rule)r, .site_key = 1000 + (uint64_t)r,
					      .site = "glCall called from app+0x10", .cpu_ns = 5000 };
		CHECK(pp_diag_waits_blocking_report(dd, &b) != 0);
		size_t n;
		const struct pp_diagnostic *d = find(pp_diag_vocab_rule_id((enum pp_diag_rule)r), &n);
		CHECK(d && n == 1 && d->count == 1);
		CHECK(d && d->message[0] && d->suggestion[0] && !strstr(d->message, "vk"));
		CHECK(d && d->cost_valid && d->cost_ns == 5000 && !strcmp(d->cost_kind, "cpu_blocked"));
	}
	/* A pass finding: nothing measured, with the reason; the same site over frames is one entry. */
	static const char why[] = "attachment bandwidth is not measured";
	for (uint64_t f = 2; f < 5; f++) {
		submit(dd, f);
		struct pp_diag_blocking b = { .rule = PP_DIAG_PASS_UNNEEDED_STORE, .site_key = 77,
					      .site = "pass \"composite\"", .cost_unavailable = why };
		CHECK(pp_diag_waits_blocking_report(dd, &b) != 0);
	}
	size_t n;
	const struct pp_diagnostic *d = find("PASSPROBE-Pass-UnneededStore", &n);
	CHECK(d && n == 1 && d->count == 3 && d->frames == 3);
	CHECK(d && !d->cost_valid && d->cost_unavailable && !strcmp(d->cost_unavailable, why) && !d->cost_kind);
	/* Steady state: a glFinish site counts only once it waits in a third frame close to the
	 * first (a helper that finishes at start-up and at shutdown is not the frame loop's). */
	submit(dd, 10);
	struct pp_diag_blocking fin = { .rule = PP_DIAG_FINISH, .site_key = 99, .site = "glFinish", .cpu_ns = 7,
				       .steady_state = true };
	CHECK(pp_diag_waits_blocking_report(dd, &fin) == 0);
	submit(dd, 11);
	CHECK(pp_diag_waits_blocking_report(dd, &fin) == 0);
	CHECK(pp_diag_waits_blocking_report(dd, &fin) == 0);
	CHECK(!find_at("PASSPROBE-Blocking-FinishInFrameLoop", "glFinish", &n));
	submit(dd, 12);
	CHECK(pp_diag_waits_blocking_report(dd, &fin) != 0);
	d = find_at("PASSPROBE-Blocking-FinishInFrameLoop", "glFinish", &n);
	CHECK(d && n == 1 && d->count == 4 && d->frames == 3 && d->cost_valid && d->cost_ns == 28 / 3);
	/* The first occurrence of each site was queued once for the application's callback. */
	struct pp_diag_message m[16];
	messages += pp_diag_device_messages_take(dd, m, 16);
	CHECK(messages == (uint32_t)(PP_DIAG_STATIC_BUFFER_UPDATE - PP_DIAG_READBACK_DRAIN + 1) + 2);
	pp_diag_device_destroy(dd);
	if (!check_failed)
		printf("diag_gl_rules: ok\n");
	return check_finish();
}
