/* The pass-boundary rules (gles_pass_machine.h), pure. */
#include <string.h>

#include "gles_pass_machine.h"

void pp_gles_pass_machine_init(struct pp_gles_pass_machine *m)
{
	memset(m, 0, sizeof(*m));
}

static void close_open(struct pp_gles_pass_machine *m, struct pp_gles_transition *t, uint32_t store_dont_care)
{
	if (m->open == PP_GLES_NONE)
		return;
	t->closed = true;
	t->closed_kind = m->open;
	if (m->open == PP_GLES_RENDER) {
		t->closed_fb = m->open_fb;
		t->load_clear = m->cleared;
		t->load_dont_care = m->not_loaded & ~m->cleared;
		t->store_dont_care = store_dont_care;
	}
	m->open = PP_GLES_NONE;
	m->drawn = false;
	m->cleared = m->not_loaded = 0;
}

static void open_render(struct pp_gles_pass_machine *m, struct pp_gles_transition *t)
{
	m->open = PP_GLES_RENDER;
	m->open_fb = m->fb;
	m->drawn = false;
	m->cleared = 0;
	/* Contents invalidated since the last pass on this binding are not loaded. */
	m->not_loaded = m->invalidated;
	m->invalidated = 0;
	t->opened = true;
	t->opened_kind = PP_GLES_RENDER;
	t->opened_fb = m->fb;
}

static void open_compute(struct pp_gles_pass_machine *m, struct pp_gles_transition *t)
{
	m->open = PP_GLES_COMPUTE;
	m->open_fb = m->fb;
	t->opened = true;
	t->opened_kind = PP_GLES_COMPUTE;
	t->opened_fb = m->fb;
}

/* A render pass from here on: a new one, or the open compute pass promoted. */
static void render_from_here(struct pp_gles_pass_machine *m, struct pp_gles_transition *t)
{
	if (m->open != PP_GLES_COMPUTE) {
		open_render(m, t);
		return;
	}
	open_render(m, t);
	t->opened = false;
	t->promoted = true;
}

void pp_gles_pass_machine_step(struct pp_gles_pass_machine *m, const struct pp_gles_event *ev, struct pp_gles_transition *t)
{
	memset(t, 0, sizeof(*t));
	switch (ev->kind) {
	case PP_GLES_EV_BIND:
		if (ev->fb == m->fb)
			return;
		close_open(m, t, 0);
		m->fb = ev->fb;
		/* What was invalidated belongs to the framebuffer that was bound. */
		m->invalidated = 0;
		return;
	case PP_GLES_EV_CLEAR:
		if (m->open == PP_GLES_RENDER) {
			/* A clear after draws is work inside the pass, not how it began. */
			if (!m->drawn)
				m->cleared |= ev->mask & PP_GLES_ATT_ALL;
			return;
		}
		render_from_here(m, t);
		m->cleared = ev->mask & PP_GLES_ATT_ALL;
		return;
	case PP_GLES_EV_DRAW:
		if (m->open != PP_GLES_RENDER)
			render_from_here(m, t);
		m->drawn = true;
		return;
	case PP_GLES_EV_DISPATCH:
		if (m->open == PP_GLES_NONE)
			open_compute(m, t);
		return;
	case PP_GLES_EV_INVALIDATE:
		if (m->open == PP_GLES_RENDER) {
			close_open(m, t, ev->mask & PP_GLES_ATT_ALL);
			return;
		}
		m->invalidated |= ev->mask & PP_GLES_ATT_ALL;
		return;
	case PP_GLES_EV_END:
		close_open(m, t, 0);
		return;
	}
}
