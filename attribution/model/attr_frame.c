/* The frame clock (attr_frame.h). The frame_delimiter setting decides:
 *   auto    - a present ends a frame; before any present and without a swapchain, a submit
 *             that signals a fence does (headless programs);
 *   present - presents only;  submit - every submit call;  label:<name> - a submit whose
 *             recordings push the named debug label. */
#include "attr_frame.h"

void pp_frame_clock_init(struct pp_frame_clock *c, enum pp_frame_delimiter delimiter)
{
	*c = (struct pp_frame_clock){ .delimiter = delimiter };
}

uint64_t pp_frame_clock_submit(struct pp_frame_clock *c)
{
	if (!c->open) {
		c->open = true;
		c->current = c->next++;
	}
	return c->current;
}

bool pp_frame_clock_end(struct pp_frame_clock *c, const char *why)
{
	if (!c->open)
		return false;
	c->open = false;
	c->ended = c->current + 1;
	c->why = why;
	return true;
}

bool pp_frame_clock_submit_done(struct pp_frame_clock *c, bool signalled_fence, bool saw_frame_label)
{
	switch (c->delimiter) {
	case PP_FRAME_SUBMIT:
		return pp_frame_clock_end(c, "submit");
	case PP_FRAME_AUTO:
		if (!c->presented && !c->swapchain && signalled_fence)
			return pp_frame_clock_end(c, "fence");
		return false;
	case PP_FRAME_LABEL:
		return saw_frame_label && pp_frame_clock_end(c, "label");
	case PP_FRAME_PRESENT:
		break;
	}
	return false;
}

void pp_frame_clock_swapchain_created(struct pp_frame_clock *c)
{
	c->swapchain = true;
}

bool pp_frame_clock_present(struct pp_frame_clock *c)
{
	if (c->delimiter != PP_FRAME_AUTO && c->delimiter != PP_FRAME_PRESENT)
		return false;
	c->presented = true;
	return pp_frame_clock_end(c, "present");
}
