/* The GLES pass-boundary rules (intercept/gles/gles_pass_machine.c, docs/gles.md), driven
 * directly: one case per rule, then a property test over random event sequences that checks
 * what must hold whatever the order (a pass closes only once it opened, with the binding it
 * opened on; work never happens outside a pass; load/store masks say what happened to the
 * pass, checked against an independent account of the same events). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gles_pass_machine.h"
#include "pp_check.h"

static struct pp_gles_transition step(struct pp_gles_pass_machine *m, enum pp_gles_ev_kind k, uint32_t fb, uint32_t mask)
{
	struct pp_gles_event ev = { .kind = k, .fb = fb, .mask = mask };
	struct pp_gles_transition t;
	pp_gles_pass_machine_step(m, &ev, &t);
	return t;
}

static void rules(void)
{
	struct pp_gles_pass_machine m;
	struct pp_gles_transition t;
	pp_gles_pass_machine_init(&m);

	/* a binding without work makes no pass */
	t = step(&m, PP_GLES_EV_BIND, 3, 0);
	CHECK(!t.opened && !t.closed, "bind alone");
	t = step(&m, PP_GLES_EV_BIND, 4, 0);
	CHECK(!t.opened && !t.closed, "rebind alone");
	/* the first clear opens, with CLEAR for what it cleared */
	t = step(&m, PP_GLES_EV_CLEAR, 4, PP_GLES_ATT_COLOR | PP_GLES_ATT_DEPTH);
	CHECK(t.opened && t.opened_kind == PP_GLES_RENDER && t.opened_fb == 4, "clear opens");
	t = step(&m, PP_GLES_EV_DRAW, 4, 0);
	CHECK(!t.opened && !t.closed, "draw inside");
	/* a clear after draws does not change how the pass began */
	t = step(&m, PP_GLES_EV_CLEAR, 4, PP_GLES_ATT_STENCIL);
	t = step(&m, PP_GLES_EV_DISPATCH, 4, 0);
	CHECK(!t.opened && !t.closed, "dispatch inside a render pass is its work");
	/* an invalidate ends it, storing nothing of what it invalidated */
	t = step(&m, PP_GLES_EV_INVALIDATE, 4, PP_GLES_ATT_DEPTH);
	CHECK(t.closed && t.closed_fb == 4 && t.closed_kind == PP_GLES_RENDER, "invalidate closes");
	CHECK(t.load_clear == (PP_GLES_ATT_COLOR | PP_GLES_ATT_DEPTH), "load_clear %#x", t.load_clear);
	CHECK(t.store_dont_care == PP_GLES_ATT_DEPTH, "store %#x", t.store_dont_care);
	/* draw with nothing cleared: everything loaded */
	t = step(&m, PP_GLES_EV_DRAW, 4, 0);
	CHECK(t.opened && t.opened_fb == 4, "draw opens");
	t = step(&m, PP_GLES_EV_BIND, 4, 0);
	CHECK(!t.closed, "same binding is no boundary");
	t = step(&m, PP_GLES_EV_BIND, 0, 0);
	CHECK(t.closed && t.load_clear == 0 && t.load_dont_care == 0 && t.store_dont_care == 0, "loaded and stored");
	/* invalidated before the pass: not loaded */
	t = step(&m, PP_GLES_EV_INVALIDATE, 0, PP_GLES_ATT_COLOR);
	CHECK(!t.closed && !t.opened, "invalidate with nothing open");
	t = step(&m, PP_GLES_EV_DRAW, 0, 0);
	t = step(&m, PP_GLES_EV_END, 0, 0);
	CHECK(t.closed && t.load_dont_care == PP_GLES_ATT_COLOR, "not loaded %#x", t.load_dont_care);
	/* the invalidated state belongs to its binding */
	step(&m, PP_GLES_EV_INVALIDATE, 0, PP_GLES_ATT_COLOR);
	step(&m, PP_GLES_EV_BIND, 5, 0);
	step(&m, PP_GLES_EV_BIND, 0, 0);
	step(&m, PP_GLES_EV_DRAW, 0, 0);
	t = step(&m, PP_GLES_EV_END, 0, 0);
	CHECK(t.closed && t.load_dont_care == 0, "forgotten at rebind");
	/* dispatch alone: a compute pass, ended by a binding change */
	t = step(&m, PP_GLES_EV_DISPATCH, 0, 0);
	CHECK(t.opened && t.opened_kind == PP_GLES_COMPUTE, "dispatch opens compute");
	t = step(&m, PP_GLES_EV_DISPATCH, 0, 0);
	CHECK(!t.opened && !t.closed, "second dispatch");
	t = step(&m, PP_GLES_EV_BIND, 7, 0);
	CHECK(t.closed && t.closed_kind == PP_GLES_COMPUTE, "bind ends compute");
	/* dispatch then draw on the same binding: the compute pass becomes a render pass */
	step(&m, PP_GLES_EV_DISPATCH, 7, 0);
	t = step(&m, PP_GLES_EV_DRAW, 7, 0);
	CHECK(t.promoted && !t.opened && !t.closed && t.opened_fb == 7, "promoted");
	t = step(&m, PP_GLES_EV_END, 0, 0);
	CHECK(t.closed && t.closed_kind == PP_GLES_RENDER && t.closed_fb == 7, "promoted pass closes as render");
	/* END with nothing open: nothing */
	t = step(&m, PP_GLES_EV_END, 0, 0);
	CHECK(!t.closed && !t.opened, "end of nothing");
}

/* ---- property test ------------------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void property(uint32_t sequences, uint32_t length)
{
	for (uint32_t s = 0; s < sequences; s++) {
		struct pp_gles_pass_machine m;
		pp_gles_pass_machine_init(&m);
		/* the independent account */
		uint32_t bound = 0;
		int open = 0; /* 0 none, 1 render, 2 compute */
		uint32_t open_fb = 0, cleared = 0, invalidated_idle = 0, not_loaded = 0;
		int drawn = 0;
		uint64_t opens = 0, closes = 0;
		for (uint32_t i = 0; i < length; i++) {
			enum pp_gles_ev_kind k = (enum pp_gles_ev_kind)rnd(6);
			uint32_t fb = rnd(3), mask = rnd(8) | (rnd(4) == 0 ? 0x10 : 0);
			struct pp_gles_transition t = step(&m, k, fb, mask);
			mask &= PP_GLES_ATT_ALL;
			CHECK(!(t.opened && t.promoted), "opened and promoted at once (seq %u ev %u)", s, i);
			if (t.closed) {
				closes++;
				CHECK(open != 0, "closed with nothing open (seq %u ev %u)", s, i);
				CHECK(t.closed_kind == (open == 1 ? PP_GLES_RENDER : PP_GLES_COMPUTE), "kind (seq %u ev %u)", s, i);
				if (open == 1) {
					CHECK(t.closed_fb == open_fb, "closed on another binding (seq %u ev %u)", s, i);
					CHECK(t.load_clear == cleared, "load_clear %#x vs %#x (seq %u ev %u)", t.load_clear, cleared, s, i);
					CHECK(t.load_dont_care == (not_loaded & ~cleared), "not loaded (seq %u ev %u)", s, i);
					CHECK((t.load_clear & t.load_dont_care) == 0, "both loads");
					CHECK(t.store_dont_care == (k == PP_GLES_EV_INVALIDATE ? mask : 0), "store (seq %u ev %u)", s, i);
				}
				open = 0;
			}
			if (t.opened) {
				opens++;
				CHECK(open == 0, "opened over an open pass (seq %u ev %u)", s, i);
			}
			/* what the account expects of this event */
			switch (k) {
			case PP_GLES_EV_BIND:
				CHECK(fb == bound ? !t.closed : open == 0, "bind (seq %u ev %u)", s, i);
				if (fb != bound)
					invalidated_idle = 0;
				bound = fb;
				break;
			case PP_GLES_EV_CLEAR:
			case PP_GLES_EV_DRAW:
				if (t.opened || t.promoted) {
					CHECK(t.opened_kind == PP_GLES_RENDER || t.promoted, "work opens render (seq %u ev %u)", s, i);
					CHECK(t.opened_fb == bound, "opened on the binding (seq %u ev %u)", s, i);
					open = 1;
					open_fb = bound;
					cleared = 0;
					drawn = 0;
					not_loaded = invalidated_idle;
					invalidated_idle = 0;
				}
				CHECK(open == 1, "render work outside a render pass (seq %u ev %u)", s, i);
				if (k == PP_GLES_EV_CLEAR && !drawn)
					cleared |= mask;
				if (k == PP_GLES_EV_DRAW)
					drawn = 1;
				break;
			case PP_GLES_EV_DISPATCH:
				if (t.opened) {
					CHECK(t.opened_kind == PP_GLES_COMPUTE, "dispatch opens compute (seq %u ev %u)", s, i);
					open = 2;
				}
				CHECK(open != 0, "dispatch outside a pass (seq %u ev %u)", s, i);
				break;
			case PP_GLES_EV_INVALIDATE:
				if (!t.closed && open != 1)
					invalidated_idle |= mask;
				CHECK(open != 1, "invalidate left a render pass open (seq %u ev %u)", s, i);
				break;
			case PP_GLES_EV_END:
				CHECK(open == 0, "end left a pass open (seq %u ev %u)", s, i);
				break;
			}
			CHECK(m.open == (open == 1 ? PP_GLES_RENDER : open == 2 ? PP_GLES_COMPUTE : PP_GLES_NONE),
			      "machine and account disagree (seq %u ev %u)", s, i);
			if (check_failed > 20)
				return;
		}
		CHECK(opens == closes + (open != 0), "opens %llu closes %llu", (unsigned long long)opens,
		      (unsigned long long)closes);
	}
}

int main(int argc, char **argv)
{
	uint32_t sequences = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000;
	rules();
	property(sequences, 400);
	if (!check_failed)
		printf("gles pass machine: rules and %u random sequences of 400 events hold\n", sequences);
	return check_finish();
}
